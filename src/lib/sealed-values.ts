import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Personal values sealed at rest (issue 22: national ids and phone numbers): AES-256-GCM through
 * node:crypto, a random 96-bit nonce per value, and the id of the key that sealed it stored with it,
 * so a key rotation can open values sealed under the previous key and tell which ones still need
 * sealing again. A sealed value is text: `v1.<key id>.<nonce>.<ciphertext and tag>` (base64url).
 *
 * De-duplication cannot compare sealed values (each has its own nonce): `blindIndex` gives a keyed
 * hash (HMAC-SHA-256) under a key derived from the sealing key with HKDF for that one purpose, so the
 * index reveals nothing without the key and the encryption key is never used for two things.
 */

const VERSION = 'v1';
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export interface SealingKey {
  /** Derived from the key itself: the same key has the same id wherever it is configured. */
  readonly id: string;
  readonly secret: Buffer;
}

/** The key that seals, and during a rotation the one before it, which only opens. */
export interface Keyring {
  readonly current: SealingKey;
  readonly previous?: SealingKey;
}

export class SealedValueError extends Error {}

/** A 32-byte key from its base64 text (`PII_KEY`); anything else is refused with a clear message. */
export function sealingKey(base64: string, name = 'PII_KEY'): SealingKey {
  const secret = Buffer.from(base64, 'base64');
  if (secret.length !== KEY_BYTES || secret.toString('base64') !== base64.replace(/\s/g, '')) {
    throw new SealedValueError(`${name} must be 32 bytes written in base64 (e.g. openssl rand -base64 32)`);
  }
  return { id: keyIdOf(secret), secret };
}

/** The first 8 bytes of SHA-256 over a label and the key: names the key, reveals nothing of it. */
function keyIdOf(secret: Buffer): string {
  return createHash('sha256')
    .update('mel sealing key id\0')
    .update(secret)
    .digest()
    .subarray(0, 8)
    .toString('hex');
}

export function seal(keyring: Keyring, plaintext: string): string {
  const { id, secret } = keyring.current;
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', secret, nonce);
  // The key id and version are bound to the ciphertext: moving a value under another id fails to open.
  cipher.setAAD(associatedData(keyring.current));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return [VERSION, id, nonce.toString('base64url'), body.toString('base64url')].join('.');
}

export function open(keyring: Keyring, sealed: string): string {
  // Parsed with indexOf rather than split: this runs for every phone and national id a list shows.
  const idEnd = sealed.indexOf('.', VERSION.length + 1);
  const nonceEnd = sealed.indexOf('.', idEnd + 1);
  if (!sealed.startsWith(`${VERSION}.`) || idEnd < 0 || nonceEnd < 0 || sealed.includes('.', nonceEnd + 1)) {
    throw new SealedValueError('not a sealed value');
  }
  const id = sealed.slice(VERSION.length + 1, idEnd);
  const key =
    keyring.current.id === id ? keyring.current : keyring.previous?.id === id ? keyring.previous : null;
  if (!key)
    throw new SealedValueError(`sealed under key ${id}, which is neither PII_KEY nor PII_KEY_PREVIOUS`);
  const nonce = Buffer.from(sealed.slice(idEnd + 1, nonceEnd), 'base64url');
  const body = Buffer.from(sealed.slice(nonceEnd + 1), 'base64url');
  if (nonce.length !== NONCE_BYTES || body.length < TAG_BYTES)
    throw new SealedValueError('not a sealed value');
  const decipher = createDecipheriv('aes-256-gcm', key.secret, nonce);
  decipher.setAAD(associatedData(key));
  decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
  try {
    const text = decipher.update(body.subarray(0, body.length - TAG_BYTES));
    // GCM gives everything on update; final only checks the tag.
    decipher.final();
    return text.toString('utf8');
  } catch {
    throw new SealedValueError(
      `sealed value does not open under key ${id}: altered, or another key of that id`,
    );
  }
}

/** The version and key id, bound to every value sealed under the key; built once per key. */
function associatedData(key: SealingKey): Buffer {
  let aad = associated.get(key);
  if (!aad) {
    aad = Buffer.from(`${VERSION}.${key.id}`);
    associated.set(key, aad);
  }
  return aad;
}
const associated = new WeakMap<SealingKey, Buffer>();

/** Whether a rotation still has to seal this value again under the current key. */
export function sealedUnderPrevious(keyring: Keyring, sealed: string): boolean {
  return sealed.split('.', 2)[1] !== keyring.current.id;
}

/**
 * The keyed hash de-duplication compares: equal values give equal indexes under one key. Its key is
 * derived from the sealing key (HKDF-SHA-256, its own label), never the sealing key itself.
 */
export function blindIndex(key: SealingKey, value: string): string {
  let indexKey = indexKeys.get(key);
  if (!indexKey) {
    indexKey = Buffer.from(hkdfSync('sha256', key.secret, Buffer.alloc(0), 'mel blind index v1', KEY_BYTES));
    indexKeys.set(key, indexKey);
  }
  return createHmac('sha256', indexKey).update(value, 'utf8').digest('hex');
}

/** Derived once per key. */
const indexKeys = new WeakMap<SealingKey, Buffer>();
