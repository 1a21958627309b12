import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { MANAGERS, memberOf } from '../../http/pipeline/access.js';
import { Collection, PageQuery } from '../../http/schemas/pagination.js';
import { NoContent, Params, withExample } from '../../http/schemas/schemas.js';
import { CreateValidationRuleBody, UpdateValidationRuleBody, ValidationRule } from './rules.schemas.js';
import { RuleService, type RuleReports } from './rules.service.js';

const tags = ['Data quality'];

const EXPRESSIONS =
  '`left` and `right` are indicator formulas (numbers, codes of the organization’s indicators, `+ - * /`, ' +
  'parentheses) in which `CODE[category]` reads one cell of the indicator’s disaggregated values (a ' +
  "cross's cell: `CODE[female|15-24]`), e.g. `TRAINED <= REGISTERED`, `WSG_MEMBERS[female] >= 0.6 * " +
  'WSG_MEMBERS`. A code that is not an indicator of the organization, a formula indicator, a category the ' +
  'indicator does not have, a project that is not the organization’s, or sides naming no indicator: 400. ' +
  'A rule is checked for each project it applies to (`projectIds`, null: all) and each reporting period, ' +
  'over the values of that project and period (drafts included), each time one of them is written ' +
  '(created, edited, counted, pre-filled, recounted, imported) and when a report is submitted; a side ' +
  'whose value is missing is not checked. A broken rule flags every report it reads in that project and ' +
  'period; saving is never refused. A rule created or changed is checked at once over the values already ' +
  'saved (their flags change; their history does not, no value changed).';

/** An organization's validation rules (docs/data-quality.md). */
export const validationRuleRoutes: FastifyPluginAsyncTypebox<AppContext & { reports: RuleReports }> = async (
  app,
  ctx,
) => {
  const rules = new RuleService(ctx.db, ctx.reports);

  app.get(
    '/orgs/:orgId/validation-rules',
    {
      config: { access: { roles: MANAGERS } },
      schema: {
        operationId: 'listValidationRules',
        tags,
        summary: 'The organization’s validation rules',
        description: 'Sorted by name ignoring case, then by id.',
        params: Params('orgId'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(ValidationRule) },
      },
    },
    (request) => rules.list(memberOf(request).orgId, request.query),
  );

  app.post(
    '/orgs/:orgId/validation-rules',
    {
      config: {
        access: { roles: MANAGERS },
        idempotency: 'user',
        location: '/orgs/:orgId/validation-rules/:newId',
      },
      schema: {
        operationId: 'createValidationRule',
        tags,
        summary: 'Add a validation rule',
        description: EXPRESSIONS,
        params: Params('orgId'),
        body: withExample(CreateValidationRuleBody, {
          name: 'Trained within registered',
          left: 'TRAINED',
          operator: '<=',
          right: 'REGISTERED',
          importance: 'high',
          instruction: 'Check the training attendance sheets against the registration list',
        }),
        response: { 201: ValidationRule },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await rules.create(memberOf(request).orgId, request.body)),
  );

  app.get(
    '/orgs/:orgId/validation-rules/:id',
    {
      config: { access: { roles: MANAGERS } },
      schema: {
        operationId: 'getValidationRule',
        tags,
        summary: 'One validation rule',
        params: Params('orgId', 'id'),
        response: { 200: ValidationRule },
      },
    },
    (request) => rules.get(memberOf(request).orgId, request.params.id),
  );

  app.patch(
    '/orgs/:orgId/validation-rules/:id',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/validation-rules/:id' },
      schema: {
        operationId: 'updateValidationRule',
        tags,
        summary: 'Change a validation rule',
        description:
          'Any subset of the fields, checked as on creation; `instruction` and `projectIds` may be null. ' +
          'A change takes the rule’s flags off every report (with their justifications): they come back ' +
          'as the values are written or submitted again. An empty body changes nothing. ' +
          EXPRESSIONS,
        params: Params('orgId', 'id'),
        body: UpdateValidationRuleBody,
        response: { 200: ValidationRule },
      },
    },
    (request) => rules.update(memberOf(request).orgId, request.params.id, request.body),
  );

  app.delete(
    '/orgs/:orgId/validation-rules/:id',
    {
      config: { access: { roles: MANAGERS }, conditional: '/orgs/:orgId/validation-rules/:id' },
      schema: {
        operationId: 'deleteValidationRule',
        tags,
        summary: 'Delete a validation rule',
        description: 'Its flags go from every report, with their justifications.',
        params: Params('orgId', 'id'),
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await rules.remove(memberOf(request).orgId, request.params.id);
      return reply.status(204).send(null);
    },
  );
};
