import type { OrgRole } from '../../http/roles.js';
import { seesPersonalData } from '../../lib/personal-data.js';
import { personalKeys, type FormField } from './form-fields.js';
import type { SubmissionFileRow, SubmissionRow } from './submissions.repo.js';

/** Where a file answer is downloaded (GET .../submissions/:submissionId/files/:key), from the API's root. */
export const submissionFileUrl = (row: SubmissionRow, key: string) =>
  `/orgs/${row.orgId}/forms/${row.formId}/submissions/${row.id}/files/${key}`;

/**
 * What one reader gets of a form's personal answers (DECISIONS.md section 5): the one decision the
 * submissions list, the erase route and the CSV export share.
 */
export interface PersonalAnswers {
  /** The keys of the fields marked personal. */
  keys: string[];
  /** Whether the reader may get them: the form has personal fields and the reader is not a viewer. */
  inClear: boolean;
}

export function personalAnswersFor(fields: FormField[], role: OrgRole): PersonalAnswers {
  const keys = personalKeys(fields);
  return { keys, inClear: keys.length > 0 && seesPersonalData(role) };
}

/** Whether this submission's personal answers reach the reader in clear: what the audit log records. */
export const showsPersonal = (personal: PersonalAnswers, row: SubmissionRow): boolean =>
  personal.inClear && row.personalErasedAt === null;

/**
 * The answers the reader gets: every personal one null for a viewer, and for everyone once erased
 * (also one marked personal after the erasure, still stored until erased again or by retention).
 * Present as null whether answered or not, so that a viewer cannot tell which were.
 */
export function readableAnswers(personal: PersonalAnswers, row: SubmissionRow): Record<string, unknown> {
  const answers: Record<string, unknown> = { ...row.answers };
  if (personal.keys.length === 0 || showsPersonal(personal, row)) return answers;
  for (const key of personal.keys) answers[key] = null;
  return answers;
}

/** A submission as listed: its answers as the reader may get them, each file answer described and linked. */
export function submissionView(row: SubmissionRow, files: SubmissionFileRow[], personal: PersonalAnswers) {
  const answers = readableAnswers(personal, row);
  for (const file of files) {
    answers[file.fieldKey] = {
      fileName: file.fileName,
      contentType: file.contentType,
      size: file.size,
      url: submissionFileUrl(row, file.fieldKey),
    };
  }
  return { id: row.id, submittedAt: row.submittedAt, location: row.location, counted: row.counted, answers };
}
