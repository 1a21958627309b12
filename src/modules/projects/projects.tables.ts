import {
  date,
  foreignKey,
  index,
  numeric,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, rowId, timestamptz, updatedAt } from '../../db/columns.js';
import { orgMembers, organizations } from '../orgs/orgs.tables.js';
import { programs } from '../programs/programs.tables.js';

export const projectStatus = pgEnum('project_status', ['draft', 'active', 'completed', 'suspended']);

export const projects = pgTable(
  'projects',
  {
    id: rowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    programId: uuid('program_id').notNull(),
    name: text('name').notNull(),
    code: text('code').notNull(),
    description: text('description'),
    budget: numeric('budget', { precision: 18, scale: 2, mode: 'number' }).notNull().default(0),
    currency: text('currency').notNull(),
    startDate: date('start_date', { mode: 'string' }).notNull(),
    endDate: date('end_date', { mode: 'string' }).notNull(),
    status: projectStatus('status').notNull().default('draft'),
    location: text('location'),
    lead: text('lead'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('projects_org_id_code_key').on(t.orgId, t.code),
    primaryKey({ name: 'projects_pkey', columns: [t.orgId, t.id] }),
    index('projects_org_id_program_id_idx').on(t.orgId, t.programId),
    // The program must be of the same organization, enforced by the database too.
    foreignKey({ columns: [t.orgId, t.programId], foreignColumns: [programs.orgId, programs.id] }).onDelete(
      'cascade',
    ),
  ],
);

/** A reporter sees and writes only the projects assigned here. */
export const projectMembers = pgTable(
  'project_members',
  {
    orgId: uuid('org_id').notNull(),
    projectId: uuid('project_id').notNull(),
    userId: uuid('user_id').notNull(),
    assignedAt: timestamptz('assigned_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.userId, t.projectId] }),
    index('project_members_org_id_project_id_idx').on(t.orgId, t.projectId),
    foreignKey({ columns: [t.orgId, t.projectId], foreignColumns: [projects.orgId, projects.id] }).onDelete(
      'cascade',
    ),
    // Leaving the organization ends every assignment in it.
    foreignKey({
      columns: [t.orgId, t.userId],
      foreignColumns: [orgMembers.orgId, orgMembers.userId],
    }).onDelete('cascade'),
  ],
);
