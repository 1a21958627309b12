import { and, eq, gt, sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client.js';
import type { IdempotencyKeys, KeyedRequest } from '../../http/pipeline/idempotency.js';
import { newId } from '../../lib/ids.js';
import { blindIndex, open, seal, type Keyring, type SealingKey } from '../../lib/sealed-values.js';
import { idempotencyKeys as keys } from './idempotency.tables.js';

/**
 * The idempotency port of `src/http/pipeline/idempotency.ts`. Fingerprints are keyed hashes and answer bodies
 * are sealed, both under PII_KEY: a request or answer may carry a name or a phone number, and a plain
 * hash of a small body can be guessed.
 */
export function idempotencyKeys(keyring: Keyring): IdempotencyKeys {
  const fingerprint = (key: SealingKey, digest: string) => blindIndex(key, `idempotency\u0000${digest}`);
  // During a rotation a key's fingerprint may have been taken under PII_KEY_PREVIOUS.
  const sameRequest = (stored: string, digest: string) =>
    [keyring.current, keyring.previous].some((key) => key && fingerprint(key, digest) === stored);
  const heldBy = (request: KeyedRequest) => and(eq(keys.scope, request.scope), eq(keys.key, request.key));

  return {
    async claim(db, request, { keepSeconds, takeOverSeconds }) {
      const expiresAt = sql`now() + make_interval(secs => ${keepSeconds})`;
      // Two attempts: the row seen taken may be released or purged before it is read.
      for (let attempt = 0; attempt < 2; attempt++) {
        const claim = {
          fingerprint: fingerprint(keyring.current, request.digest),
          state: 'running' as const,
          claimId: newId(),
          projects: request.projects === null ? null : request.projects.join(','),
          createdAt: sql`now()`,
          expiresAt,
        };
        // One statement: of concurrent first requests (or takeovers) exactly one gets a row back.
        const [claimed] = await db
          .insert(keys)
          .values({ scope: request.scope, key: request.key, ...claim })
          .onConflictDoUpdate({
            target: [keys.scope, keys.key],
            set: { ...claim, status: null, contentType: null, location: null, body: null },
            setWhere: sql`${keys.expiresAt} <= now()
              OR (${keys.state} = 'running' AND ${keys.createdAt} <= now() - make_interval(secs => ${takeOverSeconds}))`,
          })
          .returning({ claimId: keys.claimId });
        if (claimed) return { kind: 'claimed', claimId: claimed.claimId };

        const [row] = await db
          .select()
          .from(keys)
          .where(and(heldBy(request), gt(keys.expiresAt, sql`now()`)));
        if (!row) continue;
        if (!sameRequest(row.fingerprint, request.digest)) return { kind: 'another-request' };
        if (row.state === 'running') return { kind: 'running' };
        // A committed request whose answer is not recorded yet: its process records it, or no answer came.
        if (row.state === 'committed' || row.status === null) {
          return { kind: 'committed', lost: row.createdAt.getTime() <= Date.now() - takeOverSeconds * 1000 };
        }
        return {
          kind: 'completed',
          projects: row.projects === null ? null : row.projects.split(',').filter(Boolean),
          answer: {
            status: row.status,
            contentType: row.contentType,
            location: row.location,
            // A body sealed under a key no longer given fails here (a 500): nothing runs a second time.
            body: row.body === null ? null : open(keyring, row.body),
          },
        };
      }
      return { kind: 'running' };
    },

    async mark(tx, request, claimId) {
      // Inside the request's transaction: a claim taken over meanwhile (its request thought dead) must not
      // commit a second time what the other one runs, so this one is rolled back.
      const marked = await tx
        .update(keys)
        .set({ state: 'committed' })
        .where(and(heldBy(request), eq(keys.claimId, claimId), sql`${keys.state} <> 'completed'`))
        .returning({ claimId: keys.claimId });
      return marked.length > 0;
    },

    async complete(db, request, claimId, answer, keepSeconds) {
      await db
        .update(keys)
        .set({
          state: 'completed',
          status: answer.status,
          contentType: answer.contentType,
          location: answer.location,
          body: answer.body === null ? null : seal(keyring, answer.body),
          expiresAt: sql`now() + make_interval(secs => ${keepSeconds})`,
        })
        .where(and(heldBy(request), eq(keys.claimId, claimId)));
    },

    async release(db, request, claimId) {
      await db.delete(keys).where(and(heldBy(request), eq(keys.claimId, claimId), eq(keys.state, 'running')));
    },
  };
}

/** The daily purge of keys past their 24 hours (running claims included); returns how many went. */
export async function purgeExpiredIdempotencyKeys(db: Db): Promise<number> {
  const result = await db.execute(sql`
    WITH purged AS (DELETE FROM ${keys} WHERE ${keys.expiresAt} <= now() RETURNING 1)
    SELECT count(*)::int AS purged FROM purged`);
  return rowsOf<{ purged: number }>(result)[0]?.purged ?? 0;
}
