import { statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandler } from '../src/http/errors/replies.js';
import {
  QUEUE_READ_TIMEOUT_MS,
  registerMetrics,
  type MetricsSources,
  type ReplicaStatus,
} from '../src/http/observability/metrics.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createOrg, createProject, registerUser, type TestUser } from './helpers/factories.js';
import { answers, publishedForm, submitUrl } from './helpers/forms.js';
import { call, MISSING_ID, UNAUTHORIZED } from './helpers/http.js';
import { linkIndicator, postIndicator } from './helpers/indicators.js';
import { createPeriod } from './helpers/periods.js';

const TOKEN = 'scrape-token-0123456789abcdef';
const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text answer (comments aside). */
function samplesOf(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, value]) => [key!, value!]),
      );
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

const named = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );

/** The one value of `name` with `labels`; fails when there is none or several. */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = named(samples, name, labels);
  expect(found, `${name} ${JSON.stringify(labels)}`).toHaveLength(1);
  return found[0]!.value;
}

const scrape = (app: TestApp['app'], token = TOKEN) =>
  call(app, 'GET', '/metrics', { headers: { authorization: `Bearer ${token}` } });

async function scrapeSamples(app: TestApp['app']): Promise<Sample[]> {
  const res = await scrape(app);
  expect(res.status).toBe(200);
  return samplesOf(res.body as string);
}

describe('without METRICS_TOKEN', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t?.close());

  it('has no /metrics route: 404 like any unknown path, whatever is presented', async () => {
    const presented: Record<string, string>[] = [{}, { authorization: `Bearer ${TOKEN}` }];
    for (const headers of presented) {
      const res = await call(t.app, 'GET', '/metrics', { headers });
      expect([res.status, res.body]).toEqual([
        404,
        { statusCode: 404, message: 'Route GET /metrics not found', error: 'Not Found', code: 'not_found' },
      ]);
    }
    expect(t.app.routeTable.some((route) => route.url === '/metrics')).toBe(false);
  });
});

describe('with METRICS_TOKEN', () => {
  let t: TestApp;
  let admin: TestUser;
  let org: { id: string };
  beforeAll(async () => {
    // No outbox worker: the emails the tests queue stay queued.
    t = await buildTestApp({ METRICS_TOKEN: TOKEN }, { worker: false });
    admin = await registerUser(t.app);
    org = await createOrg(t.app, admin);
  });
  afterAll(() => t?.close());

  it('refuses a scrape without the token: 401 with the bearer challenge', async () => {
    const basic = `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`;
    const presented: Record<string, string>[] = [{}, { authorization: basic }];
    for (const headers of presented) {
      const res = await call(t.app, 'GET', '/metrics', { headers });
      expect([res.status, res.body]).toEqual([401, UNAUTHORIZED]);
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('refuses a wrong token, a prefix of it and a session token: 401 invalid_token', async () => {
    for (const token of [`${TOKEN}x`, TOKEN.slice(0, -1), 'another-token-of-enough-length', admin.token]) {
      const res = await scrape(t.app, token);
      expect([res.status, res.body]).toEqual([401, UNAUTHORIZED]);
      expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    }
  });

  it('answers Prometheus text to the token, never cached, never rate-limited', async () => {
    // Rate-limited answers carry X-RateLimit-Limit; a scrape spends no one's limit.
    for (let i = 0; i < 2; i += 1) {
      const res = await scrape(t.app);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(PROMETHEUS_TEXT);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      expect(res.headers['cache-control']).toBe('no-store');
      const text = res.body as string;
      for (const family of [
        '# TYPE mel_http_requests_total counter',
        '# TYPE mel_http_request_duration_seconds histogram',
        '# TYPE mel_db_pool_clients gauge',
        '# TYPE mel_queue_pending gauge',
        '# TYPE mel_queue_oldest_pending_age_seconds gauge',
        '# TYPE mel_replica_lag_seconds gauge',
        '# TYPE mel_replica_usable gauge',
        '# TYPE mel_replica_fallbacks_total counter',
        '# TYPE mel_password_hashing_active gauge',
        '# TYPE mel_password_hashing_queued gauge',
        '# TYPE mel_data_dir_free_bytes gauge',
        // The process's own.
        '# TYPE process_cpu_seconds_total counter',
        '# TYPE nodejs_eventloop_lag_seconds gauge',
      ]) {
        expect(text).toContain(family);
      }
      expect(() => samplesOf(text)).not.toThrow();
    }
    const access = t.app.routeTable.find((route) => route.method === 'GET' && route.url === '/metrics');
    expect(access?.access).toBe('public');
  });

  it('is left out of the OpenAPI document', async () => {
    const doc = await call(t.app, 'GET', '/api/openapi.json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths as object)).not.toContain('/metrics');
  });

  it('counts requests by route template and status, never by the path asked', async () => {
    const project = await createProject(t.database.db, org.id);
    const read = await call(t.app, 'GET', `/orgs/${org.id}/projects/${project.id}`, { as: admin });
    expect(read.status).toBe(200);
    const missing = await call(t.app, 'GET', `/orgs/${org.id}/projects/${MISSING_ID}`, { as: admin });
    expect(missing.status).toBe(404);
    const unknown = await call(t.app, 'GET', `/no-such-place/${project.id}?token=secret-${project.id}`);
    expect(unknown.status).toBe(404);

    const res = await scrape(t.app);
    const samples = samplesOf(res.body as string);
    const route = '/orgs/:orgId/projects/:id';
    expect(valueOf(samples, 'mel_http_requests_total', { method: 'GET', route, status: '200' })).toBe(1);
    expect(valueOf(samples, 'mel_http_requests_total', { method: 'GET', route, status: '404' })).toBe(1);
    expect(
      valueOf(samples, 'mel_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }),
    ).toBeGreaterThanOrEqual(1);
    // The sign-up and the earlier scrapes are there too, under their templates.
    expect(
      valueOf(samples, 'mel_http_requests_total', { method: 'POST', route: '/auth/register', status: '201' }),
    ).toBe(1);
    expect(
      valueOf(samples, 'mel_http_requests_total', { method: 'GET', route: '/metrics', status: '401' }),
    ).toBeGreaterThanOrEqual(1);
    // The histogram: every bucket up to +Inf, its count the requests'.
    const buckets = named(samples, 'mel_http_request_duration_seconds_bucket', { route, status: '200' });
    expect(buckets.map((b) => b.labels.le).at(-1)).toBe('+Inf');
    expect(buckets.at(-1)!.value).toBe(1);
    expect(valueOf(samples, 'mel_http_request_duration_seconds_count', { route, status: '200' })).toBe(1);
    expect(
      valueOf(samples, 'mel_http_request_duration_seconds_sum', { route, status: '200' }),
    ).toBeGreaterThan(0);

    const text = res.body as string;
    for (const raw of [org.id, project.id, MISSING_ID, 'no-such-place', 'secret', admin.email]) {
      expect(text).not.toContain(raw);
    }
  });

  it('shows the primary pool on PostgreSQL, and none on PGlite', async () => {
    const samples = await scrapeSamples(t.app);
    const pool = named(samples, 'mel_db_pool_clients');
    if (t.database.driver === 'pglite') {
      expect(pool).toEqual([]);
      return;
    }
    expect(pool.map((s) => s.labels)).toEqual(
      expect.arrayContaining([
        { pool: 'primary', state: 'total' },
        { pool: 'primary', state: 'idle' },
        { pool: 'primary', state: 'waiting' },
      ]),
    );
    const total = valueOf(samples, 'mel_db_pool_clients', { pool: 'primary', state: 'total' });
    expect(total).toBeGreaterThanOrEqual(1);
    expect(total).toBeLessThanOrEqual(5); // the test database's pool size
    expect(valueOf(samples, 'mel_db_pool_clients', { pool: 'primary', state: 'idle' })).toBeLessThanOrEqual(
      total,
    );
    expect(valueOf(samples, 'mel_db_pool_clients', { pool: 'primary', state: 'waiting' })).toBe(0);
  });

  it('shows the email outbox waiting: one more after a forgot-password with no worker', async () => {
    const before = await scrapeSamples(t.app);
    // Registration queued a verification email, which no worker sends.
    const waiting = valueOf(before, 'mel_queue_pending', { queue: 'email' });
    expect(waiting).toBeGreaterThanOrEqual(1);
    expect(
      valueOf(before, 'mel_queue_oldest_pending_age_seconds', { queue: 'email' }),
    ).toBeGreaterThanOrEqual(0);

    const res = await call(t.app, 'POST', '/auth/forgot-password', { body: { email: admin.email } });
    expect(res.status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const after = await scrapeSamples(t.app);
    expect(valueOf(after, 'mel_queue_pending', { queue: 'email' })).toBe(waiting + 1);
    // The oldest is still the verification email, older than the scrape before.
    expect(valueOf(after, 'mel_queue_oldest_pending_age_seconds', { queue: 'email' })).toBeGreaterThan(
      valueOf(before, 'mel_queue_oldest_pending_age_seconds', { queue: 'email' }),
    );
  });

  it('shows webhook deliveries waiting: one after a ping with no webhook worker', async () => {
    const before = await scrapeSamples(t.app);
    expect(valueOf(before, 'mel_queue_pending', { queue: 'webhook' })).toBe(0);
    expect(valueOf(before, 'mel_queue_oldest_pending_age_seconds', { queue: 'webhook' })).toBe(0);

    const endpoint = await call(t.app, 'POST', `/orgs/${org.id}/webhooks`, {
      as: admin,
      body: { url: 'https://hooks.example.org/mel', events: ['member.invited'] },
    });
    expect(endpoint.status).toBe(201);
    const ping = await call(t.app, 'POST', `/orgs/${org.id}/webhooks/${endpoint.body.id}/ping`, {
      as: admin,
    });
    expect(ping.status).toBe(202);

    const after = await scrapeSamples(t.app);
    expect(valueOf(after, 'mel_queue_pending', { queue: 'webhook' })).toBe(1);
    expect(
      valueOf(after, 'mel_queue_oldest_pending_age_seconds', { queue: 'webhook' }),
    ).toBeGreaterThanOrEqual(0);
    // The route of the ping, by its template.
    expect(
      valueOf(after, 'mel_http_requests_total', { route: '/orgs/:orgId/webhooks/:id/ping', status: '202' }),
    ).toBe(1);
  });

  it('shows password hashing: none running or waiting once sign-ins are done', async () => {
    const login = await call(t.app, 'POST', '/auth/login', {
      body: { email: admin.email, password: admin.password },
    });
    expect(login.status).toBe(200);
    const samples = await scrapeSamples(t.app);
    expect(valueOf(samples, 'mel_password_hashing_active')).toBe(0);
    expect(valueOf(samples, 'mel_password_hashing_queued')).toBe(0);
    // No replica configured: its metrics have no values.
    for (const name of ['mel_replica_lag_seconds', 'mel_replica_usable', 'mel_replica_fallbacks_total']) {
      expect(named(samples, name)).toEqual([]);
    }
  });

  it('counts form submissions stored but not counted, by reason (not those of a form counting into nothing)', async () => {
    const project = await createProject(t.database.db, org.id);
    const period = await createPeriod(t.database.db, org.id, project.id, { isLocked: true });
    const indicator = await postIndicator(t.app, admin, org.id);
    await linkIndicator(t.app, admin, org.id, project.id, indicator.id);
    const locked = await publishedForm(t.app, admin, org.id, {
      projectId: project.id,
      indicatorId: indicator.id,
      reportingPeriodId: period.id,
    });
    const plain = await publishedForm(t.app, admin, org.id, { projectId: project.id });
    const reason = (text: string, name: string) =>
      text.match(
        new RegExp(`^mel_form_submissions_not_counted_total\\{reason="${name}"\\} (\\d+)$`, 'm'),
      )?.[1];
    const before = Number(reason((await scrape(t.app)).body as string, 'period_locked') ?? 0);
    for (const form of [locked, locked, plain]) {
      const res = await call(t.app, 'POST', submitUrl(form.publicToken), { body: { answers: answers() } });
      expect(res.status).toBe(201);
    }
    const text = (await scrape(t.app)).body as string;
    expect(text).toContain('# TYPE mel_form_submissions_not_counted_total counter');
    expect(Number(reason(text, 'period_locked'))).toBe(before + 2);
    expect(reason(text, 'not_counting')).toBeUndefined();
  });
});

/** registerMetrics alone, on a bare instance, with sources a test controls. */
describe('registerMetrics sources', () => {
  let replica: ReplicaStatus | null = null;
  let hashing = { active: 0, pending: 0 };
  let emailFails = false;
  let dataDir = tmpdir();
  /** Set: the email queue's query waits until this is called (a full pool, a database out of reach). */
  let emailAnswers: (() => void) | null = null;
  const app = Fastify();
  const sources: MetricsSources = {
    pools: { primary: () => ({ total: 7, idle: 3, waiting: 2 }), replica: () => null },
    outbox: () =>
      emailFails
        ? Promise.reject(new Error('connection terminated'))
        : emailAnswers
          ? new Promise((resolve) => {
              emailAnswers = () => resolve({ depth: 4, oldestAgeSeconds: 12.5 });
            })
          : Promise.resolve({ depth: 4, oldestAgeSeconds: 12.5 }),
    webhookDeliveries: () => Promise.resolve({ depth: 2, oldestAgeSeconds: 3 }),
    replica: () => replica,
    hashing: () => hashing,
    get dataDir() {
      return dataDir;
    },
  };
  beforeAll(async () => {
    registerErrorHandler(app);
    registerMetrics(app, { token: TOKEN, sources });
    await app.ready();
  });
  afterAll(() => app.close());

  const samples = async () => {
    const res = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
    return samplesOf(res.body);
  };

  it('reads pools, queues and hashing when scraped', async () => {
    hashing = { active: 1, pending: 6 };
    const now = await samples();
    expect(named(now, 'mel_db_pool_clients').map((s) => [s.labels.pool, s.labels.state, s.value])).toEqual([
      ['primary', 'total', 7],
      ['primary', 'idle', 3],
      ['primary', 'waiting', 2],
    ]);
    expect(valueOf(now, 'mel_queue_pending', { queue: 'email' })).toBe(4);
    expect(valueOf(now, 'mel_queue_oldest_pending_age_seconds', { queue: 'email' })).toBe(12.5);
    expect(valueOf(now, 'mel_queue_pending', { queue: 'webhook' })).toBe(2);
    expect(valueOf(now, 'mel_password_hashing_active')).toBe(1);
    expect(valueOf(now, 'mel_password_hashing_queued')).toBe(6);
  });

  it('leaves out a queue whose query fails, and still answers the rest', async () => {
    emailFails = true;
    try {
      const now = await samples();
      expect(named(now, 'mel_queue_pending', { queue: 'email' })).toEqual([]);
      expect(named(now, 'mel_queue_oldest_pending_age_seconds', { queue: 'email' })).toEqual([]);
      expect(valueOf(now, 'mel_queue_pending', { queue: 'webhook' })).toBe(2);
    } finally {
      emailFails = false;
    }
    expect(valueOf(await samples(), 'mel_queue_pending', { queue: 'email' })).toBe(4);
  });

  it('leaves out a queue whose query has not answered within a second, without waiting for it', async () => {
    emailAnswers = () => undefined;
    const began = performance.now();
    try {
      const now = await samples();
      const waited = performance.now() - began;
      expect(waited).toBeGreaterThanOrEqual(QUEUE_READ_TIMEOUT_MS - 50);
      expect(waited).toBeLessThan(QUEUE_READ_TIMEOUT_MS + 1_500);
      expect(named(now, 'mel_queue_pending', { queue: 'email' })).toEqual([]);
      expect(named(now, 'mel_queue_oldest_pending_age_seconds', { queue: 'email' })).toEqual([]);
      expect(valueOf(now, 'mel_queue_pending', { queue: 'webhook' })).toBe(2);
    } finally {
      // The late answer comes after the scrape, heard by nobody.
      emailAnswers();
      emailAnswers = null;
    }
    expect(valueOf(await samples(), 'mel_queue_pending', { queue: 'email' })).toBe(4);
  });

  it("reads the free bytes of DATA_DIR's file system, of the directory above before it exists", async () => {
    const disk = await statfs(tmpdir());
    for (const dir of [tmpdir(), path.join(tmpdir(), 'not-made-yet', 'data')]) {
      dataDir = dir;
      const free = valueOf(await samples(), 'mel_data_dir_free_bytes');
      expect(free).toBeGreaterThan(0);
      expect(free).toBeLessThanOrEqual(disk.blocks * disk.bsize);
    }
    // A path that cannot be a directory: left out, the rest still answered.
    dataDir = path.join(process.execPath, 'data');
    try {
      const now = await samples();
      expect(named(now, 'mel_data_dir_free_bytes')).toEqual([]);
      expect(valueOf(now, 'mel_password_hashing_queued')).toBe(hashing.pending);
    } finally {
      dataDir = tmpdir();
    }
  });

  it("shows the replica's lag, use and fallback totals as the router reports them", async () => {
    replica = { lagSeconds: 1.25, usable: true, fallbacks: { lagging: 3, unreachable: 1 } };
    let now = await samples();
    expect(valueOf(now, 'mel_replica_lag_seconds')).toBe(1.25);
    expect(valueOf(now, 'mel_replica_usable')).toBe(1);
    expect(valueOf(now, 'mel_replica_fallbacks_total', { reason: 'lagging' })).toBe(3);
    expect(valueOf(now, 'mel_replica_fallbacks_total', { reason: 'unreachable' })).toBe(1);

    // The totals are the router's, not added up scrape after scrape; an unknown lag has no value.
    replica = { lagSeconds: null, usable: false, fallbacks: { lagging: 5, unreachable: 1 } };
    now = await samples();
    expect(named(now, 'mel_replica_lag_seconds')).toEqual([]);
    expect(valueOf(now, 'mel_replica_usable')).toBe(0);
    expect(valueOf(now, 'mel_replica_fallbacks_total', { reason: 'lagging' })).toBe(5);
    expect(valueOf(now, 'mel_replica_fallbacks_total', { reason: 'unreachable' })).toBe(1);

    replica = null;
    now = await samples();
    for (const name of ['mel_replica_lag_seconds', 'mel_replica_usable', 'mel_replica_fallbacks_total']) {
      expect(named(now, name)).toEqual([]);
    }
  });

  it('registers the process metrics once, whatever the number of apps', async () => {
    const other = Fastify();
    registerMetrics(other, { token: TOKEN, sources });
    await other.ready();
    try {
      const res = await other.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      const text = res.body;
      expect(text.match(/^# TYPE process_cpu_seconds_total counter$/gm)).toHaveLength(1);
      // Each app counts its own requests.
      expect(named(samplesOf(text), 'mel_http_requests_total', { route: '/metrics' })).toEqual([]);
      const own = await samples();
      expect(valueOf(own, 'mel_http_requests_total', { route: '/metrics', status: '200' })).toBeGreaterThan(
        1,
      );
    } finally {
      await other.close();
    }
  });
});
