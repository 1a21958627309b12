import type { OrgRole } from '../../http/pipeline/access.js';
import { seesPersonalData } from '../../lib/personal-data.js';
import { personalKeys, type FormField } from './form-fields.js';
import type { SubmissionFileRow, SubmissionRow } from './submissions.repo.js';

/** Where a file answer is downloaded (GET .../submissions/:submissionId/files/:key), from the API's root. */
export const submissionFileUrl = (row: SubmissionRow, key: string) =>
  `/orgs/${row.orgId}/forms/${row.formId}/submissions/${row.id}/files/${key}`;

/**
 * What one reader gets of a form's personal data (DECISIONS.md sections 5 and 13): the answers of its
 * fields marked personal and each submission's top-level `location` (the respondent's position). The one
 * decision the submissions list, the erase route, the CSV export and a report's sources share.
 */
export interface PersonalAnswers {
  /** The keys of the fields marked personal. */
  keys: string[];
  /** Whether the reader may get personal data: every role but viewer (any form: a position may come). */
  inClear: boolean;
}

export function personalAnswersFor(fields: FormField[], role: OrgRole): PersonalAnswers {
  return { keys: personalKeys(fields), inClear: seesPersonalData(role) };
}

/** Whether a submission holds personal data: the form has fields marked personal, or it has a position. */
export const holdsPersonal = (personal: PersonalAnswers, row: SubmissionRow): boolean =>
  personal.keys.length > 0 || row.location !== null;

/** Whether this submission's personal data reaches the reader in clear: what the audit log records. */
export const showsPersonal = (personal: PersonalAnswers, row: SubmissionRow): boolean =>
  personal.inClear && row.personalErasedAt === null && holdsPersonal(personal, row);

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

/** The respondent's position as the reader gets it: null for a viewer, and for everyone once erased. */
export const readableLocation = (personal: PersonalAnswers, row: SubmissionRow) =>
  showsPersonal(personal, row) ? row.location : null;

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
  const location = readableLocation(personal, row);
  return {
    id: row.id,
    submittedAt: row.submittedAt,
    location,
    counted: row.counted,
    countedReason: row.countedReason,
    answers,
  };
}
