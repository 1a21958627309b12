import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { ALL_ROLES, MANAGERS, memberOf } from '../../http/pipeline/access.js';
import { errorResponse } from '../../http/errors/replies.js';
import { Collection, PageQuery } from '../../http/schemas/pagination.js';
import { FileDownload, NoContent, Params } from '../../http/schemas/schemas.js';
import { Attachment, AttachmentUpload } from './files.schemas.js';
import { AttachmentService, unsupportedBody } from './files.service.js';
import { ACCEPTED_TYPES, downloadHeaders, MAX_FILE_SIZE } from '../../storage/file-storage.js';

const tags = ['Attachments'];

export const attachmentRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  // Multipart is accepted by the routes of this plugin only; everywhere else bodies are JSON.
  await app.register(multipart, {
    limits: { fileSize: MAX_FILE_SIZE, files: 1, fields: 10, parts: 20, fieldSize: 4096 },
  });
  const attachments = new AttachmentService(ctx.db, ctx.storage, app.log, ctx.fileQuota);

  app.get(
    '/orgs/:orgId/projects/:projectId/attachments',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listAttachments',
        tags,
        summary: 'Attachments of a project',
        description: 'Newest first, ties by id. Reporters may read only projects assigned to them.',
        params: Params('orgId', 'projectId'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(Attachment) },
      },
    },
    (request) => attachments.list(memberOf(request), request.params.projectId, request.query),
  );

  app.post(
    '/orgs/:orgId/projects/:projectId/attachments',
    {
      config: {
        access: { roles: MANAGERS },
        idempotency: 'user',
        location: '/orgs/:orgId/attachments/:newId/download',
      },
      schema: {
        operationId: 'uploadAttachment',
        tags,
        summary: 'Attach a document to a project',
        description:
          'multipart/form-data with a part `file` (required) and an optional field `title` (at most 200 ' +
          'characters, defaulting to the file name). The type is decided from the bytes: PDF, JPEG, PNG, WebP, ' +
          'DOCX and XLSX by their signatures; CSV, which has none, when the part is declared text/csv or named ' +
          '*.csv and the bytes are UTF-8 text without NUL characters. Anything else (an empty file too): 415; a file over 10 MiB: ' +
          '413; a body that is not multipart: 415. The stored name drops directories and control characters. ' +
          "The organization's stored files (attachments and form submissions' files) are held to " +
          'ORG_FILES_QUOTA (10 GiB unless configured): a file that would pass it is refused with 507 ' +
          '`upload_quota_exceeded`, and nothing is kept.',
        params: Params('orgId', 'projectId'),
        bodyMedia: { 'multipart/form-data': AttachmentUpload },
        response: {
          201: Attachment,
          413: errorResponse('File larger than 10 MiB'),
          415: errorResponse('Not multipart, or a file type that is not accepted'),
          507: errorResponse("The file would pass the organization's quota of stored files"),
        },
      },
    },
    async (request, reply) => {
      if (!request.isMultipart()) throw unsupportedBody();
      const created = await attachments.upload(memberOf(request), request.params.projectId, () =>
        request.parts(),
      );
      return reply.status(201).send(created);
    },
  );

  app.get(
    '/orgs/:orgId/attachments/:id/download',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'downloadAttachment',
        tags,
        summary: 'Download an attachment',
        description:
          'The stored bytes with their detected Content-Type and `Content-Disposition: attachment` (an ASCII ' +
          'filename plus RFC 5987 filename* for other names). Reporters only for projects assigned to them.',
        params: Params('orgId', 'id'),
        answers: { 200: FileDownload('The file', Object.keys(ACCEPTED_TYPES)) },
      },
    },
    async (request, reply) => {
      const file = await attachments.download(memberOf(request), request.params.id);
      return reply.headers(downloadHeaders(file)).send(file.stream);
    },
  );

  app.delete(
    '/orgs/:orgId/attachments/:id',
    {
      config: {
        access: { roles: MANAGERS },
        conditional: { none: 'an attachment is read as its file, which carries no ETag' },
      },
      schema: {
        operationId: 'deleteAttachment',
        tags,
        summary: 'Delete an attachment and its file',
        params: Params('orgId', 'id'),
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await attachments.remove(memberOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
};
