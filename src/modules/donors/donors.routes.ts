import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { preValidationAsyncHookHandler } from 'fastify';
import type { AppContext } from '../../context.js';
import { ADMINS, ALL_ROLES, memberOf } from '../../http/pipeline/access.js';
import { errorResponse } from '../../http/errors/replies.js';
import { Collection, PageQuery } from '../../http/schemas/pagination.js';
import { NoContent, Params } from '../../http/schemas/schemas.js';
import { normalizeEmail } from '../../lib/email.js';
import { CreateDonorBody, Donor, UpdateDonorBody } from './donors.schemas.js';
import { DonorService } from './donors.service.js';

const tags = ['Donors'];

/** Contact emails are trimmed and lower-cased before validation, like every email of the service. */
const normalizeContactEmail: preValidationAsyncHookHandler = async (request) => {
  const body = request.body as { contactEmail?: unknown } | null | undefined;
  if (body && typeof body === 'object' && typeof body.contactEmail === 'string') {
    body.contactEmail = normalizeEmail(body.contactEmail);
  }
};

const FIELDS =
  '`name`, `code` and `country`/`contactName` are stored without surrounding spaces; `contactEmail` is ' +
  'trimmed and lower-cased; `website` must be an http(s) URL. ';
const CODE_RULE = 'A `code` another donor of the organization has, in any letter case: 409.';

export const donorRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  const donors = new DonorService(ctx.db);

  app.get(
    '/orgs/:orgId/donors',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'listDonors',
        tags,
        summary: 'Donors of the organization',
        description: 'Sorted by name ignoring letter case, then by name as written, then by id.',
        params: Params('orgId'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(Donor) },
      },
    },
    (request) => donors.list(memberOf(request).orgId, request.query),
  );

  app.post(
    '/orgs/:orgId/donors',
    {
      preValidation: normalizeContactEmail,
      config: { access: { roles: ADMINS }, idempotency: 'user', location: '/orgs/:orgId/donors/:newId' },
      schema: {
        operationId: 'createDonor',
        tags,
        summary: 'Add a donor',
        description:
          '`name`, `code` and `type` are required; the other fields are optional (null when left out). ' +
          FIELDS +
          CODE_RULE,
        params: Params('orgId'),
        body: CreateDonorBody,
        response: { 201: Donor, 409: errorResponse('A donor with this code already exists') },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await donors.create(memberOf(request).orgId, request.body)),
  );

  app.get(
    '/orgs/:orgId/donors/:id',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'getDonor',
        tags,
        summary: 'One donor',
        params: Params('orgId', 'id'),
        response: { 200: Donor },
      },
    },
    (request) => donors.get(memberOf(request).orgId, request.params.id),
  );

  app.patch(
    '/orgs/:orgId/donors/:id',
    {
      preValidation: normalizeContactEmail,
      config: { access: { roles: ADMINS }, conditional: '/orgs/:orgId/donors/:id' },
      schema: {
        operationId: 'updateDonor',
        tags,
        summary: 'Change a donor',
        description:
          'Any subset of the fields; `country`, `website`, `contactName`, `contactEmail` and `notes` ' +
          'may be set to null to clear them. An empty body changes nothing and returns the donor. ' +
          FIELDS +
          CODE_RULE +
          ' Changing only the letter case of its own code is allowed.',
        params: Params('orgId', 'id'),
        body: UpdateDonorBody,
        response: { 200: Donor, 409: errorResponse('A donor with this code already exists') },
      },
    },
    (request) => donors.update(memberOf(request).orgId, request.params.id, request.body),
  );

  app.delete(
    '/orgs/:orgId/donors/:id',
    {
      config: { access: { roles: ADMINS }, conditional: '/orgs/:orgId/donors/:id' },
      schema: {
        operationId: 'deleteDonor',
        tags,
        summary: 'Delete a donor',
        description:
          'Also detaches it from every program it funds. Reports already assembled keep the donor on their cover.',
        params: Params('orgId', 'id'),
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await donors.remove(memberOf(request).orgId, request.params.id);
      return reply.status(204).send(null);
    },
  );
};
