import { PGlite } from '@electric-sql/pglite';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { periodLocked } from '../src/errors/catalogue.js';
import { registerErrorHandler } from '../src/http/errors/replies.js';
import { redactedUrl } from '../src/http/observability/logging.js';
import { buildTestApp } from './helpers/app.js';
import { registerUser, uniqueEmail } from './helpers/factories.js';
import { call, badRequestAt } from './helpers/http.js';
import { useSuite } from './helpers/suite.js';

const { t, team } = useSuite();
describe('error bodies', () => {
  it('answers an unknown route with a JSON 404', async () => {
    const res = await call(t.app, 'GET', '/no/such/route?x=1');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      statusCode: 404,
      message: 'Route GET /no/such/route not found',
      error: 'Not Found',
      code: 'not_found',
    });
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
  });

  it('answers malformed JSON with 400', async () => {
    const res = await call(t.app, 'POST', '/auth/login', {
      body: '{"email": "a@b.org",',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      statusCode: 400,
      message: ['Body is not valid JSON'],
      error: 'Bad Request',
      code: 'malformed_request',
      details: [{ in: 'body', path: '', rule: 'json', message: 'Body is not valid JSON' }],
    });
  });

  it('answers a body over 1 MiB with 413', async () => {
    const res = await call(t.app, 'POST', '/auth/login', {
      body: JSON.stringify({ email: 'a@b.org', password: 'x'.repeat(1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      statusCode: 413,
      message: 'Request body is larger than 1 MiB',
      error: 'Payload Too Large',
      code: 'payload_too_large',
    });
  });

  it('answers an unsupported content type with 415', async () => {
    const res = await call(t.app, 'POST', '/auth/login', {
      body: 'email=a@b.org',
      headers: { 'content-type': 'text/xml' },
    });
    expect(res.status).toBe(415);
    expect(res.body.statusCode).toBe(415);
    expect(res.body.error).toBe('Unsupported Media Type');
  });

  it('validates bodies strictly: no type coercion, unknown properties named', async () => {
    const res = await call(t.app, 'POST', '/auth/register', {
      body: { email: 'x@example.org', password: 12345678, firstName: 5, lastName: 'L', admin: true },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual(
      expect.arrayContaining([
        'password must be a string',
        'firstName must be a string',
        'property admin should not exist',
      ]),
    );
    expect(res.body.message).toHaveLength(3);
  });

  it('names a path id that is not a UUID', async () => {
    const res = await call(t.app, 'PATCH', `/orgs/${team.org.id}/members/abc`, {
      as: team.admin,
      body: { role: 'viewer' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(badRequestAt(['path', '/userId', 'format', 'userId must be a UUID']));
  });

  it('refuses a UUID with a urn:uuid: prefix, which the database would not take', async () => {
    const id = 'urn:uuid:0190f5f4-0000-7000-8000-000000000000';
    const res = await call(t.app, 'GET', `/orgs/${team.org.id}/projects/${id}`, { as: team.admin });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(badRequestAt(['path', '/id', 'format', 'id must be a UUID']));
  });

  it('refuses a page size above 100 and a page below 1', async () => {
    const res = await call(t.app, 'GET', `/orgs/${team.org.id}/members?limit=101&page=0`, {
      as: team.viewer,
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual(
      expect.arrayContaining(['limit must not be greater than 100', 'page must not be less than 1']),
    );
  });

  it('hides internals of unexpected errors and maps domain errors', async () => {
    const app = Fastify({ logger: false });
    registerErrorHandler(app);
    app.get('/boom', () => {
      throw new Error('password=secret at db.internal:5432');
    });
    app.get('/duplicate', () => {
      throw Object.assign(new Error('duplicate key value violates unique constraint "users_email_unique"'), {
        code: '23505',
      });
    });
    app.get('/locked', () => {
      throw periodLocked();
    });
    const boom = await app.inject({ method: 'GET', url: '/boom' });
    expect(boom.statusCode).toBe(500);
    expect(boom.json()).toEqual({
      statusCode: 500,
      message: 'Internal server error',
      error: 'Internal Server Error',
      code: 'internal_error',
    });
    const duplicate = await app.inject({ method: 'GET', url: '/duplicate' });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json()).toEqual({
      statusCode: 409,
      message: 'The record already exists',
      error: 'Conflict',
      code: 'duplicate',
    });
    const locked = await app.inject({ method: 'GET', url: '/locked' });
    expect(locked.json()).toEqual({
      statusCode: 403,
      message: 'Reporting period is locked',
      error: 'Forbidden',
      code: 'period_locked',
    });
    await app.close();
  });
});

describe('headers', () => {
  it('echoes a given X-Request-Id and makes one up otherwise', async () => {
    const given = await call(t.app, 'GET', '/health', { headers: { 'x-request-id': 'client-req-42' } });
    expect(given.headers['x-request-id']).toBe('client-req-42');
    const made = await call(t.app, 'GET', '/health');
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const unsafe = await call(t.app, 'GET', '/health', {
      headers: { 'x-request-id': 'bad id\twith spaces' },
    });
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const onError = await call(t.app, 'GET', '/nowhere', { headers: { 'x-request-id': 'trace-7' } });
    expect(onError.headers['x-request-id']).toBe('trace-7');
  });

  it('allows credentialed CORS from APP_URL only, with every method the API uses', async () => {
    const preflight = await call(t.app, 'OPTIONS' as 'GET', '/orgs', {
      headers: { origin: 'http://app.test', 'access-control-request-method': 'PATCH' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('http://app.test');
    expect(preflight.headers['access-control-allow-credentials']).toBe('true');
    expect(String(preflight.headers['access-control-allow-methods'])).toContain('PATCH');
    expect(String(preflight.headers['access-control-allow-methods'])).toContain('DELETE');
    const foreign = await call(t.app, 'GET', '/health', { headers: { origin: 'http://evil.test' } });
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('sets security headers', async () => {
    const res = await call(t.app, 'GET', '/health');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });
});

describe('health', () => {
  // With REDIS_URL readiness also tells whether Redis answers (test/hardening/07-redis-hang.test.ts).
  const redis = process.env.REDIS_URL ? { redis: 'ok' } : {};

  it('reports live and ready', async () => {
    expect((await call(t.app, 'GET', '/health')).body).toEqual({ status: 'ok' });
    const ready = await call(t.app, 'GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', ...redis });
    expect(ready.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('is not ready while migrations are missing', async () => {
    const pglite = new PGlite();
    const bare = await buildTestApp(
      {},
      { database: openDatabase({ databaseUrl: null, dataDir: '', pglite }) },
    );
    const ready = await call(bare.app, 'GET', '/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'unavailable', ...redis });
    expect((await call(bare.app, 'GET', '/health')).status).toBe(200);
    await bare.close();
    await pglite.close();
  });
});

describe('bodies', () => {
  it('treats an empty JSON body as no body', async () => {
    const user = await registerUser(t.app);
    const logout = await call(t.app, 'POST', '/auth/logout', {
      as: user,
      headers: { 'content-type': 'application/json' },
    });
    expect(logout.status).toBe(204);
    const login = await call(t.app, 'POST', '/auth/login', {
      headers: { 'content-type': 'application/json' },
    });
    expect(login.status).toBe(400);
    expect(login.body).toEqual(badRequestAt(['body', '', 'type', 'body must be an object']));
  });

  it('refuses prototype poisoning', async () => {
    const res = await call(t.app, 'POST', '/auth/login', {
      body: '{"email":"a@b.org","password":"x","__proto__":{"admin":true}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
  });
});

it('answers an over-long path value with the contract body', async () => {
  const res = await call(t.app, 'GET', `/invitations/${'x'.repeat(600)}`);
  expect(res.status).toBe(400);
  expect(res.body).toEqual(
    badRequestAt(['path', '/token', 'maxLength', 'token must be at most 512 characters']),
  );
});

it('answers a path value over the router limit, and a URL that does not decode, with the contract body', async () => {
  const long = await call(t.app, 'GET', `/orgs/${'0'.repeat(3000)}`);
  expect(long.status).toBe(414);
  expect(long.body).toEqual({
    statusCode: 414,
    message: 'A value in the path is too long',
    error: 'URI Too Long',
    code: 'uri_too_long',
  });
  const undecodable = await call(t.app, 'GET', '/invitations/%E0%A4%A');
  expect(undecodable.status).toBe(400);
  expect(undecodable.body).toEqual({
    statusCode: 400,
    message: ['The URL is not valid'],
    error: 'Bad Request',
    code: 'malformed_request',
    details: [{ in: 'path', path: '', rule: 'url', message: 'The URL is not valid' }],
  });
});

describe('hardening', () => {
  it('answers text/plain with 415, like any type but JSON', async () => {
    const res = await call(t.app, 'POST', '/auth/login', {
      body: 'email=a@b.org',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error).toBe('Unsupported Media Type');
  });

  it('refuses absurd page numbers with 400 instead of failing in SQL', async () => {
    for (const page of ['1e300', '99999999999999999999', '1000001']) {
      const res = await call(t.app, 'GET', `/orgs/${team.org.id}/members?page=${page}`, { as: team.viewer });
      expect(res.status, page).toBe(400);
      expect(res.body.message).toEqual(['page must not be greater than 1000000']);
    }
  });

  it('maps a constraint error wrapped by the query builder to 409', async () => {
    const app = Fastify({ logger: false });
    registerErrorHandler(app);
    app.get('/wrapped', () => {
      throw Object.assign(new Error('Failed query: insert into ...'), {
        cause: Object.assign(new Error('duplicate key'), { code: '23505', constraint: 'x_key' }),
      });
    });
    const res = await app.inject({ method: 'GET', url: '/wrapped' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      statusCode: 409,
      message: 'The record already exists',
      error: 'Conflict',
      code: 'duplicate',
    });
    await app.close();
  });

  it('keeps link tokens out of logged URLs', () => {
    expect(redactedUrl({ url: '/invitations/abc123/accept', params: { token: 'abc123' } })).toBe(
      '/invitations/[redacted]/accept',
    );
    expect(redactedUrl({ url: '/reset-password?token=s3cret&x=1', params: {} })).toBe(
      '/reset-password?token=[redacted]&x=1',
    );
    expect(redactedUrl({ url: '/auth/idp/callback?code=abc&state=xyz', params: {} })).toBe(
      '/auth/idp/callback?code=[redacted]&state=xyz',
    );
    expect(redactedUrl({ url: '/x?postcode=123&zipcode=9', params: {} })).toBe('/x?postcode=123&zipcode=9');
    expect(redactedUrl({ url: `/orgs/${team.org.id}`, params: { orgId: team.org.id } })).toBe(
      `/orgs/${team.org.id}`,
    );
  });

  it('gives every one of many concurrent invitations of one address a 201 and keeps one open', async () => {
    const email = uniqueEmail('racing');
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        call(t.app, 'POST', `/orgs/${team.org.id}/members`, {
          as: team.admin,
          body: { email, role: 'viewer' },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
    const open = await call(t.app, 'GET', `/orgs/${team.org.id}/invitations`, { as: team.admin });
    expect(open.body.filter((i: { email: string }) => i.email === email)).toHaveLength(1);
  });
});

it('reports one message for a bad value of a nullable field', async () => {
  const res = await call(t.app, 'PATCH', `/orgs/${team.org.id}`, {
    as: team.admin,
    body: { logoUrl: 'nope' },
  });
  expect(res.status).toBe(400);
  // Two rules (URL format, http(s) scheme) each name the field once; no "must be null" from the nullable branch.
  expect([...res.body.message].sort()).toEqual([
    'logoUrl must be a valid URL',
    'logoUrl must be an http or https URL',
  ]);
});

describe('405 for a known path with a method it does not serve', () => {
  it('answers 405 with Allow listing the path’s methods, HEAD with GET; unknown paths stay 404', async () => {
    const project = `/orgs/${team.org.id}/projects/0190f5f4-0000-7000-8000-000000000000`;
    const put = await call(t.app, 'PUT', project, { as: team.admin, body: { name: 'x' } });
    expect([put.status, put.headers.allow]).toEqual([405, 'GET, HEAD, PATCH, DELETE']);
    expect(put.body).toEqual({
      statusCode: 405,
      message: `Method PUT is not allowed on ${project}`,
      error: 'Method Not Allowed',
      code: 'method_not_allowed',
    });
    const post = await call(t.app, 'POST', '/health', {});
    expect([post.status, post.headers.allow]).toEqual([405, 'GET, HEAD']);
    const deleteOrgs = await call(t.app, 'DELETE', '/orgs?page=1');
    expect([deleteOrgs.status, deleteOrgs.headers.allow]).toEqual([405, 'GET, HEAD, POST']);
    const getLogin = await call(t.app, 'GET', '/auth/login');
    expect([getLogin.status, getLogin.headers.allow]).toEqual([405, 'POST']);
    // Without a session too: the methods of a path are no secret (the OpenAPI document lists them).
    expect((await call(t.app, 'PUT', `/orgs/${team.org.id}`)).status).toBe(405);

    const unknown = await call(t.app, 'PUT', '/no/such/route');
    expect([unknown.status, unknown.headers.allow]).toEqual([404, undefined]);
    expect(unknown.body.message).toBe('Route PUT /no/such/route not found');
    // CORS still answers preflights on any path.
    const preflight = await call(t.app, 'OPTIONS' as 'GET', project, {
      headers: { origin: 'http://app.test', 'access-control-request-method': 'PATCH' },
    });
    expect(preflight.status).toBe(204);
  });
});

describe('Cache-Control', () => {
  it('is no-store on every answer to an authenticated request, errors included', async () => {
    const org = await call(t.app, 'GET', `/orgs/${team.org.id}`, { as: team.viewer });
    expect([org.status, org.headers['cache-control']]).toEqual([200, 'no-store']);
    const refused = await call(t.app, 'PATCH', `/orgs/${team.org.id}`, {
      as: team.viewer,
      body: { name: 'x' },
    });
    expect([refused.status, refused.headers['cache-control']]).toEqual([403, 'no-store']);
    const badToken = await call(t.app, 'GET', '/auth/me', { headers: { authorization: 'Bearer nope' } });
    expect([badToken.status, badToken.headers['cache-control']]).toEqual([401, 'no-store']);
    const login = await call(t.app, 'POST', '/auth/login', {
      body: { email: team.viewer.email, password: 'not the password' },
    });
    expect(login.headers['cache-control']).toBeUndefined();
    expect((await call(t.app, 'GET', '/health')).headers['cache-control']).toBeUndefined();
  });
});
