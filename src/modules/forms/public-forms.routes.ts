import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { errorResponse } from '../../http/errors/replies.js';
import { MAX_FILE_SIZE } from '../../storage/file-storage.js';
import { MultipartSubmission, PublicForm, PublicFormQuery, SubmitBody, Submitted } from './forms.schemas.js';
import { FORM_CLOSED, SubmissionService } from './submissions.service.js';
import { withExample } from '../../http/schemas/schemas.js';
import { PUBLIC_FORM, SUBMISSION, SUBMISSION_RECEIPT } from './forms.examples.js';

const tags = ['Public forms'];
// Any text: a token that is not one of ours is an unknown form (404), whatever it looks like.
const TokenParams = Type.Object(
  { token: Type.String({ maxLength: 200, description: 'The public token of the form' }) },
  { additionalProperties: false },
);
const closed = {
  404: errorResponse('Unknown token, or the form is not published'),
  410: errorResponse(FORM_CLOSED),
};

/** The respondents' side: no session, its own rate-limit bucket (DECISIONS.md section 12). */
export const publicFormRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  await app.register(multipart, {
    limits: { fileSize: MAX_FILE_SIZE, fields: 5, fieldSize: 1024 * 1024, parts: 210 },
  });
  const submissions = new SubmissionService(ctx.db, ctx.storage, ctx.fileQuota, ctx.webhooksQueued, {
    clock: ctx.clock,
    notCounted: ctx.notCounted,
  });

  app.get(
    '/forms/public/:token',
    {
      config: { access: 'public', rateLimitBucket: 'public' },
      schema: {
        operationId: 'getPublicForm',
        tags,
        summary: 'A published form, for respondents',
        description:
          'Only what a respondent needs: no organization, project or indicator ids. `lang` asks for one of ' +
          "the form's languages (`languages`): the title, description and every label, hint, " +
          'constraintMessage and choice label come in it, each string not translated in the default ' +
          'language; `language` says which was answered (an unknown `lang` gives the default language).',
        params: TokenParams,
        querystring: PublicFormQuery,
        response: { 200: withExample(PublicForm, PUBLIC_FORM), ...closed },
      },
    },
    (request) => submissions.publicForm(request.params.token, request.query.lang),
  );

  app.post(
    '/forms/public/:token/submit',
    {
      config: {
        access: 'public',
        rateLimitBucket: 'public',
        idempotency: { scope: 'form', token: 'token' },
        location: '/forms/public/:token',
      },
      // Multipart bodies are what fill the disk: they also spend a lower limit of their own. Known once
      // the content type is parsed, before a byte of the body is read.
      preValidation: async function (request, reply) {
        if (request.isMultipart()) await ctx.uploadLimit.call(this, request, reply);
      },
      // Both body types go through the same checks (answers.ts), so both get the same messages.
      attachValidation: true,
      schema: {
        operationId: 'submitPublicForm',
        tags,
        summary: 'Answer a published form',
        description:
          'JSON `{ answers, location? }`, or multipart/form-data with a part `data` holding that JSON (may be ' +
          'left out when only files are sent) and one file part per file field named by its key (PDF, ' +
          'JPEG, PNG, WebP, DOCX, XLSX or CSV by content, 10 MiB each: 413 above). Answers are checked in ' +
          'field order and every problem is listed in one 400: required fields that are shown, unknown ' +
          "keys, and each type's rule. Fields hidden by showIf are neither required nor stored. A blank " +
          'string, null or an empty list is no answer. When the form has an indicator and period, the ' +
          'submission adds 1 (or the answer of valueFieldKey) to that report in the same transaction, ' +
          'creating it as a draft; in a locked period, for a submitted or approved report, or without an ' +
          'answer to the value field it is stored with counted false. Files count against the quotas of ' +
          "stored files: the form's (FORM_FILES_QUOTA, 1 GiB unless configured) and its organization's " +
          '(ORG_FILES_QUOTA, 10 GiB); a submission whose files would pass one is refused with 507 ' +
          '`upload_quota_exceeded`, naming it, and nothing of it is kept. A multipart submission also ' +
          'spends a lower per-address limit of its own (PUBLIC_UPLOAD_RATE_LIMIT_MAX, 30 a window).',
        params: TokenParams,
        body: withExample(SubmitBody, SUBMISSION),
        bodyMedia: { 'multipart/form-data': MultipartSubmission },
        response: {
          201: withExample(Submitted, SUBMISSION_RECEIPT),
          ...closed,
          413: errorResponse('A file larger than 10 MiB'),
          415: errorResponse('Neither JSON nor multipart/form-data'),
          507: errorResponse("The files would pass the form's or the organization's quota of stored files"),
        },
      },
    },
    async (request, reply) => {
      const { token } = request.params;
      const saved = request.isMultipart()
        ? await submissions.submitMultipart(token, (limits) => request.parts({ limits }))
        : await submissions.submitJson(token, request.body);
      return reply.status(201).send(saved);
    },
  );
};
