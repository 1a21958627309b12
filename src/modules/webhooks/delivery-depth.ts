import type { Db } from '../../db/client.js';
import { queueDepth, type QueueDepth } from '../../db/queue-depth.js';
import { webhookDeliveries } from './webhooks.tables.js';

/**
 * How many webhook deliveries wait (retries included) and how long the oldest has waited, for GET
 * /metrics. Every tenant's together: an operator's view, never an API answer. Turning an endpoint off
 * fails its pending deliveries, so none waits here for good.
 */
export function webhookDeliveryDepth(db: Db): Promise<QueueDepth> {
  return queueDepth(db, webhookDeliveries, webhookDeliveries);
}
