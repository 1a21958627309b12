import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import type { SubmissionsInPeriod } from './period-dependents.js';
import { ALL_ROLES, MANAGERS, memberOf } from '../../http/pipeline/access.js';
import { errorResponse } from '../../http/errors/replies.js';
import { Collection, PageQuery } from '../../http/schemas/pagination.js';
import { NoContent, Params, withExample } from '../../http/schemas/schemas.js';
import {
  CreateReportingPeriodBody,
  GenerateReportingPeriodsBody,
  GeneratedReportingPeriods,
  ReportingPeriod,
  UpdateReportingPeriodBody,
} from './periods.schemas.js';
import { generatePeriods, MAX_GENERATED_PERIODS } from './periods-generate.js';
import { ReportingPeriodService } from './periods.service.js';
import { PERIOD, PERIOD_CREATE } from './periods.examples.js';

const tags = ['Reporting periods'];

export const reportingPeriodRoutes: FastifyPluginAsyncTypebox<
  AppContext & { submissionsIn: readonly SubmissionsInPeriod[] }
> = async (app, ctx) => {
  const periods = new ReportingPeriodService(ctx.db, ctx.submissionsIn, ctx.webhooksQueued);

  app.get(
    '/orgs/:orgId/projects/:projectId/reporting-periods',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listReportingPeriods',
        tags,
        summary: 'Reporting periods of a project',
        description:
          'Sorted by startDate, then id. Reporters may read only projects assigned to them (403 otherwise).',
        params: Params('orgId', 'projectId'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(ReportingPeriod) },
      },
    },
    (request) => periods.list(memberOf(request), request.params.projectId, request.query),
  );

  app.get(
    '/orgs/:orgId/reporting-periods/:id',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        tags,
        operationId: 'getReportingPeriod',
        summary: 'A reporting period',
        description:
          'With its lock state (isLocked, lockedAt, lockedBy). Reporters may read only periods of projects ' +
          'assigned to them (403 otherwise).',
        params: Params('orgId', 'id'),
        response: { 200: ReportingPeriod },
      },
    },
    (request) => periods.get(memberOf(request), request.params.id),
  );

  app.post(
    '/orgs/:orgId/projects/:projectId/reporting-periods',
    {
      config: {
        access: { roles: MANAGERS },
        idempotency: 'user',
        location: '/orgs/:orgId/reporting-periods/:newId',
      },
      schema: {
        operationId: 'createReportingPeriod',
        tags,
        summary: 'Create a reporting period',
        description:
          'Dates are inclusive: a period ending on 2026-03-31 and one starting on 2026-04-01 do not overlap; ' +
          'periods sharing a day do (409 naming the other period). endDate before startDate: 400. ' +
          'The period need not lie within the project dates; dueDate is free (usually after endDate). ' +
          'New periods are unlocked.',
        params: Params('orgId', 'projectId'),
        body: withExample(CreateReportingPeriodBody, PERIOD_CREATE),
        response: {
          201: withExample(ReportingPeriod, PERIOD),
          409: errorResponse('Overlaps another period of the project'),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await periods.create(memberOf(request), request.params.projectId, request.body)),
  );

  app.post(
    '/orgs/:orgId/projects/:projectId/reporting-periods/generate',
    {
      config: {
        access: { roles: MANAGERS },
        idempotency: 'user',
        location: '/orgs/:orgId/projects/:projectId/reporting-periods',
      },
      schema: {
        operationId: 'generateReportingPeriods',
        tags,
        summary: 'Create a project’s calendar periods between two dates',
        description:
          'Creates every calendar period of `frequency` that shares a day with [from, to], whole: a `from` ' +
          'in the middle of a quarter gives that whole quarter (from its first day), and so does a `to`. ' +
          'Months are labelled `January 2026`, quarters (from January) `Q1 2026`, halves `H1 2026`, years ' +
          '`2026`; each dueDate is endDate plus `dueDays` (none without it). A calendar period the project ' +
          'already has (the same dates) is skipped as `exists`, one sharing a day with an existing period ' +
          'as `overlaps`, one whose label an existing period with other dates has as `label_taken` ' +
          '(values are matched to periods by label): each is listed in `skipped` with the period in its ' +
          'way, and existing periods are left as they are. All in one transaction. 201 when at least one ' +
          'period was created (Location: the project’s periods), 200 when none was. `to` before `from`, or ' +
          `more than ${MAX_GENERATED_PERIODS} periods in the span: 400. New periods are unlocked.`,
        params: Params('orgId', 'projectId'),
        body: withExample(GenerateReportingPeriodsBody, {
          frequency: 'quarterly',
          from: '2026-01-01',
          to: '2026-12-31',
          dueDays: 15,
        }),
        response: { 200: GeneratedReportingPeriods, 201: GeneratedReportingPeriods },
      },
    },
    async (request, reply) => {
      const generated = await generatePeriods(
        ctx.db,
        memberOf(request),
        request.params.projectId,
        request.body,
      );
      return reply.status(generated.created.length > 0 ? 201 : 200).send(generated);
    },
  );

  app.patch(
    '/orgs/:orgId/reporting-periods/:id',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/reporting-periods/:id' },
      schema: {
        operationId: 'updateReportingPeriod',
        tags,
        summary: 'Edit, lock or unlock a reporting period',
        description:
          '`isLocked: true` locks (records lockedAt and lockedBy, and a `reporting_period.locked` feed entry); ' +
          'it may come with edits to an unlocked period, which are applied before locking. ' +
          '`isLocked: false` unlocks a locked period: org_admin only (403), clears lockedAt and lockedBy and ' +
          'records `reporting_period.unlocked`; unlocking must be a request of its own. A locked period refuses ' +
          'any other field with 409 `Reporting period is locked`, even next to `isLocked: false`. Sending the ' +
          'current lock state (or an empty body) changes nothing and records no feed entry: 200 with the period. ' +
          'Changed dates are checked again: order (400, naming the field sent) and overlap with the ' +
          'project’s other periods (409). `dueDate: null` removes the deadline.',
        params: Params('orgId', 'id'),
        body: UpdateReportingPeriodBody,
        response: {
          200: ReportingPeriod,
          409: errorResponse('The period is locked, or the new dates overlap another period'),
        },
      },
    },
    (request) => periods.update(memberOf(request), request.params.id, request.body),
  );

  app.delete(
    '/orgs/:orgId/reporting-periods/:id',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/reporting-periods/:id' },
      schema: {
        operationId: 'deleteReportingPeriod',
        tags,
        summary: 'Delete a reporting period',
        description: 'A locked period, or one with indicator reports or form submissions: 409.',
        params: Params('orgId', 'id'),
        response: { 204: NoContent, 409: errorResponse('The period is locked or has submissions') },
      },
    },
    async (request, reply) => {
      await periods.remove(memberOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
};
