import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from '../../db/columns.js';

/**
 * `running`: claimed, nothing committed yet (a failure releases it; a claim older than the take-over time
 * is taken over). `committed`: the request's transaction committed, its answer not yet recorded (never
 * taken over, never run again). `completed`: the answer is kept.
 */
export const IDEMPOTENCY_STATES = ['running', 'committed', 'completed'] as const;
export type IdempotencyState = (typeof IDEMPOTENCY_STATES)[number];

/**
 * One row per `Idempotency-Key` and caller (`user:<id>`, or `form:<token>` for public submissions): the
 * request that claimed it, by a keyed fingerprint only, and once it completed its answer, the body
 * sealed under PII_KEY (participant answers carry names and phone numbers). Never a Set-Cookie value.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    /** HMAC (a key derived from PII_KEY) over method, route, path and query, media type and body. */
    fingerprint: text('fingerprint').notNull(),
    state: text('state').$type<IdempotencyState>().notNull(),
    /** Who holds a running claim: completing or releasing it touches only one's own. */
    claimId: uuid('claim_id').notNull(),
    status: integer('status'),
    contentType: text('content_type'),
    location: text('location'),
    /** Sealed (src/lib/sealed-values.ts); null for an answer without a body (204). */
    body: text('body'),
    /**
     * For a reporter, the projects assigned when the key was claimed (ids, sorted, comma-separated): a
     * replay to a reporter who has since lost one of them is refused (issue 36, finding 14).
     */
    projects: text('projects'),
    /** When the current claim was taken: a running one older than the request timeout is taken over. */
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    expiresAt: timestamptz('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'idempotency_keys_pkey', columns: [t.scope, t.key] }),
    index('idempotency_keys_expires_at_idx').on(t.expiresAt),
    check('idempotency_keys_state_check', sql`${t.state} IN ('running', 'committed', 'completed')`),
    check('idempotency_keys_key_check', sql`char_length(${t.key}) BETWEEN 1 AND 255`),
    check('idempotency_keys_answer_check', sql`${t.state} <> 'completed' OR ${t.status} IS NOT NULL`),
  ],
);
