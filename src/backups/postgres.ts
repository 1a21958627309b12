import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { Db } from '../db/client.js';
import { BackupRefused } from './manifest.js';

/**
 * PostgreSQL's side of a backup: `pg_dump --format=custom` of one snapshot, and `pg_restore` into an
 * empty database. The client programs come from PATH; pg_dump must be of the server's major version or
 * newer (it says so itself), and a dump restores into a server of the same major version or newer.
 */

const run = promisify(execFile);

/**
 * The connection for libpq's programs: the URL without its password, which goes in PGPASSWORD (a command
 * line is visible to every user of the machine in the process list).
 */
function libpqConnection(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  return {
    dbname: parsed.toString(),
    // The programs get the environment this process has (PATH, PGSSLMODE...), and the password.
    env: password ? { ...process.env, PGPASSWORD: password } : process.env,
  };
}

/** A client program, its failure told with what it wrote on stderr. */
async function client(program: string, args: string[], url: string): Promise<void> {
  const { dbname, env } = libpqConnection(url);
  try {
    await run(program, [...args, `--dbname=${dbname}`], { env, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const failure = err as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === 'ENOENT') {
      throw new BackupRefused(
        `${program} was not found on PATH: install PostgreSQL's client programs (postgresql-client), ` +
          'of the server major version or newer',
      );
    }
    throw new BackupRefused(`${program} failed: ${(failure.stderr ?? failure.message).trim()}`);
  }
}

/**
 * Runs `work` in a read-only repeatable-read transaction whose snapshot is exported: the dump taken
 * with that snapshot and what `work` reads (the manifest's counts) see the same data, while the service
 * goes on writing.
 */
export async function inExportedSnapshot<T>(
  url: string,
  work: (db: Db, snapshot: string) => Promise<T>,
): Promise<T> {
  const connection = new pg.Client({ connectionString: url });
  await connection.connect();
  try {
    await connection.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { rows } = await connection.query<{ id: string }>('SELECT pg_export_snapshot() AS id');
    const result = await work(drizzle(connection), rows[0]!.id);
    await connection.query('COMMIT');
    return result;
  } finally {
    await connection.end();
  }
}

export async function dumpPostgres(url: string, snapshot: string, file: string): Promise<void> {
  await client('pg_dump', ['--format=custom', `--snapshot=${snapshot}`, `--file=${file}`], url);
}

/**
 * Restores a custom-format dump into the empty database at `url`, all or nothing. Objects are owned by
 * the restoring role (`--no-owner`, `--no-privileges`): the source's roles need not exist here.
 */
export async function restorePostgres(url: string, file: string): Promise<void> {
  await client(
    'pg_restore',
    ['--no-owner', '--no-privileges', '--single-transaction', '--exit-on-error', file],
    url,
  );
}

/** The target's server version and how many tables, views and sequences it holds outside the catalogs. */
export async function postgresTarget(url: string): Promise<{ serverVersion: string; relations: number }> {
  const connection = new pg.Client({ connectionString: url });
  await connection.connect();
  try {
    const version = await connection.query<{ server_version: string }>('SHOW server_version');
    const { rows } = await connection.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
        WHERE s.nspname NOT IN ('pg_catalog', 'information_schema') AND s.nspname NOT LIKE 'pg\\_%'
          AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')`,
    );
    return { serverVersion: version.rows[0]!.server_version, relations: rows[0]!.n };
  } finally {
    await connection.end();
  }
}
