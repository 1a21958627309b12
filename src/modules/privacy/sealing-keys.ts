import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { open, seal, SealedValueError, type Keyring } from '../../lib/sealed-values.js';
import { sealingKeyCheck } from './privacy.tables.js';

const CANARY = 'mel personal data';

/** A start with a PII_KEY that cannot open the database's personal data: refused, with what to do. */
export class SealingKeyMismatch extends Error {}

/**
 * Whether the database's personal data opens under `keyring`. Returns false when no key is recorded
 * yet (a new database, or one from before sealing): the caller seals what is in clear, then records the
 * key. Throws SealingKeyMismatch when the recorded key is neither PII_KEY nor PII_KEY_PREVIOUS.
 */
export async function checkSealingKey(db: Db, keyring: Keyring): Promise<boolean> {
  const [row] = await db.select().from(sealingKeyCheck).where(eq(sealingKeyCheck.id, 1));
  if (!row) return false;
  try {
    if (open(keyring, row.canary) === CANARY) return true;
  } catch (err) {
    if (!(err instanceof SealedValueError)) throw err;
  }
  throw sealingKeyMismatch(row.keyId, keyring);
}

/** The refusal of a keyring that does not hold `keyId`, the key the data is recorded as sealed under. */
export function sealingKeyMismatch(keyId: string, keyring: Keyring): SealingKeyMismatch {
  return new SealingKeyMismatch(
    `PII_KEY does not open the personal data in this database: it is sealed under key ${keyId}, ` +
      `and PII_KEY is key ${keyring.current.id}` +
      (keyring.previous ? `, PII_KEY_PREVIOUS key ${keyring.previous.id}` : '') +
      '. Start with the key the data was sealed under as PII_KEY (during a rotation: the new key as ' +
      'PII_KEY and the old one as PII_KEY_PREVIOUS).',
  );
}

/** Whether `keyring` holds the key `keyId` names (PII_KEY or PII_KEY_PREVIOUS). */
export const keyringHolds = (keyring: Keyring, keyId: string): boolean =>
  keyring.current.id === keyId || keyring.previous?.id === keyId;

/**
 * Records the current key as the one everything is sealed under: after a finished rotation it replaces
 * the record; at a first start (`firstStart`) it is written only where none is, and the record is then
 * checked again, so that two instances started together with different keys cannot both go on.
 */
export async function recordSealingKey(db: Db, keyring: Keyring, firstStart = false): Promise<void> {
  const values = { keyId: keyring.current.id, canary: seal(keyring, CANARY), checkedAt: new Date() };
  const insert = db.insert(sealingKeyCheck).values({ id: 1, ...values });
  if (!firstStart) {
    await insert.onConflictDoUpdate({ target: sealingKeyCheck.id, set: values });
    return;
  }
  await insert.onConflictDoNothing();
  await checkSealingKey(db, keyring);
}

/** The id of the key the database's personal data is recorded as sealed under; null when none is yet. */
export async function sealedUnderKeyId(db: Db): Promise<string | null> {
  const [row] = await db
    .select({ keyId: sealingKeyCheck.keyId })
    .from(sealingKeyCheck)
    .where(eq(sealingKeyCheck.id, 1));
  return row?.keyId ?? null;
}
