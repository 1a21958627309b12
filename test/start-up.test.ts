/**
 * Issue 39, "Start and stop cleanly": what the compiled entry points say when they cannot start. A
 * PostgreSQL out of reach is one line naming host:port and the reason, tried again with a growing delay
 * for DATABASE_WAIT, then exit 1; a database created during the wait is used; production on the embedded
 * database is refused unless allowed. Never a stack, never the password of DATABASE_URL.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../bench/processes.js';
import { buildOnce, startEntry } from './helpers/commands.js';

const testUrl = process.env.TEST_DATABASE_URL;

let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'mel-start-up-'));
  // Built once here, so that no run below spends its time building.
  await buildOnce();
}, 60_000);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** `npm run <entry>` as deployed (the compiled entry point), with only `env` and a fresh DATA_DIR. */
const run = (entry: 'server' | 'worker' | 'migrate', env: Record<string, string>) =>
  startEntry(
    entry,
    [],
    { DATA_DIR: mkdtempSync(path.join(dataDir, `${entry}-`)), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    60_000,
  );

const line = (where: string, reason: string, end: string) =>
  `cannot reach PostgreSQL at ${where} (DATABASE_URL): ${reason}; ${end}`;

describe('a PostgreSQL out of reach at start', () => {
  it('is waited for DATABASE_WAIT, one line a try, then exit 1: server, worker and migrate', async () => {
    const port = await freePort(); // free, so closed: nothing listens there
    const url = `postgres://mel:s3cret-password@127.0.0.1:${port}/mel`;
    const where = `127.0.0.1:${port}`;
    const [server, worker, migrate] = [
      run('server', { DATABASE_URL: url, DATABASE_WAIT: '2', PORT: String(await freePort()) }),
      run('worker', { DATABASE_URL: url, DATABASE_WAIT: '1' }),
      run('migrate', { DATABASE_URL: url, DATABASE_WAIT: '1' }),
    ];
    const expected = (wait: number) =>
      [
        line(where, 'connection refused', `retrying in ${wait} s`),
        line(where, 'connection refused', `gave up after ${wait} s (DATABASE_WAIT)`),
        '',
      ].join('\n');
    for (const [entry, process, wait] of [
      ['server', server, 2],
      ['worker', worker, 1],
      ['migrate', migrate, 1],
    ] as const) {
      const { code, ms } = await process.exited;
      expect([entry, code, process.stderr(), process.stdout()]).toEqual([entry, 1, expected(wait), '']);
      // It waited, and not much longer than that.
      expect(ms, entry).toBeGreaterThanOrEqual(wait * 1000);
      expect(ms, entry).toBeLessThan(wait * 1000 + 8000);
    }
  });

  it('is tried once with DATABASE_WAIT=0', async () => {
    const port = await freePort();
    const migrate = run('migrate', {
      DATABASE_URL: `postgres://mel@localhost:${port}/mel`,
      DATABASE_WAIT: '0',
    });
    expect((await migrate.exited).code).toBe(1);
    expect(migrate.stderr()).toBe(
      `${line(`localhost:${port}`, 'connection refused', 'gave up after 0 s (DATABASE_WAIT)')}\n`,
    );
  });
});

describe('production on the embedded database', () => {
  const production = {
    NODE_ENV: 'production',
    JWT_SECRET: randomBytes(32).toString('base64url'),
    PII_KEY: randomBytes(32).toString('base64'),
  };

  it('is refused at start, naming the embedded database and why', async () => {
    const server = run('server', { ...production, PORT: String(await freePort()) });
    expect((await server.exited).code).toBe(1);
    expect(server.stderr()).toMatch(
      new RegExp(
        '^Invalid configuration:\\n- NODE_ENV=production needs DATABASE_URL: without it the service runs on its ' +
          'embedded database \\(PGlite in /[^)]+/pglite\\), which lives inside this one process: no second ' +
          'instance can share it, there is no replica or failover, and a consistent backup of it needs the ' +
          'service stopped\\. Set DATABASE_URL to a PostgreSQL database, or ALLOW_EMBEDDED_IN_PRODUCTION=true ' +
          'to run on the embedded one anyway\\n$',
      ),
    );
  });
});

describe('a new embedded database', () => {
  it(
    'is created and migrated at a first start (src/db/embedded-first-start.ts), then found and opened',
    { timeout: 90_000 },
    async () => {
      const data = mkdtempSync(path.join(dataDir, 'first-start-'));
      const migrate = run('migrate', { DATA_DIR: data });
      expect((await migrate.exited).code, migrate.stderr()).toBe(0);
      expect(migrate.stderr()).toBe('');
      expect(existsSync(path.join(data, 'pglite', 'PG_VERSION'))).toBe(true);
      // Opened as it is found: every migration applied, nothing created twice.
      const again = run('migrate', { DATA_DIR: data });
      expect((await again.exited).code, again.stderr()).toBe(0);
    },
  );
});

describe.skipIf(!testUrl)('a database missing at start, on PostgreSQL', () => {
  let admin: pg.Client;
  let name: string;
  let url: string;
  beforeAll(async () => {
    const maintenance = new URL(testUrl!);
    maintenance.pathname = '/postgres';
    admin = new pg.Client({ connectionString: maintenance.toString() });
    await admin.connect();
    name = `mel_start_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const own = new URL(testUrl!);
    own.pathname = `/${name}`;
    url = own.toString();
  });
  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });
  const where = () => `${new URL(testUrl!).hostname}:${new URL(testUrl!).port || '5432'}`;

  it('is named in the line, and given up on after the wait', async () => {
    const migrate = run('migrate', { DATABASE_URL: url, DATABASE_WAIT: '1' });
    expect((await migrate.exited).code).toBe(1);
    expect(migrate.stderr()).toBe(
      [
        line(where(), `database "${name}" does not exist`, 'retrying in 1 s'),
        line(where(), `database "${name}" does not exist`, 'gave up after 1 s (DATABASE_WAIT)'),
        '',
      ].join('\n'),
    );
  });

  it(
    'is used once it is created during the wait: the server starts and answers',
    { timeout: 60_000 },
    async () => {
      const port = await freePort();
      const server = run('server', {
        DATABASE_URL: url,
        DATABASE_WAIT: '30',
        PORT: String(port),
        JWT_SECRET: randomBytes(32).toString('base64url'),
        PII_KEY: randomBytes(32).toString('base64'),
      });
      try {
        const first = line(where(), `database "${name}" does not exist`, 'retrying in 2 s');
        while (!server.stderr().includes(first)) {
          if (server.child.exitCode !== null) throw new Error(server.stderr());
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await admin.query(`CREATE DATABASE ${name}`);
        let ready = false;
        for (const deadline = Date.now() + 45_000; !ready && Date.now() < deadline;) {
          ready = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
            (res) => res.ok,
            () => false,
          );
          if (!ready) await new Promise((resolve) => setTimeout(resolve, 200));
        }
        expect(ready, server.stderr()).toBe(true);
        expect(server.stdout()).toContain('"msg":"MEL service on http://localhost:');
      } finally {
        server.child.kill('SIGTERM');
      }
      expect((await server.exited).code).toBe(0);
      // One line for the try that failed before the database was there; nothing else on stderr.
      expect(server.stderr().split('\n').filter(Boolean)).toHaveLength(1);
    },
  );
});
