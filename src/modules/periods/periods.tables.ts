import {
  boolean,
  date,
  foreignKey,
  index,
  pgTable,
  primaryKey,
  text,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, rowId, timestamptz, updatedAt } from '../../db/columns.js';
import { users } from '../auth/auth.tables.js';
import { projects } from '../projects/projects.tables.js';

/** Reporting periods of a project; they never overlap within one project. */
export const reportingPeriods = pgTable(
  'reporting_periods',
  {
    id: rowId(),
    orgId: uuid('org_id').notNull(),
    projectId: uuid('project_id').notNull(),
    label: text('label').notNull(),
    startDate: date('start_date', { mode: 'string' }).notNull(),
    endDate: date('end_date', { mode: 'string' }).notNull(),
    dueDate: date('due_date', { mode: 'string' }),
    isLocked: boolean('is_locked').notNull().default(false),
    lockedAt: timestamptz('locked_at'),
    lockedBy: uuid('locked_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    foreignKey({ columns: [t.orgId, t.projectId], foreignColumns: [projects.orgId, projects.id] }).onDelete(
      'cascade',
    ),
    primaryKey({ name: 'reporting_periods_pkey', columns: [t.orgId, t.id] }),
    // Indicator reports and submissions reference a period of their own project.
    unique('reporting_periods_org_id_project_id_id_key').on(t.orgId, t.projectId, t.id),
    index('reporting_periods_org_id_project_id_start_date_idx').on(t.orgId, t.projectId, t.startDate),
  ],
);
