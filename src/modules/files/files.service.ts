import type { FastifyBaseLogger } from 'fastify';
import type { Multipart } from '@fastify/multipart';
import { transaction, type Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import {
  badRequest,
  malformedRequest,
  notFound,
  payloadTooLarge,
  unsupportedMediaType,
} from '../../errors/catalogue.js';
import { refusedWrite } from '../../errors/refusals.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { textProblem } from '../../lib/text.js';
import { ensureProjectAccess, requireProject } from '../projects/index.js';
import {
  countAttachments,
  deleteAttachment,
  findAttachment,
  insertAttachment,
  listAttachments,
  type AttachmentRow,
} from './files.repo.js';
import { TITLE_MAX_LENGTH } from './files.schemas.js';
import {
  fileTooLarge,
  sanitizeFileName,
  StoredFileMissing,
  storeUpload,
  type FileStorage,
  type StoredFile,
  removeStoredFiles,
} from '../../storage/file-storage.js';
import type { FileQuota, Room } from '../../storage/file-quota.js';

const withDownloadUrl = (row: AttachmentRow) => ({
  ...row,
  downloadUrl: `/orgs/${row.orgId}/attachments/${row.id}/download`,
});

/** @fastify/multipart's errors, in the contract's words. */
export function multipartError(err: unknown): unknown {
  switch ((err as { code?: string }).code ?? '') {
    case 'FST_REQ_FILE_TOO_LARGE':
      return fileTooLarge();
    case 'FST_FILES_LIMIT':
      return badRequest('file must be a single file');
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return payloadTooLarge('Too many parts in the multipart body');
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return unsupportedBody();
    case 'FST_PROTO_VIOLATION':
    case 'FST_INVALID_JSON_FIELD_ERROR':
    case 'FST_MP_PREMATURE_CLOSE':
      return malformedRequest('Multipart body is not valid', 'multipart');
    default:
      // A client that went away mid-upload ('aborted', a reset socket) is a bad request, not a server fault.
      return err instanceof Error &&
        (/multipart|terminated early|^aborted$/i.test(err.message) ||
          (err as { code?: string }).code === 'ECONNRESET')
        ? malformedRequest('Multipart body is not valid', 'multipart')
        : err;
  }
}

export const unsupportedBody = () =>
  unsupportedMediaType('Unsupported content type; send multipart/form-data');

interface UploadForm {
  stored: StoredFile;
  fileName: string;
  title: string | undefined;
}

/**
 * Reads the whole multipart body (the file straight into storage) before anything else happens, so a
 * slow or vanishing client never holds a database connection. Every part is consumed; problems with
 * fields are reported after the body ended, together.
 */
async function readUploadForm(
  parts: AsyncIterable<Multipart>,
  storage: FileStorage,
  room: Room,
): Promise<UploadForm> {
  let stored: StoredFile | undefined;
  let fileName = '';
  let title: string | undefined;
  const messages: string[] = [];
  try {
    for await (const part of parts) {
      if (part.type === 'file' && part.fieldname === 'file' && !stored) {
        if (room.bytes === 0) throw room.exceeded();
        fileName = sanitizeFileName(part.filename);
        stored = await storeUpload(storage, {
          stream: part.file,
          fileName,
          declaredType: part.mimetype,
          tooLarge: () => part.file.truncated,
        });
        if (stored.size > room.bytes) throw room.exceeded();
      } else if (part.type === 'field' && part.fieldname === 'title' && title === undefined) {
        title = typeof part.value === 'string' ? part.value : String(part.value);
      } else {
        if (part.type === 'file') part.file.resume();
        const name = part.fieldname;
        if (name === 'file') {
          messages.push(
            part.type === 'file' ? 'file must be a single file' : 'file must be a file, not a text field',
          );
        } else if (name === 'title') messages.push('title must be a single text field');
        else messages.push(`property ${name} should not exist`);
      }
    }
  } catch (err) {
    if (stored) await storage.delete(stored.key);
    throw multipartError(err);
  }
  if (!stored && !messages.some((m) => m.startsWith('file '))) messages.unshift('file is required');
  if (title !== undefined) {
    const problem = textProblem(title, 'one');
    if (title.trim() === '') messages.push('title should not be empty');
    else if (title.length > TITLE_MAX_LENGTH)
      messages.push(`title must be at most ${TITLE_MAX_LENGTH} characters`);
    else if (problem) messages.push(`title ${problem}`);
  }
  if (messages.length > 0 || !stored) {
    if (stored) await storage.delete(stored.key);
    throw badRequest(...new Set(messages));
  }
  return { stored, fileName, title: title?.trim() };
}

export class AttachmentService {
  constructor(
    private readonly db: Db,
    private readonly storage: FileStorage,
    private readonly log: FastifyBaseLogger,
    private readonly quota: FileQuota,
  ) {}

  private async project(member: Member, projectId: string): Promise<void> {
    await requireProject(this.db, member, projectId);
  }

  async list(member: Member, projectId: string, query: PageRequest) {
    await this.project(member, projectId);
    // Mapped inside `list`: the array paginate returns carries its next-page mark.
    return paginate(query, {
      count: () => countAttachments(this.db, member.orgId, projectId),
      list: async (window) =>
        (await listAttachments(this.db, member.orgId, projectId, window)).map(withDownloadUrl),
    });
  }

  async upload(member: Member, projectId: string, parts: () => AsyncIterable<Multipart>) {
    // Refused before a byte is read: an unknown project should not cost a 10 MiB upload.
    await this.project(member, projectId);
    const scope = { orgId: member.orgId };
    const room = await this.quota.room(this.db, scope);
    const { stored, fileName, title } = await readUploadForm(parts(), this.storage, room);
    try {
      const row = await transaction(this.db, async (tx) => {
        await this.quota.reserve(tx, scope, stored.size);
        return insertAttachment(tx, member.orgId, {
          projectId,
          title: title ?? fileName,
          fileName,
          contentType: stored.contentType,
          size: stored.size,
          storageKey: stored.key,
          uploadedBy: member.userId,
        });
      });
      return withDownloadUrl(row);
    } catch (err) {
      await this.storage.delete(stored.key);
      // The project was deleted while the file arrived.
      return refusedWrite({ gone: () => notFound('Project') })(err);
    }
  }

  async download(member: Member, id: string) {
    const attachment = await findAttachment(this.db, member.orgId, id);
    if (!attachment) throw notFound('Attachment');
    await ensureProjectAccess(this.db, member, attachment.projectId);
    try {
      const stream = await this.storage.get(attachment.storageKey);
      return { ...attachment, stream };
    } catch (err) {
      if (err instanceof StoredFileMissing) throw notFound('Attachment');
      throw err;
    }
  }

  async remove(member: Member, id: string): Promise<void> {
    const key = await deleteAttachment(this.db, member.orgId, id);
    if (key === undefined) throw notFound('Attachment');
    // The row is gone: a file that cannot be removed now is logged, not reported as a failed delete.
    await removeStoredFiles(this.storage, [key], this.log);
  }
}
