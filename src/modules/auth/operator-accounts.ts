import type { Db } from '../../db/client.js';
import { newSecretToken } from '../../lib/ids.js';
import { findUserByEmail, insertPasswordReset, insertUser, type UserRow } from './auth.repo.js';

/**
 * Accounts made from the command line (`npm run admin:create`), by whoever runs the service: REGISTRATION
 * does not apply to them. No password is ever given on a command line: the person sets theirs through a
 * one-time link.
 */

/**
 * How long the link printed by `npm run admin:create` works: a day, since the operator passes it on by
 * hand (a chat, a call) to someone who may be in another time zone; an emailed reset link works an hour.
 * Running the command again prints a new one while no password is set.
 */
export const SETUP_LINK_TTL_SECONDS = 86_400;

/** In the caller's transaction: the account of the normalized `email`, made without a password if none. */
export async function findOrCreateAccount(
  tx: Db,
  person: { email: string; firstName: string; lastName: string },
): Promise<{ user: UserRow; created: boolean }> {
  const existing = await findUserByEmail(tx, person.email);
  if (existing) return { user: existing, created: false };
  const created = await insertUser(tx, { ...person, passwordHash: null });
  // Made by a registration since the look-up.
  if (!created) return { user: (await findUserByEmail(tx, person.email))!, created: false };
  return { user: created, created: true };
}

/**
 * In the caller's transaction: a password-reset token for the user, as `POST /auth/forgot-password` makes
 * them (stored hashed, works once), valid `ttlSeconds`; returns the page's link, `{APP_URL}/reset-password?token=`.
 * Following it proves the address, as an emailed reset link does.
 */
export async function issuePasswordLink(
  tx: Db,
  appUrl: string,
  userId: string,
  ttlSeconds = SETUP_LINK_TTL_SECONDS,
): Promise<string> {
  const { token, hash } = newSecretToken();
  await insertPasswordReset(tx, {
    userId,
    tokenHash: hash,
    expiresAt: new Date(Date.now() + ttlSeconds * 1000),
  });
  return `${appUrl}/reset-password?token=${token}`;
}
