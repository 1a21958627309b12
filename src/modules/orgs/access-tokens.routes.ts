import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { errorResponse } from '../../http/errors/replies.js';
import { sessionOf } from '../../http/pipeline/access.js';
import { Collection, PageQuery } from '../../http/schemas/pagination.js';
import { NoContent, Params } from '../../http/schemas/schemas.js';
import { AccessToken, AccessTokenCreate, CreatedAccessToken } from './access-tokens.schemas.js';
import { AccessTokenService } from './access-tokens.service.js';

const tags = ['Access tokens'];

const USE =
  'A token acts as its user in its one organization, with the role the user has there at each request ' +
  '(at most: `read` allows GET and HEAD only, 403 `read_only_token` otherwise). Send it as ' +
  '`Authorization: Bearer mel_pat_…`, or as the password of HTTP Basic (any user name), for tools that ' +
  'only know Basic (Power BI, Excel). It reaches its organization’s routes only (403 ' +
  '`token_outside_organization` on the account’s and the tokens’ routes; `not_a_member` in another ' +
  'organization; public routes never read it). Refused (401) once expired, deleted, or from before its ' +
  'user’s last password reset; removing the member deletes their tokens in that organization. A change ' +
  'sent as Basic with an `Origin` must come from the service’s own origins (403 `origin_not_allowed`). ' +
  'Basic credentials whose password is no token are left to the session. Each request it authenticates ' +
  'sets `lastUsedAt`; audit entries of its requests carry `tokenId` and `tokenName`.';

export const accessTokenRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  const tokens = new AccessTokenService(ctx.db);

  app.post(
    '/auth/tokens',
    {
      // An Idempotency-Key's kept answer would keep the secret: a retry makes a second token instead.
      config: { access: 'signed-in', idempotency: 'none', location: '/auth/tokens/:newId' },
      schema: {
        operationId: 'createAccessToken',
        tags,
        summary: 'Create a personal access token',
        description:
          'For one organization the caller is a member of (403 `not_a_member` otherwise). The secret ' +
          '(`token`) is in this answer only: it is stored as its SHA-256 and cannot be shown again. ' +
          '`expiresAt`: a future instant (400 otherwise), null for a token that never expires, 90 days ' +
          'when left out. No Idempotency-Key: a kept answer would keep the secret. ' +
          USE,
        body: AccessTokenCreate,
        response: { 201: CreatedAccessToken, 403: errorResponse('Not a member of `orgId`') },
      },
    },
    async (request, reply) => reply.status(201).send(await tokens.create(sessionOf(request), request.body)),
  );

  app.get(
    '/auth/tokens',
    {
      config: { access: 'signed-in' },
      schema: {
        operationId: 'listAccessTokens',
        tags,
        summary: 'The caller’s personal access tokens',
        description: 'Newest first, every organization’s, without their secrets. ' + USE,
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(AccessToken) },
      },
    },
    (request) => tokens.list(sessionOf(request), request.query),
  );

  app.get(
    '/auth/tokens/:id',
    {
      config: { access: 'signed-in' },
      schema: {
        operationId: 'getAccessToken',
        tags,
        summary: 'One of the caller’s personal access tokens',
        description: 'Without its secret. Another user’s token: 404.',
        params: Params('id'),
        response: { 200: AccessToken },
      },
    },
    (request) => tokens.get(sessionOf(request), request.params.id),
  );

  app.delete(
    '/auth/tokens/:id',
    {
      config: { access: 'signed-in', conditional: '/auth/tokens/:id' },
      schema: {
        operationId: 'deleteAccessToken',
        tags,
        summary: 'Revoke a personal access token',
        description: 'At once: the next request with it is refused (401). Another user’s token: 404.',
        params: Params('id'),
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await tokens.delete(sessionOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
};
