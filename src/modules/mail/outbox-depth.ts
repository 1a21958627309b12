import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client.js';
import { outboxEmails } from './mail.tables.js';

/**
 * How many emails wait for delivery (retries included) and how long the oldest has waited, in seconds
 * (0 when none waits), for GET /metrics. The pending rows are few while the worker keeps up.
 */
export async function outboxDepth(db: Db): Promise<{ depth: number; oldestAgeSeconds: number }> {
  const [row] = rowsOf<{ depth: number; oldest: number | null }>(
    await db.execute(sql`
      SELECT count(*)::int AS depth,
        greatest(0, extract(epoch FROM now() - min(${outboxEmails.createdAt})))::float8 AS oldest
      FROM ${outboxEmails}
      WHERE ${outboxEmails.status} = 'pending'`),
  );
  return { depth: row?.depth ?? 0, oldestAgeSeconds: row?.oldest ?? 0 };
}
