import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { REVALIDATE_EACH_TIME } from '../../http/pipeline/caching.js';
import { errorResponse } from '../../http/errors/replies.js';
import { FileDownload, Uuid, withExample } from '../../http/schemas/schemas.js';
import { ACCEPTED_TYPES, downloadHeaders } from '../../storage/file-storage.js';
import { Report } from './reports.schemas.js';
import { SharingService } from './sharing.service.js';
import { SHARED_REPORT } from './reports.examples.js';

const tags = ['Shared reports'];
// Any text: a token that is not one of ours is an unknown report (404), whatever it looks like.
const token = Type.String({ maxLength: 200, description: 'The share token of the report' });
const gone = errorResponse('Unknown, revoked or expired link');

/** The donors' side of share links: no session, the public rate-limit bucket (DECISIONS.md section 12). */
export const sharedReportRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  const sharing = new SharingService(ctx.db, ctx.config, ctx.storage, ctx.replica);

  app.get(
    '/reports/share/:token',
    {
      config: { access: 'public', rateLimitBucket: 'public' },
      schema: {
        operationId: 'getSharedReport',
        tags,
        summary: 'A report shared by link',
        description:
          'The same full report its editors read, with attachment links that work through this share link, ' +
          "and the indicators' `qualityNotes` only while the organization has `showQualityNotes` on (read at " +
          'each request: turned off, they are gone at once, from reports made before too). ' +
          '404 `Report not found` when the token is unknown, revoked or past shareExpiresAt.',
        params: Type.Object({ token }, { additionalProperties: false }),
        response: { 200: withExample(Report, SHARED_REPORT), 404: gone },
      },
    },
    async (request, reply) => {
      const report = await sharing.publicReport(request.params.token);
      // Kept by the reader's cache, asked again each time (ETag): a revoked link stops at once.
      void reply.header('cache-control', REVALIDATE_EACH_TIME);
      return report;
    },
  );

  app.get(
    '/reports/share/:token/attachments/:attachmentId',
    {
      config: { access: 'public', rateLimitBucket: 'public' },
      schema: {
        operationId: 'downloadSharedReportAttachment',
        tags,
        summary: 'Download an attachment of a shared report',
        description:
          'While the link is valid, an attachment listed in the report that still exists; otherwise 404 ' +
          '(`Report not found` for the link, `Attachment not found` for the file).',
        params: Type.Object({ token, attachmentId: Uuid() }, { additionalProperties: false }),
        answers: { 200: FileDownload('The file', Object.keys(ACCEPTED_TYPES)) },
      },
    },
    async (request, reply) => {
      const file = await sharing.publicAttachment(request.params.token, request.params.attachmentId);
      return reply.headers(downloadHeaders(file)).send(file.stream);
    },
  );
};
