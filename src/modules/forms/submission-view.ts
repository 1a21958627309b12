import type { OrgRole } from '../../http/pipeline/access.js';
import { seesPersonalData } from '../../lib/personal-data.js';
import { answerOf, isEmptyShape, personalShape, type FormField, type PersonalShape } from './form-fields.js';
import type { SubmissionFileRow, SubmissionRow } from './submissions.repo.js';

/** Where a file answer is downloaded (GET .../submissions/:submissionId/files/:key), from the API's root. */
export const submissionFileUrl = (row: SubmissionRow, key: string) =>
  `/orgs/${row.orgId}/forms/${row.formId}/submissions/${row.id}/files/${key}`;

/**
 * What one reader gets of a form's personal data (DECISIONS.md sections 5 and 13): the answers of its
 * fields marked personal and each submission's top-level `location` (the respondent's position). The one
 * decision the submissions list, the erase route, the CSV export and a report's sources share.
 */
export interface PersonalAnswers extends PersonalShape {
  /** The keys of the top-level fields marked personal (groups' included); `repeats` those in entries. */
  keys: string[];
  /** Whether the reader may get personal data: every role but viewer (any form: a position may come). */
  inClear: boolean;
}

export function personalAnswersFor(fields: FormField[], role: OrgRole): PersonalAnswers {
  return { ...personalShape(fields), inClear: seesPersonalData(role) };
}

/** Whether the form has fields marked personal, at any depth. */
export const anyPersonalField = (personal: PersonalShape): boolean => !isEmptyShape(personal);

/** Whether a submission holds personal data: the form has fields marked personal, or it has a position. */
export const holdsPersonal = (personal: PersonalAnswers, row: SubmissionRow): boolean =>
  anyPersonalField(personal) || row.location !== null;

/** Whether this submission's personal data reaches the reader in clear: what the audit log records. */
export const showsPersonal = (personal: PersonalAnswers, row: SubmissionRow): boolean =>
  personal.inClear && row.personalErasedAt === null && holdsPersonal(personal, row);

const isEntry = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The answers with every personal one null, in the repeats' entries too. */
function nulledAnswers(shape: PersonalShape, answers: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...answers };
  for (const key of shape.keys) copy[key] = null;
  for (const repeat of shape.repeats) {
    const entries = copy[repeat.key];
    if (Array.isArray(entries)) {
      copy[repeat.key] = (entries as unknown[]).map((entry) =>
        isEntry(entry) ? nulledAnswers(repeat.shape, entry) : entry,
      );
    }
  }
  return copy;
}

/** Whether answers still hold an answer of a field marked personal, in the repeats' entries too. */
export function holdsPersonalAnswers(shape: PersonalShape, answers: Record<string, unknown>): boolean {
  return (
    shape.keys.some((key) => Object.hasOwn(answers, key)) ||
    shape.repeats.some((repeat) => {
      const entries = answerOf(answers, repeat.key);
      return (
        Array.isArray(entries) &&
        entries.some((entry) => isEntry(entry) && holdsPersonalAnswers(repeat.shape, entry))
      );
    })
  );
}

/**
 * The answers the reader gets: every personal one null for a viewer, and for everyone once erased
 * (also one marked personal after the erasure, still stored until erased again or by retention).
 * Present as null whether answered or not, so that a viewer cannot tell which were; inside each
 * entry of a repeat too.
 */
export function readableAnswers(personal: PersonalAnswers, row: SubmissionRow): Record<string, unknown> {
  if (!anyPersonalField(personal) || showsPersonal(personal, row)) return { ...row.answers };
  return nulledAnswers(personal, row.answers);
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
