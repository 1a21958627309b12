import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/schemas/pagination.js';
import { Body, Nullable, NullableString, SINGLE_LINE, Timestamp, Uuid } from '../../http/schemas/schemas.js';
import { WEBHOOK_EVENT_TYPES } from './events.js';
import { webhookDeliveryStatus } from './webhooks.tables.js';

export type DeliveryStatus = (typeof webhookDeliveryStatus.enumValues)[number];

/** An endpoint can take every event type once: a list of more would repeat one. */
const Events = () =>
  Type.Array(
    Type.Unsafe<(typeof WEBHOOK_EVENT_TYPES)[number]>({ type: 'string', enum: [...WEBHOOK_EVENT_TYPES] }),
    {
      minItems: 1,
      maxItems: WEBHOOK_EVENT_TYPES.length,
      uniqueItems: true,
      description: 'The event types sent to it, each once (`ping` goes only when asked for)',
    },
  );

const Url = () =>
  Type.String({
    format: 'uri',
    maxLength: 2048,
    description:
      'Absolute https URL without a user name or password; not an IP address that is private, loopback, ' +
      'link-local or otherwise special, nor `localhost`. With WEBHOOK_ALLOW_PRIVATE=true those are ' +
      'accepted, and http too when the host is loopback (`localhost`, 127.0.0.0/8, `[::1]`).',
  });

const Description = () =>
  NullableString({
    maxLength: 500,
    ...SINGLE_LINE,
    description: 'What the endpoint is for; stored without surrounding spaces, null when empty',
  });

const DeliveryStatusSchema = (description?: string) =>
  Type.Unsafe<DeliveryStatus>({ type: 'string', enum: [...webhookDeliveryStatus.enumValues], description });

const endpointFields = {
  id: Uuid(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  active: Type.Boolean({ description: 'Whether events are sent to it' }),
  disabledReason: Nullable(
    Type.Literal('failing', {
      description: '`failing`: the service turned it off after every delivery failed for 5 days',
    }),
  ),
  disabledAt: Nullable(
    Timestamp({ description: 'When it was turned off (by an admin or by the service); null while active' }),
  ),
  failingSince: Nullable(
    Timestamp({ description: 'Since when every delivery to it has failed; null after a success' }),
  ),
  secretRotatedUntil: Nullable(
    Timestamp({
      description: 'After a rotation, until when the previous secret still signs beside the new one',
    }),
  ),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
};

export const WebhookEndpoint = Type.Object(endpointFields, {
  title: 'WebhookEndpoint',
  description:
    'Where the organization wants its events, signed as Standard Webhooks; the secret is never shown',
});

const Secret = () =>
  Type.String({
    description:
      'The signing secret, `whsec_` and 32 random bytes in base64: shown only in this answer, keep it',
  });

export const WebhookEndpointWithSecret = Type.Object(
  { ...endpointFields, secret: Secret() },
  {
    title: 'WebhookEndpointWithSecret',
    description: 'The endpoint with its new signing secret, which is shown only here',
  },
);

export const CreateWebhookEndpointBody = Body(
  {
    url: Url(),
    events: Events(),
    description: Type.Optional(Description()),
    active: Type.Optional(Type.Boolean({ default: true, description: 'true unless given' })),
  },
  { title: 'WebhookEndpointCreate' },
);

export const UpdateWebhookEndpointBody = Body(
  {
    url: Type.Optional(Url()),
    events: Type.Optional(Events()),
    description: Type.Optional(Description()),
    active: Type.Optional(
      Type.Boolean({
        description:
          'false stops deliveries (those pending are marked failed); true turns a disabled endpoint on again',
      }),
    ),
  },
  { title: 'WebhookEndpointUpdate' },
);

export const WebhookDelivery = Type.Object(
  {
    id: Uuid(),
    eventId: Uuid('The event delivered; a redelivery sends the same event again'),
    eventType: Type.String(),
    status: DeliveryStatusSchema(),
    attempts: Type.Integer({ description: 'Attempts made so far' }),
    statusCode: Nullable(
      Type.Integer({ description: 'Status code of the last answer; null when none came' }),
    ),
    durationMs: Nullable(Type.Integer({ description: 'How long the last attempt took' })),
    response: Nullable(Type.String({ description: 'The first 1 KB of the last answer' })),
    error: Nullable(Type.String({ description: 'Why the last attempt failed, when it did' })),
    lastAttemptAt: Nullable(Timestamp()),
    nextAttemptAt: Nullable(Timestamp({ description: 'When it is tried next; null unless pending' })),
    deliveredAt: Nullable(Timestamp()),
    createdAt: Timestamp(),
  },
  { title: 'WebhookDelivery', description: 'One event sent to one endpoint, and its attempts' },
);

export const DeliveryQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(DeliveryStatusSchema('Only deliveries in this status')),
});

export type NewWebhookEndpoint = Static<typeof CreateWebhookEndpointBody>;
export type WebhookEndpointChanges = Static<typeof UpdateWebhookEndpointBody>;
export type WebhookEndpointView = Static<typeof WebhookEndpoint>;
export type WebhookDeliveryView = Static<typeof WebhookDelivery>;
