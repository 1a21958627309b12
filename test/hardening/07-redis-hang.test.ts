/**
 * Issue 36, finding 7: with the Redis server stopped (SIGSTOP) every rate-limited route answered nothing
 * for the whole hang, /health/ready said nothing was wrong and nothing was logged; a killed Redis logged
 * a warning per request. Now a Redis command that has not answered within REDIS_COMMAND_TIMEOUT fails
 * open as a dead Redis does, an outage is logged once and its end once, /health/ready and the
 * `mel_redis_up` metric say Redis is degraded, and counting resumes by itself. The Redis is a private
 * server of this file, hung and killed under requests.
 */
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createDonor, donorUrl } from '../helpers/donors.js';
import { createOrg, registerUser, uniqueEmail, type TestUser } from '../helpers/factories.js';
import { call, type Call } from '../helpers/http.js';
import { redisServerUnavailable, startRedisServer, type RedisServer } from '../helpers/redis-server.js';

const LIMIT = 1000;
const TOKEN = 'a-scrape-token-for-the-redis-test';
/** Longest a request may take while Redis hangs: the command timeout (250 ms) with room to spare. */
const ANSWER_BOUND_MS = 1_000;

const uniqueIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const from = (ip: string) => ({ 'x-forwarded-for': ip });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The call's answer and how long it took; `null` when none came within `ms` (the call runs on unheard). */
async function bounded(work: () => Promise<Call>, ms = 3_000): Promise<{ res: Call | null; ms: number }> {
  const began = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  const answer = work();
  answer.catch(() => undefined);
  try {
    const res = await Promise.race([answer, late]);
    return { res, ms: Date.now() - began };
  } finally {
    clearTimeout(timer);
  }
}

/** Fails when a call does not answer within the bound; its answer otherwise. */
async function answered(work: () => Promise<Call>): Promise<Call> {
  const { res, ms } = await bounded(work);
  expect(res, `no answer within 3 s while Redis is out (waited ${ms} ms)`).not.toBeNull();
  expect(ms, 'answered within the bound while Redis is out').toBeLessThan(ANSWER_BOUND_MS);
  return res!;
}

describe.skipIf(redisServerUnavailable())('finding 7: a hung or killed Redis', () => {
  let redis: RedisServer;
  let t: TestApp;
  let admin: TestUser;
  let orgId: string;
  let donorId: string;
  const logLines: { level: number; msg: string }[] = [];
  /** The lines about Redis since the test began: [level, message]. */
  const redisLines = () => logLines.filter((line) => /redis/i.test(line.msg)).map((line) => line.level);

  /** A request from an address of its own: counted (remaining LIMIT - 1) or let through uncounted. */
  const counted = async () => {
    const res = await answered(() => call(t.app, 'GET', '/orgs', { headers: from(uniqueIp()) }));
    expect(res.status).toBe(401);
    return res.headers['x-ratelimit-remaining'] === String(LIMIT - 1);
  };
  const untilCounted = async () => {
    const deadline = Date.now() + 10_000;
    while (!(await counted())) {
      if (Date.now() > deadline) throw new Error('counting did not resume within 10 s of Redis coming back');
      await sleep(50);
    }
  };
  const readiness = async () => (await answered(() => call(t.app, 'GET', '/health/ready'))).body as object;
  const redisUp = async () => {
    const res = await answered(() =>
      call(t.app, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } }),
    );
    expect(res.status).toBe(200);
    return /^mel_redis_up (\d+)$/m.exec(res.body as string)?.[1];
  };

  /** While Redis is out: every kind of limited request answers within the bound, uncounted. */
  async function failsOpen(ms: number) {
    const until = Date.now() + ms;
    let requests = 0;
    while (Date.now() < until) {
      const headers = from(uniqueIp());
      // Several at once, as clients send them: none waits behind another's command.
      const answers = await Promise.all([
        answered(() => call(t.app, 'GET', '/orgs', { headers })),
        answered(() => call(t.app, 'GET', '/no/such/route', { headers })),
        answered(() => call(t.app, 'GET', `/reports/share/${'x'.repeat(43)}`, { headers })),
        // An email of its own: an account's failed sign-ins slow its next ones.
        answered(() =>
          call(t.app, 'POST', '/auth/login', { headers, body: { email: uniqueEmail(), password: 'wrong' } }),
        ),
        // A write holds its resource's lock, shared through Redis: taken in this instance instead.
        answered(() =>
          call(t.app, 'PATCH', donorUrl(orgId, donorId), { as: admin, body: { name: `Donor ${requests}` } }),
        ),
      ]);
      expect(answers.map((res) => res.status)).toEqual([401, 404, 404, 401, 200]);
      requests += answers.length;
    }
    return requests;
  }

  beforeAll(async () => {
    redis = await startRedisServer();
    t = await buildTestApp(
      { TRUST_PROXY: 'true', RATE_LIMIT_MAX: String(LIMIT), REDIS_URL: redis.url, METRICS_TOKEN: TOKEN },
      {
        worker: false,
        logger: {
          level: 'info',
          stream: {
            write: (line: string) => void logLines.push(JSON.parse(line) as (typeof logLines)[number]),
          },
        },
      },
    );
    await untilCounted();
    admin = await registerUser(t.app);
    orgId = (await createOrg(t.app, admin)).id;
    donorId = (await createDonor(t.app, admin, orgId)).id as string;
    logLines.length = 0;
  });

  afterAll(async () => {
    await redis?.destroy();
    await t?.close();
  });

  it('says Redis is fine while it answers', async () => {
    expect(await readiness()).toEqual({ status: 'ready', redis: 'ok' });
    expect(await redisUp()).toBe('1');
  });

  it('fails open within the command timeout while Redis hangs, says so once, and counts again after', async () => {
    redis.pause();
    try {
      expect(await failsOpen(2_000)).toBeGreaterThan(10);
      expect(await readiness()).toEqual({ status: 'ready', redis: 'degraded' });
      expect(await redisUp()).toBe('0');
      expect(await failsOpen(500)).toBeGreaterThan(0);
    } finally {
      redis.resume();
    }
    await untilCounted();
    expect(await readiness()).toEqual({ status: 'ready', redis: 'ok' });
    expect(await redisUp()).toBe('1');
    // One line when Redis was found out of reach (warn), one when it answered again (info).
    expect(redisLines()).toEqual([40, 30]);
  });

  it('fails open at once while Redis is dead, says so once, and counts again once it is back', async () => {
    logLines.length = 0;
    await redis.kill();
    expect(await failsOpen(1_500)).toBeGreaterThan(10);
    expect(await readiness()).toEqual({ status: 'ready', redis: 'degraded' });
    expect(await redisUp()).toBe('0');

    await redis.start();
    await untilCounted();
    expect(await readiness()).toEqual({ status: 'ready', redis: 'ok' });
    expect(redisLines()).toEqual([40, 30]);
  });
});
