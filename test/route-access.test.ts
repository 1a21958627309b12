import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALL_ROLES } from '../src/http/pipeline/access.js';
import { buildTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const PUBLIC_ROUTES = new Set([
  'GET /health',
  'GET /health/ready',
  'POST /auth/register',
  'POST /auth/login',
  'POST /auth/token',
  'POST /auth/forgot-password',
  'POST /auth/reset-password',
  'POST /auth/verify-email',
  'GET /invitations/:token',
  'GET /auth/idp',
  'GET /auth/idp/callback',
  'GET /forms/public/:token',
  'POST /forms/public/:token/submit',
  'GET /reports/share/:token',
  'GET /reports/share/:token/attachments/:attachmentId',
]);
/** The pages behind the links the service hands out (issue 11), and their scripts and stylesheet. */
const PUBLIC_PAGES = new Set([
  'GET /f/:token',
  'GET /r/:token',
  'GET /invitations/:token',
  'GET /reset-password',
  'GET /verify-email',
  'GET /assets/:name',
  // The form pages' service worker (issue 23: the form page works offline).
  'GET /f/form-worker.js',
  // Where the member pages send a signed-out visitor (issue 38), and where they return after it.
  'GET /sign-in',
  // Where sign-in with the identity provider ends when FRONTEND_URL is the service (its default).
  'GET /auth/callback',
]);

it('every registered route declares its access rule', () => {
  const undeclared = t.app.routeTable.filter((route) => route.access === undefined);
  expect(undeclared).toEqual([]);
  expect(t.app.routeTable.length).toBeGreaterThan(20);
});

it('only the routes the contract makes public are public (besides the documentation)', () => {
  const publicRoutes = t.app.routeTable
    .filter((route) => route.access === 'public' && !route.url.startsWith('/api') && route.url !== '*')
    .map((route) => `${route.method} ${route.url}`);
  expect(new Set(publicRoutes)).toEqual(new Set([...PUBLIC_ROUTES, ...PUBLIC_PAGES]));
});

it('every route under /orgs/:orgId is scoped to members with declared roles', () => {
  const scoped = t.app.routeTable.filter((route) => route.url.startsWith('/orgs/:orgId'));
  expect(scoped.length).toBeGreaterThan(5);
  for (const route of scoped) {
    expect(typeof route.access, `${route.method} ${route.url}`).toBe('object');
    if (typeof route.access !== 'object') continue;
    expect(route.access.roles.length).toBeGreaterThan(0);
    for (const role of route.access.roles) expect(ALL_ROLES).toContain(role);
  }
});

it('a route that declares no access rule is refused at request time', async () => {
  // A built app cannot take new routes, so the access hook is mounted on a bare instance.
  const { default: Fastify } = await import('fastify');
  const app = Fastify();
  const { registerAccess } = await import('../src/http/pipeline/access.js');
  const { registerErrorHandler } = await import('../src/http/errors/replies.js');
  const { Sessions } = await import('../src/http/pipeline/session.js');
  const { memberships } = await import('../src/modules/orgs/memberships.repo.js');
  registerErrorHandler(app);
  await app.register((await import('@fastify/cookie')).default);
  registerAccess(app, t.database.db, new Sessions(t.config), memberships);
  app.get('/undeclared', () => ({ leaked: true }));
  const res = await app.inject({ method: 'GET', url: '/undeclared' });
  expect(res.statusCode).toBe(500);
  expect(res.json()).toEqual({
    statusCode: 500,
    message: 'Internal server error',
    error: 'Internal Server Error',
    code: 'internal_error',
  });
  await app.close();
});
