import { date, index, pgEnum, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, updatedAt } from '../../db/columns.js';
import { organizations } from '../orgs/orgs.tables.js';

export const programStatus = pgEnum('program_status', ['draft', 'active', 'completed']);

export const programs = pgTable(
  'programs',
  {
    id: id(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    startDate: date('start_date', { mode: 'string' }).notNull(),
    endDate: date('end_date', { mode: 'string' }).notNull(),
    status: programStatus('status').notNull().default('draft'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('programs_org_id_created_at_idx').on(t.orgId, t.createdAt)],
);
