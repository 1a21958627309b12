import { createHash, randomBytes } from 'node:crypto';
import { v7 } from 'uuid';

/** Time-ordered UUIDs keep primary-key indexes compact. */
export const newId = (): string => v7();

/** Milliseconds since the epoch carried by a UUIDv7, or null for any other string. */
export function uuidV7Time(id: string): number | null {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(id)) return null;
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

/** A secret for a link (reset, invitation): only its hash is stored. */
export function newSecretToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
