import type { FastifyInstance, FastifyRequest } from 'fastify';
import { shapeOf } from './route-shapes.js';

/**
 * Created things that have no GET of their own, and where to read them instead (by the concrete path's
 * segments and the created id).
 */
const READ_ELSEWHERE: Record<string, (path: string[], id: string | undefined) => string> = {
  // The new user, as the session that registration opened reads it.
  'POST /auth/register': () => '/auth/me',
  // An invitation is read in the organization's list of open invitations (its link token is secret).
  'POST /orgs/:orgId/members': (path) => `/orgs/${path[2]}/invitations`,
  'POST /orgs/:orgId/projects/:projectId/attachments': (path, id) =>
    `/orgs/${path[2]}/attachments/${id}/download`,
  'POST /orgs/:orgId/projects/:projectId/indicator-reports/prefill': (path, id) =>
    `/orgs/${path[2]}/indicator-reports/${id}`,
  // A respondent reads nothing of the submission; the form it went to is what they can read.
  'POST /forms/public/:token/submit': (path) => `/forms/public/${path[3]}`,
};

/**
 * Where a 201's created thing is read: its own GET when there is one (`POST .../programs/:programId/projects`
 * creates what `GET /orgs/:orgId/projects/:id` reads), else the collection it was created in when that
 * can be read (`POST .../disaggregations`), else READ_ELSEWHERE. Null when none applies (a test fails).
 * `gets`: the shapes of the GET routes (`shapeOf`).
 */
export function createdAt(
  route: string,
  path: string,
  id: string | undefined,
  gets: ReadonlySet<string>,
): string | null {
  const segments = path.split('/');
  const collection = route.split('/').at(-1) ?? '';
  if (id !== undefined && gets.has(shapeOf(`${route}/:id`))) return `${path}/${id}`;
  if (id !== undefined && route.startsWith('/orgs/:orgId/') && gets.has(`/orgs/:/${collection}/:`)) {
    return `/orgs/${segments[2]}/${collection}/${id}`;
  }
  const elsewhere = READ_ELSEWHERE[`POST ${route}`];
  if (elsewhere) return elsewhere(segments, id);
  return gets.has(shapeOf(route)) ? path : null;
}

/** `Location` on every 201 (RFC 9110 section 10.2.2), as an absolute URL under BASE_URL. */
export function registerLocations(app: FastifyInstance, baseUrl: string): void {
  // Shapes of the GET routes, collected as routes are added (not per answer).
  const gets = new Set<string>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.includes('GET')) gets.add(shapeOf(route.url));
  });
  app.addHook('preSerialization', async (request: FastifyRequest, reply, payload: unknown) => {
    if (reply.statusCode !== 201 || reply.hasHeader('location')) return payload;
    const id = (payload as { id?: unknown } | null)?.id;
    const path = request.url.split('?')[0] ?? '';
    const at = createdAt(request.routeOptions.url ?? '', path, typeof id === 'string' ? id : undefined, gets);
    if (at !== null) void reply.header('location', new URL(at, baseUrl).href);
    return payload;
  });
}
