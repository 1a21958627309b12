import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { newId } from '../../lib/ids.js';
import { webhookDeliveries, webhookEndpoints, webhookEvents } from './webhooks.tables.js';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
type DeliveryStatus = (typeof webhookDeliveries.$inferSelect)['status'];
export type EndpointValues = Omit<
  typeof webhookEndpoints.$inferInsert,
  'id' | 'orgId' | 'createdAt' | 'updatedAt'
>;

/** First key of the two-key advisory lock that counts an organization's endpoints; any fixed number would do. */
const ENDPOINT_COUNT_LOCK = 72_160_516;

/** Creations in one organization take turns, so two at once cannot both pass the limit. */
export async function lockEndpointCount(tx: Db, orgId: string): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${ENDPOINT_COUNT_LOCK}, hashtext(${orgId}))`);
}

export async function countEndpoints(db: Db, orgId: string): Promise<number> {
  const [row] = await db
    .select({ total: count() })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.orgId, orgId));
  return row?.total ?? 0;
}

/** Newest first. */
export function listEndpoints(db: Db, orgId: string, window: Window): Promise<EndpointRow[]> {
  return inWindow(
    db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.orgId, orgId))
      .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id))
      .$dynamic(),
    window,
  );
}

/**
 * `lock`: `update` for a change that depends on what is read; `share` for queuing a delivery, so that
 * an endpoint being turned off meanwhile waits, then fails the new delivery with the others.
 */
export async function findEndpoint(
  db: Db,
  orgId: string,
  id: string,
  lock?: 'update' | 'share',
): Promise<EndpointRow | undefined> {
  const query = db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, id)))
    .limit(1)
    .$dynamic();
  const [row] = await (lock ? query.for(lock) : query);
  return row;
}

export async function insertEndpoint(db: Db, orgId: string, values: EndpointValues): Promise<EndpointRow> {
  const [row] = await db
    .insert(webhookEndpoints)
    .values({ ...values, orgId })
    .returning();
  if (!row) throw new Error('insert returned no webhook endpoint');
  return row;
}

export async function updateEndpoint(
  db: Db,
  orgId: string,
  id: string,
  changes: Partial<EndpointValues>,
): Promise<EndpointRow | undefined> {
  const [row] = await db
    .update(webhookEndpoints)
    .set(changes)
    .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, id)))
    .returning();
  return row;
}

/**
 * One statement: the current secret becomes the previous one until `previousUntil` (a previous one still
 * in its overlap stops signing), `secret` the current one.
 */
export async function rotateEndpointSecret(
  db: Db,
  orgId: string,
  id: string,
  secret: string,
  previousUntil: Date,
): Promise<EndpointRow | undefined> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      previousSecret: sql`${webhookEndpoints.secret}`,
      previousSecretUntil: previousUntil,
      secret,
    })
    .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, id)))
    .returning();
  return row;
}

/** false when there was no such endpoint; its deliveries go with it (foreign key cascade). */
export async function deleteEndpoint(db: Db, orgId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, id)))
    .returning({ id: webhookEndpoints.id });
  return rows.length > 0;
}

/** The error of the deliveries an endpoint still had waiting when it was turned off. */
export const ENDPOINT_DISABLED = 'endpoint disabled';

/**
 * The deliveries still waiting for an endpoint that is turned off, by an admin or by the worker after
 * five days of failures: failed, none sent.
 */
export async function failEndpointDeliveries(db: Db, orgId: string, endpointId: string): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ status: 'failed', error: ENDPOINT_DISABLED, claimedUntil: null })
    .where(
      and(
        eq(webhookDeliveries.orgId, orgId),
        eq(webhookDeliveries.endpointId, endpointId),
        eq(webhookDeliveries.status, 'pending'),
      ),
    );
}

const deliveryColumns = {
  id: webhookDeliveries.id,
  eventId: webhookDeliveries.eventId,
  eventType: webhookEvents.type,
  status: webhookDeliveries.status,
  attempts: webhookDeliveries.attempts,
  statusCode: webhookDeliveries.statusCode,
  durationMs: webhookDeliveries.durationMs,
  response: webhookDeliveries.response,
  error: webhookDeliveries.error,
  lastAttemptAt: webhookDeliveries.lastAttemptAt,
  nextAttemptAt: webhookDeliveries.nextAttemptAt,
  deliveredAt: webhookDeliveries.deliveredAt,
  createdAt: webhookDeliveries.createdAt,
};

export type DeliveryRow = {
  id: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  statusCode: number | null;
  durationMs: number | null;
  response: string | null;
  error: string | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date;
  deliveredAt: Date | null;
  createdAt: Date;
};

const ofEndpoint = (orgId: string, endpointId: string, status?: DeliveryStatus) =>
  and(
    eq(webhookDeliveries.orgId, orgId),
    eq(webhookDeliveries.endpointId, endpointId),
    status ? eq(webhookDeliveries.status, status) : undefined,
  );

export async function countEndpointDeliveries(
  db: Db,
  orgId: string,
  endpointId: string,
  status?: DeliveryStatus,
): Promise<number> {
  const [row] = await db
    .select({ total: count() })
    .from(webhookDeliveries)
    .where(ofEndpoint(orgId, endpointId, status));
  return row?.total ?? 0;
}

/** Newest first, with the type of their event. */
export function listEndpointDeliveries(
  db: Db,
  orgId: string,
  endpointId: string,
  status: DeliveryStatus | undefined,
  window: Window,
): Promise<DeliveryRow[]> {
  return inWindow(
    db
      .select(deliveryColumns)
      .from(webhookDeliveries)
      .innerJoin(
        webhookEvents,
        and(
          eq(webhookEvents.orgId, webhookDeliveries.orgId),
          eq(webhookEvents.id, webhookDeliveries.eventId),
        ),
      )
      .where(ofEndpoint(orgId, endpointId, status))
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .$dynamic(),
    window,
  );
}

export async function findEndpointDelivery(
  db: Db,
  orgId: string,
  endpointId: string,
  id: string,
): Promise<DeliveryRow | undefined> {
  const [row] = await db
    .select(deliveryColumns)
    .from(webhookDeliveries)
    .innerJoin(
      webhookEvents,
      and(eq(webhookEvents.orgId, webhookDeliveries.orgId), eq(webhookEvents.id, webhookDeliveries.eventId)),
    )
    .where(and(ofEndpoint(orgId, endpointId), eq(webhookDeliveries.id, id)))
    .limit(1);
  return row;
}

/** An event that goes to one endpoint only (a ping): no subscription decides who gets it. */
export async function insertEvent(
  db: Db,
  orgId: string,
  event: { type: string; body: string; at: Date },
): Promise<{ id: string; type: string }> {
  const [row] = await db
    .insert(webhookEvents)
    .values({ orgId, type: event.type, body: event.body, createdAt: event.at })
    .returning({ id: webhookEvents.id, type: webhookEvents.type });
  if (!row) throw new Error('insert returned no webhook event');
  return row;
}

/** A new pending delivery of an event to an endpoint, due at `at`. */
export async function insertDelivery(
  db: Db,
  orgId: string,
  delivery: { endpointId: string; event: { id: string; type: string }; at: Date },
): Promise<DeliveryRow> {
  const [row] = await db
    .insert(webhookDeliveries)
    .values({
      id: newId(),
      orgId,
      endpointId: delivery.endpointId,
      eventId: delivery.event.id,
      nextAttemptAt: delivery.at,
      createdAt: delivery.at,
    })
    .returning();
  if (!row) throw new Error('insert returned no webhook delivery');
  return {
    id: row.id,
    eventId: row.eventId,
    eventType: delivery.event.type,
    status: row.status,
    attempts: row.attempts,
    statusCode: row.statusCode,
    durationMs: row.durationMs,
    response: row.response,
    error: row.error,
    lastAttemptAt: row.lastAttemptAt,
    nextAttemptAt: row.nextAttemptAt,
    deliveredAt: row.deliveredAt,
    createdAt: row.createdAt,
  };
}
