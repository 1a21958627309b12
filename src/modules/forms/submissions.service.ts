import { queueWebhookEvent } from '../webhooks/index.js';
import type { Multipart } from '@fastify/multipart';
import { transaction, type Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import { AppError, badRequest, conflict, gone, notFound } from '../../errors/catalogue.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { newId, UUID_PATTERN } from '../../lib/ids.js';
import { recordFeedEvent } from '../feed/index.js';
import type { Clock } from '../../lib/clock.js';
import type { Tally } from '../../lib/tally.js';
import { countSubmission, isMiss } from './counting.js';
import type { CountedReason } from './forms.tables.js';
import { multipartError } from '../files/index.js';
import {
  ACCEPTED_TYPES,
  sanitizeFileName,
  StoredFileMissing,
  storeUpload,
  type FileStorage,
  type StoredFile,
} from '../../storage/file-storage.js';
import type { FileQuota, QuotaScope, Room } from '../../storage/file-quota.js';
import { ensureProjectAccess } from '../projects/index.js';
import { ALREADY_ERASED, recordAudit, type AuditSource } from '../privacy/index.js';
import { checkSubmission } from './answers.js';
import { answerOf, topLevelFields, type FormField } from './form-fields.js';
import { localizeForm } from './form-languages.js';
import { findForm, findFormByToken, lockFormForSubmission, type FormRow } from './forms.repo.js';
import { readableSubmissions, recordPageRead } from './submission-pages.js';
import {
  holdsPersonal,
  holdsPersonalAnswers,
  personalAnswersFor,
  submissionView,
} from './submission-view.js';
import {
  countSubmissions,
  erasePersonalAnswers,
  filesOf,
  findSubmissionFile,
  formFileBytes,
  insertSubmission,
  listSubmissions,
  lockSubmission,
} from './submissions.repo.js';

export const FORM_CLOSED = 'This form is no longer accepting responses';
export const NOTHING_PERSONAL =
  'This submission has no position and its form no field marked personal: there is nothing to erase';

interface Upload extends StoredFile {
  fieldKey: string;
  fileName: string;
}

/** How the feed says why a submission was not counted. */
const MISSED: Record<Exclude<CountedReason, 'not_counting'>, string> = {
  no_value: 'its value field was not answered',
  no_period_for_date: 'no reporting period of the project holds its date',
  period_locked: 'its reporting period is locked',
  report_submitted: 'the indicator report is submitted',
  report_approved: 'the indicator report is approved',
  value_out_of_range: 'the sum would pass the largest number the report can hold',
  category_not_mapped: 'its answer names no category of the indicator',
  unknown: 'the reason was not recorded',
};

const missedBecause = (reason: CountedReason) => (reason === 'not_counting' ? '' : MISSED[reason]);

/** What a multipart body carried besides its JSON: stored files, refused files' keys, part problems. */
interface Received {
  uploads: Upload[];
  refused: string[];
  problems: string[];
}

/** A form that takes responses now: unknown or unpublished 404, past closesAt 410. */
function open(form: FormRow | undefined, now = new Date()): FormRow {
  if (!form?.isPublished) throw notFound('Form');
  if (form.closesAt && form.closesAt <= now) throw gone(FORM_CLOSED);
  return form;
}

const fileTypes = Object.values(ACCEPTED_TYPES);
const typeList = `${fileTypes.slice(0, -1).join(', ')} or ${fileTypes.at(-1)}`;

/** The quotas a submission's files count against: its form's and its organization's. */
const quotaScope = (form: FormRow): QuotaScope => ({
  orgId: form.orgId,
  formBytes: (db) => formFileBytes(db, form.orgId, form.id),
});

/**
 * Reads the whole multipart body (files straight into storage) before any database work, so a slow or
 * vanishing respondent never holds a connection. `data` is the JSON of a JSON submission; each file
 * part is named by its field's key. What is wrong is collected, reported with the answers' problems;
 * files past the `room` the quotas left end the body at once (507).
 */
async function readParts(
  parts: AsyncIterable<Multipart>,
  fields: FormField[],
  storage: FileStorage,
  { maxFiles, room }: { maxFiles: number; room: Room },
) {
  // Groups' fields are top-level answers: a file field in a group takes its part as any other.
  const types = new Map(topLevelFields(fields).map((field) => [field.key, field.type]));
  const uploads: Upload[] = [];
  const refused: string[] = [];
  const problems: string[] = [];
  let data: unknown = { answers: {} };
  let dataSeen = false;
  let received = 0;
  try {
    for await (const part of parts) {
      const name = part.fieldname;
      if (part.type === 'field') {
        if (name !== 'data') problems.push(`property ${name} should not exist`);
        else if (dataSeen) problems.push('data must be a single part');
        else {
          dataSeen = true;
          try {
            data = JSON.parse(String(part.value));
          } catch {
            problems.push('data must be JSON');
          }
        }
        continue;
      }
      const type = types.get(name);
      const problem = !type
        ? `answers.${name} is not a field of this form`
        : type !== 'file'
          ? `answers.${name} is not a file field`
          : uploads.some((u) => u.fieldKey === name)
            ? `answers.${name} must be a single file`
            : null;
      if (problem) {
        part.file.resume();
        problems.push(problem);
        continue;
      }
      // Nothing left: refused before a byte of the file is written.
      if (received >= room.bytes) throw room.exceeded();
      const fileName = sanitizeFileName(part.filename);
      try {
        const stored = await storeUpload(storage, {
          stream: part.file,
          fileName,
          declaredType: part.mimetype,
          tooLarge: () => part.file.truncated,
        });
        uploads.push({ ...stored, fieldKey: name, fileName });
        received += stored.size;
      } catch (err) {
        if (!(err instanceof AppError && err.statusCode === 415)) throw err;
        problems.push(`answers.${name} must be a ${typeList} file`);
        refused.push(name);
      }
      if (received > room.bytes) throw room.exceeded();
    }
  } catch (err) {
    await Promise.all(uploads.map((u) => storage.delete(u.key)));
    if ((err as { code?: string }).code === 'FST_FILES_LIMIT') {
      throw badRequest(`A submission carries at most one file per file field (${maxFiles} here)`);
    }
    throw multipartError(err);
  }
  return { data, received: { uploads, refused, problems } };
}

/** Public responses to forms and what the organization reads of them. */
export class SubmissionService {
  constructor(
    private readonly db: Db,
    private readonly storage: FileStorage,
    private readonly quota: FileQuota,
    /** Wakes the webhook worker; queueWebhookEvent calls it once a delivery it queued has committed. */
    private readonly webhooksQueued: () => void,
    /** Today's date for counting by date, and the metric of submissions not counted (by reason). */
    private readonly counting: { clock: Clock; notCounted: Tally },
  ) {}

  private async byToken(token: string) {
    return open(UUID_PATTERN.test(token) ? await findFormByToken(this.db, token.toLowerCase()) : undefined);
  }

  /** The form for respondents, in the language `lang` matches (form-languages.ts). */
  async publicForm(token: string, lang?: string) {
    const form = await this.byToken(token);
    const { title, description, fields, closesAt, defaultLanguage, translations } = form;
    return localizeForm({ title, description, fields, closesAt, defaultLanguage, translations }, lang);
  }

  async submitJson(token: string, body: unknown) {
    const form = await this.byToken(token);
    return this.record(form, body, { uploads: [], refused: [], problems: [] });
  }

  /** Refused before a byte is read when the form does not take responses. */
  async submitMultipart(token: string, parts: (limits: { files: number }) => AsyncIterable<Multipart>) {
    const form = await this.byToken(token);
    const files = Math.max(topLevelFields(form.fields).filter((field) => field.type === 'file').length, 1);
    const room = await this.quota.room(this.db, quotaScope(form));
    const { data, received } = await readParts(parts({ files }), form.fields, this.storage, {
      maxFiles: files,
      room,
    });
    return this.record(form, data, received);
  }

  /**
   * Checks the answers against the form as it is inside the transaction, holds the files kept to the
   * quotas, counts the submission into the indicator's report and stores it, all or nothing. Files of
   * hidden fields, or of a refused submission, are removed again.
   */
  private async record(form: FormRow, body: unknown, received: Received) {
    const { uploads, refused, problems: partProblems } = received;
    let kept: string[] = [];
    let missed: CountedReason | null = null;
    try {
      const saved = await transaction(this.db, async (tx) => {
        // Before the form's row lock: every write of files takes the two in this order.
        if (uploads.length > 0) await this.quota.lock(tx, form.orgId);
        const current = await lockFormForSubmission(tx, form.orgId, form.id);
        // The link was regenerated or the form unpublished or deleted since it was read.
        if (current?.publicToken !== form.publicToken) throw notFound('Form');
        open(current);
        // A refused file was still sent: its field is reported as the wrong type, not as missing.
        const fileKeys = [...uploads.map((upload) => upload.fieldKey), ...refused];
        const { submission, problems } = checkSubmission(
          current.fields,
          body,
          fileKeys,
          partProblems,
          this.counting.clock.now().toISOString().slice(0, 10),
        );
        if (!submission) throw badRequest(...problems);
        kept = submission.files;
        const keptBytes = uploads
          .filter((upload) => kept.includes(upload.fieldKey))
          .reduce((sum, upload) => sum + upload.size, 0);
        await this.quota.reserve(tx, quotaScope(current), keptBytes);
        const now = this.counting.clock.now();
        const today = now.toISOString().slice(0, 10);
        const dateKey = current.countInto === 'period_of_date' ? current.countDateField : null;
        const backdated = dateKey ? answerOf(submission.answers, dateKey) : undefined;
        if (typeof backdated === 'string' && backdated > today) {
          throw badRequest(`answers.${dateKey} must not be a date in the future`);
        }
        const id = newId();
        const outcome = await countSubmission(tx, current, submission.answers, { submissionId: id, today });
        const counted = outcome.counted;
        const saved = await insertSubmission(
          tx,
          current.orgId,
          {
            id,
            formId: current.id,
            reportingPeriodId: outcome.reportingPeriodId,
            answers: submission.answers,
            location: submission.location,
            counted: counted !== null,
            countedReason: outcome.reason,
            countDate: outcome.countDate,
            indicatorReportId: counted?.reportId ?? null,
            countedAmount: counted?.amount ?? null,
            countedCells: counted?.cells ?? null,
            // The date it was counted by is the stored one's.
            ...(current.countInto === 'period_of_date' && { submittedAt: now }),
          },
          uploads
            .filter((upload) => kept.includes(upload.fieldKey))
            .map((upload) => ({
              fieldKey: upload.fieldKey,
              fileName: upload.fileName,
              contentType: upload.contentType,
              size: upload.size,
              storageKey: upload.key,
            })),
        );
        if (isMiss(outcome.reason)) {
          missed = outcome.reason;
          await recordFeedEvent(tx, {
            orgId: current.orgId,
            type: 'form_submission.not_counted',
            actorId: null,
            projectId: current.projectId,
            subject: { type: 'form', id: current.id, label: current.title },
            summary: `A response to “${current.title}” was stored but not counted: ${missedBecause(outcome.reason)}`,
          });
        }
        // No answers and no counted amount (either may be personal): what it is and where it was counted.
        await queueWebhookEvent(
          tx,
          {
            orgId: current.orgId,
            type: 'form_submission.created',
            at: saved.submittedAt,
            data: {
              id: saved.id,
              formId: current.id,
              projectId: current.projectId,
              reportingPeriodId: outcome.reportingPeriodId,
              submittedAt: saved.submittedAt,
              indicatorReportId: counted?.reportId ?? null,
            },
          },
          this.webhooksQueued,
        );
        return saved;
      });
      if (missed) this.counting.notCounted.add(missed);
      return saved;
    } catch (err) {
      kept = [];
      throw err;
    } finally {
      const dropped = uploads.filter((upload) => !kept.includes(upload.fieldKey));
      await Promise.all(dropped.map((upload) => this.storage.delete(upload.key)));
    }
  }

  /** The form, for a member who may read its project. */
  private async readable(member: Member, formId: string) {
    const form = await findForm(this.db, member.orgId, formId);
    if (!form) throw notFound('Form');
    await ensureProjectAccess(this.db, member, form.projectId);
    return form;
  }

  /**
   * The form's submissions as the member may read them; a page with personal data in clear is recorded
   * (the submissions whose personal answers or positions it carried) before it is returned.
   */
  async list(member: Member, formId: string, query: PageRequest, source: AuditSource) {
    const form = await this.readable(member, formId);
    const personal = personalAnswersFor(form.fields, member.role);
    const inClear = new Set<string>();
    const page = await paginate(query, {
      count: () => countSubmissions(this.db, member.orgId, formId),
      list: async (window) =>
        readableSubmissions(
          this.db,
          member.orgId,
          await listSubmissions(this.db, member.orgId, formId, window),
          {
            personalOf: () => personal,
            inClear,
          },
        ),
    });
    await recordPageRead(this.db, source, page, inClear, { formId, page: query.page, limit: query.limit });
    return page;
  }

  /**
   * Erases the answers of the form's personal fields and the position from one submission (a person's
   * request), in one transaction with its audit entry. The row lock makes a second erasure wait and then
   * find nothing left (409). The submission, its files and its count into the indicator report stay.
   * Neither a field marked personal nor a position: 409, nothing written (there is nothing to erase).
   */
  async erase(member: Member, at: { formId: string; id: string }, reason: string, source: AuditSource) {
    const form = await this.readable(member, at.formId);
    const personal = personalAnswersFor(form.fields, member.role);
    const row = await transaction(this.db, async (tx) => {
      const row = await lockSubmission(tx, member.orgId, at.formId, at.id);
      if (!row) throw notFound('Submission');
      if (row.personalErasedAt) {
        // Erased before, unless a field was marked personal since: its answer is still there.
        if (!holdsPersonalAnswers(personal, row.answers)) {
          throw conflict(ALREADY_ERASED.form_submission, 'personal_data_erased');
        }
      } else if (!holdsPersonal(personal, row)) throw conflict(NOTHING_PERSONAL);
      const erased = await erasePersonalAnswers(tx, member.orgId, row.id, personal, new Date());
      await recordAudit(tx, source, {
        action: 'erase',
        subjectKind: 'form_submission',
        subjectIds: [row.id],
        details: { formId: at.formId, reason: reason.trim() },
      });
      return erased;
    });
    return submissionView(row, await filesOf(this.db, member.orgId, [row.id]), personal);
  }

  async file(member: Member, at: { formId: string; submissionId: string; key: string }) {
    const found = await findSubmissionFile(this.db, member.orgId, at);
    if (!found) {
      // A reporter not on the form's project hears 403 whether or not the file exists, as for the file itself.
      const form = await findForm(this.db, member.orgId, at.formId);
      if (form) await ensureProjectAccess(this.db, member, form.projectId);
      throw notFound('File');
    }
    await ensureProjectAccess(this.db, member, found.projectId);
    try {
      return { ...found.file, stream: await this.storage.get(found.file.storageKey) };
    } catch (err) {
      if (err instanceof StoredFileMissing) throw notFound('File');
      throw err;
    }
  }
}
