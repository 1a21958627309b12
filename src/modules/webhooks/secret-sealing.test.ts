import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { open, sealingKey, type Keyring } from '../../lib/sealed-values.js';
import { openTestDatabase } from '../../../test/helpers/app.js';
import type { Database } from '../../db/client.js';
import { organizations } from '../orgs/orgs.tables.js';
import { newSigningSecret, sealSecret } from './secrets.js';
import { resealWebhookSecrets } from './secret-sealing.js';
import { webhookEndpoints } from './webhooks.tables.js';

const oldKey = sealingKey(Buffer.alloc(32, 1).toString('base64'));
const newKey = sealingKey(Buffer.alloc(32, 2).toString('base64'));
const before: Keyring = { current: oldKey };
const during: Keyring = { current: newKey, previous: oldKey };

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());

describe('pii:rotate-key and webhook signing secrets', () => {
  it('seals both secrets of an endpoint again under the new key, and leaves the others alone', async () => {
    const { db } = database;
    const [org] = await db.insert(organizations).values({ name: 'Rotating', code: 'rot' }).returning();
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    const [rotated] = await db
      .insert(webhookEndpoints)
      .values({
        orgId: org!.id,
        url: 'https://hooks.example.org/a',
        events: ['period.locked'],
        secret: sealSecret(before, current),
        previousSecret: sealSecret(before, previous),
        previousSecretUntil: new Date(Date.now() + 60_000),
      })
      .returning();
    const fresh = newSigningSecret();
    const [already] = await db
      .insert(webhookEndpoints)
      .values({
        orgId: org!.id,
        url: 'https://hooks.example.org/b',
        events: ['period.locked'],
        secret: sealSecret(during, fresh),
      })
      .returning();

    expect(await resealWebhookSecrets(db, during)).toBe(1);
    const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, rotated!.id));
    // Opens under the new key alone: the old one can go.
    expect(open({ current: newKey }, row!.secret)).toBe(current);
    expect(open({ current: newKey }, row!.previousSecret!)).toBe(previous);
    const [untouched] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, already!.id));
    expect(untouched!.secret).toBe(already!.secret);
    // Run again (a resumed rotation): nothing left to do.
    expect(await resealWebhookSecrets(db, during)).toBe(0);
  });
});
