import { isIPv6 } from 'node:net';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import { normalizeEmail } from '../lib/email.js';
import { AppError } from './errors.js';

/**
 * Connects before the app takes requests, so the first ones are counted too. If Redis does not answer
 * within `timeoutMs` the service starts anyway and limits fail open until it does.
 */
export async function connectRateLimitStore(
  url: string,
  log: FastifyBaseLogger,
  timeoutMs = 5000,
): Promise<Redis> {
  // Loaded only when REDIS_URL is set: ioredis is about 1 MB of heap a service without Redis never uses.
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true });
  redis.on('error', (err) => log.warn({ err }, 'redis error'));
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      redis.connect(),
      new Promise((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } catch (err) {
    log.warn({ err }, 'Redis is not reachable yet: rate limits are not enforced until it is');
  } finally {
    clearTimeout(timer);
  }
  return redis;
}

/** Which counter a route spends: the general one, the public one (forms, shared reports) or none (health). */
export type RateLimitBucket = 'general' | 'public' | 'none';

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

/**
 * Three limits from DECISIONS.md section 12. Each limiter is created once, so its counter is shared by
 * every route that uses it; with Redis it is shared by every instance too. A limiter that cannot reach
 * Redis lets the request through rather than take the API down.
 */
export async function registerRateLimits(
  app: FastifyInstance,
  config: Config,
  redis: Redis | null,
): Promise<{ authLimit: preHandlerAsyncHookHandler; uploadLimit: preHandlerAsyncHookHandler }> {
  await app.register(rateLimit, {
    global: false,
    skipOnError: true,
    ...(redis ? { redis, nameSpace: 'mel-rate-limit:' } : {}),
  });
  const timeWindow = config.rateLimit.windowSeconds * 1000;
  const general = app.createRateLimit({
    max: config.rateLimit.max,
    timeWindow,
    keyGenerator: (r) => `g:${clientOf(r.ip ?? 'unknown')}`,
  });
  const publicRoutes = app.createRateLimit({
    max: config.rateLimit.publicMax,
    timeWindow,
    keyGenerator: (r) => `p:${clientOf(r.ip ?? 'unknown')}`,
  });
  // Declared by the routes that take uploads anonymously, spent on top of their bucket.
  const uploads = app.createRateLimit({
    max: config.rateLimit.publicUploadMax,
    timeWindow,
    keyGenerator: (r) => `u:${clientOf(r.ip ?? 'unknown')}`,
  });
  const auth = app.createRateLimit({
    max: config.rateLimit.authMax,
    timeWindow,
    keyGenerator: (r) => `a:${clientOf(r.ip ?? 'unknown')}:${accountOf(r)}`,
  });

  app.addHook('onRequest', async (request, reply) => {
    const bucket = request.is404 ? 'general' : (request.routeOptions.config.rateLimitBucket ?? 'general');
    if (bucket === 'none') return;
    await spend(bucket === 'public' ? publicRoutes : general, request, reply);
  });

  return {
    authLimit: (request, reply) => spend(auth, request, reply),
    uploadLimit: (request, reply) => spend(uploads, request, reply),
  };
}

/**
 * The client a limit counts: an IPv4 address as it is; an IPv6 address by its /64, the network one
 * subscriber is given (counting exact addresses would hand an attacker 2^64 of them); an IPv4-mapped
 * IPv6 address (`::ffff:1.2.3.4`) as its IPv4 address.
 */
export function clientOf(ip: string): string {
  const address = ip.split('%', 1)[0]!;
  if (!isIPv6(address)) return ip;
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address: `::` expanded, a dotted IPv4 tail as two groups. */
function ipv6Groups(address: string): number[] {
  let text = address;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parse = (part: string | undefined) => (part ? part.split(':').map((h) => parseInt(h, 16)) : []);
  const [head, rest] = text.split('::') as [string, string | undefined];
  const left = parse(head);
  const right = parse(rest);
  const zeros = rest === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...zeros, ...right];
}

/** The account a request is about: the email it names, else (an organization switch) the session's user. */
function accountOf(request: FastifyRequest): string {
  const body = request.body as { email?: unknown } | undefined;
  if (typeof body?.email === 'string') return normalizeEmail(body.email);
  return request.session?.userId ?? 'anonymous';
}

async function spend(limiter: Limiter, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const result = await limiter(request);
  if (result.isAllowed) return;
  const headers = {
    'x-ratelimit-limit': String(result.max),
    'x-ratelimit-remaining': String(result.remaining),
    'x-ratelimit-reset': String(result.ttlInSeconds),
  };
  void reply.headers(headers);
  if (result.isExceeded) {
    throw new AppError(
      429,
      `Too many requests, retry in ${result.ttlInSeconds} seconds`,
      {
        ...headers,
        'retry-after': String(result.ttlInSeconds),
      },
      'rate_limited',
    );
  }
}
