import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import type { DestinationStream } from 'pino';
import type { Config } from './config.js';
import { createEmbeddedDatabase } from './db/embedded-first-start.js';
import { DatabaseUnreachable, waitForPostgres } from './db/wait.js';
import { logOutput, LogOutputUnavailable } from './http/observability/log-output.js';

/*
 * What the entry points (server, worker, migrate, rotate-key) check before they open anything. A problem
 * here is one plain line on stderr and exit 1, as a configuration error is: never a stack, whatever
 * LOG_FORMAT says, since it may be the log output that failed.
 */

/**
 * Waits DATABASE_WAIT for PostgreSQL, saying so on stderr; still out of reach, the process ends (1).
 * A new embedded database is created and migrated in a thread that then ends (its memory with it); an
 * existing one is opened in this process.
 */
export async function waitForDatabaseOrExit(
  config: Pick<Config, 'databaseUrl' | 'databaseWaitSeconds' | 'dataDir'>,
) {
  if (!config.databaseUrl) {
    await createEmbeddedDatabase(config.dataDir);
    return;
  }
  try {
    await waitForPostgres(config.databaseUrl, {
      waitSeconds: config.databaseWaitSeconds,
      report: (line) => console.error(line),
    });
  } catch (err) {
    if (!(err instanceof DatabaseUnreachable)) throw err;
    console.error(err.message);
    process.exit(1);
  }
}

/**
 * The embedded database's folder while another process has it open (PGlite keeps a postmaster.pid there
 * meanwhile), else null: a second process writing it would corrupt it. Always null on PostgreSQL.
 */
export function embeddedDatabaseInUse(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string | null {
  const embedded = path.join(config.dataDir, 'pglite');
  return !config.databaseUrl && existsSync(path.join(embedded, 'postmaster.pid')) ? embedded : null;
}

/** The log lines' destination for LOG_FORMAT; pino-pretty missing ends the process (1). */
export async function logOutputOrExit(config: Pick<Config, 'logFormat'>): Promise<DestinationStream> {
  try {
    return await logOutput(config);
  } catch (err) {
    if (!(err instanceof LogOutputUnavailable)) throw err;
    console.error(err.message);
    process.exit(1);
  }
}

/**
 * Whether HOST:PORT can be listened on, tried before the database is opened: a second start on a taken
 * port says so at once and never opens the embedded database the first one is using.
 */
export async function listenProblemOf(config: Pick<Config, 'port' | 'host'>): Promise<string | null> {
  if (config.port === 0) return null; // any free port
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ port: config.port, host: config.host, exclusive: true }, resolve);
    });
    return null;
  } catch (err) {
    return listenProblem(err, config);
  } finally {
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  }
}

/** The one line for an error of `listen`, or null when it is none of the known ones. */
export function listenProblem(err: unknown, { port, host }: Pick<Config, 'port' | 'host'>): string | null {
  switch ((err as { code?: unknown }).code) {
    case 'EADDRINUSE':
      return (
        `cannot listen on port ${port} (HOST ${host}): another process holds it, perhaps the service ` +
        'already running; stop that process or set PORT to a free port'
      );
    case 'EACCES':
      return `cannot listen on port ${port} (HOST ${host}): permission denied; ports below 1024 need privileges, set PORT to 1024 or above`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on HOST ${host}: this machine has no such address; set HOST (0.0.0.0: every address)`;
    default:
      return null;
  }
}
