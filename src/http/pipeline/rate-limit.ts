import { isIPv6 } from 'node:net';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Config } from '../../config.js';
import { normalizeEmail } from '../../lib/email.js';
import { AppError } from '../../errors/catalogue.js';
import type { RedisLink } from './redis-link.js';

/** Which counter a route spends: the general one, the public one (forms, shared reports) or none (health). */
export type RateLimitBucket = 'general' | 'public' | 'none';

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

/**
 * How many times one /64's limit the /48 around it may spend in all: a site or subscriber given a /48
 * (RFC 6177) has 65,536 /64s, each with a limit of its own; together they get four.
 */
export const IPV6_48_FACTOR = 4;

/** A limit counted per client (`clientOf`) and, for IPv6, per /48 with IPV6_48_FACTOR times its ceiling. */
interface Limit {
  max: number;
  client: Limiter;
  network: Limiter;
}

/**
 * Three limits from DECISIONS.md section 12. Each limiter is created once, so its counter is shared by
 * every route that uses it; with Redis it is shared by every instance too. A limiter that cannot reach
 * Redis lets the request through rather than take the API down (see RedisLink).
 */
export async function registerRateLimits(
  app: FastifyInstance,
  config: Config,
  redis: RedisLink | null,
): Promise<{ authLimit: preHandlerAsyncHookHandler; uploadLimit: preHandlerAsyncHookHandler }> {
  // Errors reach `count` below, which lets the request through and tells the link.
  await app.register(rateLimit, {
    global: false,
    skipOnError: false,
    ...(redis ? { redis: redis.client, nameSpace: 'mel-rate-limit:' } : {}),
  });
  const timeWindow = config.rateLimit.windowSeconds * 1000;
  /** `key` names the counter of a client (an IPv4 address, an IPv6 /64 or /48) in this limit. */
  const limit = (max: number, key: (client: string, request: FastifyRequest) => string): Limit => ({
    max,
    client: app.createRateLimit({
      max,
      timeWindow,
      keyGenerator: (r) => key(clientOf(r.ip ?? 'unknown'), r),
    }),
    network: app.createRateLimit({
      max: max * IPV6_48_FACTOR,
      timeWindow,
      keyGenerator: (r) => key(networkOf(r.ip ?? 'unknown') ?? 'unknown', r),
    }),
  });
  const general = limit(config.rateLimit.max, (client) => `g:${client}`);
  const publicRoutes = limit(config.rateLimit.publicMax, (client) => `p:${client}`);
  const auth = limit(config.rateLimit.authMax, (client, r) => `a:${client}:${accountOf(r)}`);
  // Declared by the routes that take uploads anonymously, spent on top of their bucket.
  const uploads = limit(config.rateLimit.publicUploadMax, (client) => `u:${client}`);

  app.addHook('onRequest', async (request, reply) => {
    const bucket = request.is404 ? 'general' : (request.routeOptions.config.rateLimitBucket ?? 'general');
    if (bucket === 'none') return;
    await spend(bucket === 'public' ? publicRoutes : general, redis, request, reply);
  });

  return {
    authLimit: (request, reply) => spend(auth, redis, request, reply),
    uploadLimit: (request, reply) => spend(uploads, redis, request, reply),
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

/** The /48 an IPv6 address belongs to (`2001:db8:1::/48`); null for IPv4 and IPv4-mapped addresses. */
export function networkOf(ip: string): string | null {
  const client = clientOf(ip);
  if (!client.endsWith('::/64')) return null;
  return `${client.split(':').slice(0, 3).join(':')}::/48`;
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

/** The limiter's count of this request; when the store fails (Redis out of reach), an uncounted one. */
async function count(
  limiter: Limiter,
  max: number,
  redis: RedisLink | null,
  request: FastifyRequest,
): Promise<{ max: number; remaining: number; ttlInSeconds: number; isExceeded: boolean }> {
  try {
    const result = await limiter(request);
    redis?.answered();
    // `isAllowed` is true only for an allow list, which no limiter here has.
    if (!result.isAllowed) return result;
  } catch (err) {
    redis?.failed(err);
  }
  return { max, remaining: max, ttlInSeconds: 0, isExceeded: false };
}

/**
 * Counts the request against its client's limit and, for IPv6, its /48's (only when the client's own
 * limit let it through, so that one /64 alone never spends its neighbours' allowance). The headers tell
 * the count nearer its ceiling; a 429 tells the one exceeded.
 */
async function spend(limit: Limit, redis: RedisLink | null, request: FastifyRequest, reply: FastifyReply) {
  let result = await count(limit.client, limit.max, redis, request);
  if (!result.isExceeded && networkOf(request.ip ?? 'unknown') !== null) {
    const network = await count(limit.network, limit.max * IPV6_48_FACTOR, redis, request);
    if (network.isExceeded || network.remaining < result.remaining) result = network;
  }
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
