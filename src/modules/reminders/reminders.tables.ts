import { foreignKey, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from '../../db/columns.js';
import { users } from '../auth/auth.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';

/**
 * One row per reminder sent: (period, user, kind) is its key, so however many workers run the job, and
 * however often it restarts, each reminder is sent once. Kinds: `due_in_<N>` and `overdue`.
 */
export const reminderSends = pgTable(
  'reminder_sends',
  {
    periodId: uuid('period_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    orgId: uuid('org_id').notNull(),
    sentAt: timestamptz('sent_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'reminder_sends_pkey', columns: [t.orgId, t.periodId, t.userId, t.kind] }),
    foreignKey({
      name: 'reminder_sends_period_id_reporting_periods_id_fk',
      columns: [t.orgId, t.periodId],
      foreignColumns: [reportingPeriods.orgId, reportingPeriods.id],
    }).onDelete('cascade'),
  ],
);
