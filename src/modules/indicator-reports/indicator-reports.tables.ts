import {
  doublePrecision,
  foreignKey,
  index,
  jsonb,
  pgEnum,
  pgTable,
  text,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, finite, id, timestamptz, updatedAt } from '../../db/columns.js';
import { users } from '../auth/auth.tables.js';
import { projectIndicators } from '../indicators/indicators.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import { projects } from '../projects/projects.tables.js';

export const INDICATOR_REPORT_STATUSES = ['draft', 'submitted', 'approved', 'rejected'] as const;
export type IndicatorReportStatus = (typeof INDICATOR_REPORT_STATUSES)[number];
export const indicatorReportStatus = pgEnum('indicator_report_status', INDICATOR_REPORT_STATUSES);
/** The statuses in which a report's value may still change. */
export const EDITABLE: readonly IndicatorReportStatus[] = ['draft', 'rejected'];

/**
 * The value of one indicator for one project and reporting period. The link and the period are
 * referenced without ON DELETE actions (NO ACTION, checked at the end of the statement): unlinking the
 * indicator or deleting the period is refused while reports exist, yet deleting the whole project
 * (which removes its links, periods and reports in one statement) still works.
 */
export const indicatorReports = pgTable(
  'indicator_reports',
  {
    id: id(),
    orgId: uuid('org_id').notNull(),
    projectId: uuid('project_id').notNull(),
    indicatorId: uuid('indicator_id').notNull(),
    reportingPeriodId: uuid('reporting_period_id').notNull(),
    value: doublePrecision('value'),
    target: doublePrecision('target'),
    narrative: text('narrative'),
    disaggregatedValues: jsonb('disaggregated_values').$type<Record<string, number>>().notNull().default({}),
    status: indicatorReportStatus('status').notNull().default('draft'),
    comment: text('comment'),
    submittedAt: timestamptz('submitted_at'),
    submittedBy: uuid('submitted_by').references(() => users.id, { onDelete: 'set null' }),
    reviewedAt: timestamptz('reviewed_at'),
    reviewedBy: uuid('reviewed_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    foreignKey({ columns: [t.orgId, t.projectId], foreignColumns: [projects.orgId, projects.id] }).onDelete(
      'cascade',
    ),
    foreignKey({
      name: 'indicator_reports_project_indicator_fk',
      columns: [t.projectId, t.indicatorId],
      foreignColumns: [projectIndicators.projectId, projectIndicators.indicatorId],
    }),
    foreignKey({
      name: 'indicator_reports_reporting_period_fk',
      columns: [t.projectId, t.reportingPeriodId],
      foreignColumns: [reportingPeriods.projectId, reportingPeriods.id],
    }),
    unique('indicator_reports_project_id_indicator_id_period_key').on(
      t.projectId,
      t.indicatorId,
      t.reportingPeriodId,
    ),
    unique('indicator_reports_org_id_id_key').on(t.orgId, t.id),
    index('indicator_reports_reporting_period_id_idx').on(t.reportingPeriodId),
    index('indicator_reports_indicator_id_idx').on(t.indicatorId),
    finite('indicator_reports_value_finite', t.value),
    finite('indicator_reports_target_finite', t.target),
  ],
);
