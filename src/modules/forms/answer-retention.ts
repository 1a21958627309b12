import { transaction, type Db } from '../../db/client.js';
import { recordAudit, serviceSource } from '../privacy/index.js';
import { personalShape } from './form-fields.js';
import { formsWithRetention } from './forms.repo.js';
import { eraseSubmittedBefore } from './submissions.repo.js';

/** Submissions erased per transaction: short row locks, one audit entry each. */
const BATCH = 500;
const DAY_MS = 24 * 60 * 60 * 1000;
export const RETENTION_JOB = 'retention: personal answers';

/**
 * The daily retention run: for every form with `personalDataRetentionDays`, erases the personal answers
 * and positions of the submissions sent more than that many days before `now`, as the erase route
 * does, in batches that each commit with their audit entry. A second run finds nothing and writes
 * nothing. Returns how many submissions it erased.
 */
export async function eraseExpiredPersonalAnswers(db: Db, now = new Date()): Promise<number> {
  let erased = 0;
  for (const form of await formsWithRetention(db)) {
    // Maybe none: a form without fields marked personal still has positions to erase.
    const keys = personalShape(form.fields);
    if (form.retentionDays === null) continue;
    const before = new Date(now.getTime() - form.retentionDays * DAY_MS);
    const source = serviceSource(form.orgId, RETENTION_JOB);
    for (;;) {
      const ids = await transaction(db, async (tx) => {
        const ids = await eraseSubmittedBefore(tx, form.orgId, form.id, keys, before, now, BATCH);
        if (ids.length > 0) {
          await recordAudit(tx, source, {
            action: 'retention_erase',
            subjectKind: 'form_submission',
            subjectIds: ids,
            details: { formId: form.id, retentionDays: form.retentionDays },
          });
        }
        return ids;
      });
      erased += ids.length;
      if (ids.length < BATCH) break;
    }
  }
  return erased;
}
