import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { withStatementTimeout } from '../../db/long-statements.js';
import { badRequest, notFound } from '../../errors/catalogue.js';
import type { Member } from '../../http/pipeline/access.js';
import { findIndicatorReport } from '../indicator-reports/index.js';
import { recordPersonalRead, type AuditSource } from '../privacy/index.js';
import { ensureProjectAccess } from '../projects/index.js';
import { topLevelFields } from './form-fields.js';
import { findForm } from './forms.repo.js';
import { anyPersonalField, personalAnswersFor } from './submission-view.js';
import { countHoldingPersonal, type SubmissionFilter } from './submissions.repo.js';

/**
 * What the CSV and .xlsx exports of a form's submissions do before their answer starts: the form (404
 * outside the org, 403 for a reporter not on its project), the repeat and the filter checked, and the
 * audit entry recorded when personal data goes out in clear. Gives the form, the repeat, the personal
 * answers to show, and the handle to read the rows on: `reads` (the read replica when the route sends
 * them there), except personal data in clear: that on the primary, where the count and the erasures are
 * (the replica, behind, could send answers erased a moment ago, and more rows than the audit entry says).
 */
export async function openSubmissionsExport(
  deps: { db: Db; config: Pick<Config, 'databaseTimeouts'> },
  member: Member,
  id: string,
  source: AuditSource,
  { filter, repeatKey, reads }: { filter: SubmissionFilter; repeatKey?: string; reads: Db },
) {
  const { db, config } = deps;
  const form = await findForm(db, member.orgId, id);
  if (!form) throw notFound('Form');
  await ensureProjectAccess(db, member, form.projectId);
  const repeat = repeatKey ? topLevelFields(form.fields).find((field) => field.key === repeatKey) : undefined;
  if (repeatKey && repeat?.type !== 'repeat') {
    throw badRequest('repeat must be the key of a repeat field of the form, outside other repeats');
  }
  if (filter.indicatorReportId) {
    // A form counts only into its own project's reports: another project's is unknown here.
    const report = await findIndicatorReport(db, member.orgId, filter.indicatorReportId);
    if (report?.projectId !== form.projectId) throw notFound('Indicator report');
  }
  const all = personalAnswersFor(form.fields, member.role);
  // A repeat's file holds only its entries' answers: its personal fields, no position.
  const inRepeat = repeat ? all.repeats.filter((r) => r.key === repeat.key) : [];
  const personal = repeat ? { keys: [], repeats: inRepeat, inClear: all.inClear } : all;
  // Once the 200 is sent a statement cut by its limit cuts the answer: the exports' limit, not a request's.
  const exported = (handle: Db) => withStatementTimeout(handle, config.databaseTimeouts.exportStatementMs);
  const count = personal.inClear
    ? repeat && !anyPersonalField(personal)
      ? 0
      : await countHoldingPersonal(exported(db), member.orgId, id, anyPersonalField(personal), filter)
    : 0;
  // One entry for the whole export, every sheet of a workbook included.
  await recordPersonalRead(db, source, {
    action: 'export',
    subjectKind: 'form_submission',
    subjectIds: [],
    count,
    details: { formId: id, ...filter, ...(repeat && { repeat: repeat.key }) },
  });
  // Nothing personal when counted (no personal field, no position yet): a position that arrives while
  // the export runs is left out, never sent unrecorded.
  const shown = count > 0 ? personal : { ...personal, inClear: false };
  return { form, repeat, personal: shown, rows: exported(shown.inClear ? db : reads) };
}
