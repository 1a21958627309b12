import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { open, seal, type Keyring } from '../../lib/sealed-values.js';
import type { webhookEndpoints } from './webhooks.tables.js';

type Endpoint = Pick<
  typeof webhookEndpoints.$inferSelect,
  'secret' | 'previousSecret' | 'previousSecretUntil'
>;

/** How long a rotated-out secret keeps signing beside its successor. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** A new signing secret as Standard Webhooks writes them: `whsec_` and 32 random bytes in base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The secret as stored: sealed under PII_KEY, like personal data. */
export const sealSecret = (keyring: Keyring, secret: string): string => seal(keyring, secret);

/** The secrets that sign at `now`: the current one, and the previous one during its overlap. */
export function signingSecrets(keyring: Keyring, endpoint: Endpoint, now: Date): string[] {
  const secrets = [open(keyring, endpoint.secret)];
  if (endpoint.previousSecret && endpoint.previousSecretUntil && endpoint.previousSecretUntil > now) {
    secrets.push(open(keyring, endpoint.previousSecret));
  }
  return secrets;
}

/**
 * The three Standard Webhooks headers, signed by the reference implementation: `webhook-signature`
 * holds one `v1,<base64>` per secret, space-separated.
 */
export function signedHeaders(
  secrets: string[],
  message: { id: string; at: Date; body: string },
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(message.at.getTime() / 1000)),
    'webhook-signature': secrets
      .map((secret) => new Webhook(secret).sign(message.id, message.at, message.body))
      .join(' '),
  };
}
