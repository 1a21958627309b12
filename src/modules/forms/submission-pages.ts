import type { Db } from '../../db/client.js';
import { recordPersonalRead, type AuditSource } from '../privacy/index.js';
import { showsPersonal, submissionView, type PersonalAnswers } from './submission-view.js';
import { filesOf, type SubmissionRow } from './submissions.repo.js';

// A page of submissions as one member reads them: what the submissions list and a report's sources share.

/** Who reads: what they get of each row's personal answers, and the ids of the rows that carry them in clear. */
export interface Reading {
  personalOf: (row: SubmissionRow) => PersonalAnswers;
  inClear: Set<string>;
}

/** The rows as the reader may read them, each with its files (one query for the page). */
export async function readableSubmissions(db: Db, orgId: string, rows: SubmissionRow[], reading: Reading) {
  const files = await filesOf(
    db,
    orgId,
    rows.map((row) => row.id),
  );
  return rows.map((row) => {
    const personal = reading.personalOf(row);
    if (showsPersonal(personal, row)) reading.inClear.add(row.id);
    return submissionView(
      row,
      files.filter((file) => file.submissionId === row.id),
      personal,
    );
  });
}

/** Records the page's submissions whose personal answers it carried in clear, before it is sent. */
export async function recordPageRead(
  db: Db,
  source: AuditSource,
  page: { id: string }[] | { data: { id: string }[] },
  inClear: Set<string>,
  details: Record<string, unknown>,
): Promise<void> {
  // Of the submissions returned (an unpaged list reads one more than it returns).
  const returned = Array.isArray(page) ? page : page.data;
  await recordPersonalRead(db, source, {
    subjectKind: 'form_submission',
    subjectIds: returned.filter((item) => inClear.has(item.id)).map((item) => item.id),
    details,
  });
}
