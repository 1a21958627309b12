import type { Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import { notFound } from '../../errors/catalogue.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { findIndicatorReport } from '../indicator-reports/index.js';
import { requireProject } from '../projects/index.js';
import type { AuditSource } from '../privacy/index.js';
import { allFields, type FormField } from './form-fields.js';
import { fieldsOfForms } from './forms.repo.js';
import { readableSubmissions, recordPageRead } from './submission-pages.js';
import { personalAnswersFor, showsPersonal } from './submission-view.js';
import { countedInto, formsCountedInto, listCountedSubmissions } from './submissions.repo.js';

// Where a number comes from (issue 24): each submission counted into an indicator report keeps the
// report and the amount it added (written in the counting transaction); forms answer for them.

/**
 * The indicator report at the project's path, for a member who may read the project: another org's
 * report or another project's is 404, an unassigned reporter 403 (before the report is looked at).
 */
export async function reportOfProject(db: Db, member: Member, at: { projectId: string; id: string }) {
  await requireProject(db, member, at.projectId);
  const report = await findIndicatorReport(db, member.orgId, at.id);
  if (report?.projectId !== at.projectId) throw notFound('Indicator report');
  return report;
}

/**
 * Whether a form's counted amounts may be personal answers: it has a number field marked personal (the
 * value field, now or before an edit). Such an amount is hidden whenever that answer is.
 */
export const amountIsPersonal = (fields: FormField[]) =>
  allFields(fields).some(
    (field) => (field.type === 'number' || field.type === 'calculate') && field.personal === true,
  );

/** Whether the cells a form's submissions added may tell personal answers: a field a mapping can read is personal. */
const cellsArePersonal = (fields: FormField[]) =>
  allFields(fields).some(
    (field) => ['select', 'text', 'number', 'calculate'].includes(field.type) && field.personal === true,
  );

/** What the member gets of a form's submissions. */
function readerOf(fields: FormField[], member: Member) {
  return {
    personal: personalAnswersFor(fields, member.role),
    amountIsPersonal: amountIsPersonal(fields),
    cellsArePersonal: cellsArePersonal(fields),
  };
}

/**
 * The submissions counted into a report whose amounts may be personal answers, and whether any of them
 * has been erased: the report's history hides its values by them (wired in `buildApp`).
 */
export async function personalAmounts(db: Db, orgId: string, reportId: string) {
  const personal = (await formsCountedInto(db, orgId, reportId)).filter((form) =>
    amountIsPersonal(form.fields),
  );
  return {
    ids: personal.flatMap((form) => form.submissionIds),
    anyErased: personal.some((form) => form.anyErased),
  };
}

/**
 * The submissions counted into a report (its sources), oldest first, each with its form and the amount
 * it added; answers as the submissions list gives them, the personal ones decided by each submission's
 * own form (several forms may feed one report). A page with personal answers in clear is recorded.
 */
export async function countedSources(
  db: Db,
  member: Member,
  at: { projectId: string; id: string },
  query: PageRequest,
  source: AuditSource,
) {
  const report = await reportOfProject(db, member, at);
  const inClear = new Set<string>();
  const page = await paginate(query, {
    count: async () => (await countedInto(db, member.orgId, report.id)).submissions,
    list: async (window) => {
      const rows = await listCountedSubmissions(db, member.orgId, report.id, window);
      const forms = await fieldsOfForms(db, member.orgId, [...new Set(rows.map((row) => row.formId))]);
      const readers = new Map(forms.map((form) => [form.id, readerOf(form.fields, member)]));
      const views = await readableSubmissions(db, member.orgId, rows, {
        personalOf: (row) => readers.get(row.formId)!.personal,
        inClear,
      });
      return views.map((view, i) => {
        const row = rows[i]!;
        const { personal, amountIsPersonal, cellsArePersonal } = readers.get(row.formId)!;
        const amount = amountIsPersonal && !showsPersonal(personal, row) ? null : row.countedAmount;
        // Only where it added cells: the sources of forms that fill none read as before.
        const cells = cellsArePersonal && !showsPersonal(personal, row) ? null : row.countedCells;
        return { ...view, formId: row.formId, amount, ...(row.countedCells !== null && { cells }) };
      });
    },
  });
  await recordPageRead(db, source, page, inClear, {
    indicatorReportId: report.id,
    page: query.page,
    limit: query.limit,
  });
  return page;
}
