import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client.js';
import { webhookDeliveries } from './webhooks.tables.js';

/**
 * How many webhook deliveries wait (retries included) and how long the oldest has waited, in seconds
 * (0 when none waits), for GET /metrics. Every tenant's together: an operator's view, never an API answer.
 * Turning an endpoint off fails its pending deliveries, so none waits here for good.
 */
export async function webhookDeliveryDepth(db: Db): Promise<{ depth: number; oldestAgeSeconds: number }> {
  const [row] = rowsOf<{ depth: number; oldest: number | null }>(
    await db.execute(sql`
      SELECT count(*)::int AS depth,
        greatest(0, extract(epoch FROM now() - min(${webhookDeliveries.createdAt})))::float8 AS oldest
      FROM ${webhookDeliveries}
      WHERE ${webhookDeliveries.status} = 'pending'`),
  );
  return { depth: row?.depth ?? 0, oldestAgeSeconds: row?.oldest ?? 0 };
}
