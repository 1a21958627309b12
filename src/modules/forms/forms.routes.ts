import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { ADMINS, ALL_ROLES, MANAGERS, memberOf } from '../../http/pipeline/access.js';
import { errorResponse } from '../../http/errors/replies.js';
import { Collection, PageQuery } from '../../http/schemas/pagination.js';
import { CsvDownload, FileDownload, NoContent, Params, withExample } from '../../http/schemas/schemas.js';
import { ACCEPTED_TYPES, contentDisposition, downloadHeaders } from '../../storage/file-storage.js';
import { auditSourceOf } from '../privacy/index.js';
import { countedSources } from './counted-sources.js';
import {
  CountedSubmission,
  CreateFormBody,
  EraseBody,
  FileParams,
  Form,
  FormQuery,
  SubmissionSchema,
  SubmissionsCsvQuery,
  UpdateFormBody,
} from './forms.schemas.js';
import { FormService } from './forms.service.js';
import { SubmissionService } from './submissions.service.js';
import { FORM, FORM_CREATE, FORM_PUBLISHED } from './forms.examples.js';
import { xlsformRoutes } from './xlsform/xlsform.routes.js';
import { submissionsXlsx } from './submissions-xlsx.js';
import { SubmissionsXlsxQuery } from './submissions-xlsx.schemas.js';
import { XLSX_TYPE } from '../../lib/spreadsheets/tables.js';

const tags = ['Forms'];
const READ = 'Reporters only for projects assigned to them.';
const PERSONAL =
  "Answers of fields marked personal and each submission's location (the respondent's position) are " +
  'null for viewers, and for everyone once erased; a response that carries them in clear is recorded in ' +
  'the audit log (the submissions that carry them) before it is sent.';
const LINKS =
  'indicatorId must be linked to the project (unknown: 404; not linked or a formula indicator: 400) and ' +
  'needs reportingPeriodId, a period of the project (unknown: 404; of another project: 400). ' +
  'valueFieldKey names a number field and needs indicatorId. Field rules: keys unique, options required ' +
  'on select and multi_select and refused elsewhere, showIf.field the key of an earlier field and ' +
  'showIf.equals a value that field can take, personal only on text, textarea, number, date, location and calculate ' +
  'fields; all problems are listed in one 400. personalDataRetentionDays (1 to 36500, null: kept): once a ' +
  'day the worker erases the answers of fields marked personal and the locations from submissions older ' +
  'than that many days, as the erase route does; the submissions and their counts stay.';

export const formRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  // XLSForm import (multipart, in its own plugin) and export.
  await app.register(xlsformRoutes, ctx);
  const formService = new FormService(ctx.db, ctx.config, ctx.storage, app.log);
  const submissions = new SubmissionService(ctx.db, ctx.storage, ctx.fileQuota, ctx.webhooksQueued, {
    clock: ctx.clock,
    notCounted: ctx.notCounted,
  });

  app.get(
    '/orgs/:orgId/forms',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listForms',
        tags,
        summary: 'Forms of the organization',
        description: 'Newest first, ties by id; `projectId` narrows to one project. ' + READ,
        params: Params('orgId'),
        querystring: FormQuery,
        response: { 200: Collection(Form) },
      },
    },
    (request) => formService.list(memberOf(request), request.query),
  );

  app.post(
    '/orgs/:orgId/forms',
    {
      config: { access: { roles: MANAGERS }, idempotency: 'user', location: '/orgs/:orgId/forms/:newId' },
      schema: {
        operationId: 'createForm',
        tags,
        summary: 'Create a form',
        description: `New forms are unpublished, with a fresh publicToken. ${LINKS}`,
        params: Params('orgId'),
        body: withExample(CreateFormBody, FORM_CREATE),
        response: { 201: withExample(Form, FORM) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await formService.create(memberOf(request), request.body)),
  );

  app.get(
    '/orgs/:orgId/forms/:id',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'getForm',
        tags,
        summary: 'A form with its fields',
        description: READ,
        params: Params('orgId', 'id'),
        response: { 200: Form },
      },
    },
    (request) => formService.get(memberOf(request), request.params.id),
  );

  app.patch(
    '/orgs/:orgId/forms/:id',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/forms/:id' },
      schema: {
        operationId: 'updateForm',
        tags,
        summary: 'Edit a form',
        description:
          'Any subset; `fields` replaces the whole list. Once a form has submissions its stored answers ' +
          'must keep their meaning: fields may be relabelled, reordered, made required or optional, given ' +
          'another showIf, and new fields and options may be added, but a field cannot be removed or change ' +
          'its type and an option cannot be removed (409, naming the fields). Changing the indicator or ' +
          `period changes where later submissions count; counted ones stay where they were. ${LINKS}`,
        params: Params('orgId', 'id'),
        body: UpdateFormBody,
        response: { 200: Form, 409: errorResponse('An edit that would break stored answers') },
      },
    },
    (request) => formService.update(memberOf(request), request.params.id, request.body),
  );

  app.delete(
    '/orgs/:orgId/forms/:id',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/forms/:id' },
      schema: {
        operationId: 'deleteForm',
        tags,
        summary: 'Delete a form with its submissions and their files',
        description:
          'Values already counted into indicator reports stay there, but no longer as their counted part: ' +
          'with the submissions gone they have no source, so they move to the part entered by hand, and each ' +
          'report fed records an `uncounted` history entry (a later recount then leaves them be). The ' +
          'public link stops working at once.',
        params: Params('orgId', 'id'),
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await formService.remove(memberOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );

  for (const [action, isPublished] of [
    ['publish', true],
    ['unpublish', false],
  ] as const) {
    app.post(
      `/orgs/:orgId/forms/:id/${action}`,
      {
        config: { access: { roles: MANAGERS }, idempotency: 'user', conditional: '/orgs/:orgId/forms/:id' },
        schema: {
          operationId: isPublished ? 'publishForm' : 'unpublishForm',
          tags,
          summary: isPublished ? 'Accept responses through the public link' : 'Stop accepting responses',
          description: isPublished
            ? 'unpublished > published; publishing a published form is 409.'
            : 'published > unpublished; the public endpoints answer 404 at once. Unpublishing an unpublished form is 409.',
          params: Params('orgId', 'id'),
          response: {
            200: withExample(Form, isPublished ? FORM_PUBLISHED : { ...FORM_PUBLISHED, isPublished: false }),
            409: errorResponse('Already in that state'),
          },
        },
      },
      (request) => formService.setPublished(memberOf(request), request.params.id, isPublished),
    );
  }

  app.post(
    '/orgs/:orgId/forms/:id/regenerate-token',
    {
      config: { access: { roles: MANAGERS }, idempotency: 'user', conditional: '/orgs/:orgId/forms/:id' },
      schema: {
        operationId: 'regenerateFormToken',
        tags,
        summary: 'Give the form a new public link',
        description: 'The old token answers 404 at once, also to a submission already on its way.',
        params: Params('orgId', 'id'),
        response: { 200: Form },
      },
    },
    (request) => formService.regenerateToken(memberOf(request), request.params.id),
  );

  app.get(
    '/orgs/:orgId/forms/:id/submissions',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listFormSubmissions',
        tags,
        summary: 'Responses to a form',
        description:
          'Newest first, ties by id. `counted` says whether the submission was added to the indicator ' +
          'report (false without an indicator, in a locked period, for a submitted or approved report, or ' +
          'when the value field was not answered). ' +
          `${PERSONAL} ${READ}`,
        params: Params('orgId', 'id'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(SubmissionSchema) },
      },
    },
    (request) => {
      const member = memberOf(request);
      return submissions.list(member, request.params.id, request.query, auditSourceOf(request, member));
    },
  );

  app.get(
    '/orgs/:orgId/forms/:id/submissions.csv',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'exportFormSubmissions',
        tags,
        summary: 'Responses to a form as CSV',
        description:
          'Streamed, oldest first: columns id, submittedAt, counted, location (`lat,lng`), then one per ' +
          'field by key, in the form\'s order. Multi-select answers are joined with "; ", coordinates ' +
          'written `lat,lng`, files given as download URLs; text starting with =, +, -, @ gets a leading ' +
          'apostrophe so spreadsheets do not run it. Answers of fields marked personal and the location ' +
          "(the respondent's position) are empty cells for viewers, and for everyone once erased (the " +
          'columns stay); an export that carries them in clear is recorded in the audit log before its ' +
          'first byte is sent (with the filter and how many submissions carry them). ' +
          '`indicatorReportId` exports exactly the submissions of this form counted into that report (the ' +
          'same columns): a report of another organization or another project is 404; one this form never ' +
          'counted into gives the header row alone. Fields inside groups are columns as top-level ones; ' +
          'notes have none; a calculate field is a column; a repeat is one column holding its number of ' +
          'entries. `repeat=<key>` exports that repeat instead, as ODK and Kobo do: one row per entry, ' +
          'columns submission_id, entry (1-based), then one per field of the repeat (groups flattened, a ' +
          'repeat inside it its number of entries); a key that is not a repeat of the form outside other ' +
          `repeats is 400. ${READ}`,
        params: Params('orgId', 'id'),
        querystring: SubmissionsCsvQuery,
        answers: { 200: CsvDownload('The responses, one row each') },
      },
    },
    async (request, reply) => {
      const member = memberOf(request);
      // The rows from the read replica (read-your-writes aside, and personal answers in clear: see the
      // service); the form, the access check and the audit entry on the primary. Streamed: the replica is
      // probed and the first slice read before the answer starts, so a silent replica falls back in time.
      const { fileName, csv } = await ctx.replica.read(
        (reads) =>
          formService.submissionsCsv(
            member,
            request.params.id,
            auditSourceOf(request, member),
            request.query,
            reads,
          ),
        { caller: member.userId, streamed: true },
      );
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', contentDisposition(fileName))
        .send(csv);
    },
  );

  app.get(
    '/orgs/:orgId/forms/:id/submissions.xlsx',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'exportFormSubmissionsWorkbook',
        tags,
        summary: 'Responses to a form as an Excel workbook',
        description:
          'Streamed, oldest first, the rows of the CSV export as a person reads them. Sheet `Submissions`: ' +
          'header row 1 the labels (in `lang`), row 2 the names (id, submittedAt, counted, location, then ' +
          "each field's key, as the CSV header), both frozen; then one row per submission: the id, the " +
          'time (UTC) as a date, counted as a boolean, the location `lat,lng`, and one column per field ' +
          '(groups flattened, notes none, a calculate field a column, a repeat its number of entries): a ' +
          "select's answer as its choice's label, a multi-select's labels joined with \"; \", numbers, " +
          'dates and booleans as spreadsheet values, coordinates `lat,lng`, files as download URLs. Text is ' +
          'never a formula in a workbook: it stays as typed. Then one sheet per repeat field, at any depth, ' +
          "named by its key: submission_id, the entry's number in each repeat around it (`<key>_entry`), " +
          'entry (1-based), then its fields as above; these sheets hold the submissions of the first sheet. ' +
          'Answers of fields marked personal and the location are empty cells for viewers, and for everyone ' +
          'once erased (the columns stay); an export that carries them in clear is recorded in the audit ' +
          'log, one entry for the whole workbook with how many submissions carry them, before its first ' +
          'byte is sent. `indicatorReportId` as for the CSV export (another project’s report: 404). ' +
          `Memory stays flat whatever the number of submissions. ${READ}`,
        params: Params('orgId', 'id'),
        querystring: SubmissionsXlsxQuery,
        answers: {
          200: FileDownload('The responses, a sheet of submissions and one per repeat', [XLSX_TYPE]),
        },
      },
    },
    async (request, reply) => {
      const member = memberOf(request);
      // As the CSV export: rows from the read replica unless personal answers go out in clear; the first
      // slice read before the answer starts.
      const { fileName, workbook } = await ctx.replica.read(
        (reads) =>
          submissionsXlsx(
            ctx,
            member,
            request.params.id,
            auditSourceOf(request, member),
            request.query,
            reads,
          ),
        { caller: member.userId, streamed: true },
      );
      return reply
        .header('content-type', XLSX_TYPE)
        .header('content-disposition', contentDisposition(fileName))
        .send(workbook);
    },
  );

  app.get(
    '/orgs/:orgId/projects/:projectId/indicator-reports/:id/sources',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listIndicatorReportSources',
        tags: ['Indicator reports'],
        summary: 'The form submissions counted into an indicator report',
        description:
          'Where the counted part of its value comes from: each submission counted into the report, of ' +
          "whichever of the project's forms, oldest first (ties by id), as the submissions list shows it, " +
          'with its formId and the amount it added (1, or its answer to the value field; null when the ' +
          'form has a number field marked personal and its personal answers are hidden). Submissions ' +
          'not counted (the report was submitted or approved, the period locked) are not listed; a ' +
          'deleted form takes its submissions along. A report of another project: 404. ' +
          `${PERSONAL} ${READ}`,
        params: Params('orgId', 'projectId', 'id'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(CountedSubmission) },
      },
    },
    (request) => {
      const member = memberOf(request);
      return countedSources(ctx.db, member, request.params, request.query, auditSourceOf(request, member));
    },
  );

  app.post(
    '/orgs/:orgId/forms/:formId/submissions/:id/erase',
    {
      config: {
        access: { roles: ADMINS },
        idempotency: 'user',
        conditional: { none: 'a submission has no GET of its own' },
      },
      schema: {
        operationId: 'eraseFormSubmission',
        tags,
        summary: "Erase a submission's personal answers and position",
        description:
          "For a person's request: removes the answers of the form's fields marked personal and the " +
          "location (the respondent's position) from the submission (the values are gone, not hidden), " +
          'records when, and writes an audit entry with the reason, all in one transaction. The submission ' +
          'stays, with its other answers and files, and stays counted in the indicator report. Returns it ' +
          'as the submissions list does, its personal answers and location null. 409 when nothing is left ' +
          'to erase: already erased (`personal_data_erased`; an answer of a field marked personal after ' +
          'the erasure can be erased again), or the submission has no location and its form no field ' +
          'marked personal (`conflict`).',
        params: Params('orgId', 'formId', 'id'),
        body: EraseBody,
        response: { 200: SubmissionSchema, 409: errorResponse('Nothing personal left to erase') },
      },
    },
    (request) => {
      const member = memberOf(request);
      const { formId, id } = request.params;
      return submissions.erase(member, { formId, id }, request.body.reason, auditSourceOf(request, member));
    },
  );

  app.get(
    '/orgs/:orgId/forms/:formId/submissions/:submissionId/files/:key',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'downloadSubmissionFile',
        tags,
        summary: 'Download a file a respondent sent',
        description: `The stored bytes with their detected Content-Type, as an attachment. ${READ}`,
        params: FileParams,
        answers: { 200: FileDownload('The file', Object.keys(ACCEPTED_TYPES)) },
      },
    },
    async (request, reply) => {
      const file = await submissions.file(memberOf(request), {
        formId: request.params.formId,
        submissionId: request.params.submissionId,
        key: request.params.key,
      });
      return reply.headers(downloadHeaders(file)).send(file.stream);
    },
  );
};
