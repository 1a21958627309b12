import { sql } from 'drizzle-orm';
import {
  boolean,
  foreignKey,
  index,
  integer,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, rowId, timestamptz, updatedAt } from '../../db/columns.js';
import { organizations } from '../orgs/orgs.tables.js';

/** Where an organization's systems want its events, and the secret they are signed with. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: rowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    /** Event types sent to it (WEBHOOK_EVENT_TYPES, without `ping`, which goes only when asked). */
    events: text('events').array().notNull(),
    description: text('description'),
    active: boolean('active').notNull().default(true),
    /** `whsec_…`, sealed under PII_KEY like personal data. */
    secret: text('secret').notNull(),
    /** After a rotation, the secret before it keeps signing beside the new one until previousSecretUntil. */
    previousSecret: text('previous_secret'),
    previousSecretUntil: timestamptz('previous_secret_until'),
    /** Since when every delivery to it has failed (null after a success); five days of it disable it. */
    failingSince: timestamptz('failing_since'),
    /** Why the service turned it off (`failing`); null when on, or turned off by an admin. */
    disabledReason: text('disabled_reason'),
    disabledAt: timestamptz('disabled_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'webhook_endpoints_pkey', columns: [t.orgId, t.id] }),
    index('webhook_endpoints_org_id_idx').on(t.orgId),
  ],
);

/**
 * One event, written in the transaction of the change it tells of (only when some endpoint of the
 * organization subscribes to it). `body` is the exact JSON every endpoint receives and that is signed.
 */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: rowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    body: text('body').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ name: 'webhook_events_pkey', columns: [t.orgId, t.id] })],
);

export const webhookDeliveryStatus = pgEnum('webhook_delivery_status', ['pending', 'succeeded', 'failed']);

/** One event for one endpoint: the worker's queue and the record of its attempts. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: rowId(),
    orgId: uuid('org_id').notNull(),
    endpointId: uuid('endpoint_id').notNull(),
    eventId: uuid('event_id').notNull(),
    status: webhookDeliveryStatus('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamptz('next_attempt_at').notNull().defaultNow(),
    /** A worker that claimed the delivery owns it until then; after a crash another worker takes it over. */
    claimedUntil: timestamptz('claimed_until'),
    /** The last attempt: when, the answer's status code (null: no answer), how long, its first 1 KB. */
    lastAttemptAt: timestamptz('last_attempt_at'),
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms'),
    response: text('response'),
    error: text('error'),
    deliveredAt: timestamptz('delivered_at'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'webhook_deliveries_pkey', columns: [t.orgId, t.id] }),
    foreignKey({
      columns: [t.orgId, t.endpointId],
      foreignColumns: [webhookEndpoints.orgId, webhookEndpoints.id],
    }).onDelete('cascade'),
    foreignKey({
      columns: [t.orgId, t.eventId],
      foreignColumns: [webhookEvents.orgId, webhookEvents.id],
    }).onDelete('cascade'),
    index('webhook_deliveries_pending_idx')
      .on(t.nextAttemptAt)
      .where(sql`status = 'pending'`),
    index('webhook_deliveries_endpoint_id_created_at_idx').on(t.endpointId, t.createdAt),
    index('webhook_deliveries_event_id_idx').on(t.eventId),
  ],
);
