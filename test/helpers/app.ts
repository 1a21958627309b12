import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { inject } from 'vitest';
import { buildApp, type AppOptions } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openDatabase, type Database, type DatabaseOptions } from '../../src/db/client.js';
import { TEST_APP_URL, TEST_BASE_URL } from './http.js';
import { TestSmtpServer } from './smtp.js';

/** The sealing key of test apps (32 bytes, base64). */
export const TEST_PII_KEY = Buffer.alloc(32, 7).toString('base64');

export interface TestApp {
  app: FastifyInstance;
  database: Database;
  config: Config;
  close(): Promise<void>;
}

/**
 * A database of the test file's own, so that nothing (an outbox worker, above all) sees another file's
 * rows: a copy of the migrated PGlite snapshot, or on PostgreSQL a database cloned from the migrated
 * TEST_DATABASE_URL one (its template), dropped again on close.
 */
export async function openTestDatabase(
  options: Pick<DatabaseOptions, 'logger' | 'databaseTimeouts'> = {},
): Promise<Database> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return openPgliteCopy(options);
  const template = new URL(url);
  const name = `${inject('testDatabasePrefix')}${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await maintenanceQuery(url, `CREATE DATABASE ${name} TEMPLATE ${template.pathname.slice(1)}`);
  const own = new URL(url);
  own.pathname = `/${name}`;
  const database = openDatabase({ databaseUrl: own.toString(), dataDir: tmpdir(), poolSize: 5, ...options });
  return {
    ...database,
    async close() {
      await database.close();
      await maintenanceQuery(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/**
 * Files of the `shared` project (vitest.config.ts) run one after another in a worker that keeps its
 * modules: what this module holds outlives a file.
 */
const sharing = process.env.MEL_TEST_SHARED === '1';

/** This worker's PGlite databases that a file closed, emptied, for the next file to open. */
const emptiedPglites: PGlite[] = [];

/**
 * A PGlite database of the migrated snapshot. In a shared worker one a previous file closed is taken
 * again, emptied on close (every table truncated, the session's settings reset) rather than loaded anew
 * (about a second of CPU each). Files that change the schema run isolated (vitest.config.ts).
 */
function openPgliteCopy(options: Pick<DatabaseOptions, 'logger' | 'databaseTimeouts'>): Database {
  const pglite =
    emptiedPglites.pop() ?? new PGlite({ loadDataDir: new Blob([readFileSync(inject('pgliteSnapshot'))]) });
  const database = openDatabase({ databaseUrl: null, dataDir: tmpdir(), pglite, ...options });
  if (!sharing) return database;
  let closed = false;
  return {
    ...database,
    async close() {
      if (closed) return;
      closed = true;
      await pglite.exec(EMPTY_EVERY_TABLE);
      emptiedPglites.push(pglite);
    },
  };
}

// Replica mode lets the truncation past the audit log's append-only trigger; RESET ALL ends it.
const EMPTY_EVERY_TABLE = `
  SET session_replication_role = replica;
  DO $$
  DECLARE tables text;
  BEGIN
    SELECT string_agg(format('%I.%I', schemaname, tablename), ', ') INTO tables
      FROM pg_tables WHERE schemaname = 'public';
    IF tables IS NOT NULL THEN EXECUTE 'TRUNCATE ' || tables || ' RESTART IDENTITY CASCADE'; END IF;
  END $$;
  RESET ALL;`;

/** Runs a statement from the server's `postgres` database, so the template itself has no connection. */
export async function maintenanceQuery(url: string, statement: string): Promise<void> {
  const target = new URL(url);
  target.pathname = '/postgres';
  const client = new pg.Client({ connectionString: target.toString() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * The real app on a test database. `env` overrides configuration as the environment would; limits are
 * raised unless a test sets them, and Redis is used when REDIS_URL is set. With DATABASE_URL in `env` (a
 * private cluster's) that database is opened as the server opens it, migrated, and closed again on close.
 */
export async function buildTestApp(
  env: Record<string, string> = {},
  options: AppOptions & { database?: Database } = {},
): Promise<TestApp> {
  if (!sharing || Object.keys(env).length > 0 || Object.keys(options).length > 0)
    return buildOwnApp(env, options);
  return takeWorkerApp();
}

/** The worker's app without overrides, and whether a file holds it (closing it gives it back). */
let workerApp: { built: Promise<TestApp>; held: boolean } | null = null;

/**
 * In a shared worker, the app that files without configuration overrides use one after another (each
 * makes its own team, in its own organization): built once, an app and schema compilation spared per
 * file. A file that asks while another app of its own is held (two apps in one file) gets a new one.
 */
async function takeWorkerApp(): Promise<TestApp> {
  if (workerApp?.held) return buildOwnApp({}, {});
  workerApp ??= { built: buildOwnApp({}, {}), held: false };
  const kept = workerApp;
  kept.held = true;
  const t = await kept.built;
  return {
    ...t,
    async close() {
      kept.held = false;
      // A file that made it listen on a port leaves it to no one: the next file could not listen.
      if (!t.app.server.listening) return;
      if (workerApp === kept) workerApp = null;
      await t.close();
    },
  };
}

async function buildOwnApp(
  env: Record<string, string>,
  options: AppOptions & { database?: Database },
): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mel-app-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-signing',
    // One key for every app of a test: two apps on one database (instances, restarts) open each other's values.
    PII_KEY: TEST_PII_KEY,
    BCRYPT_COST: '4',
    LOG_LEVEL: 'silent',
    BASE_URL: TEST_BASE_URL,
    APP_URL: TEST_APP_URL,
    RATE_LIMIT_MAX: '100000',
    PUBLIC_RATE_LIMIT_MAX: '100000',
    PUBLIC_UPLOAD_RATE_LIMIT_MAX: '100000',
    AUTH_RATE_LIMIT_MAX: '100000',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...env,
  });
  const ownDatabase = !options.database;
  const database = options.database ?? (await openConfigured(config));
  const app = await buildApp(config, {
    worker: { pollIntervalMs: 50, retryBaseMs: 100 },
    // Off unless a test turns them on: they run on their own timers and would act in the middle of others.
    webhooks: false,
    reminders: false,
    ...options,
    database,
  });
  await app.ready();
  return {
    app,
    database,
    config,
    async close() {
      await app.close();
      if (ownDatabase) await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The database `config` names (migrated), else one of the test file's own; with the configured timeouts. */
async function openConfigured(config: Config): Promise<Database> {
  if (!config.databaseUrl) return openTestDatabase({ databaseTimeouts: config.databaseTimeouts });
  const database = openDatabase({ ...config, poolSize: 5 });
  await database.migrate();
  return database;
}

export interface MailTestApp extends TestApp {
  smtp: TestSmtpServer;
}

/** The app delivering email to a real SMTP peer of its own, stopped again on close. */
export async function buildTestAppWithMail(env: Record<string, string> = {}): Promise<MailTestApp> {
  const smtp = new TestSmtpServer();
  await smtp.start();
  const t = await buildTestApp({ SMTP_URL: smtp.url, ...env });
  return {
    ...t,
    smtp,
    async close() {
      await t.close();
      await smtp.stop();
    },
  };
}

/**
 * An app whose database counts the statements it is sent; `during` runs a piece of work and returns how
 * many statements it took (transaction control aside).
 */
export async function buildCountingTestApp(): Promise<
  TestApp & { during: (work: () => Promise<unknown>) => Promise<number> }
> {
  let statements = 0;
  const database = await openTestDatabase({ logger: { logQuery: () => void (statements += 1) } });
  const t = await buildTestApp({}, { database, worker: false });
  return {
    ...t,
    async close() {
      await t.close();
      await database.close();
    },
    async during(work) {
      const before = statements;
      await work();
      return statements - before;
    },
  };
}
