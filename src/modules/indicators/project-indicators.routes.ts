import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { ALL_ROLES, MANAGERS, memberOf } from '../../http/pipeline/access.js';
import { errorResponse } from '../../http/errors/replies.js';
import { Collection, PageQuery } from '../../http/schemas/pagination.js';
import { NoContent, Params, withExample } from '../../http/schemas/schemas.js';
import {
  LinkIndicatorBody,
  MAX_PERIOD_TARGETS,
  ProjectIndicator,
  UpdateLinkBody,
  UpdatedProjectIndicator,
} from './indicators.schemas.js';
import type { PeriodTargets } from './period-targets.js';
import { ProjectIndicatorService } from './project-indicators.service.js';
import { PROJECT_INDICATOR, PROJECT_INDICATOR_CREATE } from './indicators.examples.js';

const tags = ['Indicators'];

export const projectIndicatorRoutes: FastifyPluginAsyncTypebox<
  AppContext & { periodTargets: PeriodTargets }
> = async (app, ctx) => {
  const links = new ProjectIndicatorService(ctx.db, ctx.periodTargets);

  app.get(
    '/orgs/:orgId/projects/:projectId/indicators',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listProjectIndicators',
        tags,
        summary: 'Indicators linked to a project',
        description:
          'Each link with its target, baseline and indicator; sorted by code, then id. Reporters may read ' +
          'only projects assigned to them (403).',
        params: Params('orgId', 'projectId'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(ProjectIndicator) },
      },
    },
    (request) => links.list(memberOf(request), request.params.projectId, request.query),
  );

  app.post(
    '/orgs/:orgId/projects/:projectId/indicators',
    {
      config: {
        access: { roles: MANAGERS },
        idempotency: 'user',
        location: '/orgs/:orgId/projects/:projectId/indicators',
      },
      schema: {
        operationId: 'linkProjectIndicator',
        tags,
        summary: 'Link an indicator to a project',
        description:
          'target, baseline and baselineYear are optional (null). An indicator of another organization: 404. ' +
          'Already linked: 409. Formula indicators may be linked: their progress is computed from their inputs.',
        params: Params('orgId', 'projectId'),
        body: withExample(LinkIndicatorBody, PROJECT_INDICATOR_CREATE),
        response: {
          201: withExample(ProjectIndicator, PROJECT_INDICATOR),
          409: errorResponse('Already linked'),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await links.link(memberOf(request), request.params.projectId, request.body)),
  );

  app.patch(
    '/orgs/:orgId/projects/:projectId/indicators/:indicatorId',
    {
      config: {
        access: { roles: MANAGERS },
        conditional: { none: "a project's link to an indicator has no GET of its own" },
      },
      schema: {
        operationId: 'updateProjectIndicator',
        tags,
        summary: 'Edit a project’s target and baseline for an indicator, and its periods’ targets',
        description:
          'Any subset of target, baseline, baselineYear; null clears. Not linked: 404.\n\n' +
          '`periodTargets` `{ "<periodId>": number | null }` sets several reporting periods’ targets at once. ' +
          "A period's target is its indicator report's `target`: the report of this indicator for that " +
          'period takes it, keeping its status (draft or rejected); where the period has no report, a draft ' +
          'report is created with the target and no value (null creates nothing). The answer is the link, ' +
          'plus `periodTargets`: each named period after the change, oldest first.\n\n' +
          'All or nothing, checked before anything is written, in this order: a key that is not a UUID: 400; ' +
          'a period unknown in the organization: 404 `Reporting period not found`; a period of another ' +
          'project: 400 naming each (`periodTargets.<id> must be a reporting period of this project`); a ' +
          'formula indicator (it takes no reports): 400. Then, for each period whose target would change: ' +
          'a locked period: 403 `Reporting period is locked: <label> (<id>)`; a submitted or approved ' +
          'report: 409 naming the period. A target sent as it already is changes nothing and is never ' +
          `refused. Numbers as for \`target\` (finite). At most ${MAX_PERIOD_TARGETS} periods.`,
        params: Params('orgId', 'projectId', 'indicatorId'),
        body: UpdateLinkBody,
        response: {
          200: UpdatedProjectIndicator,
          403: errorResponse('Not permitted, or a named period is locked'),
          409: errorResponse('A named period’s report is submitted or approved'),
        },
      },
    },
    (request) =>
      links.update(memberOf(request), request.params.projectId, request.params.indicatorId, request.body),
  );

  app.delete(
    '/orgs/:orgId/projects/:projectId/indicators/:indicatorId',
    {
      config: {
        access: { roles: MANAGERS },
        conditional: { none: "a project's link to an indicator has no GET of its own" },
      },
      schema: {
        operationId: 'unlinkProjectIndicator',
        tags,
        summary: 'Unlink an indicator from a project',
        description: 'Refused (409) while the project has reports of the indicator. Not linked: 404.',
        params: Params('orgId', 'projectId', 'indicatorId'),
        response: { 204: NoContent, 409: errorResponse('Reports exist') },
      },
    },
    async (request, reply) => {
      await links.unlink(memberOf(request), request.params.projectId, request.params.indicatorId);
      return reply.status(204).send(null);
    },
  );
};
