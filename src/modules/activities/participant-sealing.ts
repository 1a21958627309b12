import { and, asc, count, gt, isNotNull, notLike, or, sql } from 'drizzle-orm';
import { transaction, type Db } from '../../db/client.js';
import { blindIndex, open, seal, type Keyring, type SealingKey } from '../../lib/sealed-values.js';
import { participants } from './activities.tables.js';

/**
 * Participants' phone and national id at rest, the personal fields that reach a person: sealed under
 * PII_KEY, with the national id's blind index beside it for de-duplication.
 */

/**
 * The blind index of a national id in an organization: the organization is part of what is hashed, so
 * the same national id gives unrelated indexes in two organizations, and a reader of the database cannot
 * link one person across them.
 */
export const nationalIdIndex = (key: SealingKey, orgId: string, nationalId: string) =>
  blindIndex(key, `${orgId}\u0000${nationalId}`);

/** The stored columns of a phone and national id given in clear; undefined leaves a column as it is. */
export function sealedContact(
  keyring: Keyring,
  orgId: string,
  clear: { phone?: string | null; nationalId?: string | null },
): { phone?: string | null; nationalId?: string | null; nationalIdIndex?: string | null } {
  const stored: ReturnType<typeof sealedContact> = {};
  if (clear.phone !== undefined) stored.phone = clear.phone === null ? null : seal(keyring, clear.phone);
  if (clear.nationalId !== undefined) {
    stored.nationalId = clear.nationalId === null ? null : seal(keyring, clear.nationalId);
    stored.nationalIdIndex =
      clear.nationalId === null ? null : nationalIdIndex(keyring.current, orgId, clear.nationalId);
  }
  return stored;
}

/** A stored phone or national id in clear (values from before sealing are read as they are). */
export function openContact(keyring: Keyring, stored: string | null): string | null {
  if (stored === null) return null;
  return SEALED.test(stored) ? open(keyring, stored) : stored;
}

const SEALED = /^v1\.[0-9a-f]{16}\./;

/** Every blind index a national id may be stored under now (two during a rotation). */
export const nationalIdIndexes = (keyring: Keyring, orgId: string, nationalId: string) =>
  [keyring.current, keyring.previous].flatMap((key) =>
    key ? [nationalIdIndex(key, orgId, nationalId)] : [],
  );

/** A participant with a phone or national id not sealed under the current key (in clear, or under another). */
function notSealedUnder(keyring: Keyring) {
  const current = `v1.${keyring.current.id}.%`;
  return or(
    and(isNotNull(participants.phone), notLike(participants.phone, current)),
    and(isNotNull(participants.nationalId), notLike(participants.nationalId, current)),
  );
}

/** How many participants still have a value not sealed under the current key. */
export async function participantsNotSealed(db: Db, keyring: Keyring): Promise<number> {
  const [row] = await db.select({ total: count() }).from(participants).where(notSealedUnder(keyring));
  return row?.total ?? 0;
}

/**
 * Seals under the current key every phone and national id that is not sealed under it yet (values in
 * clear from before sealing, values under PII_KEY_PREVIOUS), with the national id's blind index
 * recomputed under the current key. In batches of `batchSize`, each its own transaction with its rows
 * locked, walking the table by id: the service keeps running, and a run that stops is resumed by
 * running again (what is done is not selected twice). Returns how many participants of each
 * organization were sealed again.
 */
export async function sealParticipants(
  db: Db,
  keyring: Keyring,
  options: {
    batchSize?: number;
    onBatch?: (sealed: number) => void;
    /** Runs in each batch's transaction with how many of each organization it sealed (the audit entries). */
    inBatch?: (tx: Db, sealedPerOrg: Map<string, number>) => Promise<void>;
  } = {},
): Promise<Map<string, number>> {
  const batchSize = options.batchSize ?? 500;
  const perOrg = new Map<string, number>();
  let after: string | null = null;
  for (;;) {
    const done: number = await transaction(db, async (tx) => {
      const rows = await tx
        .select({
          id: participants.id,
          orgId: participants.orgId,
          phone: participants.phone,
          nationalId: participants.nationalId,
        })
        .from(participants)
        .where(and(after === null ? undefined : gt(participants.id, after), notSealedUnder(keyring)))
        .orderBy(asc(participants.id))
        .limit(batchSize)
        .for('update');
      const batch = new Map<string, number>();
      for (const row of rows) {
        const stored = sealedContact(keyring, row.orgId, {
          phone: openContact(keyring, row.phone),
          nationalId: openContact(keyring, row.nationalId),
        });
        await tx
          .update(participants)
          .set(stored)
          .where(sql`${participants.id} = ${row.id}`);
        batch.set(row.orgId, (batch.get(row.orgId) ?? 0) + 1);
      }
      if (rows.length > 0) await options.inBatch?.(tx, batch);
      for (const [orgId, count] of batch) perOrg.set(orgId, (perOrg.get(orgId) ?? 0) + count);
      if (rows.length > 0) after = rows[rows.length - 1]!.id;
      return rows.length;
    });
    options.onBatch?.(done);
    if (done < batchSize) return perOrg;
  }
}
