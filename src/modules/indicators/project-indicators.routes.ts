import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { ALL_ROLES, MANAGERS, memberOf } from '../../http/pipeline/access.js';
import { errorResponse } from '../../http/errors/replies.js';
import { Collection, PageQuery } from '../../http/schemas/pagination.js';
import { NoContent, Params, withExample } from '../../http/schemas/schemas.js';
import { LinkIndicatorBody, ProjectIndicator, UpdateLinkBody } from './indicators.schemas.js';
import { ProjectIndicatorService } from './project-indicators.service.js';
import { PROJECT_INDICATOR, PROJECT_INDICATOR_CREATE } from './indicators.examples.js';

const tags = ['Indicators'];

export const projectIndicatorRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  const links = new ProjectIndicatorService(ctx.db);

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
        summary: 'Edit a project’s target and baseline for an indicator',
        description: 'Any subset of target, baseline, baselineYear; null clears. Not linked: 404.',
        params: Params('orgId', 'projectId', 'indicatorId'),
        body: UpdateLinkBody,
        response: { 200: ProjectIndicator },
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
