/**
 * Issue 36, finding 14 (first part): rate limits counted an IPv6 client per /64 only, and a site or
 * subscriber is usually given a /48: 65,536 /64s, each with a whole limit of its own. Now the /48 counts
 * too, with four times the /64's ceiling, in every limit counted per client (general, public, sign-in).
 * A /64 refused by its own limit spends nothing of its /48's; IPv4 clients are counted as before.
 */
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { uniqueEmail } from '../helpers/factories.js';
import { call, UNAUTHORIZED, type Call } from '../helpers/http.js';

const hex = () => randomInt(0x10000).toString(16);
/**
 * A /48 of its own in the unique local range (fd00::/8: 2^40 of them; with Redis, counts outlive a test
 * run and other files count documentation-range addresses): `site(n)` is its n-th /64.
 */
function uniqueSite() {
  const prefix = `fd${randomInt(256).toString(16).padStart(2, '0')}:${hex()}:${hex()}`;
  return (n: number, host = '1') => `${prefix}:${n.toString(16)}::${host}`;
}
const uniqueIpv4 = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const from = (ip: string) => ({ 'x-forwarded-for': ip });
const SHARED_REPORT = `/reports/share/${'x'.repeat(43)}`;

function expectCounted(res: Call, limit: number, remaining: number) {
  expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(res.headers['x-ratelimit-remaining']).toBe(String(remaining));
  expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
}

function expectTooMany(res: Call, limit: number) {
  expect(res.status).toBe(429);
  expectCounted(res, limit, 0);
  const seconds = Number(res.headers['retry-after']);
  expect(res.headers['retry-after']).toBe(res.headers['x-ratelimit-reset']);
  expect(res.body).toEqual({
    statusCode: 429,
    message: `Too many requests, retry in ${seconds} seconds`,
    error: 'Too Many Requests',
    code: 'rate_limited',
  });
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

describe('finding 14: IPv6 clients are counted per /48 too', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await storeReady(
      await buildTestApp({
        TRUST_PROXY: 'true',
        RATE_LIMIT_MAX: '2',
        PUBLIC_RATE_LIMIT_MAX: '3',
        AUTH_RATE_LIMIT_MAX: '1',
      }),
      2,
    );
  });
  afterAll(() => t.close());

  it('refuses the /64s of one /48 together past four times the limit of one', async () => {
    const site = uniqueSite();
    for (let n = 1; n <= 4; n++) {
      for (let remaining = 1; remaining >= 0; remaining--) {
        const res = await call(t.app, 'GET', '/orgs', { headers: from(site(n, String(remaining + 1))) });
        expect(res.status).toBe(401);
        expect(res.body).toEqual(UNAUTHORIZED);
        expectCounted(res, 2, remaining);
      }
    }
    // A fifth /64, whose own count is untouched: its /48 has spent 4 x 2.
    expectTooMany(await call(t.app, 'GET', '/orgs', { headers: from(site(5)) }), 8);
    expectTooMany(await call(t.app, 'GET', '/no/such/route', { headers: from(site(0xffff, 'abcd')) }), 8);

    // Another /48, however near, has its own.
    const elsewhere = await call(t.app, 'GET', '/orgs', { headers: from(uniqueSite()(5)) });
    expect(elsewhere.status).toBe(401);
    expectCounted(elsewhere, 2, 1);
  });

  it("never spends a /48's allowance on what a /64's own limit refused", async () => {
    const site = uniqueSite();
    for (let i = 0; i < 2; i++)
      expect((await call(t.app, 'GET', '/orgs', { headers: from(site(1)) })).status).toBe(401);
    for (let i = 0; i < 10; i++)
      expectTooMany(await call(t.app, 'GET', '/orgs', { headers: from(site(1)) }), 2);
    // Three more /64s spend the rest: 2 + 3 x 2 = 8.
    for (let n = 2; n <= 4; n++) {
      for (let i = 0; i < 2; i++)
        expect((await call(t.app, 'GET', '/orgs', { headers: from(site(n)) })).status).toBe(401);
    }
    expectTooMany(await call(t.app, 'GET', '/orgs', { headers: from(site(5)) }), 8);
  });

  it('counts the public limit per /48 too, and tells the count nearer its ceiling', async () => {
    const site = uniqueSite();
    // Five /64s spend two of their three each: 10 of the /48's 12.
    for (let n = 1; n <= 5; n++) {
      for (let i = 0; i < 2; i++) {
        const res = await call(t.app, 'GET', SHARED_REPORT, { headers: from(site(n)) });
        expect(res.status).toBe(404);
        expectCounted(res, 3, 2 - i);
      }
    }
    // A sixth has all three of its own, but its /48 only two: the headers tell the /48's.
    const first = await call(t.app, 'GET', SHARED_REPORT, { headers: from(site(6)) });
    expect(first.status).toBe(404);
    expectCounted(first, 12, 1);
    expectCounted(await call(t.app, 'GET', SHARED_REPORT, { headers: from(site(6)) }), 12, 0);
    expectTooMany(await call(t.app, 'GET', SHARED_REPORT, { headers: from(site(6)) }), 12);
    // The general limit is a count of its own.
    expect((await call(t.app, 'GET', '/orgs', { headers: from(site(6)) })).status).toBe(401);
  });

  it('counts IPv4 clients as before: per address, nothing wider', async () => {
    const [a, b, c] = [randomInt(256), randomInt(256), randomInt(1, 250)];
    // Five neighbours of one /24 spend their whole limit each, more than four times one limit in all.
    for (let host = c; host < c + 5; host++) {
      for (let remaining = 1; remaining >= 0; remaining--) {
        const res = await call(t.app, 'GET', '/orgs', { headers: from(`10.${a}.${b}.${host}`) });
        expect(res.status).toBe(401);
        expectCounted(res, 2, remaining);
      }
    }
    expectTooMany(await call(t.app, 'GET', '/orgs', { headers: from(`10.${a}.${b}.${c}`) }), 2);
    // An IPv4-mapped address is its IPv4 address.
    expectTooMany(await call(t.app, 'GET', '/orgs', { headers: from(`::ffff:10.${a}.${b}.${c}`) }), 2);
  });

  it('counts sign-ins per /48 and email too', async () => {
    const site = uniqueSite();
    const email = uniqueEmail('v6-48');
    // Sign-in and the reset request spend one count per address and email (AUTH_RATE_LIMIT_MAX 1).
    for (let n = 1; n <= 4; n++) {
      const res = await call(t.app, 'POST', '/auth/forgot-password', {
        headers: from(site(n)),
        body: { email },
      });
      expect(res.status).toBe(202);
    }
    const login = { email, password: 'not the password' };
    expectTooMany(await call(t.app, 'POST', '/auth/login', { headers: from(site(5)), body: login }), 4);
    // Another email from the same /48 has its own count.
    const other = await call(t.app, 'POST', '/auth/forgot-password', {
      headers: from(site(5)),
      body: { email: uniqueEmail('v6-48-other') },
    });
    expect(other.status).toBe(202);
  });
});
