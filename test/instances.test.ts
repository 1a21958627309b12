/**
 * Several instances (issue 10, suite 6): two server processes on one PostgreSQL and one Redis, as in
 * production. One rate limit for both; every outbox email delivered once although both run a delivery
 * worker; with SMTP down for a while, each email delivered once when it is back. Needs
 * TEST_DATABASE_URL and REDIS_URL (as in `.ci/run`'s second pass); skipped otherwise, with a notice.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Server } from '../bench/processes.js';
import { maintenanceQuery } from './helpers/app.js';
import { TestSmtpServer } from './helpers/smtp.js';

const testUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.REDIS_URL;
const enabled = Boolean(testUrl && redisUrl);
if (!enabled) console.warn('instances.test.ts skipped: it needs TEST_DATABASE_URL and REDIS_URL');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PUBLIC_LIMIT = 10;

let smtp: TestSmtpServer;
let servers: Server[] = [];
let dataDir: string;
let database: string;

const maintenance = (statement: string) => maintenanceQuery(testUrl!, statement);

async function post(server: Server, url: string, body: unknown) {
  return fetch(`${server.url}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/**
 * Waits until a reset email has arrived for each address, then a little longer for duplicates; returns
 * how many each got (their registration's verification emails are not counted).
 */
async function deliveredTo(addresses: string[], timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  const count = () =>
    addresses.map(
      (a) =>
        smtp.received.filter((m) => m.to.includes(a) && m.raw.includes('Subject: Reset your password'))
          .length,
    );
  while (count().some((n) => n === 0) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Both workers poll every second: give a duplicate time to show.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  return count();
}

async function register(server: Server) {
  const email = `inst-${randomUUID().slice(0, 8)}@example.org`;
  const res = await post(server, '/auth/register', {
    email,
    password: 'correct horse battery',
    firstName: 'Ines',
    lastName: 'Instance',
  });
  expect(res.status).toBe(201);
  return email;
}

describe.skipIf(!enabled)('two instances on one PostgreSQL and one Redis', () => {
  beforeAll(async () => {
    database = `mel_inst_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    await maintenance(`CREATE DATABASE ${database} TEMPLATE ${new URL(testUrl!).pathname.slice(1)}`);
    const own = new URL(testUrl!);
    own.pathname = `/${database}`;
    smtp = new TestSmtpServer();
    await smtp.start();
    dataDir = mkdtempSync(path.join(tmpdir(), 'mel-instances-'));
    const env = {
      NODE_ENV: 'production',
      DATABASE_URL: own.toString(),
      REDIS_URL: redisUrl!,
      SMTP_URL: smtp.url,
      MAIL_FROM: 'MEL <mel@example.org>',
      JWT_SECRET: randomBytes(32).toString('base64url'),
      PII_KEY: randomBytes(32).toString('base64'),
      BASE_URL: 'http://127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'error',
      BCRYPT_COST: '4',
      RATE_LIMIT_MAX: '100000',
      AUTH_RATE_LIMIT_MAX: '100000',
      PUBLIC_RATE_LIMIT_MAX: String(PUBLIC_LIMIT),
      // The client address comes from X-Forwarded-For: loopback clients of other test files count in the
      // same Redis (as 127.0.0.1, IPv4-mapped or not) and would spend this test's public limit.
      TRUST_PROXY: 'true',
    };
    servers = await Promise.all([
      startServer('instance 1', path.join(root, 'src/server.ts'), env),
      startServer('instance 2', path.join(root, 'src/server.ts'), env),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await smtp?.stop();
    if (database) await maintenance(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts one public rate limit across both instances', async () => {
    const statuses: number[] = [];
    // A documentation address of this run's own (RFC 3849), one client for both instances.
    const client = `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}::1`;
    for (let i = 0; i < PUBLIC_LIMIT * 2; i++) {
      const res = await fetch(`${servers[i % 2]!.url}/reports/share/${randomUUID()}`, {
        headers: { 'x-forwarded-for': client },
      });
      statuses.push(res.status);
    }
    // Each instance alone would let 10 through: 20 in all. Together: 10.
    expect(statuses.filter((s) => s !== 429)).toHaveLength(PUBLIC_LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(PUBLIC_LIMIT);
  });

  it(
    'delivers every outbox email once although both instances run a worker',
    { timeout: 60_000 },
    async () => {
      const addresses = await Promise.all(Array.from({ length: 10 }, (_, i) => register(servers[i % 2]!)));
      for (const [i, email] of addresses.entries()) {
        expect((await post(servers[i % 2]!, '/auth/forgot-password', { email })).status).toBe(202);
      }
      expect(await deliveredTo(addresses, 20_000)).toEqual(addresses.map(() => 1));
    },
  );

  it('delivers each email once when SMTP comes back after being down', { timeout: 90_000 }, async () => {
    const addresses = await Promise.all(Array.from({ length: 6 }, (_, i) => register(servers[i % 2]!)));
    await smtp.stop();
    for (const [i, email] of addresses.entries()) {
      expect((await post(servers[i % 2]!, '/auth/forgot-password', { email })).status).toBe(202);
    }
    // The workers try, fail and back off (5 s, then 10 s) while SMTP is down.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(
      smtp.received.filter(
        (m) => addresses.some((a) => m.to.includes(a)) && m.raw.includes('Subject: Reset your password'),
      ),
    ).toHaveLength(0);
    await smtp.start();
    expect(await deliveredTo(addresses, 40_000)).toEqual(addresses.map(() => 1));
  });
});
