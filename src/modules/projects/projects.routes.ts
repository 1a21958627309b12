import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { ADMINS, ALL_ROLES, memberOf } from '../../http/pipeline/access.js';
import { errorResponse } from '../../http/errors/replies.js';
import { Collection, PageQuery } from '../../http/schemas/pagination.js';
import { NoContent, Params, withExample } from '../../http/schemas/schemas.js';
import { CreateProjectBody, Project, UpdateProjectBody } from './projects.schemas.js';
import { ProjectService } from './projects.service.js';
import { PROJECT, PROJECT_CREATE } from './projects.examples.js';

const tags = ['Projects'];

export const projectRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  const projects = new ProjectService(ctx.db, ctx.storage, app.log, ctx.storedFileKeys);

  app.get(
    '/orgs/:orgId/programs/:programId/projects',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listProjects',
        tags,
        summary: 'Projects of a program',
        description: 'Sorted by name, then id. A reporter sees only the projects assigned to them.',
        params: Params('orgId', 'programId'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(Project) },
      },
    },
    (request) => projects.list(memberOf(request), request.params.programId, request.query),
  );

  app.post(
    '/orgs/:orgId/programs/:programId/projects',
    {
      config: { access: { roles: ADMINS }, idempotency: 'user', location: '/orgs/:orgId/projects/:newId' },
      schema: {
        operationId: 'createProject',
        tags,
        summary: 'Create a project in a program',
        description:
          '`budget` defaults to 0, `status` to draft (any status may be given). `code` is unique in the ' +
          'organization (case-sensitive, surrounding spaces removed): 409. `currency` is an upper-case ' +
          'ISO 4217 code. `endDate` must not be before `startDate`.',
        params: Params('orgId', 'programId'),
        body: withExample(CreateProjectBody, PROJECT_CREATE),
        response: {
          201: withExample(Project, PROJECT),
          409: errorResponse('A project with this code already exists'),
        },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await projects.create(memberOf(request), request.params.programId, request.body)),
  );

  app.get(
    '/orgs/:orgId/projects/:id',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'getProject',
        tags,
        summary: 'A project',
        description: 'A reporter may read only a project assigned to them (403 otherwise).',
        params: Params('orgId', 'id'),
        response: { 200: Project },
      },
    },
    (request) => projects.get(memberOf(request), request.params.id),
  );

  app.patch(
    '/orgs/:orgId/projects/:id',
    {
      config: { access: { roles: ADMINS }, conditional: '/orgs/:orgId/projects/:id' },
      schema: {
        operationId: 'updateProject',
        tags,
        summary: 'Change a project',
        description:
          'Any subset of the fields; a project cannot move to another program. Status transitions: ' +
          'draft>active, active>suspended, suspended>active, active>completed, suspended>completed, ' +
          'completed>active; sending the current status is a no-op; others 409. Dates are checked against ' +
          'the stored ones. `null` clears description, location and lead. Taken code: 409.',
        params: Params('orgId', 'id'),
        body: UpdateProjectBody,
        response: { 200: Project, 409: errorResponse('Code taken or status transition not allowed') },
      },
    },
    (request) => projects.update(memberOf(request), request.params.id, request.body),
  );

  app.delete(
    '/orgs/:orgId/projects/:id',
    {
      config: { access: { roles: ADMINS }, conditional: '/orgs/:orgId/projects/:id' },
      schema: {
        operationId: 'deleteProject',
        tags,
        summary: 'Delete a project',
        description:
          'Deletes the project and everything under it (periods, indicator links and reports, activities, ' +
          'forms, budget lines, attachments, assignments), whatever its status.',
        params: Params('orgId', 'id'),
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await projects.remove(memberOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
};
