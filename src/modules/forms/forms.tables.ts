import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  date,
  doublePrecision,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, finite, rowId, timestamptz, updatedAt } from '../../db/columns.js';
import { indicatorReports } from '../indicator-reports/indicator-reports.tables.js';
import { projectIndicators } from '../indicators/indicators.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import { projects } from '../projects/projects.tables.js';
import type { DisaggregateBy } from './disaggregate-by.js';
import type { FormField, Location } from './form-fields.js';
import type { FormTranslations } from './form-languages.js';

/** How a form picks the period a submission counts into: the form's own, or the one holding its date. */
export const COUNT_INTO = ['fixed_period', 'period_of_date'] as const;
export type CountInto = (typeof COUNT_INTO)[number];

/**
 * Why a submission was stored but not counted (null: counted). `category_not_mapped`: a form filling
 * disaggregations got an answer mapping to no category; `unknown` only for submissions stored before
 * reasons were kept whose reason cannot be derived.
 */
export const COUNTED_REASONS = [
  'not_counting',
  'no_value',
  'no_period_for_date',
  'period_locked',
  'report_submitted',
  'report_approved',
  'value_out_of_range',
  'category_not_mapped',
  'unknown',
] as const;
export type CountedReason = (typeof COUNTED_REASONS)[number];

const inList = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(', '));

/**
 * A data-collection form of a project, answered through its public link. The indicator link and the
 * period are referenced without ON DELETE actions: unlinking the indicator or deleting the period is
 * refused while a form counts into it, yet deleting the whole project removes everything at once.
 */
export const forms = pgTable(
  'forms',
  {
    id: rowId(),
    orgId: uuid('org_id').notNull(),
    projectId: uuid('project_id').notNull(),
    indicatorId: uuid('indicator_id'),
    reportingPeriodId: uuid('reporting_period_id'),
    valueFieldKey: text('value_field_key'),
    /** fixed_period: `reportingPeriodId`; period_of_date: the project's period holding the submission's date. */
    countInto: text('count_into').$type<CountInto>().notNull().default('fixed_period'),
    /** With period_of_date: the key of a date field whose answer is that date (else submittedAt's, UTC). */
    countDateField: text('count_date_field'),
    /** Form fields filling the indicator's disaggregations (and so its crosses); null: the value only. */
    disaggregateBy: jsonb('disaggregate_by').$type<DisaggregateBy[]>(),
    /** The key of a repeat whose entries are counted instead of the submission; null: the submission. */
    countRepeat: text('count_repeat'),
    /** With countRepeat: the expression an entry must satisfy to be counted; null: every entry. */
    countWhere: text('count_where'),
    title: text('title').notNull(),
    description: text('description'),
    publicToken: uuid('public_token').notNull(),
    isPublished: boolean('is_published').notNull().default(false),
    closesAt: timestamptz('closes_at'),
    /** The worker erases the personal answers of submissions older than this many days; null: kept. */
    personalDataRetentionDays: integer('personal_data_retention_days'),
    fields: jsonb('fields').$type<FormField[]>().notNull(),
    /** The BCP 47 code of the language the form's own strings are in. */
    defaultLanguage: text('default_language').notNull().default('en'),
    /** The form's strings in other languages, by code (form-languages.ts); null: none. */
    translations: jsonb('translations').$type<FormTranslations>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    foreignKey({ columns: [t.orgId, t.projectId], foreignColumns: [projects.orgId, projects.id] }).onDelete(
      'cascade',
    ),
    foreignKey({
      name: 'forms_project_indicator_fk',
      columns: [t.orgId, t.projectId, t.indicatorId],
      foreignColumns: [projectIndicators.orgId, projectIndicators.projectId, projectIndicators.indicatorId],
    }),
    foreignKey({
      name: 'forms_reporting_period_fk',
      columns: [t.orgId, t.projectId, t.reportingPeriodId],
      foreignColumns: [reportingPeriods.orgId, reportingPeriods.projectId, reportingPeriods.id],
    }),
    primaryKey({ name: 'forms_pkey', columns: [t.orgId, t.id] }),
    // The public link finds a form by its token alone: the token leads.
    unique('forms_public_token_org_id_key').on(t.publicToken, t.orgId),
    check(
      'forms_personal_data_retention_days_check',
      sql`${t.personalDataRetentionDays} BETWEEN 1 AND 36500`,
    ),
    check('forms_count_into_check', sql`${t.countInto} IN (${inList(COUNT_INTO)})`),
    index('forms_org_id_project_id_idx').on(t.orgId, t.projectId),
    index('forms_project_id_indicator_id_idx').on(t.projectId, t.indicatorId),
    index('forms_reporting_period_id_idx').on(t.reportingPeriodId),
  ],
);

/**
 * One response to a form. `answers` holds the shown fields' answers but files, which are rows of
 * `form_submission_files`; `reportingPeriodId` is the form's period when it was submitted, so a period
 * with submissions cannot be deleted.
 */
export const formSubmissions = pgTable(
  'form_submissions',
  {
    id: rowId(),
    orgId: uuid('org_id').notNull(),
    formId: uuid('form_id').notNull(),
    reportingPeriodId: uuid('reporting_period_id'),
    answers: jsonb('answers').$type<Record<string, unknown>>().notNull(),
    /** The respondent's position: personal data (DECISIONS.md section 13), removed with the personal answers. */
    location: jsonb('location').$type<Location>(),
    counted: boolean('counted').notNull(),
    /** Why it was not counted; null when counted. */
    countedReason: text('counted_reason').$type<CountedReason>(),
    /** The date a form counting by date placed it by (its date field's answer, or submittedAt's date). */
    countDate: date('count_date', { mode: 'string' }),
    /** The indicator report it was counted into (its source), and the amount it added there. */
    indicatorReportId: uuid('indicator_report_id'),
    countedAmount: doublePrecision('counted_amount'),
    /** The cells it added there (a form filling disaggregations); null when none. */
    countedCells: jsonb('counted_cells').$type<Record<string, number>>(),
    /** When the answers of fields marked personal and the position were erased (by request or by retention). */
    personalErasedAt: timestamptz('personal_erased_at'),
    submittedAt: timestamp('submitted_at', { withTimezone: true, mode: 'date', precision: 3 })
      .notNull()
      .defaultNow(),
  },
  (t) => [
    foreignKey({ columns: [t.orgId, t.formId], foreignColumns: [forms.orgId, forms.id] }).onDelete('cascade'),
    primaryKey({ name: 'form_submissions_pkey', columns: [t.orgId, t.id] }),
    // DEFERRABLE in the migrations (Drizzle cannot say so), like the indicator report's below.
    foreignKey({
      name: 'form_submissions_reporting_period_id_reporting_periods_id_fk',
      columns: [t.orgId, t.reportingPeriodId],
      foreignColumns: [reportingPeriods.orgId, reportingPeriods.id],
    }),
    index('form_submissions_form_id_submitted_at_idx').on(t.formId, t.submittedAt, t.id),
    index('form_submissions_reporting_period_id_idx').on(t.reportingPeriodId),
    // No ON DELETE action: reports go only with their whole project, which takes the forms along.
    foreignKey({
      name: 'form_submissions_indicator_report_fk',
      columns: [t.orgId, t.indicatorReportId],
      foreignColumns: [indicatorReports.orgId, indicatorReports.id],
    }),
    index('form_submissions_indicator_report_id_idx')
      .on(t.indicatorReportId, t.submittedAt, t.id)
      .where(sql`${t.indicatorReportId} IS NOT NULL`),
    check(
      'form_submissions_counted_link_check',
      sql`(${t.indicatorReportId} IS NULL) = (${t.countedAmount} IS NULL) AND (${t.indicatorReportId} IS NULL OR ${t.counted})`,
    ),
    check(
      'form_submissions_counted_reason_check',
      sql`${t.countedReason} IS NULL OR (${t.countedReason} IN (${inList(COUNTED_REASONS)}) AND NOT ${t.counted})`,
    ),
    finite('form_submissions_counted_amount_finite', t.countedAmount),
    check(
      'form_submissions_erased_location_check',
      sql`${t.personalErasedAt} IS NULL OR ${t.location} IS NULL`,
    ),
  ],
);

/**
 * A file answer; the bytes live in file storage under `storageKey`. Lookups go by submission, whose
 * key (org_id, submission_id, field_key) serves them and the cascade; (org_id, size) sums an organization's
 * bytes for ORG_FILES_QUOTA at each upload from the index alone (100,000 files of an organization among
 * 1,000,000: 8 ms, against 81 ms reading the table).
 */
export const formSubmissionFiles = pgTable(
  'form_submission_files',
  {
    orgId: uuid('org_id').notNull(),
    submissionId: uuid('submission_id').notNull(),
    fieldKey: text('field_key').notNull(),
    fileName: text('file_name').notNull(),
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    storageKey: text('storage_key').notNull(),
  },
  (t) => [
    foreignKey({
      name: 'form_submission_files_submission_fk',
      columns: [t.orgId, t.submissionId],
      foreignColumns: [formSubmissions.orgId, formSubmissions.id],
    }).onDelete('cascade'),
    primaryKey({ name: 'form_submission_files_pkey', columns: [t.orgId, t.submissionId, t.fieldKey] }),
    unique('form_submission_files_org_id_storage_key_key').on(t.orgId, t.storageKey),
    index('form_submission_files_org_id_size_idx').on(t.orgId, t.size),
  ],
);
