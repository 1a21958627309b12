import { and, asc, count, desc, eq, inArray, isNotNull, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { projects } from '../projects/projects.tables.js';
import type { PersonalShape } from './form-fields.js';
import { forms, formSubmissionFiles, formSubmissions } from './forms.tables.js';

export type SubmissionRow = typeof formSubmissions.$inferSelect;
export type SubmissionFileRow = typeof formSubmissionFiles.$inferSelect;

export async function insertSubmission(
  db: Db,
  orgId: string,
  values: Omit<typeof formSubmissions.$inferInsert, 'orgId'>,
  files: Omit<SubmissionFileRow, 'orgId' | 'submissionId'>[],
): Promise<{ id: string; submittedAt: Date }> {
  const [row] = await db
    .insert(formSubmissions)
    .values({ ...values, orgId })
    .returning({ id: formSubmissions.id, submittedAt: formSubmissions.submittedAt });
  if (files.length > 0) {
    await db
      .insert(formSubmissionFiles)
      .values(files.map((file) => ({ ...file, orgId, submissionId: row!.id })));
  }
  return row!;
}

/** Which of a form's submissions an export takes: all, or those counted into one indicator report. */
export interface SubmissionFilter {
  indicatorReportId?: string;
}

const ofForm = (orgId: string, formId: string, filter: SubmissionFilter = {}) =>
  and(
    eq(formSubmissions.orgId, orgId),
    eq(formSubmissions.formId, formId),
    filter.indicatorReportId ? eq(formSubmissions.indicatorReportId, filter.indicatorReportId) : undefined,
  );

export async function countSubmissions(db: Db, orgId: string, formId: string) {
  const [row] = await db.select({ total: count() }).from(formSubmissions).where(ofForm(orgId, formId));
  return row?.total ?? 0;
}

/**
 * The submissions that hold personal data never erased: what an export carries in clear. Every one of a
 * form with fields marked personal (`anyPersonalField`), or else those with a position.
 */
export async function countHoldingPersonal(
  db: Db,
  orgId: string,
  formId: string,
  anyPersonalField: boolean,
  filter: SubmissionFilter = {},
) {
  const [row] = await db
    .select({ total: count() })
    .from(formSubmissions)
    .where(
      and(
        ofForm(orgId, formId, filter),
        isNull(formSubmissions.personalErasedAt),
        anyPersonalField ? undefined : isNotNull(formSubmissions.location),
      ),
    );
  return row?.total ?? 0;
}

/** The submission of the form, locked until the transaction ends: one erasure at a time. */
export async function lockSubmission(
  db: Db,
  orgId: string,
  formId: string,
  id: string,
): Promise<SubmissionRow | undefined> {
  const [row] = await db
    .select()
    .from(formSubmissions)
    .where(and(ofForm(orgId, formId), eq(formSubmissions.id, id)))
    .for('update');
  return row;
}

const textArray = (values: string[]) =>
  sql`ARRAY[${sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  )}]::text[]`;

/** A JSON value as an array when it is one, else an empty one: jsonb_array_elements never fails. */
const asArray = (value: SQL) =>
  sql`(CASE WHEN jsonb_typeof(${value}) = 'array' THEN ${value} ELSE '[]'::jsonb END)`;

/**
 * The answers without the personal ones: the top-level keys removed, and each repeat's array rebuilt
 * with its entries' personal keys removed (nested repeats alike), in order; set-based, in one expression.
 */
function withoutPersonal(answers: SQL, shape: PersonalShape, depth = 0): SQL {
  let out = shape.keys.length > 0 ? sql`(${answers} - ${textArray(shape.keys)})` : answers;
  const entry = sql.raw(`e${depth}`);
  const at = sql.raw(`n${depth}`);
  for (const repeat of shape.repeats) {
    const entries = sql`(${out} -> ${repeat.key}::text)`;
    const cleaned = withoutPersonal(entry, repeat.shape, depth + 1);
    out = sql`(CASE WHEN jsonb_typeof(${entries}) = 'array' THEN jsonb_set(${out}, ARRAY[${repeat.key}::text],
      (SELECT coalesce(jsonb_agg(CASE WHEN jsonb_typeof(${entry}) = 'object' THEN ${cleaned} ELSE ${entry} END
        ORDER BY ${at}), '[]'::jsonb)
       FROM jsonb_array_elements(${asArray(entries)}) WITH ORDINALITY AS x${sql.raw(String(depth))}(${entry}, ${at})))
      ELSE ${out} END)`;
  }
  return out;
}

/** Whether the answers still hold a personal answer, at the top level or in a repeat's entries. */
function holdsPersonal(answers: SQL, shape: PersonalShape, depth = 0): SQL | undefined {
  const entry = sql.raw(`e${depth}`);
  const parts = [
    shape.keys.length > 0 ? sql`${answers} ?| ${textArray(shape.keys)}` : undefined,
    ...shape.repeats.map(
      (
        repeat,
      ) => sql`EXISTS (SELECT 1 FROM jsonb_array_elements(${asArray(sql`(${answers} -> ${repeat.key}::text)`)})
        AS x${sql.raw(String(depth))}(${entry})
        WHERE jsonb_typeof(${entry}) = 'object' AND ${holdsPersonal(entry, repeat.shape, depth + 1)})`,
    ),
  ];
  return or(...parts);
}

const isEmpty = (shape: PersonalShape) => shape.keys.length === 0 && shape.repeats.length === 0;

/**
 * Removes the personal answers (the values are gone, not flagged), in repeats' entries too, and the
 * position, and marks them erased (a check keeps an erased row from holding a position).
 */
const erasure = (shape: PersonalShape, at: Date) => ({
  ...(!isEmpty(shape) && {
    answers: sql<Record<string, unknown>>`${withoutPersonal(sql`${formSubmissions.answers}`, shape)}`,
  }),
  location: null,
  personalErasedAt: at,
});

/** Erases the personal answers (`shape`, maybe none) and the position of one submission; returns it now. */
export async function erasePersonalAnswers(
  db: Db,
  orgId: string,
  id: string,
  shape: PersonalShape,
  at: Date,
): Promise<SubmissionRow> {
  const [row] = await db
    .update(formSubmissions)
    .set(erasure(shape, at))
    .where(and(eq(formSubmissions.orgId, orgId), eq(formSubmissions.id, id)))
    .returning();
  return row!;
}

/**
 * Whether a submission still holds personal data: never erased (every one of a form with fields marked
 * personal, else one with a position), or erased before one of its fields was marked personal (the
 * answer was kept then, and is removed now).
 */
const personalLeft = (shape: PersonalShape): SQL | undefined =>
  isEmpty(shape)
    ? isNotNull(formSubmissions.location)
    : or(isNull(formSubmissions.personalErasedAt), holdsPersonal(sql`${formSubmissions.answers}`, shape));

/**
 * Erases the personal answers (`keys`, maybe none) and the positions of up to `limit` submissions of
 * the form sent before `before`, oldest first; returns their ids. Rows another transaction holds (an
 * erasure by hand) are skipped, not waited for: that one erases them. The (form_id, submitted_at, id)
 * index serves it.
 */
export async function eraseSubmittedBefore(
  db: Db,
  orgId: string,
  formId: string,
  keys: PersonalShape,
  before: Date,
  at: Date,
  limit: number,
): Promise<string[]> {
  // Locked and read first, then updated: as a subquery of the UPDATE, a plan that rescans it per row
  // (a nested-loop semi-join) skips the rows the UPDATE has already changed and takes the next ones, so
  // one batch became every due row (seen on a PGlite whose statistics came from other data).
  const due = await db
    .select({ id: formSubmissions.id })
    .from(formSubmissions)
    .where(and(ofForm(orgId, formId), lt(formSubmissions.submittedAt, before), personalLeft(keys)))
    .orderBy(asc(formSubmissions.submittedAt), asc(formSubmissions.id))
    .limit(limit)
    .for('update', { skipLocked: true });
  if (due.length === 0) return [];
  const rows = await db
    .update(formSubmissions)
    .set(erasure(keys, at))
    .where(
      and(
        eq(formSubmissions.orgId, orgId),
        inArray(
          formSubmissions.id,
          due.map((row) => row.id),
        ),
      ),
    )
    .returning({ id: formSubmissions.id });
  return rows.map((row) => row.id);
}

/** Newest first, ties by id. */
export function listSubmissions(db: Db, orgId: string, formId: string, window: Window) {
  return inWindow(
    db
      .select()
      .from(formSubmissions)
      .where(ofForm(orgId, formId))
      .orderBy(desc(formSubmissions.submittedAt), desc(formSubmissions.id))
      .$dynamic(),
    window,
  );
}

/**
 * Oldest first from after the given one: the CSV export reads the submissions in slices. Filtered by a
 * report, the partial index on (indicator_report_id, submitted_at, id) serves the same range.
 */
export function submissionsAfter(
  db: Db,
  orgId: string,
  formId: string,
  after: { submittedAt: Date; id: string } | null,
  limit: number,
  filter: SubmissionFilter = {},
) {
  return db
    .select()
    .from(formSubmissions)
    .where(
      and(
        ofForm(orgId, formId, filter),
        // A row comparison, which PostgreSQL reads as one range of the (form_id, submitted_at, id) index;
        // the equivalent OR of two conditions made it scan every earlier row again for each slice.
        after
          ? sql`(${formSubmissions.submittedAt}, ${formSubmissions.id}) > (${after.submittedAt.toISOString()}::timestamptz, ${after.id}::uuid)`
          : undefined,
      ),
    )
    .orderBy(asc(formSubmissions.submittedAt), asc(formSubmissions.id))
    .limit(limit);
}

export function filesOf(db: Db, orgId: string, submissionIds: string[]): Promise<SubmissionFileRow[]> {
  if (submissionIds.length === 0) return Promise.resolve([]);
  return db
    .select()
    .from(formSubmissionFiles)
    .where(
      and(eq(formSubmissionFiles.orgId, orgId), inArray(formSubmissionFiles.submissionId, submissionIds)),
    );
}

export async function findSubmissionFile(
  db: Db,
  orgId: string,
  at: { formId: string; submissionId: string; key: string },
) {
  const [row] = await db
    .select({ file: formSubmissionFiles, projectId: forms.projectId })
    .from(formSubmissionFiles)
    .innerJoin(
      formSubmissions,
      and(
        eq(formSubmissions.orgId, formSubmissionFiles.orgId),
        eq(formSubmissions.id, formSubmissionFiles.submissionId),
      ),
    )
    .innerJoin(forms, and(eq(forms.orgId, formSubmissions.orgId), eq(forms.id, formSubmissions.formId)))
    .where(
      and(
        eq(formSubmissionFiles.orgId, orgId),
        eq(formSubmissions.formId, at.formId),
        eq(formSubmissions.id, at.submissionId),
        eq(formSubmissionFiles.fieldKey, at.key),
      ),
    );
  return row;
}

/** The bytes of the files summed (0 for none). */
const totalSize = sql<number>`coalesce(sum(${formSubmissionFiles.size}), 0)::float8`.mapWith(Number);

/** The bytes of every submission's files in the organization (ORG_FILES_QUOTA). */
export async function submissionFileBytes(db: Db, orgId: string): Promise<number> {
  const [row] = await db
    .select({ bytes: totalSize })
    .from(formSubmissionFiles)
    .where(eq(formSubmissionFiles.orgId, orgId));
  return row?.bytes ?? 0;
}

/** The bytes of the files of one form's submissions (FORM_FILES_QUOTA). */
export async function formFileBytes(db: Db, orgId: string, formId: string): Promise<number> {
  const [row] = await db
    .select({ bytes: totalSize })
    .from(formSubmissionFiles)
    .innerJoin(
      formSubmissions,
      and(
        eq(formSubmissions.orgId, formSubmissionFiles.orgId),
        eq(formSubmissions.id, formSubmissionFiles.submissionId),
      ),
    )
    .where(and(eq(formSubmissions.orgId, orgId), eq(formSubmissions.formId, formId)));
  return row?.bytes ?? 0;
}

/** Storage keys of the submission files of a form, of a project's forms, or of a program's projects' forms. */
export async function submissionFileKeys(
  db: Db,
  orgId: string,
  under: { formId: string } | { projectId: string } | { programId: string },
): Promise<string[]> {
  const scope =
    'formId' in under
      ? eq(forms.id, under.formId)
      : 'projectId' in under
        ? eq(forms.projectId, under.projectId)
        : sql`${forms.projectId} IN (SELECT ${projects.id} FROM ${projects}
            WHERE ${projects.orgId} = ${orgId} AND ${projects.programId} = ${under.programId})`;
  const rows = await db
    .select({ key: formSubmissionFiles.storageKey })
    .from(formSubmissionFiles)
    .innerJoin(
      formSubmissions,
      and(
        eq(formSubmissions.orgId, formSubmissionFiles.orgId),
        eq(formSubmissions.id, formSubmissionFiles.submissionId),
      ),
    )
    .innerJoin(forms, and(eq(forms.orgId, formSubmissions.orgId), eq(forms.id, formSubmissions.formId)))
    .where(and(eq(formSubmissionFiles.orgId, orgId), scope));
  return rows.map((row) => row.key);
}

/**
 * What the submissions counted into a report add up to: their amounts and their number (the indicator
 * reports module's recount asks, wired in `buildApp`). Summed in numeric, exactly, then rounded once.
 */
export async function countedInto(db: Db, orgId: string, reportId: string) {
  const [row] = await db
    .select({
      amount: sql<number>`coalesce(sum(${formSubmissions.countedAmount}::numeric), 0)::float8`,
      submissions: sql<number>`count(*)::int`,
    })
    .from(formSubmissions)
    .where(and(eq(formSubmissions.orgId, orgId), eq(formSubmissions.indicatorReportId, reportId)));
  return {
    amount: Number(row!.amount),
    submissions: row!.submissions,
    cells: await countedCellsInto(db, orgId, [reportId]).then((cells) => cells.get(reportId) ?? {}),
  };
}

/**
 * The cells the submissions counted into these reports added (forms filling disaggregations), per
 * report and key, summed exactly: one grouped read; with `formId`, those of one form's submissions.
 */
export async function countedCellsInto(db: Db, orgId: string, reportIds: string[], formId?: string) {
  const byReport = new Map<string, Record<string, number>>();
  if (reportIds.length === 0) return byReport;
  const rows = rowsOf<{ reportId: string; key: string; amount: number }>(
    await db.execute(sql`SELECT s.indicator_report_id AS "reportId", c.key,
        sum(c.value::numeric)::float8 AS amount
      FROM form_submissions s, jsonb_each_text(s.counted_cells) c
      WHERE s.org_id = ${orgId} AND s.indicator_report_id IN (${sql.join(
        reportIds.map((id) => sql`${id}::uuid`),
        sql`, `,
      )}) AND s.counted_cells IS NOT NULL ${formId ? sql`AND s.form_id = ${formId}` : sql``}
      GROUP BY 1, 2`),
  );
  for (const row of rows) {
    const cells = byReport.get(row.reportId) ?? {};
    cells[row.key] = Number(row.amount);
    byReport.set(row.reportId, cells);
  }
  return byReport;
}

/**
 * The submissions counted into a report (its sources), of whichever forms, oldest first, ties by id: the
 * partial index on (indicator_report_id, submitted_at, id) serves it.
 */
export function listCountedSubmissions(db: Db, orgId: string, reportId: string, window: Window) {
  return inWindow(
    db
      .select()
      .from(formSubmissions)
      .where(and(eq(formSubmissions.orgId, orgId), eq(formSubmissions.indicatorReportId, reportId)))
      .orderBy(asc(formSubmissions.submittedAt), asc(formSubmissions.id))
      .$dynamic(),
    window,
  );
}

/**
 * The forms whose submissions are counted into a report, each with its fields, the ids of those
 * submissions and whether any of them has had its personal answers erased: one grouped read.
 */
export function formsCountedInto(db: Db, orgId: string, reportId: string) {
  return db
    .select({
      fields: forms.fields,
      submissionIds: sql<string[]>`array_agg(${formSubmissions.id})`,
      anyErased: sql<boolean>`bool_or(${formSubmissions.personalErasedAt} IS NOT NULL)`,
    })
    .from(formSubmissions)
    .innerJoin(forms, and(eq(forms.orgId, formSubmissions.orgId), eq(forms.id, formSubmissions.formId)))
    .where(and(eq(formSubmissions.orgId, orgId), eq(formSubmissions.indicatorReportId, reportId)))
    .groupBy(forms.orgId, forms.id);
}

/** What the form's submissions counted into each report add up to: per report (by id), amounts and number. */
export async function countedByReport(db: Db, orgId: string, formId: string) {
  const rows = await db
    .select({
      reportId: formSubmissions.indicatorReportId,
      amount: sql<number>`sum(${formSubmissions.countedAmount}::numeric)::float8`,
      submissions: sql<number>`count(*)::int`,
    })
    .from(formSubmissions)
    .where(and(ofForm(orgId, formId), sql`${formSubmissions.indicatorReportId} IS NOT NULL`))
    .groupBy(formSubmissions.indicatorReportId)
    // The caller locks the reports in this order: two deletions never wait on each other in a circle.
    .orderBy(formSubmissions.indicatorReportId);
  const cells = await countedCellsInto(
    db,
    orgId,
    rows.map((row) => row.reportId!),
    formId,
  );
  return rows.map((row) => ({
    reportId: row.reportId!,
    amount: Number(row.amount),
    submissions: row.submissions,
    cells: cells.get(row.reportId!) ?? {},
  }));
}

/** Whether a submission counted into the period exists (the periods module asks before a delete). */
export async function submissionsInPeriod(
  db: Db,
  orgId: string,
  reportingPeriodId: string,
): Promise<boolean> {
  const [row] = await db
    .select({ id: formSubmissions.id })
    .from(formSubmissions)
    .where(and(eq(formSubmissions.orgId, orgId), eq(formSubmissions.reportingPeriodId, reportingPeriodId)))
    .limit(1);
  return row !== undefined;
}

/** Which report a take-in is for: its key and id. */
export interface ReportOfPeriod {
  id: string;
  projectId: string;
  indicatorId: string;
  reportingPeriodId: string;
}

/** What a submission adds, as its form counts now: 1, or its answer to the value field (null: none). */
const amountNow = sql<number | null>`CASE
  WHEN ${forms.valueFieldKey} IS NULL THEN 1::float8
  WHEN jsonb_typeof(${formSubmissions.answers} -> ${forms.valueFieldKey}) = 'number'
    THEN (${formSubmissions.answers} ->> ${forms.valueFieldKey})::float8
  END`;

/**
 * The uncounted submissions a report's recount can take in (row-locked with `lock`): of forms of its project counting
 * into its indicator now, refused for its period (locked, the report under review, an answer mapping
 * to no category then, or a reason not kept), or counting by date with a date in its period that no period held then. Those with no amount
 * are left out. Oldest first.
 */
export async function uncountedOfPeriod(db: Db, orgId: string, report: ReportOfPeriod, lock: boolean) {
  const query = db
    .select({
      id: formSubmissions.id,
      reason: formSubmissions.countedReason,
      amount: amountNow,
      answers: formSubmissions.answers,
      submittedAt: formSubmissions.submittedAt,
      disaggregateBy: forms.disaggregateBy,
      valueFieldKey: forms.valueFieldKey,
      countRepeat: forms.countRepeat,
      countWhere: forms.countWhere,
      fields: forms.fields,
    })
    .from(formSubmissions)
    .innerJoin(forms, and(eq(forms.orgId, formSubmissions.orgId), eq(forms.id, formSubmissions.formId)))
    .where(
      and(
        eq(formSubmissions.orgId, orgId),
        eq(formSubmissions.counted, false),
        eq(forms.projectId, report.projectId),
        eq(forms.indicatorId, report.indicatorId),
        or(
          and(
            eq(formSubmissions.reportingPeriodId, report.reportingPeriodId),
            inArray(formSubmissions.countedReason, [
              'period_locked',
              'report_submitted',
              'report_approved',
              'unknown',
              'category_not_mapped',
            ]),
          ),
          and(
            eq(formSubmissions.countedReason, 'no_period_for_date'),
            sql`${formSubmissions.countDate} BETWEEN
              (SELECT start_date FROM reporting_periods WHERE org_id = ${orgId} AND id = ${report.reportingPeriodId})
              AND (SELECT end_date FROM reporting_periods WHERE org_id = ${orgId} AND id = ${report.reportingPeriodId})`,
          ),
        ),
      ),
    )
    .orderBy(asc(formSubmissions.submittedAt), asc(formSubmissions.id));
  const rows = lock ? await query.for('update', { of: formSubmissions }) : await query;
  return (
    rows
      // A form counting a repeat's entries has its amounts tallied by the caller (counting.ts).
      .filter(
        (row) => row.countRepeat !== null || (row.amount !== null && Number.isFinite(Number(row.amount))),
      )
      .map((row) => ({
        id: row.id,
        reason: row.reason ?? 'unknown',
        amount: Number(row.amount),
        answers: row.answers,
        submittedAt: row.submittedAt,
        disaggregateBy: row.disaggregateBy,
        valueFieldKey: row.valueFieldKey,
        countRepeat: row.countRepeat,
        countWhere: row.countWhere,
        fields: row.fields,
      }))
  );
}

/** Submissions marked counted a statement: 3 parameters each, well inside PostgreSQL's 65,535. */
const MARK_BATCH = 1000;

/** Marks the submissions counted into the report, each with its amount and cells: a statement a thousand. */
export async function markCounted(
  db: Db,
  orgId: string,
  report: ReportOfPeriod,
  taken: { id: string; amount: number; cells: Record<string, number> | null }[],
) {
  for (let from = 0; from < taken.length; from += MARK_BATCH) {
    const amounts = sql.join(
      taken
        .slice(from, from + MARK_BATCH)
        .map(
          (row) =>
            sql`(${row.id}::uuid, ${row.amount}::float8, ${row.cells === null ? null : JSON.stringify(row.cells)}::jsonb)`,
        ),
      sql`, `,
    );
    await db.execute(sql`UPDATE form_submissions s SET counted = true, counted_reason = NULL,
        indicator_report_id = ${report.id}, counted_amount = v.amount, counted_cells = v.cells,
        reporting_period_id = ${report.reportingPeriodId}
      FROM (VALUES ${amounts}) AS v(id, amount, cells)
      WHERE s.org_id = ${orgId} AND s.id = v.id AND NOT s.counted`);
  }
}
