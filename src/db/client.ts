import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { sql, type Logger } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';

/** Drizzle's query builder; the tables come from the modules that own them, never through this file. */
export type Db = PgDatabase<PgQueryResultHKT>;

export interface Database {
  readonly db: Db;
  readonly driver: 'pg' | 'pglite';
  migrate(): Promise<void>;
  /** Reachable and every committed migration applied. */
  isReady(): Promise<boolean>;
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
}

export function openDatabase(options: DatabaseOptions): Database {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.poolSize ?? 10, options.logger)
    : openPglite(options);
}

function openPostgres(connectionString: string, max: number, logger?: Logger): Database {
  const pool = new pg.Pool({ connectionString, max });
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  const db = drizzlePg(pool, { logger }) as unknown as Db;
  return {
    db,
    driver: 'pg',
    async migrate() {
      // Instances starting together take turns; drizzle's migrator itself does not lock.
      const client = await pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
        await migratePg(drizzlePg(client), { migrationsFolder: MIGRATIONS_FOLDER });
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
        client.release();
      }
    },
    isReady: () => migrationsApplied(db),
    close: () => pool.end(),
  };
}

function openPglite(options: DatabaseOptions): Database {
  let client = options.pglite;
  if (!client) {
    const dir = path.join(options.dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
    client = new PGlite(dir);
  }
  const pglite = client;
  const db = drizzlePglite(pglite, { logger: options.logger });
  return {
    db: db,
    driver: 'pglite',
    migrate: () => migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER }),
    isReady: () => migrationsApplied(db),
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

/** The one way to run several writes atomically; repositories take the handle it passes. */
export function transaction<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction((tx) => work(tx as unknown as Db));
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
