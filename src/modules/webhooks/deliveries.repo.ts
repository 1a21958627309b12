import { and, asc, eq, exists, gt, lte, or, sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client.js';
import { users } from '../auth/auth.tables.js';
import { orgMembers, organizations } from '../orgs/orgs.tables.js';
import { webhookDeliveries, webhookEndpoints, webhookEvents } from './webhooks.tables.js';

/** A delivery a worker holds; `attempts` (counted at the claim) is its claim token. */
export type DeliveryClaim = Pick<
  typeof webhookDeliveries.$inferSelect,
  'id' | 'orgId' | 'endpointId' | 'eventId' | 'attempts'
>;

/** What one attempt found out; `at` is when it started (the signature's timestamp). */
export interface AttemptRecord {
  at: Date;
  statusCode: number | null;
  durationMs: number;
  response: string | null;
  error: string | null;
}

const leaseEnd = (now: Date, leaseMs: number) => new Date(now.getTime() + leaseMs);

const endpointOfDelivery = and(
  eq(webhookEndpoints.orgId, webhookDeliveries.orgId),
  eq(webhookEndpoints.id, webhookDeliveries.endpointId),
);

/**
 * Takes up to `limit` due deliveries of active endpoints for `leaseMs`: at most one per endpoint, and none
 * of an endpoint that has a delivery in flight (claimed) or waiting for a retry, so an endpoint receives
 * one delivery at a time and one that fails is backed off as a whole — a tenant's slow or dead receivers
 * cannot fill every worker's hands while other tenants' events wait. Oldest first. SKIP LOCKED lets
 * workers claim side by side without taking the same row; the lease hands a delivery on if its worker
 * dies. Every time is the worker's clock, never the database's, so tests can move it.
 */
export async function claimDueDeliveries(
  db: Db,
  now: Date,
  limit: number,
  leaseMs: number,
): Promise<DeliveryClaim[]> {
  const at = now.toISOString();
  // Never tried: due whatever the clock says (events are stamped with the time of the change, which a
  // test's clock may lag). The endpoints busy (in flight or backing off) are found once: a subquery per
  // candidate, on a table whose statistics still said empty, took 500 ms a claim with 2,000 pending for
  // one endpoint (one delivery every half second).
  const result = await db.execute(sql`
    WITH busy AS MATERIALIZED (
      SELECT DISTINCT org_id, endpoint_id FROM ${webhookDeliveries}
      WHERE status = 'pending'
        AND (claimed_until > ${at} OR (attempts > 0 AND next_attempt_at > ${at}))
    ), candidates AS (
      SELECT DISTINCT ON (d.endpoint_id) d.org_id, d.id, d.next_attempt_at
      FROM ${webhookDeliveries} d
      JOIN ${webhookEndpoints} e ON e.org_id = d.org_id AND e.id = d.endpoint_id AND e.active
      WHERE d.status = 'pending'
        AND (d.next_attempt_at <= ${at} OR d.attempts = 0)
        AND (d.claimed_until IS NULL OR d.claimed_until < ${at})
        AND NOT EXISTS (SELECT 1 FROM busy WHERE busy.org_id = d.org_id AND busy.endpoint_id = d.endpoint_id)
      ORDER BY d.endpoint_id, d.next_attempt_at, d.id
    ), due AS (
      SELECT org_id, id FROM ${webhookDeliveries}
      WHERE (org_id, id) IN (SELECT org_id, id FROM candidates ORDER BY next_attempt_at, id LIMIT ${limit})
        AND status = 'pending' AND (claimed_until IS NULL OR claimed_until < ${at})
      FOR UPDATE SKIP LOCKED
    )
    UPDATE ${webhookDeliveries} SET claimed_until = ${leaseEnd(now, leaseMs).toISOString()}, attempts = attempts + 1
    WHERE (org_id, id) IN (SELECT org_id, id FROM due)
    RETURNING id, org_id, endpoint_id, event_id, attempts, next_attempt_at`);
  const claimed = rowsOf<{
    id: string;
    org_id: string;
    endpoint_id: string;
    event_id: string;
    attempts: number;
    next_attempt_at: string | Date;
  }>(result);
  // RETURNING keeps no order: send oldest first, as they were picked.
  return claimed
    .sort(
      (a, b) =>
        new Date(a.next_attempt_at).getTime() - new Date(b.next_attempt_at).getTime() ||
        a.id.localeCompare(b.id),
    )
    .map((row) => ({
      id: row.id,
      orgId: row.org_id,
      endpointId: row.endpoint_id,
      eventId: row.event_id,
      attempts: row.attempts,
    }));
}

/**
 * A claim is identified by the attempt count it set: if the lease ran out and another worker claimed the
 * delivery since, these updates match nothing and leave that worker's outcome alone.
 */
const stillClaimed = (claim: DeliveryClaim) =>
  and(
    eq(webhookDeliveries.orgId, claim.orgId),
    eq(webhookDeliveries.id, claim.id),
    eq(webhookDeliveries.attempts, claim.attempts),
    eq(webhookDeliveries.status, 'pending'),
  );

/**
 * Extends the lease just before sending, while the endpoint is still active; false when the claim was
 * lost (lease ran out, taken over, the delivery failed by a disabling) or the endpoint was turned off.
 */
export async function renewDeliveryClaim(
  db: Db,
  claim: DeliveryClaim,
  now: Date,
  leaseMs: number,
): Promise<boolean> {
  const activeEndpoint = db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.orgId, claim.orgId),
        eq(webhookEndpoints.id, claim.endpointId),
        eq(webhookEndpoints.active, true),
      ),
    );
  const rows = await db
    .update(webhookDeliveries)
    .set({ claimedUntil: leaseEnd(now, leaseMs) })
    .where(and(stillClaimed(claim), gt(webhookDeliveries.claimedUntil, now), exists(activeEndpoint)))
    .returning({ id: webhookDeliveries.id });
  return rows.length > 0;
}

/**
 * Extends the leases of the claims this worker still holds, in one statement, however long their
 * deliveries take (the worker's heartbeat, ClaimKeeper); returns those it extended. A claim whose lease ran
 * out or that another worker took since is not renewed: it is lost.
 */
export async function renewDeliveryClaims(
  db: Db,
  claims: readonly DeliveryClaim[],
  now: Date,
  leaseMs: number,
): Promise<DeliveryClaim[]> {
  if (claims.length === 0) return [];
  const rows = await db
    .update(webhookDeliveries)
    .set({ claimedUntil: leaseEnd(now, leaseMs) })
    .where(
      and(
        or(...claims.map(stillClaimed)),
        // A lease that ran out may be another worker's already: lost, even if nobody took it yet.
        gt(webhookDeliveries.claimedUntil, now),
      ),
    )
    .returning({ id: webhookDeliveries.id, attempts: webhookDeliveries.attempts });
  const renewed = new Set(rows.map((row) => `${row.id}/${row.attempts}`));
  return claims.filter((claim) => renewed.has(`${claim.id}/${claim.attempts}`));
}

/** The endpoint and event of a claimed delivery, read after its renewal so a rotated secret is seen. */
export async function findDeliveryTarget(db: Db, claim: DeliveryClaim) {
  const [row] = await db
    .select({
      url: webhookEndpoints.url,
      secret: webhookEndpoints.secret,
      previousSecret: webhookEndpoints.previousSecret,
      previousSecretUntil: webhookEndpoints.previousSecretUntil,
      body: webhookEvents.body,
      eventCreatedAt: webhookEvents.createdAt,
      deliveryCreatedAt: webhookDeliveries.createdAt,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, endpointOfDelivery)
    .innerJoin(
      webhookEvents,
      and(eq(webhookEvents.orgId, webhookDeliveries.orgId), eq(webhookEvents.id, webhookDeliveries.eventId)),
    )
    .where(and(eq(webhookDeliveries.orgId, claim.orgId), eq(webhookDeliveries.id, claim.id)));
  return row;
}

const attemptColumns = (attempt: AttemptRecord) => ({
  lastAttemptAt: attempt.at,
  statusCode: attempt.statusCode,
  durationMs: attempt.durationMs,
  response: attempt.response,
  error: attempt.error?.slice(0, 500) ?? null,
  claimedUntil: null,
});

/** Records a delivered attempt and clears the endpoint's failing streak; false when the claim was lost. */
export async function recordDelivered(
  db: Db,
  claim: DeliveryClaim,
  attempt: AttemptRecord,
): Promise<boolean> {
  const rows = await db
    .update(webhookDeliveries)
    .set({ ...attemptColumns(attempt), status: 'succeeded', deliveredAt: attempt.at })
    .where(stillClaimed(claim))
    .returning({ id: webhookDeliveries.id });
  if (rows.length === 0) return false;
  await db
    .update(webhookEndpoints)
    .set({ failingSince: null })
    .where(
      and(
        eq(webhookEndpoints.orgId, claim.orgId),
        eq(webhookEndpoints.id, claim.endpointId),
        sql`${webhookEndpoints.failingSince} IS NOT NULL`,
      ),
    );
  return true;
}

/**
 * Records a failed attempt: pending again until `retryAt`, or failed for good when null. Returns the
 * endpoint's failing streak start (set to this attempt when none runs), or null when the claim was lost.
 */
export async function recordFailedAttempt(
  db: Db,
  claim: DeliveryClaim,
  attempt: AttemptRecord,
  retryAt: Date | null,
): Promise<Date | null> {
  const rows = await db
    .update(webhookDeliveries)
    .set({
      ...attemptColumns(attempt),
      status: retryAt ? 'pending' : 'failed',
      ...(retryAt ? { nextAttemptAt: retryAt } : {}),
    })
    .where(stillClaimed(claim))
    .returning({ id: webhookDeliveries.id });
  if (rows.length === 0) return null;
  const [endpoint] = await db
    .update(webhookEndpoints)
    .set({
      failingSince: sql`coalesce(${webhookEndpoints.failingSince}, ${attempt.at.toISOString()}::timestamptz)`,
    })
    .where(and(eq(webhookEndpoints.orgId, claim.orgId), eq(webhookEndpoints.id, claim.endpointId)))
    .returning({ failingSince: webhookEndpoints.failingSince });
  return endpoint?.failingSince ?? null;
}

/**
 * Turns off an endpoint that has failed since `failingBefore` or earlier. Conditional on it being active,
 * so that of two workers seeing the same streak only one disables it (and emails its admins).
 */
export async function disableFailingEndpoint(
  db: Db,
  claim: Pick<DeliveryClaim, 'orgId' | 'endpointId'>,
  now: Date,
  failingBefore: Date,
) {
  const [endpoint] = await db
    .update(webhookEndpoints)
    .set({ active: false, disabledReason: 'failing', disabledAt: now })
    .where(
      and(
        eq(webhookEndpoints.orgId, claim.orgId),
        eq(webhookEndpoints.id, claim.endpointId),
        eq(webhookEndpoints.active, true),
        lte(webhookEndpoints.failingSince, failingBefore),
      ),
    )
    .returning({
      id: webhookEndpoints.id,
      url: webhookEndpoints.url,
      failingSince: webhookEndpoints.failingSince,
    });
  return endpoint;
}

/**
 * Fails the delivery whose attempt turned its endpoint off, keeping the receiver's answer as its error
 * (it says more than "endpoint disabled", which the endpoint's other deliveries get).
 */
export async function failDelivery(db: Db, claim: Pick<DeliveryClaim, 'id' | 'orgId'>): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ status: 'failed', claimedUntil: null })
    .where(
      and(
        eq(webhookDeliveries.orgId, claim.orgId),
        eq(webhookDeliveries.id, claim.id),
        eq(webhookDeliveries.status, 'pending'),
      ),
    );
}

/** The organization's name and its admins' addresses, for the email telling them of a disabled endpoint. */
export async function findOrgAdmins(db: Db, orgId: string) {
  return db
    .select({
      orgName: organizations.name,
      email: users.email,
      firstName: users.firstName,
      // The language of their email: their own, else the organization's default.
      locale: sql<string>`coalesce(${users.locale}, ${organizations.defaultLocale})`,
    })
    .from(orgMembers)
    .innerJoin(users, eq(users.id, orgMembers.userId))
    .innerJoin(organizations, eq(organizations.id, orgMembers.orgId))
    .where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.role, 'org_admin')))
    .orderBy(asc(users.email));
}
