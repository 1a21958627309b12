import type { SubmissionFileRow, SubmissionRow } from './submissions.repo.js';

/** Where a file answer is downloaded (GET .../submissions/:submissionId/files/:key), from the API's root. */
export const submissionFileUrl = (row: SubmissionRow, key: string) =>
  `/orgs/${row.orgId}/forms/${row.formId}/submissions/${row.id}/files/${key}`;

/** A submission as listed: its answers with each file answer described and linked. */
export function submissionView(row: SubmissionRow, files: SubmissionFileRow[]) {
  const answers: Record<string, unknown> = { ...row.answers };
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
