import { randomInt } from 'node:crypto';
import { connect, createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { uniqueEmail } from './helpers/factories.js';
import { call, UNAUTHORIZED, type Call } from './helpers/http.js';

/**
 * With REDIS_URL every test file counts in one store by client IP, so each test speaks from an address
 * of its own (TRUST_PROXY honours X-Forwarded-For) and nobody else spends its counter.
 */
const uniqueIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const from = (ip: string) => ({ 'x-forwarded-for': ip });
const limited = { TRUST_PROXY: 'true', RATE_LIMIT_MAX: '3' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** /health/ready while the database answers; with REDIS_URL it tells whether Redis answers too. */
const READY = { status: 'ready', ...(process.env.REDIS_URL ? { redis: 'ok' } : {}) };

function expectLimitHeaders(res: Call, limit: number, remaining: number, windowSeconds = 60) {
  expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(res.headers['x-ratelimit-remaining']).toBe(String(remaining));
  const reset = Number(res.headers['x-ratelimit-reset']);
  expect(Number.isInteger(reset)).toBe(true);
  expect(reset).toBeGreaterThan(0);
  expect(reset).toBeLessThanOrEqual(windowSeconds);
}

function expectTooMany(res: Call, limit: number, windowSeconds = 60) {
  expect(res.status).toBe(429);
  expectLimitHeaders(res, limit, 0, windowSeconds);
  const seconds = Number(res.headers['retry-after']);
  expect(res.headers['retry-after']).toBe(res.headers['x-ratelimit-reset']);
  expect(res.body).toEqual({
    statusCode: 429,
    message: `Too many requests, retry in ${seconds} seconds`,
    error: 'Too Many Requests',
    code: 'rate_limited',
  });
}

/**
 * A freshly built app answers before its Redis connection is up, and until then its limiter counts nothing
 * (see the start-up test below); the other tests wait for the store so they test what they name.
 */
async function storeReady(test: TestApp, limit: number): Promise<TestApp> {
  for (let i = 0; i < 100; i++) {
    const res = await call(test.app, 'GET', '/orgs', { headers: from(uniqueIp()) });
    if (res.headers['x-ratelimit-remaining'] === String(limit - 1)) return test;
    await sleep(20);
  }
  throw new Error('the rate-limit store never counted a request');
}

let t: TestApp;
beforeAll(async () => {
  t = await storeReady(await buildTestApp(limited), 3);
});
afterAll(() => t.close());

describe('general rate limit', () => {
  it('counts every response, 400 and unknown routes included, then answers 429', async () => {
    const headers = from(uniqueIp());
    const invalid = await call(t.app, 'POST', '/auth/register', { headers, body: {} });
    expect(invalid.status).toBe(400);
    expect(invalid.body.message).toEqual(
      expect.arrayContaining(['email is required', 'password is required']),
    );
    expectLimitHeaders(invalid, 3, 2);

    const unknown = await call(t.app, 'GET', '/no/such/route', { headers });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      statusCode: 404,
      message: 'Route GET /no/such/route not found',
      error: 'Not Found',
      code: 'not_found',
    });
    expectLimitHeaders(unknown, 3, 1);

    const anonymous = await call(t.app, 'GET', '/orgs', { headers });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(UNAUTHORIZED);
    expectLimitHeaders(anonymous, 3, 0);

    expectTooMany(await call(t.app, 'GET', '/orgs', { headers }), 3);
    expectTooMany(await call(t.app, 'GET', '/no/such/route', { headers }), 3);
    expectTooMany(await call(t.app, 'POST', '/auth/login', { headers, body: {} }), 3);
  });

  it('counts per client IP', async () => {
    const spent = from(uniqueIp());
    for (let i = 0; i < 3; i++)
      expect((await call(t.app, 'GET', '/orgs', { headers: spent })).status).toBe(401);
    expectTooMany(await call(t.app, 'GET', '/orgs', { headers: spent }), 3);

    const other = await call(t.app, 'GET', '/orgs', { headers: from(uniqueIp()) });
    expect(other.status).toBe(401);
    expect(other.body).toEqual(UNAUTHORIZED);
    expectLimitHeaders(other, 3, 2);
  });

  it('never limits /health and /health/ready, nor counts them', async () => {
    const headers = from(uniqueIp());
    for (let i = 0; i < 5; i++) {
      const live = await call(t.app, 'GET', '/health', { headers });
      expect(live.status).toBe(200);
      expect(live.body).toEqual({ status: 'ok' });
      const ready = await call(t.app, 'GET', '/health/ready', { headers });
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual(READY);
      for (const res of [live, ready]) {
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
        expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
        expect(res.headers['x-ratelimit-reset']).toBeUndefined();
        expect(res.headers['retry-after']).toBeUndefined();
      }
    }
    // Ten health checks spent nothing: the first limited request still has the whole allowance.
    expectLimitHeaders(await call(t.app, 'GET', '/orgs', { headers }), 3, 2);
    for (let i = 0; i < 2; i++) await call(t.app, 'GET', '/orgs', { headers });
    expectTooMany(await call(t.app, 'GET', '/orgs', { headers }), 3);

    const live = await call(t.app, 'GET', '/health', { headers });
    expect(live.status).toBe(200);
    expect(live.headers['x-ratelimit-limit']).toBeUndefined();
    const ready = await call(t.app, 'GET', '/health/ready', { headers });
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual(READY);
  });

  it('lets requests through again once RATE_LIMIT_WINDOW has passed', async () => {
    const short = await storeReady(
      await buildTestApp({ ...limited, RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW: '1s' }),
      1,
    );
    try {
      const headers = from(uniqueIp());
      const first = await call(short.app, 'GET', '/orgs', { headers });
      expect(first.status).toBe(401);
      expectLimitHeaders(first, 1, 0, 1);
      const blocked = await call(short.app, 'GET', '/orgs', { headers });
      expectTooMany(blocked, 1, 1);
      expect(blocked.body.message).toBe('Too many requests, retry in 1 seconds');

      await sleep(1100);
      const again = await call(short.app, 'GET', '/orgs', { headers });
      expect(again.status).toBe(401);
      expect(again.body).toEqual(UNAUTHORIZED);
      expectLimitHeaders(again, 1, 0, 1);
    } finally {
      await short.close();
    }
  });
});

describe('auth rate limit', () => {
  it('limits login per IP and email on top of the general limit', async () => {
    const auth = await storeReady(
      await buildTestApp({ TRUST_PROXY: 'true', RATE_LIMIT_MAX: '1000', AUTH_RATE_LIMIT_MAX: '2' }),
      1000,
    );
    try {
      const headers = from(uniqueIp());
      const email = uniqueEmail('limited');
      const wrong = { email, password: 'not the password' };
      for (let i = 0; i < 2; i++) {
        const res = await call(auth.app, 'POST', '/auth/login', { headers, body: wrong });
        expect(res.status).toBe(401);
      }
      // The same address in other letters is the same email.
      const blocked = await call(auth.app, 'POST', '/auth/login', {
        headers,
        body: { ...wrong, email: email.toUpperCase() },
      });
      expectTooMany(blocked, 2);
      expectTooMany(await call(auth.app, 'POST', '/auth/forgot-password', { headers, body: { email } }), 2);

      const otherEmail = await call(auth.app, 'POST', '/auth/login', {
        headers,
        body: { ...wrong, email: uniqueEmail('other') },
      });
      expect(otherEmail.status).toBe(401);
      const otherIp = await call(auth.app, 'POST', '/auth/login', { headers: from(uniqueIp()), body: wrong });
      expect(otherIp.status).toBe(401);
    } finally {
      await auth.close();
    }
  });
});

describe('shared store', () => {
  it.runIf(!!process.env.REDIS_URL)('shares one count between instances through Redis', async () => {
    const other = await storeReady(await buildTestApp(limited), 3);
    try {
      const headers = from(uniqueIp());
      expectLimitHeaders(await call(t.app, 'GET', '/orgs', { headers }), 3, 2);
      expectLimitHeaders(await call(t.app, 'GET', '/orgs', { headers }), 3, 1);
      const third = await call(other.app, 'GET', '/orgs', { headers });
      expect(third.status).toBe(401);
      expectLimitHeaders(third, 3, 0);
      expectTooMany(await call(t.app, 'GET', '/orgs', { headers }), 3);
      expectTooMany(await call(other.app, 'GET', '/orgs', { headers }), 3);
    } finally {
      await other.close();
    }
  });

  it.runIf(!!process.env.REDIS_URL)(
    'counts from the first request, however slowly Redis connects within REDIS_COMMAND_TIMEOUT',
    async () => {
      // Redis behind a proxy that holds every connection for 500 ms: a slow network at start-up. (Its
      // first answers come as late: past the default 250 ms command timeout, which would take it for hung.)
      const redis = new URL(process.env.REDIS_URL!);
      const proxy = createServer((client) => {
        client.pause();
        setTimeout(() => {
          const upstream = connect(Number(redis.port || 6379), redis.hostname);
          upstream.on('error', () => client.destroy());
          client.on('error', () => upstream.destroy());
          client.pipe(upstream).pipe(client);
          client.resume();
        }, 500);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const proxied = new URL(redis);
      proxied.host = `127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const fresh = await buildTestApp({
        ...limited,
        REDIS_URL: proxied.toString(),
        REDIS_COMMAND_TIMEOUT: '2s',
      });
      try {
        const headers = from(uniqueIp());
        for (let remaining = 2; remaining >= 0; remaining--) {
          const res = await call(fresh.app, 'GET', '/orgs', { headers });
          expect(res.status).toBe(401);
          expectLimitHeaders(res, 3, remaining);
        }
        expectTooMany(await call(fresh.app, 'GET', '/orgs', { headers }), 3);
      } finally {
        await fresh.close();
        proxy.close();
      }
    },
  );

  it('lets requests through when Redis cannot be reached', async () => {
    const unreachable = await buildTestApp({ ...limited, REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const headers = from(uniqueIp());
      for (let i = 0; i < 5; i++) {
        const res = await call(unreachable.app, 'GET', '/orgs', { headers });
        expect(res.status).toBe(401);
        expect(res.body).toEqual(UNAUTHORIZED);
      }
    } finally {
      await unreachable.close();
    }
  });
});
