import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import type { Config } from '../config.js';
import { DatabasePool, rowsOf, type Db, type StatementLimits } from './client.js';
import { driverErrorPool } from './outage.js';
import {
  noFallbacks,
  primaryOnly,
  type FallbackReason,
  type ReadOptions,
  type ReadRouting,
  type ReplicaOptions,
  type ReplicaState,
} from './read-routing.js';
import { failureReason, REPLICA_POOL, replicaFailure } from './replica-failures.js';
import { lagOf, parseLsn, RecentWriters, type Mark } from './replica-lag.js';

export {
  FALLBACK_REASONS,
  type FallbackReason,
  type ReadOptions,
  type ReadRouting,
  type ReplicaOptions,
  type ReplicaState,
} from './read-routing.js';

/**
 * The routing for `config`: primary only without DATABASE_REPLICA_URL; otherwise the replica's pool and
 * its lag poll, which `start` begins (it resolves once the lag was measured, so that the first requests
 * already know where to go).
 */
export function createReadRouting(
  primary: Db,
  config: Pick<Config, 'databaseReplicaUrl' | 'replicaMaxLagSeconds'> &
    Partial<Pick<Config, 'databaseTimeouts'>>,
  options: ReplicaOptions = {},
): ReadRouting {
  if (!config.databaseReplicaUrl) return primaryOnly(primary);
  return new ReplicaRouting(
    primary,
    config.databaseReplicaUrl,
    config.replicaMaxLagSeconds,
    options,
    config.databaseTimeouts,
  );
}

/** `promise`, or a rejection once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * A Db on `client` whose queries run one after another, in the order asked: a read's parallel queries
 * (report assembly sends six at once) wait here, not in pg's own queue, which pg 9 removes.
 */
function oneAtATime(client: pg.PoolClient): Db {
  const send = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  let last: Promise<unknown> = Promise.resolve();
  const query = (...args: unknown[]) => {
    const next = last.then(() => send(...args));
    last = next.catch(() => undefined);
    return next;
  };
  return drizzle({ client: { query } as unknown as pg.PoolClient });
}

const MARKS_KEPT = 120;
const CATCH_UP_STEP_MS = 10;
/** Idle replica connections are probed from this on: one whose server went silent is dropped, not handed to a read. */
const KEEPALIVE_DELAY_MS = 10_000;

class ReplicaRouting implements ReadRouting {
  private readonly pool: DatabasePool;
  private readonly replica: Db;
  private readonly writers: RecentWriters;
  private readonly fallbacks = noFallbacks();
  private readonly marks: Mark[] = [];
  private readonly pollIntervalMs: number;
  private readonly catchUpWaitMs: number;
  private readonly timeoutMs: number;
  /** A lag reading older than this says nothing of now: the replica counts as behind. */
  private readonly freshForMs: number;
  private readonly poolSize: number;
  private lagSeconds: number | null = null;
  /** When the primary's position behind the last lag reading was asked for (performance.now()). */
  private measuredAt = -Infinity;
  /** Null while usable; otherwise why not. */
  private unusable: 'down' | 'lag' | null = 'down';
  /** The primary's position being read; one at a time, even when one outlives its poll's timeout. */
  private position: Promise<Mark> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> = Promise.resolve();
  private closed = false;
  private everUsable = false;

  constructor(
    private readonly primary: Db,
    url: string,
    private readonly maxLagSeconds: number,
    private readonly options: ReplicaOptions,
    limits?: StatementLimits,
  ) {
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.catchUpWaitMs = options.catchUpWaitMs ?? 200;
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.freshForMs = this.pollIntervalMs + this.timeoutMs;
    this.poolSize = options.poolSize ?? 10;
    // Opens nothing yet: the first connection is the first poll's, in start().
    this.pool = new DatabasePool(
      {
        connectionString: url,
        max: this.poolSize,
        connectionTimeoutMillis: this.timeoutMs,
        // The primary's limits: a read is cut after as long on either server.
        ...(limits ? { statement_timeout: limits.statementMs, lock_timeout: limits.lockMs } : {}),
        // A replica that drops packets fails the reads in flight after this (and they run on the primary)
        // rather than holding them and their connections for the kernel's minutes: just past the statement
        // limit, by which the server would have cancelled the read itself and said so.
        query_timeout: options.queryTimeoutMs ?? (limits ? limits.statementMs + this.timeoutMs : 30_000),
        keepAlive: true,
        keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
        application_name: 'mel read routing',
      },
      REPLICA_POOL,
    );
    // A replica that goes away must not crash the process; the next read or poll notices.
    this.pool.on('error', () => undefined);
    // Nor one checked out when its server stops (client.ts says why); the read it serves fails and falls back.
    this.pool.on('connect', (client) => client.on('error', () => undefined));
    this.replica = drizzle(this.pool);
    // The lag is known a poll (and its timeout) late: a write older than the limit and that is surely
    // replayed where reads go.
    this.writers = new RecentWriters(maxLagSeconds * 1000 + this.freshForMs, options.writersKept ?? 10_000);
  }

  async start(): Promise<void> {
    if (this.closed) return;
    this.polling = this.poll();
    await this.polling;
    this.schedule();
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.polling = this.poll()
        .catch((err: unknown) => this.markDown(err))
        .finally(() => this.schedule());
    }, this.pollIntervalMs);
    this.timer.unref();
  }

  /**
   * The primary's WAL position and when it was asked for. On the primary's pool, where requests may hold
   * every connection: the poll waits only its timeout, and while that read is pending no other begins.
   */
  private primaryPosition(): Promise<Mark> {
    if (!this.position) {
      const at = performance.now();
      this.position = this.primary
        .execute(sql`SELECT pg_current_wal_lsn()::text AS lsn`)
        .then((result) => ({ at, lsn: parseLsn(rowsOf<{ lsn: string }>(result)[0]!.lsn) }))
        .finally(() => {
          this.position = null;
        });
    }
    return within(this.position, this.timeoutMs, "reading the primary's WAL position");
  }

  /** Measures the lag: the primary's position, then where the replica's replay stands. */
  private async poll(): Promise<void> {
    let mark: Mark;
    try {
      mark = await this.primaryPosition();
    } catch {
      // The primary's own trouble says nothing of the replica; reads that need the primary report it.
      // Without a reading, though, the lag is unknown: after a while the replica counts as behind.
      this.usableNow();
      return;
    }
    let status: { standby: boolean; replayed: string | null; age: number | null };
    try {
      const { rows } = await this.pool.query<typeof status>({
        text:
          'SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed, ' +
          'extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 AS age',
        query_timeout: this.timeoutMs,
      } as pg.QueryConfig);
      status = rows[0]!;
    } catch (err) {
      // Every replica connection serving reads: the replica is well, only this reading is lost.
      if (replicaFailure(err) === 'busy') this.usableNow();
      else this.markDown(err);
      return;
    }
    if (!status.standby || status.replayed === null) {
      // Promoted, or a primary named by mistake: its data may have parted from ours.
      this.markDown('the replica is not a standby (pg_is_in_recovery() is false)');
      return;
    }
    this.marks.push(mark);
    if (this.marks.length > MARKS_KEPT) this.marks.shift();
    this.measuredAt = mark.at;
    this.lagSeconds = lagOf(parseLsn(status.replayed), mark.lsn, status.age, this.marks, performance.now());
    this.setUnusable(this.lagSeconds !== null && this.lagSeconds <= this.maxLagSeconds ? null : 'lag');
  }

  /**
   * Why routed reads may not go to the replica now, if they may not. A lag reading is gone by for a poll
   * interval and the poll's timeout only: the read-your-writes window assumes one that recent.
   */
  private usableNow(): 'down' | 'lag' | null {
    const age = performance.now() - this.measuredAt;
    if (this.unusable === null && age > this.freshForMs) {
      this.lagSeconds = null;
      this.setUnusable(
        'lag',
        `no lag reading for ${Math.round(age)} ms (the limit is ${this.freshForMs} ms)`,
      );
    }
    return this.unusable;
  }

  /** `why`: a failure, of which only the driver's own words are logged (a query's may hold personal data). */
  private markDown(why: unknown): void {
    this.lagSeconds = null;
    this.setUnusable('down', typeof why === 'string' ? why : failureReason(why));
  }

  /** Logs a change of state once, not once per read. */
  private setUnusable(reason: 'down' | 'lag' | null, why?: string): void {
    if (reason === this.unusable) return;
    const was = this.unusable;
    this.unusable = reason;
    if (reason === null) {
      this.options.log?.info(
        this.everUsable ? `read replica in use again (was ${was})` : 'read replica in use',
      );
      this.everUsable = true;
    } else {
      const detail = why ?? `behind by ${this.lagSeconds ?? 'unknown'} s`;
      this.options.log?.warn({ reason, why: detail }, 'read replica not used: reads go to the primary');
    }
  }

  private fallBack(reason: FallbackReason): Db {
    this.fallbacks[reason] += 1;
    this.options.onFallback?.(reason);
    return this.primary;
  }

  async read<T>(work: (db: Db, onReplica: boolean) => Promise<T>, how: ReadOptions = {}): Promise<T> {
    const unusable = this.usableNow();
    if (unusable) return work(this.fallBack(unusable), false);
    if (how.caughtUp) return this.readCaughtUp(work, how);
    if (how.caller !== undefined && this.writers.has(how.caller)) {
      return work(this.fallBack('recent_write'), false);
    }
    try {
      if (how.streamed) await this.probe();
      return await work(this.replica, true);
    } catch (err) {
      return this.recover(err, work, how);
    }
  }

  /**
   * The replica answers a query within the timeout, on a connection the stream may then use: a stopped
   * replica (its connections gone) or a hung one (SIGSTOP, a network that drops packets: connections open
   * and silent) fails here, before the first byte, and the read falls back rather than breaking off.
   */
  private async probe(): Promise<void> {
    const client = await this.pool.connect();
    let failed = false;
    try {
      await client.query({ text: 'SELECT 1', query_timeout: this.timeoutMs } as pg.QueryConfig);
    } catch (err) {
      failed = true;
      throw err;
    } finally {
      // A connection whose probe timed out may still be waiting for its answer: never handed on.
      client.release(failed);
    }
  }

  /**
   * A stored snapshot's read: on the replica once it has replayed everything the primary had committed
   * when the read began, else on the primary. The check and `work` share one replica connection: behind
   * a URL that names several standbys (a pooler), two connections may reach two servers. The insert
   * position, not the write position: with synchronous_commit off a commit is acknowledged before its
   * record is written. (When idle right at a WAL page boundary the insert position lies past the page
   * header, which replay never reaches: such reads take the primary until the next write.)
   */
  private async readCaughtUp<T>(
    work: (db: Db, onReplica: boolean) => Promise<T>,
    how: ReadOptions,
  ): Promise<T> {
    const [row] = rowsOf<{ lsn: string }>(
      await this.primary.execute(sql`SELECT pg_current_wal_insert_lsn()::text AS lsn`),
    );
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      return this.recover(err, work, how);
    }
    let failure: { error: unknown } | null = null;
    try {
      if (await this.replayed(client, row!.lsn)) return await work(oneAtATime(client), true);
    } catch (error) {
      failure = { error };
    } finally {
      // A connection that failed a query of the replica's is not handed on (a timed-out query may still run).
      client.release(failure !== null && driverErrorPool(failure.error) === REPLICA_POOL);
    }
    if (failure) return this.recover(failure.error, work, how);
    return work(this.fallBack('not_caught_up'), false);
  }

  /** Whether the replica behind `client` has replayed `lsn`, asking again for up to catchUpWaitMs. */
  private async replayed(client: pg.PoolClient, lsn: string): Promise<boolean> {
    const deadline = performance.now() + this.catchUpWaitMs;
    for (;;) {
      const { rows } = await client.query<{ replayed: boolean | null }>({
        text: 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS replayed',
        values: [lsn],
        query_timeout: this.timeoutMs,
      } as pg.QueryConfig);
      if (rows[0]?.replayed === true) return true;
      if (performance.now() >= deadline) return false;
      await sleep(CATCH_UP_STEP_MS);
    }
  }

  /** A read on the replica failed: on the primary when the replica is to blame (or the read says it may be). */
  private async recover<T>(
    err: unknown,
    work: (db: Db, onReplica: boolean) => Promise<T>,
    how: ReadOptions,
  ): Promise<T> {
    const failure = replicaFailure(err);
    if (failure === 'down') this.markDown(err);
    if (failure) return work(this.fallBack(failure), false);
    if (how.staleIf?.(err)) return work(this.primary, false);
    throw err;
  }

  wrote(userId: string): void {
    this.writers.add(userId);
  }

  state(): ReplicaState {
    // First: a reading gone by is forgotten here.
    const usable = this.usableNow() === null;
    return {
      configured: true,
      lagSeconds: this.lagSeconds,
      usable,
      fallbacks: { ...this.fallbacks },
      pool: { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.polling;
    await this.pool.end();
  }
}
