import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  doublePrecision,
  foreignKey,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, finite, rowId, timestamptz, updatedAt } from '../../db/columns.js';
import { users } from '../auth/auth.tables.js';
import { projectIndicators } from '../indicators/indicators.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import type { ReportFlag } from '../quality/quality.tables.js';
import { projects } from '../projects/projects.tables.js';

export const INDICATOR_REPORT_STATUSES = ['draft', 'submitted', 'approved', 'rejected'] as const;
export type IndicatorReportStatus = (typeof INDICATOR_REPORT_STATUSES)[number];
export const indicatorReportStatus = pgEnum('indicator_report_status', INDICATOR_REPORT_STATUSES);

/**
 * The value of one indicator for one project and reporting period. The link and the period are
 * referenced without ON DELETE actions (NO ACTION, checked at the end of the statement): unlinking the
 * indicator or deleting the period is refused while reports exist, yet deleting the whole project
 * (which removes its links, periods and reports in one statement) still works.
 */
export const indicatorReports = pgTable(
  'indicator_reports',
  {
    id: rowId(),
    orgId: uuid('org_id').notNull(),
    projectId: uuid('project_id').notNull(),
    indicatorId: uuid('indicator_id').notNull(),
    reportingPeriodId: uuid('reporting_period_id').notNull(),
    value: doublePrecision('value'),
    /** The part of `value` counted from form submissions: the sum of their amounts (forms link each). */
    countedValue: doublePrecision('counted_value').notNull().default(0),
    /** How many submissions were counted into it. */
    countedSubmissions: integer('counted_submissions').notNull().default(0),
    /** Submissions refused because it was submitted or approved, since it was last submitted. */
    refusedSinceSubmitted: integer('refused_since_submitted').notNull().default(0),
    /**
     * Set when a deleted form's submissions had counted personal answers (a number field marked personal)
     * into it: their amounts are gone with them, and the history hides its values from everyone.
     */
    personalAmountsGone: boolean('personal_amounts_gone').notNull().default(false),
    /** What the last pre-fill wrote, while it stands; null when never pre-filled. */
    prefillValue: doublePrecision('prefill_value'),
    target: doublePrecision('target'),
    narrative: text('narrative'),
    disaggregatedValues: jsonb('disaggregated_values').$type<Record<string, number>>().notNull().default({}),
    /**
     * The part of `disaggregatedValues` counted from submissions of forms filling disaggregations
     * (`disaggregateBy`), cell by cell: what a recount rebuilds the cells from, as `countedValue` the value.
     */
    countedDisaggregatedValues: jsonb('counted_disaggregated_values')
      .$type<Record<string, number>>()
      .notNull()
      .default({}),
    /** The data-quality flags of the value: rules it breaks, an outlier (quality module). */
    flags: jsonb('flags').$type<ReportFlag[]>().notNull().default([]),
    status: indicatorReportStatus('status').notNull().default('draft'),
    comment: text('comment'),
    submittedAt: timestamptz('submitted_at'),
    /**
     * When it was first submitted, kept through rejections and resubmissions (`submittedAt` is the last
     * submission): what timeliness compares with the period's due date (GET /data-quality).
     */
    firstSubmittedAt: timestamptz('first_submitted_at'),
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
      columns: [t.orgId, t.projectId, t.indicatorId],
      foreignColumns: [projectIndicators.orgId, projectIndicators.projectId, projectIndicators.indicatorId],
    }),
    foreignKey({
      name: 'indicator_reports_reporting_period_fk',
      columns: [t.orgId, t.projectId, t.reportingPeriodId],
      foreignColumns: [reportingPeriods.orgId, reportingPeriods.projectId, reportingPeriods.id],
    }),
    unique('indicator_reports_org_id_project_id_indicator_id_period_key').on(
      t.orgId,
      t.projectId,
      t.indicatorId,
      t.reportingPeriodId,
    ),
    primaryKey({ name: 'indicator_reports_pkey', columns: [t.orgId, t.id] }),
    index('indicator_reports_reporting_period_id_idx').on(t.reportingPeriodId),
    index('indicator_reports_indicator_id_idx').on(t.indicatorId),
    // The flagged reports of a project (`flagged=true`): few among many.
    index('indicator_reports_flagged_idx')
      .on(t.orgId, t.projectId)
      .where(sql`${t.flags} <> '[]'::jsonb`),
    finite('indicator_reports_value_finite', t.value),
    finite('indicator_reports_target_finite', t.target),
    finite('indicator_reports_counted_value_finite', t.countedValue),
    finite('indicator_reports_prefill_value_finite', t.prefillValue),
  ],
);

/** What an entry of a report's history records. */
export const HISTORY_KINDS = [
  'created',
  'edited',
  'prefilled',
  'counted',
  'recounted',
  'uncounted',
  'submitted',
  'approved',
  'rejected',
  'imported',
] as const;
export type HistoryKind = (typeof HISTORY_KINDS)[number];

/** One field's change: what it was and what it became. */
export interface FieldChange<T> {
  from: T;
  to: T;
}
export interface ReportChanges {
  value?: FieldChange<number | null>;
  target?: FieldChange<number | null>;
  disaggregatedValues?: FieldChange<Record<string, number>>;
  narrative?: FieldChange<string | null>;
  status?: FieldChange<IndicatorReportStatus | null>;
  flags?: FieldChange<ReportFlag[]>;
  /** On approval: the flags the approver saw (and approved the value with). */
  flagsSeen?: ReportFlag[];
}

/**
 * Every change of an indicator report (value, target, disaggregated values, narrative, status), written
 * in the transaction of the change: who made it (a user, or for a counted submission the submission),
 * when, from what to what, and the reason given on reject. Append-only in the database itself
 * (migration 0015's trigger): UPDATE and TRUNCATE are refused, and DELETE but by the cascade of the
 * report's own deletion (a whole project's). The actor is not a foreign key: the history outlives users.
 */
export const indicatorReportHistory = pgTable(
  'indicator_report_history',
  {
    /** In the order entries were written; the database numbers them. */
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    orgId: uuid('org_id').notNull(),
    indicatorReportId: uuid('indicator_report_id').notNull(),
    at: timestamptz('at').notNull().defaultNow(),
    kind: text('kind').$type<HistoryKind>().notNull(),
    /** The user who made the change (a pre-fill and a recount too); null for a counted submission. */
    actorId: uuid('actor_id'),
    /** The submission a `counted` entry added. */
    submissionId: uuid('submission_id'),
    changes: jsonb('changes').$type<ReportChanges>().notNull(),
    /** The comment given on reject. */
    reason: text('reason'),
  },
  (t) => [
    foreignKey({
      name: 'indicator_report_history_report_fk',
      columns: [t.orgId, t.indicatorReportId],
      foreignColumns: [indicatorReports.orgId, indicatorReports.id],
    }).onDelete('cascade'),
    primaryKey({ name: 'indicator_report_history_pkey', columns: [t.orgId, t.id] }),
    index('indicator_report_history_report_id_idx').on(t.indicatorReportId, t.id),
    check(
      'indicator_report_history_kind_check',
      sql`${t.kind} IN ('created', 'edited', 'prefilled', 'counted', 'recounted', 'uncounted', 'submitted', 'approved', 'rejected', 'imported')`,
    ),
  ],
);

/**
 * A read model: per reporting period, what its indicator reports count towards completeness and
 * timeliness (GET /data-quality, the dashboard's rates): values entered, reported (submitted or
 * approved), reported on time (first submitted on or before the period's due date, UTC; always without
 * one), approved, flagged, and the flags of values not approved yet. Kept by the database itself in the
 * statement that changes a report (migration 0036's triggers on indicator_reports, and on
 * reporting_periods for a changed due date), so no write path can miss it; a period without reports
 * has no row (all zeros). Deleted with its period.
 */
export const periodReportCounts = pgTable(
  'period_report_counts',
  {
    orgId: uuid('org_id').notNull(),
    projectId: uuid('project_id').notNull(),
    reportingPeriodId: uuid('reporting_period_id').notNull(),
    entered: integer('entered').notNull().default(0),
    reported: integer('reported').notNull().default(0),
    onTime: integer('on_time').notNull().default(0),
    approved: integer('approved').notNull().default(0),
    flagged: integer('flagged').notNull().default(0),
    openFlags: integer('open_flags').notNull().default(0),
  },
  (t) => [
    primaryKey({ name: 'period_report_counts_pkey', columns: [t.orgId, t.reportingPeriodId] }),
    foreignKey({
      name: 'period_report_counts_reporting_period_fk',
      columns: [t.orgId, t.projectId, t.reportingPeriodId],
      foreignColumns: [reportingPeriods.orgId, reportingPeriods.projectId, reportingPeriods.id],
    }).onDelete('cascade'),
  ],
);
