import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { ALL_ROLES, CONTRIBUTORS, MANAGERS, memberOf } from '../../http/pipeline/access.js';
import { errorResponse } from '../../http/errors/replies.js';
import { Collection, PageQuery } from '../../http/schemas/pagination.js';
import { Params, withExample } from '../../http/schemas/schemas.js';
import { optionalBody } from '../../http/schemas/validation.js';
import { Type } from '@sinclair/typebox';
import { auditSourceOf } from '../privacy/index.js';
import {
  ApproveBody,
  SubmitBody,
  CreateIndicatorReportBody,
  HistoryEntry,
  RecountQuery,
  RecountResult,
  IndicatorReport,
  IndicatorReportQuery,
  PrefillBody,
  PrefilledIndicatorReport,
  RejectBody,
  UpdateIndicatorReportBody,
} from './indicator-reports.schemas.js';
import {
  IndicatorReportService,
  type CountedSources,
  type UncountedSources,
} from './indicator-reports.service.js';
import type { PersonalAmounts } from './report-history.js';
import { bulkValueRoutes } from './bulk-values.routes.js';
import {
  INDICATOR_REPORT_APPROVAL,
  INDICATOR_REPORT_APPROVED,
  INDICATOR_REPORT_CREATE,
  INDICATOR_REPORT_DRAFT,
  INDICATOR_REPORT_RETURN,
  INDICATOR_REPORT_RETURNED,
  INDICATOR_REPORT_SUBMITTED,
} from './indicator-reports.examples.js';

const tags = ['Indicator reports'];
const LOCKED = '`Reporting period is locked` (403)';
const FOUR_EYES =
  ' When the organization has `separateApproval` on, the person who last submitted the report may not ' +
  'review it: 403 `separate_approval_required` (checked after the status), and another M&E officer or org ' +
  'admin reviews it; off (the default), anyone of those roles may, the submitter included.';
const REVIEW_REFUSED = errorResponse(
  'Not a member, or the role is not allowed (`forbidden`); or the caller submitted the report and the ' +
    'organization has separateApproval on (`separate_approval_required`)',
);

export const indicatorReportRoutes: FastifyPluginAsyncTypebox<
  AppContext & {
    countedSources: CountedSources;
    personalAmounts: PersonalAmounts;
    uncountedSources: UncountedSources;
  }
> = async (app, ctx) => {
  const reports = new IndicatorReportService(
    ctx.db,
    ctx.config,
    ctx.mailQueued,
    ctx.countedSources,
    ctx.personalAmounts,
    ctx.webhooksQueued,
    ctx.uncountedSources,
  );
  await app.register(bulkValueRoutes, ctx);

  app.get(
    '/orgs/:orgId/projects/:projectId/indicator-reports',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listIndicatorReports',
        tags,
        summary: 'Indicator reports of a project',
        description:
          'Filters combine. Sorted by the period’s startDate, then indicator code, then id. Reporters may read ' +
          'only projects assigned to them (403).',
        params: Params('orgId', 'projectId'),
        querystring: IndicatorReportQuery,
        response: { 200: Collection(IndicatorReport) },
      },
    },
    (request) => reports.list(memberOf(request), request.params.projectId, request.query),
  );

  app.post(
    '/orgs/:orgId/projects/:projectId/indicator-reports',
    {
      config: {
        access: { roles: CONTRIBUTORS },
        idempotency: 'user',
        location: '/orgs/:orgId/indicator-reports/:newId',
      },
      schema: {
        operationId: 'createIndicatorReport',
        tags,
        summary: 'Create an indicator report (draft)',
        description:
          `Starts as draft. A locked period: ${LOCKED}. The indicator and period must exist in the org (404); ` +
          'the period must belong to this project, the indicator must be linked to it and not be a formula ' +
          'indicator (400). One report per indicator and period (409). `value` may be null while draft; ' +
          'with `disaggregatedValues` the value is their total (a differing `value` is 400). `target` is the ' +
          'target for this period; it feeds the cumulative target of the progress score.',
        params: Params('orgId', 'projectId'),
        body: withExample(CreateIndicatorReportBody, INDICATOR_REPORT_CREATE),
        response: {
          201: withExample(IndicatorReport, INDICATOR_REPORT_DRAFT),
          409: errorResponse('A report exists for this indicator and period'),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await reports.create(memberOf(request), request.params.projectId, request.body)),
  );

  app.post(
    '/orgs/:orgId/projects/:projectId/indicator-reports/prefill',
    {
      config: {
        access: { roles: CONTRIBUTORS },
        idempotency: 'user',
        location: '/orgs/:orgId/indicator-reports/:newId',
      },
      schema: {
        operationId: 'prefillIndicatorReport',
        tags,
        summary: 'Pre-fill an indicator report from participant counts',
        description:
          "Counts the distinct participants registered in the project's activities that overlap the period " +
          '(cancelled activities aside; with `attendedOnly`, the default, only confirmed attendance). A ' +
          'person in several activities counts once. An indicator without disaggregations gets two ' +
          'breakdowns, each adding up to the value on its own: by sex (female, male, other) and by the ' +
          "organization's age bands at the period's end (its `ageBands`; by default 0-17, 18-35, 36-59, " +
          '60+, and unknown without a date of birth or with one after the period). An indicator with ' +
          'disaggregations gets each of them filled: one whose categories are some of female, male, other ' +
          'is by sex; one whose categories are age ranges written `a-b` or `a+` that do not overlap (and ' +
          "`unknown` if listed) is by age at the period's end, whatever the organization's bands; a cross of " +
          'such disaggregations is filled cell by cell (`female|15-24`). Every ' +
          'category is present, zeros included. A person who falls in no category of one of them (a man ' +
          'when only `female` is listed, an age no range holds, an unknown age without an `unknown` ' +
          'category) is left out of that disaggregation, of the others and of the value, so that each ' +
          'disaggregation adds up to the value; `prefill` says how many were counted and left out, and why. ' +
          'Any other disaggregation (other categories, overlapping ranges): nothing is written, 400 naming ' +
          'it. The draft or rejected report is updated (200; status, target and narrative kept); without one a ' +
          `draft is created (201). A submitted or approved report: 409. A locked period: ${LOCKED}. The ` +
          'other checks are those of creating a report.',
        params: Params('orgId', 'projectId'),
        body: PrefillBody,
        response: {
          200: PrefilledIndicatorReport,
          201: PrefilledIndicatorReport,
          409: errorResponse('The report is submitted or approved'),
        },
      },
    },
    async (request, reply) => {
      const { created, report, prefill } = await reports.prefill(
        memberOf(request),
        request.params.projectId,
        request.body,
      );
      return reply.status(created ? 201 : 200).send({ ...report, prefill });
    },
  );

  app.get(
    '/orgs/:orgId/indicator-reports/:id',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'getIndicatorReport',
        tags,
        summary: 'One indicator report',
        params: Params('orgId', 'id'),
        response: { 200: IndicatorReport },
      },
    },
    (request) => reports.get(memberOf(request), request.params.id),
  );

  app.patch(
    '/orgs/:orgId/indicator-reports/:id',
    {
      config: { access: { roles: CONTRIBUTORS }, conditional: '/orgs/:orgId/indicator-reports/:id' },
      schema: {
        operationId: 'updateIndicatorReport',
        tags,
        summary: 'Edit a draft or rejected indicator report',
        description:
          'Any subset of value, target, narrative, disaggregatedValues; the status stays. Submitted or ' +
          `approved reports: 409. A locked period: ${LOCKED}. Sending disaggregatedValues recomputes the ` +
          'value from them; sending only `value` must agree with the stored disaggregated values ' +
          '(send `disaggregatedValues: null` to clear them).',
        params: Params('orgId', 'id'),
        body: UpdateIndicatorReportBody,
        response: { 200: IndicatorReport, 409: errorResponse('The report is submitted or approved') },
      },
    },
    (request) => reports.update(memberOf(request), request.params.id, request.body),
  );

  app.patch(
    '/orgs/:orgId/indicator-reports/:id/submit',
    {
      config: { access: { roles: CONTRIBUTORS }, conditional: '/orgs/:orgId/indicator-reports/:id' },
      preValidation: optionalBody,
      schema: {
        operationId: 'submitIndicatorReport',
        tags,
        summary: 'Submit a draft or rejected report for review',
        description:
          'Draft or rejected → submitted; records submittedAt and submittedBy and an ' +
          '`indicator_report.submitted` feed entry. Requires a value (400). Other states: 409. ' +
          `A locked period: ${LOCKED}. comment, reviewedAt and reviewedBy keep describing ` +
          'the last review until the next one. The validation rules are checked again first: a broken ' +
          'rule of high importance whose flag has no justification yet needs `justification` in the body ' +
          '(400 naming each such rule); given, it is kept on every flag of the report that has none, ' +
          'for the approver. The body may be omitted otherwise.',
        params: Params('orgId', 'id'),
        body: withExample(SubmitBody, {
          justification: 'Two training sessions were held for the same people; the register counts them once',
        }),
        response: {
          200: withExample(IndicatorReport, INDICATOR_REPORT_SUBMITTED),
          409: errorResponse('The report is not draft or rejected'),
        },
      },
    },
    (request) => reports.submit(memberOf(request), request.params.id, request.body.justification),
  );

  app.patch(
    '/orgs/:orgId/indicator-reports/:id/approve',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/indicator-reports/:id' },
      preValidation: optionalBody,
      schema: {
        operationId: 'approveIndicatorReport',
        tags,
        summary: 'Approve a submitted report',
        description:
          'Submitted → approved (other states: 409); approved reports are immutable. Stores the optional ' +
          'comment (the body may be omitted), reviewedAt and reviewedBy, and records `indicator_report.approved`. Works in locked ' +
          'periods. Of two reviewers deciding at once, one wins and the other gets 409.' +
          FOUR_EYES,
        params: Params('orgId', 'id'),
        body: withExample(ApproveBody, INDICATOR_REPORT_APPROVAL),
        response: {
          200: withExample(IndicatorReport, INDICATOR_REPORT_APPROVED),
          403: REVIEW_REFUSED,
          409: errorResponse('The report is not submitted'),
        },
      },
    },
    (request) => reports.review(memberOf(request), request.params.id, 'approved', request.body.comment),
  );

  app.patch(
    '/orgs/:orgId/indicator-reports/:id/reject',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/indicator-reports/:id' },
      // No body at all gets the same message as a body without a comment.
      preValidation: optionalBody,
      schema: {
        operationId: 'rejectIndicatorReport',
        tags,
        summary: 'Return a submitted report with a comment',
        description:
          'Submitted → rejected (other states: 409); the comment is required (400). The submitter is ' +
          'emailed the comment with the indicator, project and period, and `indicator_report.rejected` is ' +
          'recorded. The report may then be edited and submitted again. Works in locked periods.' +
          FOUR_EYES,
        params: Params('orgId', 'id'),
        body: withExample(RejectBody, INDICATOR_REPORT_RETURN),
        response: {
          200: withExample(IndicatorReport, INDICATOR_REPORT_RETURNED),
          403: REVIEW_REFUSED,
          409: errorResponse('The report is not submitted'),
        },
      },
    },
    (request) => reports.review(memberOf(request), request.params.id, 'rejected', request.body.comment),
  );

  app.get(
    '/orgs/:orgId/projects/:projectId/indicator-reports/:id/history',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listIndicatorReportHistory',
        tags,
        summary: 'Every change of an indicator report',
        description:
          'Oldest first, one entry per change of the value, target, disaggregated values, narrative or ' +
          'status (and one per recount and per release of counted sources, whose `changes` may be empty), ' +
          'written in the transaction of the change and never altered afterwards: who made it (a ' +
          'user; for `counted`, the form submission that added to it), when, each changed field from what ' +
          'to what, and the comment of a review. Reports made before history was kept start with the ' +
          'first change since. A report of another project: 404. Reporters: projects assigned to them. ' +
          'When a form counts into the report and has a number field marked personal, its counted amounts ' +
          'are personal answers, and the values would give them away: every entry then leaves out ' +
          '`changes.value` and `changes.disaggregatedValues` (and an `uncounted` entry its reason, which ' +
          'states the counted part) and says `valuesHidden: true`, for viewers, and for everyone once the ' +
          'personal answers of any such submission are erased (the history is never altered). Otherwise ' +
          'the values are sent, and a response whose `counted` entries carry such amounts is recorded in ' +
          'the audit log (a `read` of those form submissions, with the report id, page and limit).',
        params: Params('orgId', 'projectId', 'id'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(HistoryEntry) },
      },
    },
    (request) => {
      const member = memberOf(request);
      return reports.history(member, request.params, request.query, auditSourceOf(request, member));
    },
  );

  app.post(
    '/orgs/:orgId/projects/:projectId/indicator-reports/:id/recount',
    {
      config: {
        access: { roles: MANAGERS },
        idempotency: 'user',
        conditional: {
          none: 'counts the report again from its submissions: nothing a client read is overwritten',
        },
      },
      schema: {
        operationId: 'recountIndicatorReport',
        tags,
        summary: 'Recompute the counted part of a report from its submissions',
        description:
          'Sums the amounts of the form submissions counted into the report (see its sources) and moves ' +
          'the value by the difference from the counted part it held; the part entered by hand or by a ' +
          'pre-fill stays. Recorded in the history as `recounted` (even when nothing was off). Only draft ' +
          `or rejected reports (409), not in a locked period (${LOCKED}). Submissions being counted meanwhile ` +
          'wait for it and are counted after. No body. ' +
          '`uncounted` lists the form submissions stored but not counted that belong in this report: of ' +
          'forms of the project counting into its indicator, refused for its period (`period_locked`, ' +
          '`report_submitted`, `report_approved`, or `unknown`: stored before reasons were kept), or counting ' +
          'by date with a date in the period that no period held then (`no_period_for_date`), and with an ' +
          'amount as their form counts now (submissions without one stay out). With `takeIn=true` they are ' +
          'taken in: marked counted into this report (`countedReason` null) and their amounts added to its ' +
          'value, in the same transaction. With `dryRun=true` nothing is written: the answer says what the ' +
          'recount (with the take-in, if asked) would do, `report` as it would be. A dry run is refused ' +
          'as the recount would be (409, 403).',
        params: Params('orgId', 'projectId', 'id'),
        querystring: RecountQuery,
        response: { 200: RecountResult, 409: errorResponse('The report is submitted or approved') },
      },
    },
    (request) => reports.recount(memberOf(request), request.params, request.query),
  );
};
