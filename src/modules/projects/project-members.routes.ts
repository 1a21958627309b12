import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { errorResponse } from '../../http/errors/replies.js';
import { ADMINS, ALL_ROLES, memberOf } from '../../http/pipeline/access.js';
import { Collection, PageQuery } from '../../http/schemas/pagination.js';
import { Body, NoContent, Params, Timestamp, Uuid } from '../../http/schemas/schemas.js';
import { Role } from '../orgs/index.js';
import { ProjectMemberService } from './project-members.service.js';

const tags = ['Project assignments'];

const Assignment = Type.Object(
  {
    userId: Uuid(),
    email: Type.String(),
    firstName: Type.String(),
    lastName: Type.String(),
    role: Role(),
    assignedAt: Timestamp(),
  },
  { title: 'ProjectAssignment', description: 'A member assigned to a project, with their organization role' },
);

export const projectMemberRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  const assignments = new ProjectMemberService(ctx.db);

  app.get(
    '/orgs/:orgId/projects/:projectId/members',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listProjectAssignments',
        tags,
        summary: 'Members assigned to a project',
        description:
          'Sorted by assignment date, then user id. Reporters may read only projects assigned to them.',
        params: Params('orgId', 'projectId'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(Assignment) },
      },
    },
    (request) => assignments.list(memberOf(request), request.params.projectId, request.query),
  );

  app.post(
    '/orgs/:orgId/projects/:projectId/members',
    {
      config: {
        access: { roles: ADMINS },
        idempotency: 'user',
        location: '/orgs/:orgId/projects/:projectId/members',
      },
      schema: {
        operationId: 'assignProjectMember',
        tags,
        summary: 'Assign a member to a project',
        description:
          'A reporter sees and writes only assigned projects; other roles see every project, so assigning them ' +
          'only records who works on it. Not a member: 404. Already assigned: 409.',
        params: Params('orgId', 'projectId'),
        body: Body({ userId: Uuid() }, { title: 'ProjectAssignmentCreate' }),
        response: { 201: Assignment, 409: errorResponse('Already assigned') },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await assignments.assign(memberOf(request), request.params.projectId, request.body.userId)),
  );

  app.delete(
    '/orgs/:orgId/projects/:projectId/members/:userId',
    {
      config: {
        access: { roles: ADMINS },
        conditional: { none: "an assignment has no GET of its own (read in the project's members)" },
      },
      schema: {
        operationId: 'endProjectAssignment',
        tags,
        summary: 'End an assignment',
        params: Params('orgId', 'projectId', 'userId'),
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await assignments.unassign(memberOf(request), request.params.projectId, request.params.userId);
      return reply.status(204).send(null);
    },
  );
};
