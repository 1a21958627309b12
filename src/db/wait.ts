import pg from 'pg';

/** The database could not be reached within DATABASE_WAIT, or refused in a way waiting cannot mend. */
export class DatabaseUnreachable extends Error {}

export interface WaitOptions {
  /** DATABASE_WAIT, in seconds: how long to keep trying; 0 tries once. */
  waitSeconds: number;
  /** Told each failed attempt that will be tried again, as one line. */
  report: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const FIRST_DELAY_MS = 2000;
const MAX_DELAY_MS = 10_000;
/** As the pool's own connection timeout (client.ts): a host that drops packets is given up on after this. */
const ATTEMPT_TIMEOUT_MS = 10_000;

/** The driver's network failures: the server is not (yet) there. */
const NETWORK: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
};

/**
 * SQLSTATEs a database being set up gives: missing (3D000, created by a provisioning step), starting up
 * or shutting down (57P03), no connection slot free yet (53300), and the connection class (08).
 */
const PASSING = new Set(['3D000', '57P03', '53300']);

/**
 * Waits until PostgreSQL at `url` answers, trying with a growing delay (2 s, doubling to 10 s) for
 * `waitSeconds`; each failed attempt is reported as `cannot reach PostgreSQL at host:port (DATABASE_URL):
 * <reason>; retrying in N s`. Throws DatabaseUnreachable with that line (and why it stops) when the time
 * is up, or at once when the server refuses what waiting cannot change (a wrong password, no pg_hba entry).
 * The connection string is never printed: it may hold the password.
 */
export async function waitForPostgres(url: string, options: WaitOptions): Promise<void> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = now() + options.waitSeconds * 1000;
  const where = `cannot reach PostgreSQL at ${hostAndPort(url)} (DATABASE_URL)`;
  for (let delay = FIRST_DELAY_MS; ; delay = Math.min(delay * 2, MAX_DELAY_MS)) {
    const left = deadline - now();
    const failure = await attempt(url, Math.min(ATTEMPT_TIMEOUT_MS, Math.max(left, FIRST_DELAY_MS)));
    if (!failure) return;
    const line = `${where}: ${failure.reason}`;
    if (!failure.passing) throw new DatabaseUnreachable(`${line}; not retried: check DATABASE_URL`);
    const remaining = deadline - now();
    if (remaining <= 0) {
      throw new DatabaseUnreachable(`${line}; gave up after ${options.waitSeconds} s (DATABASE_WAIT)`);
    }
    const wait = Math.min(delay, remaining);
    options.report(`${line}; retrying in ${Math.ceil(wait / 1000)} s`);
    await sleep(wait);
  }
}

/** One connection and `SELECT 1`; what went wrong, or null. */
async function attempt(url: string, timeoutMs: number): Promise<{ reason: string; passing: boolean } | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  // A connection lost after the attempt must not crash the process: the attempt's own promise reports it.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    return failureOf(err, timeoutMs);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function failureOf(err: unknown, timeoutMs: number): { reason: string; passing: boolean } {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : String(err);
  if (typeof code === 'string' && code in NETWORK) return { reason: NETWORK[code]!, passing: true };
  // PostgreSQL's own words name the database: `database "mel" does not exist`.
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
    return { reason: text, passing: PASSING.has(code) || code.startsWith('08') };
  }
  // pg's own: its timeout, and a server that closed the connection during start-up.
  if (/timeout/i.test(text)) return { reason: `no answer within ${timeoutMs / 1000} s`, passing: true };
  if (/Connection terminated/i.test(text))
    return { reason: 'connection closed by the server', passing: true };
  return { reason: text, passing: false };
}

/** `host:port` of a connection string (5432 unless given; a socket directory from `?host=`). */
export function hostAndPort(url: string): string {
  const parsed = new URL(url);
  const host = parsed.hostname || parsed.searchParams.get('host') || 'localhost';
  return `${host}:${parsed.port || '5432'}`;
}
