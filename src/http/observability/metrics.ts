import { createHash, timingSafeEqual } from 'node:crypto';
import { statfs } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolStats } from '../../db/client.js';
import type { QueueDepth } from '../../db/queue-depth.js';
import { tokenRefused, unauthorized } from '../../errors/catalogue.js';

/** The read replica as its router sees it: lag (null: unknown), whether it is read, fallbacks by reason. */
export interface ReplicaStatus {
  lagSeconds: number | null;
  usable: boolean;
  fallbacks: Record<string, number>;
}

/**
 * What the metrics read at scrape time. `src/http` imports no module: `buildApp` hands the answers in.
 * A pool whose answer is null (the embedded database has none) shows no values.
 */
export interface MetricsSources {
  pools: Readonly<Record<string, () => PoolStats | null | undefined>>;
  outbox: () => Promise<QueueDepth>;
  webhookDeliveries: () => Promise<QueueDepth>;
  /** Null or absent when no replica is configured. */
  replica?: () => ReplicaStatus | null;
  hashing: () => { active: number; pending: number };
  /** Form submissions stored but not counted into their indicator report in this process, by reason. */
  notCounted?: () => Record<string, number>;
  /** Whether Redis answers now (REDIS_URL); absent without Redis. */
  redis?: () => Promise<boolean>;
  /** DATA_DIR: uploaded files (and the embedded database) fill its file system. */
  dataDir: string;
}

export interface MetricsOptions {
  /** METRICS_TOKEN; null: no /metrics route and nothing measured. */
  token: string | null;
  sources: MetricsSources;
}

/** The route label of a request no route matched: one value, whatever the path asked. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Latency buckets in seconds: prom-client's defaults (5 ms to 10 s), and 30 s and 60 s for the exports
 * that stream for a while.
 */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** How long a scrape waits for a queue's depth before leaving that queue out. */
export const QUEUE_READ_TIMEOUT_MS = 1_000;

/** `work`'s answer, or a rejection when it has not come within `ms`. */
async function within<T>(ms: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  const answer = work();
  // A query that loses the race still settles later; its failure then has nobody to hear it.
  answer.catch(() => undefined);
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

let processRegistry: Registry | undefined;

/**
 * The process's own metrics (CPU, memory, event loop, GC), registered once per process: they describe
 * the process, not an app, and two of them start something that never stops (an event-loop delay
 * monitor, a GC observer), so one per app would pile up in a test run that builds hundreds of apps.
 * Everything else is read when scraped.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The presented bearer token against the configured one, in constant time (both hashed to one length). */
function bearerMatches(request: FastifyRequest, expected: Buffer): boolean | null {
  const bearer = request.headers.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (bearer === undefined) return null;
  return timingSafeEqual(digest(bearer), expected);
}

/**
 * `GET /metrics` in Prometheus text, when METRICS_TOKEN is set: requests by route template and status,
 * database pools, the email and webhook queues, the replica, Redis, password hashing, free space in
 * DATA_DIR, and the process. Call it before any route is registered, so that its onResponse hook sees
 * them all. Each app has a registry of its own (tests build many apps in one process).
 */
export function registerMetrics(app: FastifyInstance, { token, sources }: MetricsOptions): void {
  if (token === null) return;
  const own = new Registry();
  const registers = [own];
  defineRequestMetrics(app, registers);
  defineSourceMetrics(app.log, registers, sources);
  const registry = Registry.merge([processMetrics(), own]);

  const expected = digest(token);
  app.get(
    '/metrics',
    {
      // Protected by its own token, not by a session; a scraper is never rate-limited (like /health).
      config: { access: 'public', rateLimitBucket: 'none' },
      schema: { hide: true },
      onRequest: async (request) => {
        const matches = bearerMatches(request, expected);
        if (matches === null) throw unauthorized();
        if (!matches) throw tokenRefused();
      },
    },
    async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()),
  );
}

/** Counted when the answer has gone, with the route's template as label: never an id or a token. */
function defineRequestMetrics(app: FastifyInstance, registers: Registry[]): void {
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'mel_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code.',
    labelNames,
    registers,
  });
  const latency = new Histogram({
    name: 'mel_http_request_duration_seconds',
    help: 'Time from a request arriving to its answer sent, by method, route template and status code.',
    labelNames,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  app.addHook('onResponse', async (request, reply) => {
    const labels = {
      method: request.method,
      route: (!request.is404 && request.routeOptions.url) || UNMATCHED_ROUTE,
      status: String(reply.statusCode),
    };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
  });
}

function defineSourceMetrics(log: FastifyBaseLogger, registers: Registry[], sources: MetricsSources): void {
  new Gauge({
    name: 'mel_db_pool_clients',
    help: 'Database pool: connections open (total), idle ones, and queries waiting for one (waiting).',
    labelNames: ['pool', 'state'] as const,
    registers,
    collect() {
      this.reset();
      for (const [pool, stats] of Object.entries(sources.pools)) {
        const now = stats();
        if (!now) continue;
        this.set({ pool, state: 'total' }, now.total);
        this.set({ pool, state: 'idle' }, now.idle);
        this.set({ pool, state: 'waiting' }, now.waiting);
      }
    },
  });

  // Both read by one query per queue per scrape; a query that fails, or that has not answered within
  // QUEUE_READ_TIMEOUT_MS, leaves its queue out of this scrape rather than fail or hold it: a full pool
  // or a database out of reach would hold it for the pool's 10 s connection timeout, past a scraper's
  // own timeout (the database being down is what /health/ready reports). A late query runs on unheard.
  const queues = { email: sources.outbox, webhook: sources.webhookDeliveries };
  let reading: Promise<Record<string, QueueDepth>> | null = null;
  const readQueues = () =>
    (reading ??= (async () => {
      const read = await Promise.all(
        Object.entries(queues).map(async ([queue, depthOf]) => {
          try {
            return [[queue, await within(QUEUE_READ_TIMEOUT_MS, depthOf)] as const];
          } catch (err) {
            log.debug({ err, queue }, 'metrics: queue depth not read');
            return [];
          }
        }),
      );
      return Object.fromEntries(read.flat());
    })().finally(() => {
      reading = null;
    }));
  const queueGauges = [
    [
      'mel_queue_pending',
      'Items waiting for delivery, retries included: email (the outbox) and webhook (deliveries).',
      'depth',
    ],
    [
      'mel_queue_oldest_pending_age_seconds',
      'How long the oldest waiting item of the queue has waited (0 when none waits).',
      'oldestAgeSeconds',
    ],
  ] as const;
  for (const [name, help, field] of queueGauges) {
    new Gauge({
      name,
      help,
      labelNames: ['queue'] as const,
      registers,
      async collect() {
        const read = await readQueues();
        this.reset();
        for (const [queue, depth] of Object.entries(read)) this.set({ queue }, depth[field]);
      },
    });
  }

  defineReplicaMetrics(registers, sources.replica);
  defineCountingMetrics(registers, sources.notCounted);

  // Asked on each scrape (a PING, at most REDIS_COMMAND_TIMEOUT): an idle service has no command to tell.
  const redisUp = sources.redis;
  if (redisUp) {
    new Gauge({
      name: 'mel_redis_up',
      help: '1 while Redis (REDIS_URL) answers within REDIS_COMMAND_TIMEOUT; 0 while limits fail open without it.',
      registers,
      async collect() {
        this.set((await redisUp()) ? 1 : 0);
      },
    });
  }

  new Gauge({
    name: 'mel_data_dir_free_bytes',
    help: "Bytes free for the service in DATA_DIR's file system (uploaded files, the embedded database).",
    registers,
    async collect() {
      try {
        this.set(await freeBytes(sources.dataDir));
      } catch (err) {
        log.debug({ err }, 'metrics: free space of DATA_DIR not read');
        this.remove();
      }
    },
  });

  new Gauge({
    name: 'mel_password_hashing_active',
    help: 'Password hashes (bcrypt) running now, process-wide.',
    registers,
    collect() {
      this.set(sources.hashing().active);
    },
  });
  new Gauge({
    name: 'mel_password_hashing_queued',
    help: 'Password hashes waiting for a thread, process-wide; sign-ins are refused (503) beyond a limit.',
    registers,
    collect() {
      this.set(sources.hashing().pending);
    },
  });
}

/**
 * The bytes an unprivileged process may still write on the file system of `dir`, or, before anything
 * created it (files are written at the first upload), of the nearest directory above it.
 */
async function freeBytes(dir: string): Promise<number> {
  for (let at = dir; ; at = path.dirname(at)) {
    try {
      const disk = await statfs(at);
      return disk.bavail * disk.bsize;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || path.dirname(at) === at) throw err;
    }
  }
}

/** The replica's lag and use; without a replica these metrics have no values. */
function defineReplicaMetrics(registers: Registry[], replica: MetricsSources['replica']): void {
  const status = () => replica?.() ?? null;
  new Gauge({
    name: 'mel_replica_lag_seconds',
    help: 'How far the read replica is behind the primary (replay lag), as last measured.',
    registers,
    collect() {
      const lag = status()?.lagSeconds ?? null;
      if (lag === null) this.remove();
      else this.set(lag);
    },
  });
  new Gauge({
    name: 'mel_replica_usable',
    help: '1 while reads go to the replica, 0 while they fall back to the primary (down or lagging).',
    registers,
    collect() {
      const now = status();
      if (now === null) this.remove();
      else this.set(now.usable ? 1 : 0);
    },
  });
  // The router counts fallbacks itself; the counter shows its totals. prom-client has no set() on a
  // counter: reset and add the total, on each scrape (still a counter: it only grows while the process runs).
  new Counter({
    name: 'mel_replica_fallbacks_total',
    help: 'Reads meant for the replica that the primary answered, by reason.',
    labelNames: ['reason'] as const,
    registers,
    collect() {
      this.reset();
      for (const [reason, total] of Object.entries(status()?.fallbacks ?? {})) this.inc({ reason }, total);
    },
  });
}

/** Form submissions stored but not counted, by reason: the forms module tallies them as they commit. */
function defineCountingMetrics(registers: Registry[], notCounted: MetricsSources['notCounted']): void {
  if (notCounted) {
    new Counter({
      name: 'mel_form_submissions_not_counted_total',
      help:
        'Form submissions stored but not counted into the indicator report of their form, by reason ' +
        '(a form that counts into no indicator is not counted here).',
      labelNames: ['reason'] as const,
      registers,
      collect() {
        this.reset();
        for (const [reason, total] of Object.entries(notCounted())) this.inc({ reason }, total);
      },
    });
  }
}
