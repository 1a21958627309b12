import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { ALL_ROLES, MANAGERS, memberOf } from '../../http/pipeline/access.js';
import { Collection, PageQuery } from '../../http/schemas/pagination.js';
import { NoContent, Params } from '../../http/schemas/schemas.js';
import { BudgetLine, CreateBudgetLine, UpdateBudgetLine } from './budget.schemas.js';
import { BudgetLineService } from './budget.service.js';

const tags = ['Budget lines'];

export const budgetLineRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  const budget = new BudgetLineService(ctx.db);

  app.get(
    '/orgs/:orgId/projects/:projectId/budget-lines',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listBudgetLines',
        tags,
        summary: 'Budget lines of a project',
        description:
          'Sorted by category, then id. Amounts are in the project currency, repeated on each line. ' +
          'Reporters may read only projects assigned to them.',
        params: Params('orgId', 'projectId'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(BudgetLine) },
      },
    },
    (request) => budget.list(memberOf(request), request.params.projectId, request.query),
  );

  app.get(
    '/orgs/:orgId/budget-lines/:id',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        tags,
        operationId: 'getBudgetLine',
        summary: 'A budget line',
        description:
          'Amounts in the project currency, repeated on the line. Reporters may read only lines of projects ' +
          'assigned to them (403 otherwise).',
        params: Params('orgId', 'id'),
        response: { 200: BudgetLine },
      },
    },
    (request) => budget.get(memberOf(request), request.params.id),
  );

  app.post(
    '/orgs/:orgId/projects/:projectId/budget-lines',
    {
      config: {
        access: { roles: MANAGERS },
        idempotency: 'user',
        location: '/orgs/:orgId/budget-lines/:newId',
      },
      schema: {
        operationId: 'createBudgetLine',
        tags,
        summary: 'Add a budget line to a project',
        description:
          'Amounts are >= 0 with at most 2 decimals, in the project currency; both default to 0. ' +
          'A description of only spaces is stored as null.',
        params: Params('orgId', 'projectId'),
        body: CreateBudgetLine,
        response: { 201: BudgetLine },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await budget.create(memberOf(request), request.params.projectId, request.body)),
  );

  app.patch(
    '/orgs/:orgId/budget-lines/:id',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/budget-lines/:id' },
      schema: {
        operationId: 'updateBudgetLine',
        tags,
        summary: 'Change a budget line',
        description:
          'Any subset of the fields; `description: null` clears it. An empty body returns the line unchanged.',
        params: Params('orgId', 'id'),
        body: UpdateBudgetLine,
        response: { 200: BudgetLine },
      },
    },
    (request) => budget.update(memberOf(request), request.params.id, request.body),
  );

  app.delete(
    '/orgs/:orgId/budget-lines/:id',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/budget-lines/:id' },
      schema: {
        operationId: 'deleteBudgetLine',
        tags,
        summary: 'Delete a budget line',
        params: Params('orgId', 'id'),
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await budget.remove(memberOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
};
