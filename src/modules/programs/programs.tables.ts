import { date, foreignKey, index, pgEnum, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, rowId, updatedAt } from '../../db/columns.js';
import { donors } from '../donors/donors.tables.js';
import { organizations } from '../orgs/orgs.tables.js';

export const programStatus = pgEnum('program_status', ['draft', 'active', 'completed']);

export const programs = pgTable(
  'programs',
  {
    id: rowId(),
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
  (t) => [
    index('programs_org_id_created_at_idx').on(t.orgId, t.createdAt),
    primaryKey({ name: 'programs_pkey', columns: [t.orgId, t.id] }),
  ],
);

/** Donors attach at program level; deleting either side removes the link. */
export const programDonors = pgTable(
  'program_donors',
  {
    orgId: uuid('org_id').notNull(),
    programId: uuid('program_id').notNull(),
    donorId: uuid('donor_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.programId, t.donorId] }),
    index('program_donors_org_id_donor_id_idx').on(t.orgId, t.donorId),
    foreignKey({ columns: [t.orgId, t.programId], foreignColumns: [programs.orgId, programs.id] }).onDelete(
      'cascade',
    ),
    foreignKey({ columns: [t.orgId, t.donorId], foreignColumns: [donors.orgId, donors.id] }).onDelete(
      'cascade',
    ),
  ],
);
