import { and, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { forms, formSubmissions } from './forms.tables.js';

export type FormRow = typeof forms.$inferSelect;
export type FormValues = Partial<Omit<FormRow, 'id' | 'orgId' | 'projectId' | 'createdAt' | 'updatedAt'>>;

/** Written out: Drizzle leaves columns unqualified in the select list of a one-table query. */
const submissionCount = sql<number>`(SELECT count(*)::int FROM form_submissions s
  WHERE s.form_id = "forms"."id")`;

const formColumns = {
  id: forms.id,
  orgId: forms.orgId,
  projectId: forms.projectId,
  indicatorId: forms.indicatorId,
  reportingPeriodId: forms.reportingPeriodId,
  valueFieldKey: forms.valueFieldKey,
  title: forms.title,
  description: forms.description,
  publicToken: forms.publicToken,
  isPublished: forms.isPublished,
  closesAt: forms.closesAt,
  fields: forms.fields,
  submissionCount,
  createdAt: forms.createdAt,
  updatedAt: forms.updatedAt,
};
export type FormListRow = Awaited<ReturnType<typeof findForm>> & {};

export async function countForms(db: Db, where: SQL | undefined) {
  const [row] = await db.select({ total: count() }).from(forms).where(where);
  return row?.total ?? 0;
}

/** Newest first (ids are time-ordered). */
export function listForms(db: Db, where: SQL | undefined, window: Window) {
  return inWindow(
    db.select(formColumns).from(forms).where(where).orderBy(desc(forms.createdAt), desc(forms.id)).$dynamic(),
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

/** The form row, locked against submissions (which share-lock it) until the transaction ends. */
export async function lockForm(db: Db, orgId: string, id: string): Promise<FormRow | undefined> {
  const [row] = await db
    .select()
    .from(forms)
    .where(and(eq(forms.orgId, orgId), eq(forms.id, id)))
    .for('update');
  return row;
}

export async function findFormByToken(db: Db, token: string): Promise<FormRow | undefined> {
  const [row] = await db.select().from(forms).where(eq(forms.publicToken, token));
  return row;
}

/**
 * The form a submission is written to, share-locked with its project's row: an edit of the form, or
 * the deletion of the form, its project or program (which collect file keys first), waits until the
 * submission is in.
 */
export async function shareFormForSubmission(db: Db, id: string): Promise<FormRow | undefined> {
  const [row] = rowsOf<FormRow>(
    await db.execute(sql`SELECT f.id, f.org_id AS "orgId", f.project_id AS "projectId",
        f.indicator_id AS "indicatorId", f.reporting_period_id AS "reportingPeriodId",
        f.value_field_key AS "valueFieldKey", f.title, f.description, f.public_token AS "publicToken",
        f.is_published AS "isPublished", f.closes_at AS "closesAt", f.fields,
        f.created_at AS "createdAt", f.updated_at AS "updatedAt"
      FROM forms f JOIN projects p ON p.org_id = f.org_id AND p.id = f.project_id
      WHERE f.id = ${id} FOR SHARE OF f FOR KEY SHARE OF p`),
  );
  return row;
}

export async function insertForm(
  db: Db,
  values: Omit<typeof forms.$inferInsert, 'id' | 'createdAt' | 'updatedAt'>,
): Promise<string> {
  const [row] = await db.insert(forms).values(values).returning({ id: forms.id });
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

export async function hasSubmissions(db: Db, formId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: formSubmissions.id })
    .from(formSubmissions)
    .where(eq(formSubmissions.formId, formId))
    .limit(1);
  return row !== undefined;
}

/** Whether forms or submissions point at the period, or forms count into the project's indicator. */
export async function formsUsing(
  db: Db,
  on: { reportingPeriodId: string } | { projectId: string; indicatorId: string } | { indicatorId: string },
): Promise<boolean> {
  const where =
    'reportingPeriodId' in on
      ? eq(forms.reportingPeriodId, on.reportingPeriodId)
      : 'projectId' in on
        ? and(eq(forms.projectId, on.projectId), eq(forms.indicatorId, on.indicatorId))
        : eq(forms.indicatorId, on.indicatorId);
  const [row] = await db.select({ id: forms.id }).from(forms).where(where).limit(1);
  return row !== undefined;
}
