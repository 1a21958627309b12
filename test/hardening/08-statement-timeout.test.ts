/**
 * Issue 36, finding 8: a table locked for 20 s held every request on it for the full 20 s. With
 * DATABASE_LOCK_TIMEOUT and DATABASE_STATEMENT_TIMEOUT, a request that waits for a lock past its timeout
 * answers 503 `database_busy` with Retry-After (SQLSTATE 55P03, or 57014 when the statement limit comes
 * first), logged once for the spell; requests on other tables are untouched, and all works once the lock
 * goes. A real lock: a connection of the test takes ACCESS EXCLUSIVE on the donors table of the app's own
 * database (a private cluster's, or the TEST_DATABASE_URL server's) and holds it past the timeouts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DrizzleQueryError, sql } from 'drizzle-orm';
import Fastify from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, PRIMARY_POOL, rowsOf } from '../../src/db/client.js';
import { withStatementTimeout } from '../../src/db/long-statements.js';
import {
  BUSY_LOG_INTERVAL_MS,
  DatabaseOutage,
  isDatabaseUnavailable,
  markDriverError,
  poolBusy,
  statementTimedOut,
} from '../../src/db/outage.js';
import { registerErrorHandler } from '../../src/http/errors/replies.js';
import { buildTestApp, maintenanceQuery, type TestApp } from '../helpers/app.js';
import { donorsUrl, uniqueDonorCode } from '../helpers/donors.js';
import { createOrg, registerUser, type TestUser } from '../helpers/factories.js';
import { call, type Call } from '../helpers/http.js';
import { clustersUnavailable, startPrimary, type PgCluster } from '../helpers/pg-cluster.js';

const BUSY = {
  statusCode: 503,
  message: 'The database did not answer in time, retry in 5 seconds',
  error: 'Service Unavailable',
  code: 'database_busy',
};

/** A server error as pg builds it, from the primary's pool (or the one named), wrapped as Drizzle does. */
const fromServer = (code: string, message: string, pool = PRIMARY_POOL) =>
  new DrizzleQueryError(
    'select * from "donors" where "name" = $1',
    ['Jane Doe'],
    markDriverError(Object.assign(new pg.DatabaseError(message, 0, 'error'), { code }), pool),
  );
const LOCK_TIMEOUT = () => fromServer('55P03', 'canceling statement due to lock timeout');
const STATEMENT_TIMEOUT = () => fromServer('57014', 'canceling statement due to statement timeout');

describe('statements cancelled by their timeouts', () => {
  it('are told apart from an outage and a full pool, and only when a driver gave them', () => {
    const deadlock = fromServer('40P01', 'deadlock detected');
    for (const error of [
      LOCK_TIMEOUT(),
      STATEMENT_TIMEOUT(),
      deadlock,
      fromServer('57014', 'x', 'replica'),
    ]) {
      expect(statementTimedOut(error)).toBe(true);
      expect(isDatabaseUnavailable(error)).toBe(false);
      expect(poolBusy(error)).toBe(false);
    }
    expect(statementTimedOut(fromServer('57014', 'x', 'replica'), PRIMARY_POOL)).toBe(false);
    expect(statementTimedOut(Object.assign(new Error('x'), { code: '55P03' }))).toBe(false);
    expect(statementTimedOut(fromServer('23505', 'duplicate key value'))).toBe(false);
  });

  it('answer 503 database_busy with Retry-After, logged once a spell with the count, never the query', async () => {
    let now = 0;
    const lines: { fields: object; message: string }[] = [];
    const log = {
      error: (fields: object, message: string) => void lines.push({ fields, message }),
      warn: (fields: object, message: string) => void lines.push({ fields, message }),
    };
    const app = Fastify();
    registerErrorHandler(app, new DatabaseOutage(log, () => now));
    app.get('/lock', () => Promise.reject(LOCK_TIMEOUT()));
    app.get('/statement', () => Promise.reject(STATEMENT_TIMEOUT()));
    try {
      for (const url of ['/lock', '/statement', '/lock']) {
        const res = await app.inject({ url });
        expect([res.statusCode, res.json(), res.headers['retry-after']]).toEqual([503, BUSY, '5']);
        now += 1_000;
      }
      now = BUSY_LOG_INTERVAL_MS + 10_000;
      await app.inject({ url: '/statement' });
      expect(lines).toEqual([
        {
          fields: {
            code: '55P03',
            reason: 'canceling statement due to lock timeout',
            pool: 'primary',
            refused: 1,
          },
          message:
            'database busy: statements cancelled by their statement or lock timeout (503 database_busy)',
        },
        {
          fields: {
            code: '57014',
            reason: 'canceling statement due to statement timeout',
            pool: 'primary',
            refused: 3,
          },
          message:
            'database busy: statements cancelled by their statement or lock timeout (503 database_busy)',
        },
      ]);
    } finally {
      await app.close();
    }
  });
});

const testUrl = process.env.TEST_DATABASE_URL;
const skip = testUrl ? null : clustersUnavailable();
if (skip) console.warn(`08-statement-timeout: skipped: ${skip}`);

/** How long the test's lock is held: far past the timeouts, so that waiting it out is seen. */
const LOCK_MS = 6_000;
/** A request still unanswered after this waited for the lock rather than its timeout. */
const ANSWER_WITHIN_MS = 3_000;

interface LockedApp {
  t: TestApp;
  url: string;
  admin: TestUser;
  orgId: string;
  logs: { level: number; msg: string; [field: string]: unknown }[];
}

describe.skipIf(skip !== null)('a table locked past the database timeouts', () => {
  let cluster: PgCluster | null = null;
  let dataDir: string;
  const apps: LockedApp[] = [];

  /** The app with these timeouts, through the environment, on a database of its own. */
  async function appWith(env: Record<string, string>): Promise<LockedApp> {
    const logs: LockedApp['logs'] = [];
    const logger = {
      level: 'warn',
      stream: { write: (line: string) => void logs.push(JSON.parse(line) as LockedApp['logs'][number]) },
    };
    let t: TestApp;
    if (cluster) {
      const name = `mel_timeouts_${apps.length}`;
      await maintenanceQuery(cluster.url(), `CREATE DATABASE ${name}`);
      t = await buildTestApp({ ...env, DATABASE_URL: cluster.url(name) }, { worker: false, logger });
    } else {
      t = await buildTestApp(env, { worker: false, logger });
    }
    const [{ name }] = rowsOf<{ name: string }>(
      await t.database.db.execute(sql`SELECT current_database() AS name`),
    ) as [{ name: string }];
    const url = new URL(cluster ? cluster.url() : testUrl!);
    url.pathname = `/${name}`;
    const admin = await registerUser(t.app);
    const orgId = (await createOrg(t.app, admin)).id;
    const app = { t, url: url.toString(), admin, orgId, logs };
    apps.push(app);
    return app;
  }

  /** ACCESS EXCLUSIVE on the donors table from a connection of the test's, until the returned release. */
  async function lockDonors(url: string): Promise<() => Promise<void>> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('BEGIN');
    await client.query('LOCK TABLE donors IN ACCESS EXCLUSIVE MODE');
    const timer = setTimeout(() => void client.query('ROLLBACK').catch(() => undefined), LOCK_MS);
    return async () => {
      clearTimeout(timer);
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end();
    };
  }

  /** The answer, and how long it took; a request still waiting after ANSWER_WITHIN_MS fails the test. */
  async function timed(request: () => Promise<Call>): Promise<Call & { ms: number }> {
    const began = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${ANSWER_WITHIN_MS} ms: it waits for the lock`)),
        ANSWER_WITHIN_MS,
      );
    });
    try {
      const res = await Promise.race([request(), late]);
      return { ...res, ms: Date.now() - began };
    } finally {
      clearTimeout(timer);
    }
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'mel-timeouts-'));
    if (!testUrl) cluster = await startPrimary();
  });

  afterAll(async () => {
    for (const { t } of apps) await t.close();
    await cluster?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 database_busy at the lock timeout, leaves other tables alone, and works once the lock goes', async () => {
    const { t, url, admin, orgId, logs } = await appWith({
      DATABASE_STATEMENT_TIMEOUT: '1s',
      DATABASE_LOCK_TIMEOUT: '500ms',
    });
    const release = await lockDonors(url);
    try {
      const [list, created, elsewhere] = await Promise.all([
        timed(() => call(t.app, 'GET', donorsUrl(orgId), { as: admin })),
        timed(() =>
          call(t.app, 'POST', donorsUrl(orgId), {
            as: admin,
            body: { name: 'USAID', code: uniqueDonorCode(), type: 'bilateral' },
          }),
        ),
        timed(() => call(t.app, 'GET', `/orgs/${orgId}/members`, { as: admin })),
      ]);
      for (const res of [list, created]) {
        expect([res.status, res.body]).toEqual([503, BUSY]);
        expect(res.headers['retry-after']).toBe('5');
      }
      expect(elsewhere.status).toBe(200);
      // A later request in the same spell: refused too, and not logged again.
      const again = await timed(() => call(t.app, 'GET', donorsUrl(orgId), { as: admin }));
      expect(again.status).toBe(503);
      const busy = logs.filter((line) => line.msg.startsWith('database busy'));
      expect(busy).toHaveLength(1);
      expect(busy[0]).toMatchObject({ code: '55P03', pool: 'primary', refused: 1 });
      expect(JSON.stringify(busy[0])).not.toContain('donors');
    } finally {
      await release();
    }
    const created = await call(t.app, 'POST', donorsUrl(orgId), {
      as: admin,
      body: { name: 'ECHO', code: uniqueDonorCode(), type: 'multilateral' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const list = await call(t.app, 'GET', donorsUrl(orgId), { as: admin });
    expect(list.status).toBe(200);
    expect((list.body as { name: string }[]).map((donor) => donor.name)).toEqual(['ECHO']);
  });

  it('answers 503 database_busy at the statement timeout when it comes before the lock timeout', async () => {
    const { t, url, admin, orgId } = await appWith({
      DATABASE_STATEMENT_TIMEOUT: '1s',
      DATABASE_LOCK_TIMEOUT: '5s',
    });
    const release = await lockDonors(url);
    try {
      const list = await timed(() => call(t.app, 'GET', donorsUrl(orgId), { as: admin }));
      expect([list.status, list.body, list.headers['retry-after']]).toEqual([503, BUSY, '5']);
      expect(list.ms).toBeGreaterThanOrEqual(900);
    } finally {
      await release();
    }
    expect((await call(t.app, 'GET', donorsUrl(orgId), { as: admin })).status).toBe(200);
  });

  it('lets exports and bulk work run past the request limit, and gives the connection its limit back', async () => {
    const { url } = await appWith({ DATABASE_STATEMENT_TIMEOUT: '1s', DATABASE_LOCK_TIMEOUT: '500ms' });
    const database = openDatabase({
      databaseUrl: url,
      dataDir,
      poolSize: 1,
      databaseTimeouts: { statementMs: 300, lockMs: 200 },
    });
    try {
      const slow = sql`SELECT pg_sleep(0.6) AS slept`;
      const refused = await database.db.execute(slow).then(
        () => null,
        (err: unknown) => err,
      );
      expect(
        (refused as { cause?: { code?: string } })?.cause?.code ?? (refused as { code?: string })?.code,
      ).toBe('57014');
      const longer = withStatementTimeout(database.db, 5_000);
      expect(rowsOf(await longer.execute(slow))).toHaveLength(1);
      // One connection: the same one, its own limit back.
      const setting = rowsOf<{ limit: string }>(
        await database.db.execute(sql`SELECT current_setting('statement_timeout') AS limit`),
      );
      expect(setting).toEqual([{ limit: '300ms' }]);
    } finally {
      await database.close();
    }
  });
});
