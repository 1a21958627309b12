/**
 * Issue 20, finding 9: password hashing could be saturated. The hashing queue had no bound, rate limits
 * counted exact IPv6 addresses (a /64 gives an attacker endless ones), and nothing counted failed
 * sign-ins of one account across addresses. Now a full queue answers 503 with Retry-After, IPv6 clients
 * count per /64, and an account's failures slow its next attempts (never a lockout).
 */
import { randomInt } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginFailures } from '../../src/modules/auth/auth.tables.js';
import { hashQueue } from '../../src/modules/auth/passwords.js';
import { buildTestApp, buildTestAppWithMail, type MailTestApp, type TestApp } from '../helpers/app.js';
import { registerUser, uniqueEmail } from '../helpers/factories.js';
import { call, type Call } from '../helpers/http.js';
import { linkIn } from '../helpers/smtp.js';

const BUSY = {
  statusCode: 503,
  message: 'The service is busy, retry in 5 seconds',
  error: 'Service Unavailable',
  code: 'unavailable' as const,
};
const INVALID_LOGIN = {
  statusCode: 401,
  message: 'Invalid email or password',
  error: 'Unauthorized',
  code: 'invalid_credentials' as const,
};

const hex = () => randomInt(0x10000).toString(16);
/** A /64 of the documentation range of its own (with Redis, counts outlive a test run). */
const uniquePrefix = () => `2001:db8:${hex()}:${hex()}`;
const uniqueIpv4 = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const from = (ip: string) => ({ 'x-forwarded-for': ip });

function expectBusy(res: Call) {
  expect(res.status).toBe(503);
  expect(res.body).toEqual(BUSY);
  expect(res.headers['retry-after']).toBe('5');
}

/** Calls until the limiter (Redis, when configured) counts, as test/rate-limit.test.ts does. */
async function storeReady(test: TestApp, limit: number): Promise<TestApp> {
  for (let i = 0; i < 100; i++) {
    const res = await call(test.app, 'GET', '/orgs', { headers: from(uniqueIpv4()) });
    if (res.headers['x-ratelimit-remaining'] === String(limit - 1)) return test;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the rate-limit store never counted a request');
}

describe('finding 9: password hashing cannot be saturated', () => {
  describe('the hashing queue', () => {
    let t: TestApp;
    beforeAll(async () => {
      // A hash takes milliseconds at this cost, so a burst really queues behind the hashing thread.
      t = await buildTestApp({ BCRYPT_COST: '6' });
    });
    afterAll(() => t.close());

    it('refuses what does not fit in the default queue (100 waiting) with 503 and Retry-After, never 500', async () => {
      const burst = await Promise.all(
        Array.from({ length: 140 }, () =>
          call(t.app, 'POST', '/auth/register', {
            body: {
              email: uniqueEmail('burst'),
              password: 'correct horse battery',
              firstName: 'A',
              lastName: 'B',
            },
          }),
        ),
      );
      const statuses = burst.map((res) => res.status);
      expect(statuses.filter((s) => s !== 201 && s !== 503)).toEqual([]);
      expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(100);
      const refused = burst.filter((res) => res.status === 503);
      expect(refused.length).toBeGreaterThan(0);
      for (const res of refused) expectBusy(res);
    });

    it('refuses sign-ins beyond a lowered bound the same way; the rest are answered as usual', async () => {
      // Four attempts an account: within its free ones, so the per-account back-off (issue 36, finding 5)
      // refuses none of them and only the hashing queue is tested.
      const accounts = await Promise.all(Array.from({ length: 6 }, () => registerUser(t.app)));
      const user = accounts[0]!;
      const previous = hashQueue.maxWaiting;
      hashQueue.maxWaiting = 2;
      try {
        const burst = await Promise.all(
          Array.from({ length: 24 }, (_, i) => {
            const account = accounts[i % accounts.length]!;
            return call(t.app, 'POST', i % 2 ? '/auth/login' : '/auth/token', {
              body: { email: account.email, password: i % 3 ? account.password : 'not the password' },
            });
          }),
        );
        const statuses = burst.map((res) => res.status);
        expect(statuses.filter((s) => ![200, 401, 503].includes(s))).toEqual([]);
        expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
        expect(statuses.filter((s) => s !== 503).length).toBeGreaterThanOrEqual(3);
        for (const res of burst.filter((r) => r.status === 503)) expectBusy(res);
        for (const res of burst.filter((r) => r.status === 401)) expect(res.body).toEqual(INVALID_LOGIN);
      } finally {
        hashQueue.maxWaiting = previous;
      }
      const after = await call(t.app, 'POST', '/auth/login', {
        body: { email: user.email, password: user.password },
      });
      expect(after.status).toBe(200);
    });
  });

  describe('IPv6 clients are counted per /64', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await storeReady(await buildTestApp({ TRUST_PROXY: 'true', RATE_LIMIT_MAX: '3' }), 3);
    });
    afterAll(() => t.close());

    const remaining = (res: Call) => res.headers['x-ratelimit-remaining'];

    it('shares one count between the addresses of one /64, and not with another /64', async () => {
      const net = uniquePrefix();
      const first = await call(t.app, 'GET', '/orgs', { headers: from(`${net}::1`) });
      expect(first.status).toBe(401);
      expect(remaining(first)).toBe('2');
      expect(remaining(await call(t.app, 'GET', '/orgs', { headers: from(`${net}:ffff:1:2:3`) }))).toBe('1');
      // The same /64 written in full, in capitals.
      const full = `${net}:0:0:0:a`.toUpperCase();
      expect(remaining(await call(t.app, 'GET', '/orgs', { headers: from(full) }))).toBe('0');
      const blocked = await call(t.app, 'GET', '/orgs', { headers: from(`${net}:dead:beef:0:1`) });
      expect(blocked.status).toBe(429);
      expect(blocked.headers['retry-after']).toBeDefined();

      const other = await call(t.app, 'GET', '/orgs', { headers: from(`${uniquePrefix()}::1`) });
      expect(other.status).toBe(401);
      expect(remaining(other)).toBe('2');
    });

    it('counts an IPv4-mapped IPv6 address as its IPv4 address', async () => {
      const ip = uniqueIpv4();
      expect(remaining(await call(t.app, 'GET', '/orgs', { headers: from(ip) }))).toBe('2');
      expect(remaining(await call(t.app, 'GET', '/orgs', { headers: from(`::ffff:${ip}`) }))).toBe('1');
    });

    it('counts the sign-in limit per /64 and email too', async () => {
      const auth = await storeReady(
        await buildTestApp({ TRUST_PROXY: 'true', RATE_LIMIT_MAX: '1000', AUTH_RATE_LIMIT_MAX: '2' }),
        1000,
      );
      try {
        const net = uniquePrefix();
        const body = { email: uniqueEmail('v6'), password: 'not the password' };
        for (const host of ['::1', '::2']) {
          const res = await call(auth.app, 'POST', '/auth/login', { headers: from(`${net}${host}`), body });
          expect(res.status).toBe(401);
        }
        const blocked = await call(auth.app, 'POST', '/auth/login', { headers: from(`${net}::3`), body });
        expect(blocked.status).toBe(429);
        const elsewhere = await call(auth.app, 'POST', '/auth/login', {
          headers: from(`${uniquePrefix()}::3`),
          body,
        });
        expect(elsewhere.status).toBe(401);
      } finally {
        await auth.close();
      }
    });
  });

  describe('failed sign-ins per account, across addresses', () => {
    let t: MailTestApp;
    beforeAll(async () => {
      t = await buildTestAppWithMail({ TRUST_PROXY: 'true' });
    });
    afterAll(() => t.close());

    /** A sign-in from an address of its own, with the time it took. */
    async function attempt(email: string, password: string, path = '/auth/login') {
      const started = performance.now();
      const res = await call(t.app, 'POST', path, { headers: from(uniqueIpv4()), body: { email, password } });
      return { res, ms: performance.now() - started };
    }

    async function fail(email: string, times: number) {
      for (let i = 0; i < times; i++) {
        const { res } = await attempt(email, 'a wrong guess', i % 2 ? '/auth/token' : '/auth/login');
        expect(res.status).toBe(401);
        expect(res.body).toEqual(INVALID_LOGIN);
      }
    }

    const failuresOf = async (email: string) =>
      (await t.database.db.select().from(loginFailures).where(eq(loginFailures.email, email)))[0]?.failures;

    it('slows the next attempt after 5 failures from many addresses; the right password then still signs in', async () => {
      const user = await registerUser(t.app);
      // 250 ms after the 5th failure, 500 ms after the 6th, 1 s after the 7th.
      await fail(user.email, 7);
      expect(await failuresOf(user.email)).toBe(7);
      const { res, ms } = await attempt(user.email, user.password);
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(user.id);
      expect(ms).toBeGreaterThan(800);

      // The success reset the count: the next failure waits nothing (it would wait 2 s otherwise).
      expect(await failuresOf(user.email)).toBeUndefined();
      const next = await attempt(user.email, 'a wrong guess');
      expect(next.res.status).toBe(401);
      expect(next.ms).toBeLessThan(1000);
      expect(await failuresOf(user.email)).toBe(1);
    });

    it('slows an unknown email exactly alike, so the delay tells nothing about which emails exist', async () => {
      const unknown = uniqueEmail('nobody');
      await fail(unknown, 7);
      const { res, ms } = await attempt(unknown, 'another guess', '/auth/token');
      expect(res.status).toBe(401);
      expect(res.body).toEqual(INVALID_LOGIN);
      expect(ms).toBeGreaterThan(800);
      expect(await failuresOf(unknown)).toBe(8);
    });

    it('never locks the owner out: the wait stops growing at 10 s and the right password signs in', async () => {
      const user = await registerUser(t.app);
      // A thousand failures, the last 9.5 s ago: at most half a second is left to wait.
      await t.database.db.insert(loginFailures).values({
        email: user.email,
        failures: 1000,
        lastFailedAt: sql`now() - interval '9500 milliseconds'`,
      });
      const { res, ms } = await attempt(user.email, user.password);
      expect(res.status).toBe(200);
      expect(ms).toBeGreaterThan(300);
      expect(ms).toBeLessThan(5000);
    });

    it('forgets the count after a password reset', async () => {
      const user = await registerUser(t.app);
      await fail(user.email, 6);
      const forgot = await call(t.app, 'POST', '/auth/forgot-password', { body: { email: user.email } });
      expect(forgot.status).toBe(202);
      const prefix = 'http://app.test/reset-password?token=';
      const deadline = Date.now() + 10_000;
      let message = t.smtp.received.find((m) => m.to.includes(user.email) && m.text.includes(prefix));
      while (!message && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        message = t.smtp.received.find((m) => m.to.includes(user.email) && m.text.includes(prefix));
      }
      const token = new URL(linkIn(message!, prefix)).searchParams.get('token');
      const reset = await call(t.app, 'POST', '/auth/reset-password', {
        body: { token, password: 'a fresh passphrase' },
      });
      expect(reset.status).toBe(204);
      expect(await failuresOf(user.email)).toBeUndefined();
      const { res, ms } = await attempt(user.email, 'a fresh passphrase');
      expect(res.status).toBe(200);
      expect(ms).toBeLessThan(1000);
    });
  });
});
