import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { ALL_ROLES, MANAGERS, memberOf } from '../../http/pipeline/access.js';
import { errorResponse } from '../../http/errors/replies.js';
import { Collection } from '../../http/schemas/pagination.js';
import { CsvDownload, FileDownload, NoContent, Params, withExample } from '../../http/schemas/schemas.js';
import { XLSX_TYPE } from '../../lib/spreadsheets/tables.js';
import { logframeOf } from './logframe.js';
import { logframeWorkbook } from './logframe-xlsx.js';
import { contentDisposition } from '../../storage/file-storage.js';
import { optionalBody } from '../../http/schemas/validation.js';
import {
  CreateProjectReportBody,
  CreateReportBody,
  Report,
  ReportListItem,
  ReportQuery,
  ShareBody,
  ShareLink,
  UpdateReportBody,
} from './reports.schemas.js';
import { REPORT_PUBLISHED, ReportService } from './reports.service.js';
import { SharingService } from './sharing.service.js';
import {
  PROJECT_REPORT_CREATE,
  REPORT_ASSEMBLED,
  REPORT_CREATE,
  REPORT_DRAFT,
  PUBLISHED_REPORT,
  REPORT_PUBLISH,
  SHARE_LINK,
  SHARE_REQUEST,
} from './reports.examples.js';

const tags = ['Reports'];
const READ = 'Reporters only for projects assigned to them.';
const ASSEMBLY =
  'Assembly: the periods chosen, or the periods of the ' +
  'project overlapping the range; only submitted and approved values, aggregated per indicator by its method ' +
  'against the cumulative target, formula indicators evaluated on the aggregated inputs. When no period ' +
  'overlaps the range, the values submitted (submittedAt, UTC date) within the range are used, with their ' +
  'periods. Indicators are ordered by code; activities overlapping the range by start date; budget lines and ' +
  'attachments by creation. An indicator with disaggregations of its own names them (`disaggregations`, ' +
  'the keys of disaggregatedValues by disaggregation); one with crosses has a grid per cross ' +
  "(`crossTabulations`). The result is stored as a snapshot; narratives start empty. The report's " +
  'startDate and endDate are the range, or for chosen periods the first start and the last end.';
const published = { 409: errorResponse(REPORT_PUBLISHED) };

export const reportRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  const reports = new ReportService(ctx.db, ctx.config, ctx.replica, ctx.webhooksQueued);
  const sharing = new SharingService(ctx.db, ctx.config, ctx.storage, ctx.replica);

  app.get(
    '/orgs/:orgId/reports',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listReports',
        tags,
        summary: 'Reports of the organization',
        description:
          'Newest first, ties by id; list items carry projectName and no sections. `projectId` of a project ' +
          `not in the organization: 404. ${READ}`,
        params: Params('orgId'),
        querystring: ReportQuery,
        response: { 200: Collection(ReportListItem) },
      },
    },
    (request) => reports.list(memberOf(request), request.query),
  );

  app.post(
    '/orgs/:orgId/reports',
    {
      config: { access: { roles: MANAGERS }, idempotency: 'user', location: '/orgs/:orgId/reports/:newId' },
      schema: {
        operationId: 'createReport',
        tags,
        summary: 'Assemble a report from periods or a date range',
        description:
          'Either `periodIds` (periods of the project: unknown 404, of another project 400) or `startDate` and ' +
          `\`endDate\`; both or neither: 400. ${ASSEMBLY}`,
        params: Params('orgId'),
        body: withExample(CreateReportBody, REPORT_CREATE),
        response: { 201: withExample(Report, REPORT_DRAFT) },
      },
    },
    async (request, reply) => reply.status(201).send(await reports.create(memberOf(request), request.body)),
  );

  app.post(
    '/orgs/:orgId/projects/:projectId/reports',
    {
      config: { access: { roles: MANAGERS }, idempotency: 'user', location: '/orgs/:orgId/reports/:newId' },
      schema: {
        operationId: 'createProjectReport',
        tags,
        summary: 'Assemble a report of a project over a custom date range',
        description: `reportType defaults to ad_hoc. ${ASSEMBLY}`,
        params: Params('orgId', 'projectId'),
        body: withExample(CreateProjectReportBody, PROJECT_REPORT_CREATE),
        response: { 201: withExample(Report, REPORT_DRAFT) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await reports.createForProject(memberOf(request), request.params.projectId, request.body)),
  );

  app.get(
    '/orgs/:orgId/reports/:id',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'getReport',
        tags,
        summary: 'An assembled report',
        description: READ,
        params: Params('orgId', 'id'),
        response: { 200: Report },
      },
    },
    (request) => reports.get(memberOf(request), request.params.id),
  );

  app.get(
    '/orgs/:orgId/reports/:id/indicators.csv',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'exportReportIndicators',
        tags,
        summary: "A report's indicator values as CSV",
        description:
          'From the stored snapshot, indicators in the report’s order. Columns code, indicator, unit, ' +
          'breakdown, category, value; per indicator one row for its value (breakdown and category empty), ' +
          'one per key of its disaggregatedValues that is not a cell (breakdown: the crossed disaggregation ' +
          'the category belongs to, else empty), then per cross of the indicator one row per cell ' +
          '(`female|15-24`) and one per margin (`female`), breakdown the cross’s name. An empty value is a ' +
          'cell no included period gave. Text starting with =, +, -, @ gets a leading apostrophe. ' +
          READ,
        params: Params('orgId', 'id'),
        answers: { 200: CsvDownload('One row per number of the report') },
      },
    },
    async (request, reply) => {
      const { fileName, csv } = await reports.indicatorsCsv(memberOf(request), request.params.id);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', contentDisposition(fileName))
        .send(csv);
    },
  );

  app.get(
    '/orgs/:orgId/projects/:projectId/logframe.xlsx',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'exportProjectLogframe',
        tags,
        summary: "A project's logframe as an Excel workbook",
        description:
          'Streamed, for a donor. Sheet `Cover`: organization, program, project and its code, donors, ' +
          'start and end dates, status, location, lead, the reporting periods, the export time (UTC) and ' +
          'what the figures mean. Sheet `Logframe` (two header rows and the first three columns frozen): one ' +
          'row per result of the results framework that holds an indicator of the project or sits above ' +
          'one (depth first, in the framework’s order), its indicators under it by code, then the ' +
          'indicators in no result; columns level, code, result or indicator, unit, aggregation, baseline, ' +
          "baseline year, target (the project link's), then per period (oldest first) its target (the " +
          "period's own, whatever its value's status) and actual, then to date: actual, cumulative target, " +
          'progress (%) and status. The figures are those of a report assembled over every period of the ' +
          'project: only submitted and approved values count, aggregated by the indicator’s method, formula ' +
          'indicators evaluated on their inputs, so actual to date, cumulative target, progress and status ' +
          'equal the progress the indicators list gives for the project (`status`). Sheet `Disaggregations`: ' +
          'per indicator, each plain disaggregation by period and over all periods, and each cross as a ' +
          'table (its last crossed disaggregation across, totals derived as in reports) per period with a ' +
          `value and over all periods. Numbers are numbers with formats; dates are dates. ${READ}`,
        params: Params('orgId', 'projectId'),
        answers: { 200: FileDownload('The logframe workbook', [XLSX_TYPE]) },
      },
    },
    async (request, reply) => {
      const member = memberOf(request);
      // The project and the access check on the primary; the figures from the read replica.
      const logframe = await ctx.replica.read(
        (reads) => logframeOf(ctx.db, member, request.params.projectId, ctx.clock.now(), reads),
        { caller: member.userId },
      );
      const fileName = `${logframe.project.code.replace(/[\\/]/g, '_')} logframe.xlsx`;
      return reply
        .header('content-type', XLSX_TYPE)
        .header('content-disposition', contentDisposition(fileName))
        .send(await logframeWorkbook(logframe));
    },
  );

  app.patch(
    '/orgs/:orgId/reports/:id',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/reports/:id' },
      schema: {
        operationId: 'updateReport',
        tags,
        summary: 'Edit title and narratives, publish, or move back to draft',
        description:
          'A draft takes `title`, any of the three narratives and `status`. `status: published` sets publishedAt ' +
          'and records `report.published` (edits in the same body are applied first). A published report takes ' +
          'only `status: draft`, which clears publishedAt; anything else is 409. An empty body changes nothing.',
        params: Params('orgId', 'id'),
        body: withExample(UpdateReportBody, REPORT_PUBLISH),
        response: { 200: withExample(Report, PUBLISHED_REPORT), ...published },
      },
    },
    (request) => reports.update(memberOf(request), request.params.id, request.body),
  );

  app.post(
    '/orgs/:orgId/reports/:id/refresh',
    {
      config: { access: { roles: MANAGERS }, idempotency: 'user', conditional: '/orgs/:orgId/reports/:id' },
      schema: {
        operationId: 'refreshReport',
        tags,
        summary: "Re-assemble a draft's data sections",
        description:
          'From the same periods (skipping any deleted since) or the same date range, with the data as it is now; ' +
          'title and narratives stay. A published report: 409.',
        params: Params('orgId', 'id'),
        response: { 200: withExample(Report, REPORT_ASSEMBLED), ...published },
      },
    },
    (request) => reports.refresh(memberOf(request), request.params.id),
  );

  app.delete(
    '/orgs/:orgId/reports/:id',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/reports/:id' },
      schema: {
        operationId: 'deleteReport',
        tags,
        summary: 'Delete a report',
        description: 'Its share link stops working at once.',
        params: Params('orgId', 'id'),
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await reports.remove(memberOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.patch(
    '/orgs/:orgId/reports/:id/share',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/reports/:id' },
      preValidation: optionalBody,
      schema: {
        operationId: 'shareReport',
        tags,
        summary: 'Share a report by link',
        description:
          'Without an active link: a new token (UUIDv4), expiring at `expiresAt` when given. On an active link the ' +
          'token stays and `expiresAt`, when sent, replaces the expiry (null: never). An expired link gets a new ' +
          'token. `expiresAt` must be in the future (400). Drafts may be shared too. The body may be omitted.',
        params: Params('orgId', 'id'),
        body: withExample(ShareBody, SHARE_REQUEST),
        response: { 200: withExample(ShareLink, SHARE_LINK) },
      },
    },
    (request) => sharing.share(memberOf(request), request.params.id, request.body),
  );

  app.patch(
    '/orgs/:orgId/reports/:id/share/regenerate',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/reports/:id' },
      schema: {
        operationId: 'regenerateReportShareLink',
        tags,
        summary: 'Replace the share token',
        description: 'The old link answers 404 at once; the expiry stays. A report never shared: 409.',
        params: Params('orgId', 'id'),
        response: { 200: ShareLink, 409: errorResponse('Report is not shared') },
      },
    },
    (request) => sharing.regenerate(memberOf(request), request.params.id),
  );

  app.delete(
    '/orgs/:orgId/reports/:id/share',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/reports/:id' },
      schema: {
        operationId: 'revokeReportShareLink',
        tags,
        summary: 'Revoke the share link',
        description:
          'shareToken becomes null and every old link answers 404. Revoking an unshared report is a no-op.',
        params: Params('orgId', 'id'),
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await sharing.revoke(memberOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
};
