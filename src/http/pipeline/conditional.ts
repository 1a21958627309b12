import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, RouteOptions } from 'fastify';
import { etagOf, ifMatchHolds, ifNoneMatchHits, isEntityTagList } from './entity-tags.js';
import { AppError, preconditionFailed } from '../../errors/catalogue.js';
import { KeyedLocks, SharedLocks } from './keyed-locks.js';
import type { RedisLink } from './redis-link.js';
import { shapeOf } from './location.js';

/**
 * The resource a write changes, for `If-Match` and the write's lock: the URL of its GET route, whose
 * parameters are this route's at the same places of the path (`/things/:id` for `PATCH /things/:id` and
 * for `POST /things/:thingId/approve`). `{ none: why }`: the write changes no single resource that can be
 * read back (a creation in a collection, a link without a GET of its own).
 */
export type Conditional = string | { none: string };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The GET route an `If-Match` is checked against, or none and why (`Conditional`). */
    conditional?: Conditional;
  }
}

/** The GET route whose ETag an `If-Match` on a route with this config is compared with; null for none. */
export function conditionalTargetOf(config: { conditional?: Conditional } | undefined): string | null {
  const declared = config?.conditional;
  return typeof declared === 'string' ? declared : null;
}

/**
 * Why a write's `conditional` cannot be followed, or null when it can: its target must be a GET route
 * (`getRoutes`) whose path is, parameter names aside, the write's own or the start of it.
 */
export function conditionalProblem(
  declared: Conditional,
  url: string,
  getRoutes: ReadonlySet<string>,
): string | null {
  if (typeof declared !== 'string') return declared.none.trim() ? null : 'conditional none gives no reason';
  if (!getRoutes.has(declared)) return `conditional ${declared} is no GET route`;
  const target = shapeOf(declared).split('/');
  const own = shapeOf(url).split('/');
  return target.every((segment, i) => segment === own[i])
    ? null
    : `conditional ${declared} is not the start of the route's own path`;
}

/** A GET route as registered: what a precondition runs to learn the current ETag. */
interface ReadRoute {
  url: string;
  handler: (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) => unknown;
  schema: FastifySchema | undefined;
}

const PRECONDITION_READ = Symbol('preconditionRead');

/**
 * Whether this request is the read an `If-Match` makes of the resource to compare its ETag. Nothing of
 * it is sent to anyone: a route that records who read what (the personal-data audit) records nothing.
 */
export function isPreconditionRead(request: FastifyRequest): boolean {
  return (request as FastifyRequest & { [PRECONDITION_READ]?: true })[PRECONDITION_READ] === true;
}

/** Handlers of GET routes use the request only; a precondition read that reached for the reply is a bug. */
const NO_REPLY = new Proxy({} as FastifyReply, {
  get() {
    throw new Error('A GET handler used the reply during a precondition read');
  },
});

const isJson = (type: ReturnType<FastifyReply['getHeader']>) =>
  typeof type === 'string' && /^application\/(?:[\w.+-]+\+)?json(?:;|$)/i.test(type);

export const CHANGED = 'The resource has changed since it was read: If-Match does not match its current ETag';
export const MISSING = 'If-Match: * asks for an existing resource, and there is none';
export const MALFORMED = 'If-Match must be * or a list of quoted entity tags, as ETag gives them';

/**
 * No lost updates (issue 23). Every JSON answer to a GET carries a strong `ETag` (see `etagOf`), and
 * `If-None-Match` that holds answers 304 without a body. Writes that declare the resource they change
 * (`conditional`) honour `If-Match`: the current ETag is computed exactly as that caller's GET
 * would (the GET route's own handler and response schema, on this request's session and membership;
 * no second round through the rate limit or the access hook) and 412 refuses the write when it differs.
 * Every write to a resource, conditional or not, holds the resource's lock from before the check until
 * its answer is sent, so no other write of it slips in between; a write without If-Match works as before.
 * With REDIS_URL every instance shares the lock (`SharedLocks`); without it the lock is of this process.
 */
export function registerConditionalRequests(app: FastifyInstance, redis: RedisLink | null): void {
  const reads = new Map<string, ReadRoute>();
  const writes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('GET')) return void writes.push(route);
    const schemaHolder = route;
    reads.set(route.url, {
      url: route.url,
      handler: route.handler,
      // Read when used: other onRoute hooks (the documentation's) still replace the response map.
      get schema() {
        return schemaHolder.schema;
      },
    });
  });

  // Read once every route is in: a write may name a GET added after it.
  app.addHook('onReady', async () => {
    const getRoutes = new Set(reads.keys());
    for (const route of writes.splice(0)) {
      const declared = route.config?.conditional;
      const problem = declared === undefined ? null : conditionalProblem(declared, route.url, getRoutes);
      if (problem) throw new Error(`${String(route.method)} ${route.url}: ${problem}`);
    }
  });
  const targetOf = (request: FastifyRequest): ReadRoute | null => {
    const url = conditionalTargetOf(request.routeOptions.config);
    return url === null ? null : reads.get(url)!;
  };

  const locks = redis ? new SharedLocks(redis, app.log) : new KeyedLocks();
  /** Per write: lets go of the resource's lock. */
  const held = new WeakMap<FastifyRequest, () => void>();

  app.addHook('preHandler', async (request, reply) => {
    const target = targetOf(request);
    if (!target) return;
    const params = targetParams(request, target);
    held.set(request, await locks.acquire(`${target.url} ${Object.values(params).join(' ')}`));
    const condition = request.headers['if-match'];
    if (condition === undefined) return;
    // Never an unconditional write for a client that meant a condition.
    if (!isEntityTagList(condition)) throw preconditionFailed(MALFORMED);
    const current = await currentEtag(request, reply, target, params);
    if (ifMatchHolds(condition, current)) return;
    if (current === null && condition.trim() !== '*') return; // the route answers its own 404
    throw preconditionFailed(current === null ? MISSING : CHANGED, current ? { etag: current } : {});
  });
  // The write is done when its answer goes out (an error included); a hijacked reply never gets here.
  const release = async (request: FastifyRequest) => held.get(request)?.();
  app.addHook('onSend', async (request, _reply, payload) => {
    await release(request);
    return payload;
  });
  app.addHook('onResponse', release);

  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return payload;
    if (reply.statusCode !== 200 || !isJson(reply.getHeader('content-type'))) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    // Hashed, and sent, as bytes: Node hashes a large string several times slower than its UTF-8 bytes
    // (a 7.5 MB answer: 50-68 ms against 5 to encode and 4 to hash), and encodes it to send it anyway.
    const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
    const etag = String(reply.getHeader('etag') ?? etagOf(body));
    void reply.header('etag', etag);
    const condition = request.headers['if-none-match'];
    if (condition === undefined || !ifNoneMatchHits(condition, etag)) return body;
    void reply.code(304);
    reply.removeHeader('content-type');
    reply.removeHeader('content-length');
    // HEAD's own hook drops the body and needs it to say the length the 200 would have had.
    return request.method === 'HEAD' ? body : null;
  });
}

/** The GET route's parameters, from this write's (validated) ones at the same places of the path. */
function targetParams(request: FastifyRequest, target: ReadRoute): Record<string, string> {
  const own = (request.routeOptions.url ?? '').split('/');
  const values = request.params as Record<string, string>;
  const params: Record<string, string> = {};
  target.url.split('/').forEach((segment, i) => {
    if (segment.startsWith(':')) params[segment.slice(1)] = String(values[own[i]!.slice(1)]).toLowerCase();
  });
  return params;
}

/** The ETag the caller's GET of the target would carry now; null when that GET answers 404. */
async function currentEtag(
  request: FastifyRequest,
  reply: FastifyReply,
  target: ReadRoute,
  params: Record<string, string>,
): Promise<string | null> {
  const read = Object.create(request, {
    params: { value: params },
    query: { value: {} },
    [PRECONDITION_READ]: { value: true },
  }) as FastifyRequest;
  let value: unknown;
  try {
    value = await target.handler.call(request.server, read, NO_REPLY);
  } catch (err) {
    if (err instanceof AppError && err.statusCode === 404) return null;
    throw err;
  }
  const schema = (target.schema?.response as Record<string, Record<string, unknown>> | undefined)?.[200];
  const json = schema
    ? reply.serializeInput(value as Record<string, unknown>, schema)
    : JSON.stringify(value);
  return etagOf(json);
}
