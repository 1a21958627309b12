import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client.js';
import { webhookDeliveries, webhookEvents } from './webhooks.tables.js';

/** How long finished deliveries (and their events) stay listed under GET .../deliveries. */
export const WEBHOOK_HISTORY_DAYS = 30;

/**
 * The daily retention job's part: deliveries that succeeded or failed more than 30 days ago, then events
 * no delivery refers to any more (an endpoint deleted, or all their deliveries purged). Pending ones stay.
 */
export async function purgeWebhookHistory(db: Db): Promise<{ deliveries: number; events: number }> {
  const deliveries = rowsOf<{ n: number }>(
    await db.execute(sql`
      WITH gone AS (
        DELETE FROM ${webhookDeliveries}
        WHERE status <> 'pending' AND created_at < now() - make_interval(days => ${WEBHOOK_HISTORY_DAYS})
        RETURNING 1
      ) SELECT count(*)::int AS n FROM gone`),
  )[0]!.n;
  const events = rowsOf<{ n: number }>(
    await db.execute(sql`
      WITH gone AS (
        DELETE FROM ${webhookEvents} e
        WHERE e.created_at < now() - make_interval(days => ${WEBHOOK_HISTORY_DAYS})
          AND NOT EXISTS (SELECT 1 FROM ${webhookDeliveries} d WHERE d.event_id = e.id)
        RETURNING 1
      ) SELECT count(*)::int AS n FROM gone`),
  )[0]!.n;
  return { deliveries, events };
}
