import { sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { rowsOf, type Db } from './client.js';

export interface QueueDepth {
  depth: number;
  /** Seconds the oldest waiting item has waited; 0 when none waits. */
  oldestAgeSeconds: number;
}

/**
 * How many rows of a queue table wait (`status` 'pending', retries included) and how long the oldest has
 * waited, for GET /metrics. The module that owns the table names its columns.
 */
export async function queueDepth(
  db: Db,
  table: PgTable,
  columns: { status: PgColumn; createdAt: PgColumn },
): Promise<QueueDepth> {
  const [row] = rowsOf<{ depth: number; oldest: number | null }>(
    await db.execute(sql`
      SELECT count(*)::int AS depth,
        greatest(0, extract(epoch FROM now() - min(${columns.createdAt})))::float8 AS oldest
      FROM ${table}
      WHERE ${columns.status} = 'pending'`),
  );
  return { depth: row?.depth ?? 0, oldestAgeSeconds: row?.oldest ?? 0 };
}
