/** Node's socket and resolver codes for a server that cannot be reached, or a connection cut. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/**
 * SQLSTATEs of a server that is going away or not taking connections: admin and crash shutdown (57P01,
 * 57P02), starting up or shutting down (57P03). Class 08 is matched whole.
 */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03']);

/**
 * What pg and pg-pool throw, with no code, when a connection breaks or cannot be made in time. The last
 * is a transaction's next statement (often its ROLLBACK) on a client whose server already hung up.
 */
const DRIVER_MESSAGES = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'Client has encountered a connection error and is not queryable',
]);

/**
 * A pool with no connection to give, the server being up: pg-pool waited its connection timeout for a
 * client while every one was checked out, or the server has no connection slot left (53300).
 */
const POOL_FULL_MESSAGE = 'timeout exceeded when trying to connect';
const SERVER_FULL_CODE = '53300';

/**
 * A statement PostgreSQL cancelled at its statement_timeout (57014, query_canceled), that gave up
 * waiting for a lock at its lock_timeout (55P03, lock_not_available), or that it chose to end a
 * deadlock (40P01, deadlock_detected: two writes each waiting for a row the other holds): the server
 * answers, a table or row is held or the
 * statement is slow (DATABASE_STATEMENT_TIMEOUT, DATABASE_LOCK_TIMEOUT); sent again, it goes through.
 */
const TIMEOUT_CODES = new Set(['57014', '55P03', '40P01']);

/** The name the primary database's pool marks its errors with. */
export const PRIMARY_POOL = 'primary';

/**
 * Errors a database driver gave, by the name of the pool they came from. Only these are classified: an
 * ECONNRESET from a client that aborted its request body, or from an SMTP server, says nothing of the
 * database. `DatabasePool` (client.ts) marks its own; weak, so that marking keeps nothing alive.
 */
const fromDriver = new WeakMap<object, string>();

/** Marks `err` as the database driver's, from the pool named `pool`; returns it, to be thrown on. */
export function markDriverError<T>(err: T, pool: string): T {
  if (typeof err === 'object' && err !== null && !fromDriver.has(err)) fromDriver.set(err, pool);
  return err;
}

/**
 * A failure of the database: out of reach, a pool with no connection to give (`busy`), or a statement
 * cancelled by its statement or lock timeout (`timeout`).
 */
export interface DatabaseFailure {
  kind: 'unreachable' | 'busy' | 'timeout';
  /** The driver's code (a SQLSTATE or Node's) and message: never a query or its values. */
  code: string | null;
  reason: string;
  /** The name of the pool whose driver gave it. */
  pool: string;
}

/**
 * The first error in `err`'s chain of `cause`s (Drizzle wraps the driver's) and aggregates (a connect
 * tried on IPv6 then IPv4) that a driver gave or that sits under one, and that names a database out of
 * reach or a pool with nothing to give. With `pool`, only that pool's errors count.
 */
export function databaseFailure(err: unknown, pool?: string): DatabaseFailure | null {
  const pending: { error: unknown; from: string | null }[] = [{ error: err, from: null }];
  const seen = new Set<unknown>();
  for (let next = pending.shift(); next; next = pending.shift()) {
    const e = next.error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const from = fromDriver.get(e) ?? next.from;
    if (from !== null && (pool === undefined || from === pool)) {
      const code = typeof e.code === 'string' ? e.code : null;
      const message = typeof e.message === 'string' ? e.message : '';
      // The driver's own message: never a Drizzle error's, which carries the query and its parameters.
      if (code === SERVER_FULL_CODE || (code === null && message === POOL_FULL_MESSAGE))
        return { kind: 'busy', code, reason: message, pool: from };
      if (code !== null && TIMEOUT_CODES.has(code))
        return { kind: 'timeout', code, reason: message, pool: from };
      const unreachable =
        code !== null
          ? NETWORK_CODES.has(code) || SERVER_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code)
          : DRIVER_MESSAGES.has(message);
      if (unreachable) return { kind: 'unreachable', code, reason: message, pool: from };
    }
    pending.push({ error: e.cause, from });
    if (Array.isArray(e.errors)) pending.push(...(e.errors as unknown[]).map((error) => ({ error, from })));
  }
  return null;
}

/**
 * Why the database (of `pool`, when named) is out of reach, from the driver's error in `err`'s chain:
 * its code and message. Null for any other failure, a full pool included (`poolBusy`).
 */
export function unavailableCause(
  err: unknown,
  pool?: string,
): { code: string | null; reason: string } | null {
  const failure = databaseFailure(err, pool);
  return failure?.kind === 'unreachable' ? { code: failure.code, reason: failure.reason } : null;
}

export const isDatabaseUnavailable = (err: unknown, pool?: string): boolean =>
  unavailableCause(err, pool) !== null;

/** The pool (of that name, when given) or its server had no connection to give in time; the server is up. */
export const poolBusy = (err: unknown, pool?: string): boolean => databaseFailure(err, pool)?.kind === 'busy';

/** A statement (of that pool's, when named) cancelled by its statement or lock timeout. */
export const statementTimedOut = (err: unknown, pool?: string): boolean =>
  databaseFailure(err, pool)?.kind === 'timeout';

/** The name of the pool whose driver gave the error in `err`'s chain; null when no driver gave it. */
export function driverErrorPool(err: unknown): string | null {
  const pending = [err];
  const seen = new Set<unknown>();
  while (pending.length > 0) {
    const e = pending.shift() as { cause?: unknown; errors?: unknown };
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const from = fromDriver.get(e);
    if (from !== undefined) return from;
    pending.push(e.cause);
    if (Array.isArray(e.errors)) pending.push(...(e.errors as unknown[]));
  }
  return null;
}

/** The two levels an outage is logged at (pino's and Fastify's loggers have them). */
export interface OutageLog {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/**
 * A full pool, and statements cancelled by their timeouts, are logged at most this often each, with the
 * count of requests refused meanwhile: a spell shorter than this is one line.
 */
export const BUSY_LOG_INTERVAL_MS = 60_000;

/** How long connections of a server going down may still answer after the first one failed. */
export const SHUTDOWN_GRACE_MS = 1_000;

/** One warning for a kind of refusal: the first at once, then at most once per BUSY_LOG_INTERVAL_MS. */
class ThrottledWarning {
  private loggedAt = -Infinity;
  private refused = 0;

  constructor(
    private readonly log: OutageLog,
    private readonly now: () => number,
    private readonly message: string,
  ) {}

  refuse(fields: object): void {
    this.refused += 1;
    const now = this.now();
    if (now - this.loggedAt < BUSY_LOG_INTERVAL_MS) return;
    this.log.warn({ ...fields, refused: this.refused }, this.message);
    this.loggedAt = now;
    this.refused = 0;
  }
}

/**
 * One log line when the database is found out of reach and one when it is back, however many requests
 * fail in between. The end is the first success of work begun after the outage was noticed: a connection
 * the server accepted, or a query it answered on such a connection or begun SHUTDOWN_GRACE_MS after (the
 * workers poll every few seconds, so an idle service notices too). Work begun earlier may have been answered just before the server went away, so it proves
 * nothing; likewise a request begun before the end may fail after it (a refusal during start-up that
 * reaches the error handler after the query that ended the outage), which starts no new outage.
 *
 * A full pool is no outage (the server answers; the service is overloaded): it is logged apart, at most
 * once per BUSY_LOG_INTERVAL_MS, and leaves the outage state alone.
 */
export class DatabaseOutage {
  private since: number | null = null;
  private endedAt = -Infinity;
  private refused = 0;
  private readonly fullPool: ThrottledWarning;
  private readonly timeouts: ThrottledWarning;

  constructor(
    private readonly log: OutageLog,
    private readonly now: () => number = Date.now,
    /** The pool whose failures this tracker hears (a replica's are the read routing's affair). */
    readonly pool: string = PRIMARY_POOL,
  ) {
    this.fullPool = new ThrottledWarning(log, now, 'database pool busy: no connection free in time');
    this.timeouts = new ThrottledWarning(
      log,
      now,
      'database busy: statements cancelled by their statement or lock timeout (503 database_busy)',
    );
  }

  get down(): boolean {
    return this.since !== null;
  }

  /** Work begun at `began` (epoch ms) failed for want of the database (`unavailableCause` found why). */
  failed(cause: { code: string | null; reason: string }, began: number = this.now()): void {
    if (this.since === null && began <= this.endedAt) return;
    this.refused += 1;
    if (this.since !== null) return;
    this.since = this.now();
    this.log.error({ code: cause.code, reason: cause.reason }, 'database unavailable');
  }

  /**
   * The server answered work (a query, a connection) begun at `startedAt` (epoch ms), on a connection
   * begun at `connectedAt` when known. A server shutting down does not close every connection at once:
   * one not yet closed may answer a query begun just after another's failure was noticed (seen in CI:
   * an outage logged as two). So a query proves the server back when its connection was opened after
   * the outage was noticed, or when it began SHUTDOWN_GRACE_MS after; a warm connection answering that
   * late (an idle service's poll) still ends the outage.
   */
  reached(startedAt: number, connectedAt: number = -Infinity): void {
    if (this.since === null) return;
    if (connectedAt <= this.since && startedAt < this.since + SHUTDOWN_GRACE_MS) return;
    const seconds = Math.round((this.now() - this.since) / 100) / 10;
    // warn, not info: whoever filters the log to see the outage's start also sees its end.
    this.log.warn({ seconds, refused: this.refused }, `database reachable again after ${seconds} s`);
    this.since = null;
    this.endedAt = this.now();
    this.refused = 0;
  }

  /** A request got no connection in time from a full pool (`poolBusy`). */
  busy(cause: { code: string | null; reason: string }): void {
    this.fullPool.refuse({ code: cause.code, reason: cause.reason });
  }

  /**
   * A request's statement was cancelled by its statement or lock timeout (`statementTimedOut`), on any
   * pool: the server answers, so it is no outage. The driver's words name the timeout, never the query.
   */
  timedOut(cause: { code: string | null; reason: string; pool: string }): void {
    this.timeouts.refuse({ code: cause.code, reason: cause.reason, pool: cause.pool });
  }
}

/** What tells of the database's successes: `Database` (client.ts), named here without importing it. */
interface Reachable {
  onReached(listener: (startedAt: number, connectedAt?: number) => void): () => void;
}

/** An outage tracker fed by `database`'s successes; `stop` when the app closes. */
export function watchOutages(database: Reachable, log: OutageLog): DatabaseOutage & { stop(): void } {
  const outage = new DatabaseOutage(log);
  const stop = database.onReached((startedAt, connectedAt) => outage.reached(startedAt, connectedAt));
  return Object.assign(outage, { stop });
}
