import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Where the thing a 201 created is read: the URL of a GET route, each `:name` taken from this route's
     * path and `:newId` from the created thing's `id` (`/things/:thingId/parts/:newId`). A thing without a
     * GET of its own names where it can be read (its collection, or what it belongs to).
     */
    location?: string;
  }
}

/** The parameter of a `location` that the created thing's id fills. */
export const NEW_ID = ':newId';

/**
 * A `location` filled for one request: each `:name` is the segment of the path as sent (`path`) where the
 * route (`routeUrl`) has `:name`, and `:newId` is `id`. Null when it needs an id the answer does not have.
 */
export function locationOf(
  template: string,
  routeUrl: string,
  path: string,
  id: string | undefined,
): string | null {
  const sent = path.split('/');
  const own = new Map(routeUrl.split('/').map((segment, i) => [segment, sent[i]]));
  const filled = template.split('/').map((segment) => {
    if (segment === NEW_ID) return id;
    return segment.startsWith(':') ? own.get(segment) : segment;
  });
  return filled.includes(undefined) ? null : filled.join('/');
}

/** Why a route's `location` cannot be filled, or null when it can. `gets`: the shapes of the GET routes. */
export function locationProblem(
  template: string,
  routeUrl: string,
  gets: ReadonlySet<string>,
): string | null {
  if (!gets.has(shapeOf(template))) return `location ${template} is no GET route`;
  const own = new Set(routeUrl.split('/'));
  if (own.has(NEW_ID)) return `${NEW_ID} is the created id, not a parameter of the route`;
  const unknown = template.split('/').filter((s) => s.startsWith(':') && s !== NEW_ID && !own.has(s));
  return unknown.length > 0
    ? `location ${template} takes ${unknown.join(', ')}, which the route has not`
    : null;
}

/**
 * `Location` on every 201 (RFC 9110 section 10.2.2) of a route that declares one, as an absolute URL
 * under BASE_URL. A declaration that names no GET route, or a parameter the route has not, stops the
 * app at start-up.
 */
export function registerLocations(app: FastifyInstance, baseUrl: string): void {
  const gets = new Set<string>();
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.includes('GET')) gets.add(shapeOf(route.url));
    routes.push(route);
  });
  // Read once every route is in: a declaration may name a GET added after its route.
  app.addHook('onReady', async () => {
    for (const route of routes.splice(0)) {
      const template = route.config?.location;
      const problem = template === undefined ? null : locationProblem(template, route.url, gets);
      if (problem) throw new Error(`${String(route.method)} ${route.url}: ${problem}`);
    }
  });
  app.addHook('preSerialization', async (request: FastifyRequest, reply, payload: unknown) => {
    const template = request.routeOptions.config.location;
    if (reply.statusCode !== 201 || template === undefined || reply.hasHeader('location')) return payload;
    const id = (payload as { id?: unknown } | null)?.id;
    const path = request.url.split('?')[0] ?? '';
    const at = locationOf(
      template,
      request.routeOptions.url ?? '',
      path,
      typeof id === 'string' ? id : undefined,
    );
    if (at !== null) void reply.header('location', new URL(at, baseUrl).href);
    return payload;
  });
}

/**
 * A route's shape, its parameter names left out (`/things/:/parts/:`): two routes of one shape name the
 * same resource, whatever they call their ids (`/things/:thingId` and `/things/:id`).
 */
export const shapeOf = (url: string) => url.replace(/:[^/]+/g, ':');
