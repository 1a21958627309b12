import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { ADMINS, ALL_ROLES, memberOf } from '../../http/pipeline/access.js';
import { errorResponse } from '../../http/errors/replies.js';
import { Collection, PageQuery } from '../../http/schemas/pagination.js';
import { NoContent, Params, withExample } from '../../http/schemas/schemas.js';
import { Donor } from '../donors/index.js';
import { CreateProgramBody, Program, ProgramListItem, UpdateProgramBody } from './programs.schemas.js';
import type { ProgramProjects } from './program-projects.js';
import { ProgramService } from './programs.service.js';
import { PROGRAM, PROGRAM_CREATE } from './programs.examples.js';

const tags = ['Programs'];
const REPORTER_PROJECTS =
  'For a reporter, `projects` and `projectCount` cover only the projects assigned to them.';

export const programRoutes: FastifyPluginAsyncTypebox<AppContext & { projects: ProgramProjects }> = async (
  app,
  ctx,
) => {
  const programs = new ProgramService(ctx.db, ctx.storage, app.log, ctx.storedFileKeys, ctx.projects);

  app.get(
    '/orgs/:orgId/programs',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listPrograms',
        tags,
        summary: 'Programs of the organization',
        description: `Newest first (createdAt descending), then id. Donors are sorted by name, then id. ${REPORTER_PROJECTS}`,
        params: Params('orgId'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(ProgramListItem) },
      },
    },
    (request) => programs.list(memberOf(request), request.query),
  );

  app.post(
    '/orgs/:orgId/programs',
    {
      config: { access: { roles: ADMINS }, idempotency: 'user', location: '/orgs/:orgId/programs/:newId' },
      schema: {
        operationId: 'createProgram',
        tags,
        summary: 'Create a program',
        description:
          '`status` defaults to draft and may be any status. `endDate` must not be before `startDate`. ' +
          '`donorIds` must be donors of this organization (404 `Donor not found` otherwise).',
        params: Params('orgId'),
        body: withExample(CreateProgramBody, PROGRAM_CREATE),
        response: { 201: withExample(Program, PROGRAM) },
      },
    },
    async (request, reply) => reply.status(201).send(await programs.create(memberOf(request), request.body)),
  );

  app.get(
    '/orgs/:orgId/programs/:id',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'getProgram',
        tags,
        summary: 'A program with its donors and projects',
        description: `Donors and projects are sorted by name, then id. ${REPORTER_PROJECTS}`,
        params: Params('orgId', 'id'),
        response: { 200: Program },
      },
    },
    (request) => programs.get(memberOf(request), request.params.id),
  );

  app.patch(
    '/orgs/:orgId/programs/:id',
    {
      config: { access: { roles: ADMINS }, conditional: '/orgs/:orgId/programs/:id' },
      schema: {
        operationId: 'updateProgram',
        tags,
        summary: 'Change a program',
        description:
          'Any subset of the fields. `donorIds` replaces the whole donor set (`[]` removes every donor). ' +
          'Status transitions: draft>active, active>completed, completed>active; sending the current status ' +
          'is a no-op; others 409. Dates are checked against the stored ones: `endDate` must not be before ' +
          '`startDate`. `description: null` clears it.',
        params: Params('orgId', 'id'),
        body: UpdateProgramBody,
        response: { 200: Program, 409: errorResponse('Status transition not allowed') },
      },
    },
    (request) => programs.update(memberOf(request), request.params.id, request.body),
  );

  app.delete(
    '/orgs/:orgId/programs/:id',
    {
      config: { access: { roles: ADMINS }, conditional: '/orgs/:orgId/programs/:id' },
      schema: {
        operationId: 'deleteProgram',
        tags,
        summary: 'Delete a program',
        description:
          'Refused with 409 while any of its projects is active; otherwise deletes its projects and ' +
          'everything under them, its result nodes and its donor links (the donors stay).',
        params: Params('orgId', 'id'),
        response: { 204: NoContent, 409: errorResponse('Program has active projects') },
      },
    },
    async (request, reply) => {
      await programs.remove(memberOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/orgs/:orgId/programs/:id/donors',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listProgramDonors',
        tags,
        summary: 'Donors of a program',
        description: 'Full donor objects, sorted by name, then id.',
        params: Params('orgId', 'id'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(Donor) },
      },
    },
    (request) => programs.donors(memberOf(request), request.params.id, request.query),
  );
};
