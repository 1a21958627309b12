import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { ALL_ROLES, MANAGERS, memberOf } from '../../http/pipeline/access.js';
import { errorResponse } from '../../http/errors/replies.js';
import { Collection, CollectionOfEither, PageQuery, paginate } from '../../http/schemas/pagination.js';
import { NoContent, Params, withExample } from '../../http/schemas/schemas.js';
import { DisaggregationService } from './disaggregations.service.js';
import {
  CreateDisaggregationBody,
  CreateIndicatorBody,
  Disaggregation,
  Indicator,
  IndicatorListQuery,
  IndicatorProgress,
  UpdateIndicatorBody,
} from './indicators.schemas.js';
import { IndicatorService } from './indicators.service.js';
import type { IndicatorDependents } from './indicator-dependents.js';
import {
  DISAGGREGATION,
  DISAGGREGATION_CREATE,
  INDICATOR,
  INDICATOR_CREATE,
  INDICATOR_UPDATE,
} from './indicators.examples.js';

const tags = ['Indicators'];

export const indicatorRoutes: FastifyPluginAsyncTypebox<
  AppContext & { dependents: IndicatorDependents }
> = async (app, ctx) => {
  const indicators = new IndicatorService(ctx.db, ctx.dependents);
  const disaggregations = new DisaggregationService(ctx.db, ctx.dependents);

  app.get(
    '/orgs/:orgId/indicators',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listIndicators',
        tags,
        summary: 'Indicators of the organization, or indicator+project pairs in a progress band',
        description:
          'Without `status`: indicator definitions sorted by code (whatever the case), then id; `resultNodeId` ' +
          'and `projectId` filter (an unknown one is 404; a reporter filtering by an unassigned project, 403). ' +
          'With `status`: one entry per indicator+project link whose org-level progress score (all submitted ' +
          'and approved reports of the project, against the cumulative target) is in that band, each the indicator ' +
          'plus `project { id, name }` and `progress { value, target, progressPct, status, gap }`, largest gap ' +
          '(target − value) first, no gap last, ties by code then project name. `no_target` and `no_data` ' +
          'are accepted too. Reporters get only the projects assigned to them.',
        params: Params('orgId'),
        querystring: IndicatorListQuery,
        response: { 200: CollectionOfEither(IndicatorProgress, Indicator) },
      },
    },
    async (request) => {
      const member = memberOf(request);
      const { status, ...query } = request.query;
      if (!status) return indicators.list(member, query);
      const inBand = await indicators.inBand(member, query, status);
      return paginate(query, {
        count: async () => inBand.length,
        list: async ({ limit, offset }) => inBand.slice(offset, limit === null ? undefined : offset + limit),
      });
    },
  );

  app.post(
    '/orgs/:orgId/indicators',
    {
      config: {
        access: { roles: MANAGERS },
        idempotency: 'user',
        location: '/orgs/:orgId/indicators/:newId',
      },
      schema: {
        operationId: 'createIndicator',
        tags,
        summary: 'Create an indicator',
        description:
          'name, code, unit and aggregationMethod are required (aggregationMethod is optional for formula ' +
          'indicators). Sending `formula` makes a formula indicator (isFormula may be omitted); isFormula ' +
          'true without a formula, or a formula with isFormula false: 400. A formula may use numbers, ' +
          'indicator codes of this organization (any case), + - * /, parentheses and unary minus; anything ' +
          'else, an unknown code or the indicator’s own code: 400. Code taken (whatever the case): 409. ' +
          'An unknown resultNodeId: 404. `qualityChecks` (null or absent: modified z > 3.5) says how saved ' +
          'values are checked for outliers; a threshold with min_max or off, min or max with another method ' +
          'than min_max, min_max with neither bound, or min above max: 400.',
        params: Params('orgId'),
        body: withExample(CreateIndicatorBody, INDICATOR_CREATE),
        response: { 201: withExample(Indicator, INDICATOR), 409: errorResponse('Code taken') },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await indicators.create(memberOf(request), request.body)),
  );

  app.get(
    '/orgs/:orgId/indicators/:id',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'getIndicator',
        tags,
        summary: 'One indicator',
        params: Params('orgId', 'id'),
        response: { 200: Indicator },
      },
    },
    (request) => indicators.get(memberOf(request), request.params.id),
  );

  app.patch(
    '/orgs/:orgId/indicators/:id',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/indicators/:id' },
      schema: {
        operationId: 'updateIndicator',
        tags,
        summary: 'Edit an indicator',
        description:
          'Any subset; the result is checked as a whole, as on create. A new formula is checked for unknown ' +
          'codes, the indicator’s own code and cycles through other formulas (400). Changing a code that a ' +
          'formula uses (other than its case): 409. Making an indicator with reports a formula: 409. ' +
          '`isFormula: false` drops the formula and needs an aggregationMethod. `qualityChecks` replaces the ' +
          'outlier checks as a whole (`null`: back to the default, modified z > 3.5), checked as on create; ' +
          'values already saved keep their flags until they are saved again.',
        params: Params('orgId', 'id'),
        body: withExample(UpdateIndicatorBody, INDICATOR_UPDATE),
        response: {
          200: Indicator,
          409: errorResponse('Code taken, code used in a formula, or reports exist'),
        },
      },
    },
    (request) => indicators.update(memberOf(request), request.params.id, request.body),
  );

  app.delete(
    '/orgs/:orgId/indicators/:id',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/indicators/:id' },
      schema: {
        operationId: 'deleteIndicator',
        tags,
        summary: 'Delete an indicator',
        description:
          'Refused (409) while indicator reports exist or a formula uses it. Removes its disaggregations ' +
          'and project links.',
        params: Params('orgId', 'id'),
        response: { 204: NoContent, 409: errorResponse('Reports exist, or a formula uses the indicator') },
      },
    },
    async (request, reply) => {
      await indicators.remove(memberOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/orgs/:orgId/indicators/:id/disaggregations',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listDisaggregations',
        tags,
        summary: 'Disaggregations of an indicator',
        description: 'In creation order. A cross carries `crosses` and its cells as `categories`.',
        params: Params('orgId', 'id'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(Disaggregation) },
      },
    },
    (request) => disaggregations.list(memberOf(request), request.params.id, request.query),
  );

  app.post(
    '/orgs/:orgId/indicators/:id/disaggregations',
    {
      config: {
        access: { roles: MANAGERS },
        idempotency: 'user',
        location: '/orgs/:orgId/indicators/:id/disaggregations',
      },
      schema: {
        operationId: 'createDisaggregation',
        tags,
        summary: 'Add a disaggregation',
        description:
          '1 to 50 non-empty categories, unique (case-insensitively: 400). Name, or a category already used ' +
          'by another disaggregation of the indicator (case-insensitively): 409. Existing reports keep their ' +
          'values; a disaggregation a report leaves empty is not reported.\n\n' +
          'A cross (sex by age): `{ name, crosses: ["Sex", "Age"] }` instead of categories names 2 to 4 plain ' +
          'disaggregations of the indicator (case-insensitively; stored with their own spelling). Its categories ' +
          'are its cells, every combination of theirs joined by `|` in the order of `crosses` (`female|15-24`), ' +
          'the first varying slowest, at most 1,000; the answer carries `crosses` (a plain one has none). ' +
          '400: a name that is not a disaggregation of the indicator, a cross among them (cross plain ones), a ' +
          'crossed category holding `|`, fewer than two, both `categories` and `crosses`. 409: the name taken, ' +
          'or the same disaggregations already crossed (in any order). A crossed disaggregation cannot be ' +
          'removed while the cross exists (409).',
        params: Params('orgId', 'id'),
        body: withExample(CreateDisaggregationBody, DISAGGREGATION_CREATE),
        response: {
          201: withExample(Disaggregation, DISAGGREGATION),
          409: errorResponse('Name or category taken, or the same disaggregations already crossed'),
        },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await disaggregations.create(memberOf(request), request.params.id, request.body)),
  );

  app.delete(
    '/orgs/:orgId/indicators/:id/disaggregations/:disaggregationId',
    {
      config: {
        access: { roles: MANAGERS },
        conditional: { none: "a disaggregation has no GET of its own (read in its indicator's list)" },
      },
      schema: {
        operationId: 'deleteDisaggregation',
        tags,
        summary: 'Remove a disaggregation',
        description:
          'Refused (409) while a report of the indicator holds a value for one of its categories (a cross: one ' +
          'of its cells), or while a cross crosses it (remove the cross first).',
        params: Params('orgId', 'id', 'disaggregationId'),
        response: { 204: NoContent, 409: errorResponse('Reports use its categories, or a cross crosses it') },
      },
    },
    async (request, reply) => {
      await disaggregations.remove(memberOf(request), request.params.id, request.params.disaggregationId);
      return reply.status(204).send(null);
    },
  );
};
