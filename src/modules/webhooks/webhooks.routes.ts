import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { ADMINS, memberOf } from '../../http/pipeline/access.js';
import { errorResponse } from '../../http/errors/replies.js';
import { Collection, PageQuery } from '../../http/schemas/pagination.js';
import { NoContent, Params } from '../../http/schemas/schemas.js';
import {
  CreateWebhookEndpointBody,
  DeliveryQuery,
  UpdateWebhookEndpointBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from './webhooks.schemas.js';
import { WebhookService } from './webhooks.service.js';

const tags = ['Webhooks'];

const FORMAT =
  'Events are sent as Standard Webhooks (https://www.standardwebhooks.com): a POST with the headers ' +
  '`webhook-id`, `webhook-timestamp` and `webhook-signature` and the body `{ type, timestamp, data }`. ' +
  'Deliveries are retried with exponential backoff for 3 days; the order in which events reach an ' +
  'endpoint is not promised. ';

const URL_RULES =
  '`url` must be an absolute https URL of at most 2,048 characters, without a user name or password; an ' +
  'IP address that is not public (private, loopback, link-local…) and `localhost` are refused at once, and ' +
  'at each delivery every address the host resolves to is checked again. With WEBHOOK_ALLOW_PRIVATE=true ' +
  'those hosts are accepted, and http too when the host is loopback. `events`: at least one, each once. ' +
  '`description` is stored without surrounding spaces, null when empty. ';

// A kept answer is sealed under PII_KEY, as the secret is in its own table: a client whose connection
// dropped gets the same secret again instead of a useless endpoint.
const REPLAY =
  'A replay of this request under the same `Idempotency-Key` (within 24 hours) answers the same secret; ' +
  'the kept answer is sealed like the secret itself.';

const NOT_ACTIVE = errorResponse('The endpoint is not active (code `invalid_transition`)');

export const webhookRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  const webhooks = new WebhookService(ctx.db, ctx.config, ctx.clock, ctx.webhooksQueued);
  const access = { roles: ADMINS };

  app.get(
    '/orgs/:orgId/webhooks',
    {
      config: { access },
      schema: {
        operationId: 'listWebhookEndpoints',
        tags,
        summary: 'Webhook endpoints of the organization',
        description: 'Newest first. Signing secrets are never listed.',
        params: Params('orgId'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(WebhookEndpoint) },
      },
    },
    (request) => webhooks.list(memberOf(request).orgId, request.query),
  );

  app.post(
    '/orgs/:orgId/webhooks',
    {
      config: { access, idempotency: 'user', location: '/orgs/:orgId/webhooks/:newId' },
      schema: {
        operationId: 'createWebhookEndpoint',
        tags,
        summary: 'Add a webhook endpoint',
        description:
          FORMAT +
          URL_RULES +
          '`active` is true unless given. The answer carries the signing secret (`whsec_…`): it is shown ' +
          'this once, and stored sealed. An organization has at most 20 endpoints (409, code `conflict`). ' +
          REPLAY,
        params: Params('orgId'),
        body: CreateWebhookEndpointBody,
        response: {
          201: WebhookEndpointWithSecret,
          409: errorResponse('The organization already has 20 webhook endpoints'),
        },
      },
    },
    async (request, reply) => {
      return reply.status(201).send(await webhooks.create(memberOf(request).orgId, request.body));
    },
  );

  app.get(
    '/orgs/:orgId/webhooks/:id',
    {
      config: { access },
      schema: {
        operationId: 'getWebhookEndpoint',
        tags,
        summary: 'One webhook endpoint',
        description: 'Without its signing secret.',
        params: Params('orgId', 'id'),
        response: { 200: WebhookEndpoint },
      },
    },
    (request) => webhooks.get(memberOf(request).orgId, request.params.id),
  );

  app.patch(
    '/orgs/:orgId/webhooks/:id',
    {
      config: { access, conditional: '/orgs/:orgId/webhooks/:id' },
      schema: {
        operationId: 'updateWebhookEndpoint',
        tags,
        summary: 'Change a webhook endpoint',
        description:
          'Any subset of the fields; `events` replaces the list; `description` may be null to clear it. An ' +
          'empty body changes nothing and returns the endpoint. ' +
          URL_RULES +
          '`active: false` turns it off: its pending deliveries are marked failed (error `endpoint ' +
          'disabled`) and `disabledAt` is set. `active: true` turns a disabled endpoint on again (also ' +
          'one the service disabled after 5 days of failures): `disabledReason`, `disabledAt` and ' +
          '`failingSince` are cleared. Only events that happen afterwards are sent.',
        params: Params('orgId', 'id'),
        body: UpdateWebhookEndpointBody,
        response: { 200: WebhookEndpoint },
      },
    },
    (request) => webhooks.update(memberOf(request).orgId, request.params.id, request.body),
  );

  app.delete(
    '/orgs/:orgId/webhooks/:id',
    {
      config: { access, conditional: '/orgs/:orgId/webhooks/:id' },
      schema: {
        operationId: 'deleteWebhookEndpoint',
        tags,
        summary: 'Delete a webhook endpoint',
        description: 'Its deliveries, pending or past, are deleted with it; nothing more is sent to it.',
        params: Params('orgId', 'id'),
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await webhooks.remove(memberOf(request).orgId, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/orgs/:orgId/webhooks/:id/rotate-secret',
    {
      config: { access, idempotency: 'user', conditional: '/orgs/:orgId/webhooks/:id' },
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: 'Give a webhook endpoint a new signing secret',
        description:
          'Answers the endpoint with its new secret, shown this once. For 24 hours (until ' +
          '`secretRotatedUntil`) deliveries are signed with both the new and the replaced secret, so the ' +
          'receiver can switch without losing any; rotating again within them ends the older one at ' +
          'once. Works on an inactive endpoint too. ' +
          REPLAY,
        params: Params('orgId', 'id'),
        response: { 200: WebhookEndpointWithSecret },
      },
    },
    (request) => webhooks.rotateSecret(memberOf(request).orgId, request.params.id),
  );

  app.get(
    '/orgs/:orgId/webhooks/:id/deliveries',
    {
      config: { access },
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: 'Deliveries to a webhook endpoint',
        description:
          'Newest first, optionally only those in one `status`: `pending` (waiting for an attempt or a ' +
          'retry, at `nextAttemptAt`), `succeeded` (a 2xx answer), `failed` (retries ran out, or the ' +
          'endpoint was turned off). Each shows its attempts so far and the last one: status code, ' +
          'duration, the first 1 KB of the answer, error. ' +
          'A finished delivery is listed for 30 days (the daily retention job removes older ones); all go ' +
          'with the endpoint when it is deleted.',
        params: Params('orgId', 'id'),
        querystring: DeliveryQuery,
        response: { 200: Collection(WebhookDelivery) },
      },
    },
    (request) => webhooks.deliveries(memberOf(request).orgId, request.params.id, request.query),
  );

  app.post(
    '/orgs/:orgId/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      config: {
        access,
        idempotency: 'user',
        conditional: { none: 'queues a new delivery; a delivery has no GET of its own' },
      },
      schema: {
        operationId: 'redeliverWebhookDelivery',
        tags,
        summary: 'Send an event to a webhook endpoint again',
        description:
          'Queues a new delivery of the same event (same `webhook-id` and body, signed anew), due now, and ' +
          'answers it (202); the delivery it repeats keeps its record. Any delivery of the endpoint can be ' +
          'repeated, whatever its status. 409 when the endpoint is not active.',
        params: Params('orgId', 'id', 'deliveryId'),
        response: { 202: WebhookDelivery, 409: NOT_ACTIVE },
      },
    },
    async (request, reply) => {
      const { orgId } = memberOf(request);
      const delivery = await webhooks.redeliver(orgId, request.params.id, request.params.deliveryId);
      return reply.status(202).send(delivery);
    },
  );

  app.post(
    '/orgs/:orgId/webhooks/:id/ping',
    {
      config: { access, idempotency: 'user', conditional: '/orgs/:orgId/webhooks/:id' },
      schema: {
        operationId: 'pingWebhookEndpoint',
        tags,
        summary: 'Send a test event to a webhook endpoint',
        description:
          'Queues a `ping` event for this endpoint alone, due now, and answers its delivery (202). Its ' +
          'data is `{ webhookId }`. Follow the delivery in the list of deliveries. 409 when the endpoint ' +
          'is not active.',
        params: Params('orgId', 'id'),
        response: { 202: WebhookDelivery, 409: NOT_ACTIVE },
      },
    },
    async (request, reply) =>
      reply.status(202).send(await webhooks.ping(memberOf(request).orgId, request.params.id)),
  );
};
