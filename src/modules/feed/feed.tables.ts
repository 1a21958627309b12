import { index, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { rowId, timestamptz } from '../../db/columns.js';
import { users } from '../auth/auth.tables.js';
import { organizations } from '../orgs/orgs.tables.js';

export const feedEvents = pgTable(
  'feed_events',
  {
    id: rowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    occurredAt: timestamptz('occurred_at').notNull().defaultNow(),
    actorId: uuid('actor_id').references(() => users.id, { onDelete: 'set null' }),
    projectId: uuid('project_id'),
    subjectType: text('subject_type').notNull(),
    subjectId: uuid('subject_id').notNull(),
    subjectLabel: text('subject_label').notNull(),
    summary: text('summary').notNull(),
  },
  (t) => [
    primaryKey({ name: 'feed_events_pkey', columns: [t.orgId, t.id] }),
    index('feed_events_org_id_occurred_at_idx').on(t.orgId, t.occurredAt.desc(), t.id.desc()),
  ],
);
