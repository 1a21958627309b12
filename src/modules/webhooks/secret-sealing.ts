import { and, eq } from 'drizzle-orm';
import { transaction, type Db } from '../../db/client.js';
import { open, seal, sealedUnderPrevious, type Keyring } from '../../lib/sealed-values.js';
import { webhookEndpoints } from './webhooks.tables.js';

/**
 * `pii:rotate-key`: the endpoints' signing secrets sealed under the previous key are sealed again under
 * the current one (a handful of rows per organization: one transaction). Returns how many were.
 */
export function resealWebhookSecrets(db: Db, keyring: Keyring): Promise<number> {
  return transaction(db, async (tx) => {
    const rows = await tx
      .select({
        orgId: webhookEndpoints.orgId,
        id: webhookEndpoints.id,
        secret: webhookEndpoints.secret,
        previousSecret: webhookEndpoints.previousSecret,
      })
      .from(webhookEndpoints)
      .for('update');
    const again = (value: string) =>
      sealedUnderPrevious(keyring, value) ? seal(keyring, open(keyring, value)) : value;
    let resealed = 0;
    for (const row of rows) {
      const secret = again(row.secret);
      const previousSecret = row.previousSecret === null ? null : again(row.previousSecret);
      if (secret === row.secret && previousSecret === row.previousSecret) continue;
      await tx
        .update(webhookEndpoints)
        .set({ secret, previousSecret })
        .where(and(eq(webhookEndpoints.orgId, row.orgId), eq(webhookEndpoints.id, row.id)));
      resealed += 1;
    }
    return resealed;
  });
}
