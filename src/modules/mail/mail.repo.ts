import { and, eq, gt, or, sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client.js';
import { outboxEmails } from './mail.tables.js';

export interface OutgoingEmail {
  recipient: string;
  subject: string;
  body: string;
}

export type ClaimedEmail = typeof outboxEmails.$inferSelect;

export async function insertEmail(db: Db, email: OutgoingEmail): Promise<void> {
  await db.insert(outboxEmails).values(email);
}

const leaseEnd = (now: Date, leaseMs: number) => new Date(now.getTime() + leaseMs);

/**
 * Takes up to `limit` due messages for `leaseMs`. SKIP LOCKED lets workers claim side by side without
 * waiting on each other or taking the same row; the lease hands a message on if its worker dies. Every
 * time is the worker's clock, never the database's, so tests can move it.
 */
export async function claimDue(db: Db, now: Date, limit: number, leaseMs: number): Promise<ClaimedEmail[]> {
  const at = now.toISOString();
  // Never tried: due whatever the clock says (queued with the database's time, which a test's clock may lag).
  const result = await db.execute(sql`
    UPDATE ${outboxEmails}
    SET claimed_until = ${leaseEnd(now, leaseMs).toISOString()}, attempts = attempts + 1
    WHERE id IN (
      SELECT id FROM ${outboxEmails}
      WHERE status = 'pending' AND (next_attempt_at <= ${at} OR attempts = 0)
        AND (claimed_until IS NULL OR claimed_until < ${at})
      ORDER BY next_attempt_at, id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING id, recipient, subject, body, attempts, next_attempt_at`);
  // RETURNING keeps no order: send oldest first, as they were picked.
  return rowsOf<ClaimedEmail & { next_attempt_at: string | Date }>(result).sort(
    (a, b) =>
      new Date(a.next_attempt_at).getTime() - new Date(b.next_attempt_at).getTime() ||
      a.id.localeCompare(b.id),
  );
}

/**
 * A claim is identified by the attempt count it set: if the lease ran out and another worker claimed the
 * message since, these updates match nothing and leave that worker's outcome alone.
 */
const stillClaimed = (claim: Claim) =>
  and(
    eq(outboxEmails.id, claim.id),
    eq(outboxEmails.attempts, claim.attempts),
    eq(outboxEmails.status, 'pending'),
  );

type Claim = Pick<ClaimedEmail, 'id' | 'attempts'>;

/** Extends the lease just before sending; false when the claim was lost (lease ran out, taken over). */
export async function renewClaim(db: Db, claim: Claim, now: Date, leaseMs: number): Promise<boolean> {
  const rows = await db
    .update(outboxEmails)
    .set({ claimedUntil: leaseEnd(now, leaseMs) })
    .where(and(stillClaimed(claim), gt(outboxEmails.claimedUntil, now)))
    .returning({ id: outboxEmails.id });
  return rows.length > 0;
}

/**
 * Extends the leases of the claims this worker still holds, in one statement, however long their sends
 * take (the worker's heartbeat, ClaimKeeper); returns those it extended.
 */
export async function renewClaims<C extends Claim>(
  db: Db,
  claims: readonly C[],
  now: Date,
  leaseMs: number,
): Promise<C[]> {
  if (claims.length === 0) return [];
  const rows = await db
    .update(outboxEmails)
    .set({ claimedUntil: leaseEnd(now, leaseMs) })
    .where(and(or(...claims.map(stillClaimed)), gt(outboxEmails.claimedUntil, now)))
    .returning({ id: outboxEmails.id, attempts: outboxEmails.attempts });
  const renewed = new Set(rows.map((row) => `${row.id}/${row.attempts}`));
  return claims.filter((claim) => renewed.has(`${claim.id}/${claim.attempts}`));
}

export async function markSent(db: Db, claim: Claim, now: Date): Promise<void> {
  await db
    .update(outboxEmails)
    .set({ status: 'sent', sentAt: now, claimedUntil: null, lastError: null })
    .where(stillClaimed(claim));
}

export async function markFailed(
  db: Db,
  claim: Claim,
  now: Date,
  error: string,
  retryAt: Date | null,
): Promise<void> {
  await db
    .update(outboxEmails)
    .set({
      status: retryAt ? 'pending' : 'failed',
      nextAttemptAt: retryAt ?? now,
      claimedUntil: null,
      lastError: error.slice(0, 2000),
    })
    .where(stillClaimed(claim));
}
