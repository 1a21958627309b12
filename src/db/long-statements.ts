import type { Logger } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { Db } from './client.js';

/** Beyond a statement's own limit, how long a server may stay silent before the driver gives up on it. */
const SILENCE_MARGIN_MS = 2_000;

const made = new WeakMap<pg.Pool, Map<number, Db>>();

/**
 * `db` with a longer statement limit than the connection's own (DATABASE_STATEMENT_TIMEOUT), for the work
 * that reads or purges in bulk: exports, the retention jobs. Each checkout raises `statement_timeout` for
 * its session and resets it (to the connection's start-up value) before the connection goes back to the
 * pool; transactions work as on `db`. A pool with a client-side `query_timeout` (the replica's) gets one
 * just past the new limit. On PGlite, which has no such timeout, `db` itself.
 */
export function withStatementTimeout(db: Db, statementMs: number): Db {
  const pool = (db as unknown as { $client?: unknown }).$client;
  if (!(pool instanceof pg.Pool)) return db;
  let byLimit = made.get(pool);
  if (!byLimit) made.set(pool, (byLimit = new Map<number, Db>()));
  let longer = byLimit.get(statementMs);
  if (!longer) {
    const client = new LongStatementPool(pool, statementMs) as unknown as pg.Pool;
    // The same statement logger (tests count statements through it).
    const logger = (db as unknown as { session?: { options?: { logger?: Logger } } }).session?.options
      ?.logger;
    longer = drizzle({ client, logger });
    byLimit.set(statementMs, longer);
  }
  return longer;
}

type Release = (err?: Error | boolean) => void;
type Query = (...args: unknown[]) => Promise<unknown>;

/**
 * What drizzle's pooled session needs of a pool: `query` and `connect` (drizzle takes it for a pool by its
 * class name, which is why this one ends in Pool).
 */
class LongStatementPool {
  private readonly silenceMs: number | null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly statementMs: number,
  ) {
    const clientTimeout = (pool as unknown as { options: { query_timeout?: number } }).options.query_timeout;
    this.silenceMs = clientTimeout ? statementMs + SILENCE_MARGIN_MS : null;
  }

  async connect(): Promise<pg.PoolClient> {
    const client = await this.pool.connect();
    const release: Release = client.release.bind(client);
    // A whole number of ms written by this process, never a caller's value.
    await client.query(`SET statement_timeout = ${Math.trunc(this.statementMs)}`).catch((err: unknown) => {
      release(err instanceof Error ? err : true);
      throw err;
    });
    // Taken after the first statement: until then the primary's pool watches it (client.ts).
    const query = client.query.bind(client) as Query;
    if (this.silenceMs !== null) {
      const silenceMs = this.silenceMs;
      client.query = ((...args: unknown[]) =>
        query(...withQueryTimeout(args, silenceMs))) as typeof client.query;
    }
    client.release = (err?: Error | boolean) => {
      client.query = query as typeof client.query;
      client.release = release;
      // A connection that failed is not handed on anyway; a good one gets the pool's limits back first.
      if (err) return release(err);
      query('RESET statement_timeout').then(
        () => release(),
        (failed: unknown) => release(failed instanceof Error ? failed : true),
      );
    };
    return client;
  }

  async query(...args: unknown[]): Promise<unknown> {
    const client = await this.connect();
    let failed: Error | undefined;
    try {
      return await (client.query as unknown as Query)(...args);
    } catch (err) {
      // The connection may be broken, or still running a statement the driver stopped waiting for.
      failed = err instanceof Error ? err : new Error(String(err));
      throw err;
    } finally {
      client.release(failed);
    }
  }
}

/** A query's arguments with a client-side timeout, as pg takes it in a query config. */
function withQueryTimeout(args: unknown[], ms: number): unknown[] {
  const [first, ...rest] = args;
  if (typeof first === 'string') {
    const values = Array.isArray(rest[0]) ? rest[0] : undefined;
    return [{ text: first, values, query_timeout: ms }, ...rest.slice(values ? 1 : 0)];
  }
  if (first && typeof first === 'object' && !('submit' in first))
    return [{ ...first, query_timeout: ms }, ...rest];
  return args;
}
