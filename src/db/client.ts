import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { sql, type Logger } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { collectingAfterCommit } from './after-commit.js';
import { currentCommitMark, withoutCommitMark } from './commit-marks.js';
import { markDriverError, PRIMARY_POOL } from './outage.js';

export { PRIMARY_POOL } from './outage.js';

/** Drizzle's query builder; the tables come from the modules that own them, never through this file. */
export type Db = PgDatabase<PgQueryResultHKT>;

/** A connection pool's clients: open, idle among them, and requests waiting for one. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/**
 * Told the time (epoch ms) that work the server has just answered began, and when the connection it ran
 * on was begun (`connectedAt`; the same for a connection just accepted, absent when not known).
 */
export type Reached = (startedAt: number, connectedAt?: number) => void;

export interface Database {
  readonly db: Db;
  readonly driver: 'pg' | 'pglite';
  migrate(): Promise<void>;
  /** Reachable and every committed migration applied. */
  isReady(): Promise<boolean>;
  /** The pool's clients now; null for PGlite, which has no pool. */
  poolStats(): PoolStats | null;
  /**
   * Calls `listener` whenever the server answers a query or accepts a new connection, with the time
   * (epoch ms) that work began; returns the way to stop. PGlite never calls it: it has no server to lose.
   */
  onReached(listener: Reached): () => void;
  close(): Promise<void>;
}

export const MIGRATIONS_FOLDER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const MIGRATION_LOCK = 72_160_501;

export interface DatabaseOptions {
  databaseUrl: string | null;
  dataDir: string;
  /** An already open embedded instance (tests pass an in-memory copy of a migrated database). */
  pglite?: PGlite;
  poolSize?: number;
  /** Sees every statement the service sends (tests count them: a batch must not cost one per item). */
  logger?: Logger;
  /** PostgreSQL's statement_timeout and lock_timeout of every connection, in ms (none when not given). */
  databaseTimeouts?: StatementLimits;
}

/** How long a statement may run, and wait for a lock, before PostgreSQL cancels it (ms). */
export interface StatementLimits {
  statementMs: number;
  lockMs: number;
}

/**
 * The limits of a process no request waits on, that reads or writes in bulk (`npm run worker`,
 * `pii:rotate-key`): the exports' statement limit; a lock is waited for no longer than elsewhere.
 */
export const bulkLimits = (limits: StatementLimits & { exportStatementMs: number }): StatementLimits => ({
  statementMs: limits.exportStatementMs,
  lockMs: limits.lockMs,
});

export function openDatabase(options: DatabaseOptions): Database {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.poolSize ?? 10, options.logger, options.databaseTimeouts)
    : openPglite(options);
}

/**
 * How long a request waits for a new connection before it fails (and gets 503 `database_unavailable`):
 * without it, a server whose packets are dropped holds requests for the kernel's TCP timeout, minutes.
 */
const CONNECT_TIMEOUT_MS = 10_000;

type Send = (...args: unknown[]) => unknown;

/**
 * Sends a query through `send` (a client's or a pool's own `query`) and marks its failure as the
 * driver's, from `pool`: only such failures can mean the database is out of reach. A success tells
 * `reached` when the query began. A submittable (a cursor, a stream) reports through its own events.
 */
function sendWatched(
  send: Send,
  args: unknown[],
  pool: string,
  reached: Reached,
  connectedAt?: number,
): unknown {
  const began = Date.now();
  if (typeof (args[0] as { submit?: unknown } | null)?.submit === 'function') return send(...args);
  // A query with a callback is pg-pool's own, inside `pool.query`, which is watched as a whole. Wrapping
  // its callback too kept every export slice's rows alive into the old generation (an export of 100,000
  // rows promoted 163 MB with the wrapper, 27 MB without; 1,000,000 rows peaked 66 MB higher).
  if (typeof args[args.length - 1] === 'function') return send(...args);
  const result = send(...args);
  if (!(result instanceof Promise)) return result; // a callback in the query's config, which nothing here uses
  return result.then(
    (answer: unknown) => {
      reached(began, connectedAt);
      return answer;
    },
    (err: unknown) => {
      throw markDriverError(err, pool);
    },
  );
}

/** A client class for `pool`: it remembers when its connection attempt began, and watches its queries. */
function watchedClient(pool: string, reached: Reached): typeof pg.Client {
  return class extends pg.Client {
    // pg-pool creates a client just before connecting it.
    readonly startedAt = Date.now();

    constructor(config?: string | pg.ClientConfig) {
      super(config);
      const send = this.query.bind(this) as Send;
      this.query = ((...args: unknown[]) =>
        sendWatched(send, args, pool, reached, this.startedAt)) as typeof this.query;
    }
  };
}

/**
 * A pg pool whose errors are marked with its `name` (`markDriverError`): every failure to check out a
 * client or to connect one, of `pool.query`, and of a query on any of its clients. An ECONNRESET that no
 * driver gave (a client aborting its request body) is thus never taken for the database's.
 *
 * drizzle-orm 0.45's pooled `transaction()` sends BEGIN before the try/finally that releases its client
 * (drizzle-orm#6241, open): when BEGIN fails, as it does when the server goes away between checkout and
 * BEGIN, the client is never released and the pool is one short for good (measured: one client lost in
 * one of four 4 s outages under five writers; enough of them and every request waits for a client).
 * A client checked out on its own (a transaction, the migrator) is therefore released, and destroyed, by
 * the failure of its first statement; the release its user makes afterwards does nothing.
 */
export class DatabasePool extends pg.Pool {
  private readonly reachedListeners: Set<Reached>;

  constructor(
    config: Omit<pg.PoolConfig, 'Client'>,
    readonly name: string,
  ) {
    const listeners = new Set<Reached>();
    const reached: Reached = (startedAt, connectedAt) => {
      for (const listener of listeners) listener(startedAt, connectedAt);
    };
    super({ ...config, Client: watchedClient(name, reached) });
    this.reachedListeners = listeners;
    this.on('connect', (client) => {
      const { startedAt } = client as unknown as { startedAt: number };
      reached(startedAt, startedAt);
    });
    // pool.query's checkout and query are watched already; this marks what it reports from the client's
    // 'error' event (a connection lost while the query ran).
    const send = this.query.bind(this) as Send;
    this.query = ((...args: unknown[]) => sendWatched(send, args, name, reached)) as typeof this.query;
  }

  /** Calls `listener` whenever the server answers a query or accepts a connection; returns the way to stop. */
  onReached(listener: Reached): () => void {
    this.reachedListeners.add(listener);
    return () => void this.reachedListeners.delete(listener);
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(
    callback: (
      err: Error | undefined,
      client: pg.PoolClient | undefined,
      done: (release?: unknown) => void,
    ) => void,
  ): void;
  override connect(
    callback?: (
      err: Error | undefined,
      client: pg.PoolClient | undefined,
      done: (release?: unknown) => void,
    ) => void,
  ): Promise<pg.PoolClient> | void {
    // pool.query checks out with a callback and releases whatever happens.
    if (callback)
      return super.connect((err, client, done) =>
        callback(err && markDriverError(err, this.name), client, done),
      );
    return super.connect().then(releasedIfFirstStatementFails, (err: unknown) => {
      throw markDriverError(err, this.name);
    });
  }
}

function releasedIfFirstStatementFails(client: pg.PoolClient): pg.PoolClient {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const unwatched = () => void (client.query = query as typeof client.query);
  const release = client.release.bind(client);
  let released = false;
  client.release = (err?: Error | boolean) => {
    unwatched();
    if (released) return;
    released = true;
    release(err);
  };
  client.query = ((...args: unknown[]) => {
    unwatched();
    const result = query(...args);
    if (!(result instanceof Promise)) return result; // the callback form, which drizzle never uses
    return result.catch((err: unknown) => {
      client.release(err instanceof Error ? err : true);
      throw err;
    });
  }) as typeof client.query;
  return client;
}

function openPostgres(
  connectionString: string,
  max: number,
  logger?: Logger,
  limits?: StatementLimits,
): Database {
  const pool = new DatabasePool(
    {
      connectionString,
      max,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      // Sent with the connection's start-up: no statement of its own. A request on a locked table answers
      // 503 `database_busy` after these, not when the lock goes (errors.ts).
      ...(limits ? { statement_timeout: limits.statementMs, lock_timeout: limits.lockMs } : {}),
    },
    PRIMARY_POOL,
  );
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  // Nor may a checked-out one: pg-pool listens only to idle clients, and a client between two statements
  // of a transaction when the server shuts down emits 'error' with nobody listening (measured: the process
  // died at the first PostgreSQL stop). Its next statement fails, and the request answers 503.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = drizzlePg(pool, { logger }) as unknown as Db;
  return {
    db,
    driver: 'pg',
    async migrate() {
      // Instances starting together take turns; drizzle's migrator itself does not lock. Neither the
      // turn (another instance's migration) nor a migration (an index built on a large table) is bounded
      // by the request limits; the connection gets them back before it returns to the pool.
      const client = await pool.connect();
      let failed: Error | undefined;
      try {
        await client.query('SET statement_timeout = 0; SET lock_timeout = 0');
        await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
        await migratePg(drizzlePg(client), { migrationsFolder: MIGRATIONS_FOLDER });
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
        await client.query('RESET statement_timeout; RESET lock_timeout').catch((err: Error) => {
          failed = err;
        });
        client.release(failed);
      }
    },
    isReady: () => migrationsApplied(db),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    onReached: (listener) => pool.onReached(listener),
    close: () => pool.end(),
  };
}

/**
 * PostgreSQL settings of the embedded database, given at every open (they override its postgresql.conf).
 * PGlite's default shared_buffers, 128 MB, is allocated and touched at open: resident for the process's
 * life. 16 MB holds this schema's hot pages many times over (a migrated database is about 40 MB on disk,
 * read through the OS's page cache); measured 110 MB less resident at idle. wal_buffers follows it (512 kB).
 */
export const EMBEDDED_SETTINGS: Readonly<Record<string, string>> = { shared_buffers: '16MB' };

/** PGlite's options for the service's embedded database: its own start parameters and EMBEDDED_SETTINGS. */
export const embeddedOptions = (): PGliteOptions => ({
  startParams: [
    ...PGlite.defaultStartParams,
    ...Object.entries(EMBEDDED_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
  ],
});

function openPglite(options: DatabaseOptions): Database {
  let client = options.pglite;
  if (!client) {
    const dir = path.join(options.dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
    client = new PGlite(dir, embeddedOptions());
  }
  const pglite = client;
  const db = drizzlePglite(pglite, { logger: options.logger });
  return {
    db: db,
    driver: 'pglite',
    migrate: () => migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER }),
    isReady: () => migrationsApplied(db),
    poolStats: () => null,
    onReached: () => () => undefined,
    close: () => pglite.close(),
  };
}

const expectedMigrations = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).length;

async function migrationsApplied(db: Db): Promise<boolean> {
  try {
    const result = await db.execute(sql`SELECT count(*)::int AS applied FROM drizzle.__drizzle_migrations`);
    return (rowsOf<{ applied: number }>(result)[0]?.applied ?? 0) >= expectedMigrations;
  } catch {
    return false;
  }
}

/** `execute` results differ by driver in type only; both carry `rows`. */
export const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/**
 * The one way to run several writes atomically; repositories take the handle it passes. In a keyed
 * request (`Idempotency-Key`) the outermost transaction also writes the key's commit mark, last; what
 * its work handed to `afterCommit` runs once it has committed.
 */
export function transaction<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  return collectingAfterCommit(async () => {
    const mark = currentCommitMark();
    if (!mark) return db.transaction((tx) => work(tx as unknown as Db));
    const result = await withoutCommitMark(() =>
      db.transaction(async (tx) => {
        const done = await work(tx);
        await mark.mark(tx);
        return done;
      }),
    );
    mark.committed = true;
    return result;
  });
}

/**
 * A write of one statement: on its own (autocommit), or, in a keyed request, in a transaction that also
 * marks the key committed (src/db/commit-marks.ts), so that a retry never runs it again. No BEGIN and
 * COMMIT for the requests that need none.
 */
export function singleWrite<T>(db: Db, work: (db: Db) => Promise<T>): Promise<T> {
  return currentCommitMark() ? transaction(db, work) : work(db);
}

/**
 * For a delete whose cascades remove rows that reference each other along several paths (a project:
 * its periods and reports, and its forms with their submissions, which point at both): the deferrable
 * references are checked at commit, once every path has run, rather than after the first path, when
 * the others have not yet removed what still points at it. Inside a transaction only.
 */
export async function checkReferencesAtCommit(tx: Db): Promise<void> {
  await tx.execute(sql`SET CONSTRAINTS ALL DEFERRED`);
}
