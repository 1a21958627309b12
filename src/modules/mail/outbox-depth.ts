import type { Db } from '../../db/client.js';
import { queueDepth, type QueueDepth } from '../../db/queue-depth.js';
import { outboxEmails } from './mail.tables.js';

/**
 * How many emails wait for delivery (retries included) and how long the oldest has waited, for GET
 * /metrics. The pending rows are few while the worker keeps up.
 */
export function outboxDepth(db: Db): Promise<QueueDepth> {
  return queueDepth(db, outboxEmails, outboxEmails);
}
