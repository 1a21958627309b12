import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { ALL_ROLES, MANAGERS, memberOf } from '../../http/pipeline/access.js';
import { NoContent, Params, withExample } from '../../http/schemas/schemas.js';
import {
  CreateResultNodeBody,
  ImpactTreeNode,
  ReorderBody,
  ResultNode,
  UpdateResultNodeBody,
} from './results.schemas.js';
import { ResultNodeService } from './results.service.js';
import { RESULT_NODE, RESULT_NODE_CREATE, RESULTS_FRAMEWORK } from './results.examples.js';

const tags = ['Results framework'];

export const resultNodeRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  const nodes = new ResultNodeService(ctx.db);

  app.get(
    '/orgs/:orgId/programs/:programId/result-nodes',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'getResultsFramework',
        tags,
        summary: 'The results framework of a program, as a tree',
        description:
          'A tree, not a paged collection: `page` and `limit` do not apply and the whole framework is returned. ' +
          'The array holds the impact nodes; each node has its `children` (impact > outcome > output; outputs ' +
          'have an empty array). Siblings are sorted by `orderIndex`, then id.',
        params: Params('orgId', 'programId'),
        response: { 200: withExample(Type.Array(ImpactTreeNode), RESULTS_FRAMEWORK) },
      },
    },
    (request) => nodes.tree(memberOf(request), request.params.programId),
  );

  app.post(
    '/orgs/:orgId/programs/:programId/result-nodes',
    {
      config: {
        access: { roles: MANAGERS },
        idempotency: 'user',
        location: '/orgs/:orgId/result-nodes/:newId',
      },
      schema: {
        operationId: 'createResultNode',
        tags,
        summary: 'Add a node to a program’s results framework',
        description:
          'An impact has no parent (`parentId` null or omitted); an outcome’s parent is an impact and an ' +
          'output’s parent an outcome, of the same program (else 400). A `parentId` unknown in the ' +
          'organization: 404. Without `orderIndex` the node goes last among its siblings; with it, the node ' +
          'takes that position and the siblings from there move one place down.',
        params: Params('orgId', 'programId'),
        body: withExample(CreateResultNodeBody, RESULT_NODE_CREATE),
        response: { 201: withExample(ResultNode, RESULT_NODE) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await nodes.create(memberOf(request), request.params.programId, request.body)),
  );

  app.get(
    '/orgs/:orgId/result-nodes/:id',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        tags,
        operationId: 'getResultNode',
        summary: 'A node of a results framework',
        description:
          'The node without its children; the program’s tree (`GET /orgs/:orgId/programs/:programId/result-nodes`) ' +
          'has them.',
        params: Params('orgId', 'id'),
        response: { 200: ResultNode },
      },
    },
    (request) => nodes.get(memberOf(request), request.params.id),
  );

  // Declared before `/:id`; the router also prefers the static segment, so `reorder` is never an id.
  app.patch(
    '/orgs/:orgId/result-nodes/reorder',
    {
      config: { access: { roles: MANAGERS }, conditional: { none: 'reorders many result nodes at once' } },
      schema: {
        operationId: 'reorderResultNodes',
        tags,
        summary: 'Reorder the children of a node (or the impacts of a program)',
        description:
          '`parentId` names the parent; null reorders the impact nodes of `programId` (then required). ' +
          '`orderedIds` must list every child of that parent exactly once, nothing else (400 otherwise; an id ' +
          'unknown in the organization: 404). Answers the siblings in their new order, `orderIndex` 0 to n-1, ' +
          'without children.',
        params: Params('orgId'),
        body: ReorderBody,
        response: { 200: Type.Array(ResultNode) },
      },
    },
    (request) => nodes.reorder(memberOf(request), request.body),
  );

  app.patch(
    '/orgs/:orgId/result-nodes/:id',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/result-nodes/:id' },
      schema: {
        operationId: 'updateResultNode',
        tags,
        summary: 'Edit or move a result node',
        description:
          '`level` and `programId` cannot change (a node’s children depend on its level): both are unknown ' +
          'properties here; delete and recreate the node instead. A new `parentId` must be of the level above ' +
          'in the same program (400; unknown in the organization: 404); the node, with its descendants, goes ' +
          'last among its new siblings unless `orderIndex` is given, and its former siblings close the gap. ' +
          '`orderIndex` alone moves the node among its siblings.',
        params: Params('orgId', 'id'),
        body: UpdateResultNodeBody,
        response: { 200: ResultNode },
      },
    },
    (request) => nodes.update(memberOf(request), request.params.id, request.body),
  );

  app.delete(
    '/orgs/:orgId/result-nodes/:id',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/result-nodes/:id' },
      schema: {
        operationId: 'deleteResultNode',
        tags,
        summary: 'Delete a result node and its descendants',
        description:
          'Its remaining siblings close the gap. Indicators and activities that pointed at a deleted node keep ' +
          'existing with that reference set to null.',
        params: Params('orgId', 'id'),
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await nodes.delete(memberOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
};
