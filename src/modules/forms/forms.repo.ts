import { and, count, desc, eq, inArray, isNotNull, sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { visibleTo, type ProjectVisibility } from '../projects/index.js';
import { forms, formSubmissions } from './forms.tables.js';

export type FormRow = typeof forms.$inferSelect;
export type FormValues = Partial<Omit<FormRow, 'id' | 'orgId' | 'projectId' | 'createdAt' | 'updatedAt'>>;

/** Written out: Drizzle leaves columns unqualified in the select list of a one-table query. */
const submissionCount = sql<number>`(SELECT count(*)::int FROM form_submissions s
  WHERE s.org_id = "forms"."org_id" AND s.form_id = "forms"."id")`;

const uncountedCount = sql<number>`(SELECT count(*)::int FROM form_submissions s
  WHERE s.org_id = "forms"."org_id" AND s.form_id = "forms"."id" AND NOT s.counted)`;

/** One grouped read of the (org_id, form_id) rows: reasons present only. */
const uncountedBy = sql<Record<string, number>>`(SELECT coalesce(jsonb_object_agg(r.reason, r.n), '{}'::jsonb)
  FROM (SELECT coalesce(s.counted_reason, 'unknown') AS reason, count(*)::int AS n FROM form_submissions s
    WHERE s.org_id = "forms"."org_id" AND s.form_id = "forms"."id" AND NOT s.counted GROUP BY 1) r)`;

const formColumns = {
  id: forms.id,
  orgId: forms.orgId,
  projectId: forms.projectId,
  indicatorId: forms.indicatorId,
  reportingPeriodId: forms.reportingPeriodId,
  valueFieldKey: forms.valueFieldKey,
  countInto: forms.countInto,
  countDateField: forms.countDateField,
  disaggregateBy: forms.disaggregateBy,
  countRepeat: forms.countRepeat,
  countWhere: forms.countWhere,
  title: forms.title,
  description: forms.description,
  publicToken: forms.publicToken,
  isPublished: forms.isPublished,
  closesAt: forms.closesAt,
  personalDataRetentionDays: forms.personalDataRetentionDays,
  fields: forms.fields,
  defaultLanguage: forms.defaultLanguage,
  translations: forms.translations,
  submissionCount,
  uncountedCount,
  uncountedBy,
  createdAt: forms.createdAt,
  updatedAt: forms.updatedAt,
};
export type FormListRow = Awaited<ReturnType<typeof findForm>> & {};

/** Which forms a list shows: of one project or all, and for a reporter only their projects'. */
export interface FormFilter extends ProjectVisibility {
  projectId?: string;
}

const filtered = (orgId: string, filter: FormFilter): SQL | undefined =>
  and(
    eq(forms.orgId, orgId),
    filter.projectId ? eq(forms.projectId, filter.projectId) : undefined,
    visibleTo(orgId, filter, forms.projectId),
  );

export async function countForms(db: Db, orgId: string, filter: FormFilter) {
  const [row] = await db.select({ total: count() }).from(forms).where(filtered(orgId, filter));
  return row?.total ?? 0;
}

/** Newest first (ids are time-ordered). */
export function listForms(db: Db, orgId: string, filter: FormFilter, window: Window) {
  return inWindow(
    db
      .select(formColumns)
      .from(forms)
      .where(filtered(orgId, filter))
      .orderBy(desc(forms.createdAt), desc(forms.id))
      .$dynamic(),
    window,
  );
}

export async function findForm(db: Db, orgId: string, id: string) {
  const [row] = await db
    .select(formColumns)
    .from(forms)
    .where(and(eq(forms.orgId, orgId), eq(forms.id, id)));
  return row;
}

/** The form row, locked against submissions (which lock it FOR SHARE) until the transaction ends. */
export async function lockForm(db: Db, orgId: string, id: string): Promise<FormRow | undefined> {
  const [row] = await db
    .select()
    .from(forms)
    .where(and(eq(forms.orgId, orgId), eq(forms.id, id)))
    .for('update');
  return row;
}

/**
 * The public token lookup, the one query without an org id: a respondent's link carries only the
 * token, and the form found gives the org every later query filters by.
 */
export async function findFormByToken(db: Db, token: string): Promise<FormRow | undefined> {
  const [row] = await db.select().from(forms).where(eq(forms.publicToken, token));
  return row;
}

/**
 * The form a submission is written to, under a FOR SHARE row lock (FOR KEY SHARE on its project's
 * row): an edit of the form, or the deletion of the form, its project or program (which collect file
 * keys first), waits until the submission is in.
 */
export async function lockFormForSubmission(db: Db, orgId: string, id: string): Promise<FormRow | undefined> {
  const [row] = rowsOf<FormRow>(
    await db.execute(sql`SELECT f.id, f.org_id AS "orgId", f.project_id AS "projectId",
        f.indicator_id AS "indicatorId", f.reporting_period_id AS "reportingPeriodId",
        f.value_field_key AS "valueFieldKey", f.count_into AS "countInto",
        f.count_date_field AS "countDateField", f.disaggregate_by AS "disaggregateBy",
        f.count_repeat AS "countRepeat", f.count_where AS "countWhere", f.title, f.description, f.public_token AS "publicToken",
        f.is_published AS "isPublished", f.closes_at AS "closesAt",
        f.personal_data_retention_days AS "personalDataRetentionDays", f.fields,
        f.default_language AS "defaultLanguage", f.translations,
        f.created_at AS "createdAt", f.updated_at AS "updatedAt"
      FROM forms f JOIN projects p ON p.org_id = f.org_id AND p.id = f.project_id
      WHERE f.org_id = ${orgId} AND f.id = ${id} FOR SHARE OF f FOR KEY SHARE OF p`),
  );
  return row;
}

/**
 * The forms of every organization that keep personal answers for a limited time: the retention job's
 * one query across organizations (it then works form by form, each under its own org id).
 */
export function formsWithRetention(db: Db) {
  return db
    .select({
      orgId: forms.orgId,
      id: forms.id,
      fields: forms.fields,
      retentionDays: forms.personalDataRetentionDays,
    })
    .from(forms)
    .where(isNotNull(forms.personalDataRetentionDays))
    .orderBy(forms.orgId, forms.id);
}

export async function insertForm(
  db: Db,
  orgId: string,
  values: Omit<typeof forms.$inferInsert, 'id' | 'orgId' | 'createdAt' | 'updatedAt'>,
): Promise<string> {
  const [row] = await db
    .insert(forms)
    .values({ ...values, orgId })
    .returning({ id: forms.id });
  return row!.id;
}

export async function updateForm(db: Db, orgId: string, id: string, values: FormValues): Promise<void> {
  await db
    .update(forms)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(forms.orgId, orgId), eq(forms.id, id)));
}

export async function deleteForm(db: Db, orgId: string, id: string): Promise<void> {
  await db.delete(forms).where(and(eq(forms.orgId, orgId), eq(forms.id, id)));
}

export async function hasSubmissions(db: Db, orgId: string, formId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: formSubmissions.id })
    .from(formSubmissions)
    .where(and(eq(formSubmissions.orgId, orgId), eq(formSubmissions.formId, formId)))
    .limit(1);
  return row !== undefined;
}

/** The fields of some forms of the org: which answers of their submissions are personal. */
export function fieldsOfForms(db: Db, orgId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .select({ id: forms.id, fields: forms.fields })
    .from(forms)
    .where(and(eq(forms.orgId, orgId), inArray(forms.id, ids)));
}
