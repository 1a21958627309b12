import { foreignKey, index, numeric, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, rowId, updatedAt } from '../../db/columns.js';
import { projects } from '../projects/projects.tables.js';

/** Planned and actual amounts of a project, in the project's currency. */
export const budgetLines = pgTable(
  'budget_lines',
  {
    id: rowId(),
    orgId: uuid('org_id').notNull(),
    projectId: uuid('project_id').notNull(),
    category: text('category').notNull(),
    description: text('description'),
    plannedAmount: numeric('planned_amount', { precision: 18, scale: 2, mode: 'number' })
      .notNull()
      .default(0),
    actualAmount: numeric('actual_amount', { precision: 18, scale: 2, mode: 'number' }).notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'budget_lines_pkey', columns: [t.orgId, t.id] }),
    foreignKey({ columns: [t.orgId, t.projectId], foreignColumns: [projects.orgId, projects.id] }).onDelete(
      'cascade',
    ),
    index('budget_lines_org_id_project_id_idx').on(t.orgId, t.projectId),
  ],
);
