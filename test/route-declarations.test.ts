/**
 * What the HTTP hooks need from a route is declared in its config (issue 37): the `Location` of a 201,
 * the GET an `If-Match` is checked against, and whether a POST takes an `Idempotency-Key`. These sweeps
 * walk the route table, as the access sweep does, and fail when a route leaves one out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RouteEntry } from '../src/app.js';
import { registerConditionalRequests } from '../src/http/pipeline/conditional.js';
import { registerLocations, shapeOf } from '../src/http/pipeline/location.js';
import { buildTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const name = (route: RouteEntry) => `${route.method} ${route.url}`;
const writes = () => t.app.routeTable.filter((route) => WRITES.has(route.method));

/** Every route whose schema declares a 201, as `METHOD /path/:param`. */
function creations(): Set<string> {
  const doc = t.app.swagger() as {
    paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  };
  return new Set(
    Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => operation.responses?.['201'] !== undefined)
        .map(([method]) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
    ),
  );
}

/** Whether the resource a route acts on can be read: its own path, or the path up to one of its ids. */
function hasGet(url: string, gets: ReadonlySet<string>): boolean {
  const segments = shapeOf(url).split('/');
  return segments.some(
    (segment, i) =>
      (segment === ':' || i === segments.length - 1) && gets.has(segments.slice(0, i + 1).join('/')),
  );
}

it('every route that answers 201 declares the Location of what it created, and no other does', () => {
  const created = creations();
  expect(created.size).toBeGreaterThan(20);
  const undeclared = writes().filter((route) => created.has(name(route)) && !route.config?.location);
  expect(undeclared.map(name)).toEqual([]);
  const stray = t.app.routeTable.filter((route) => route.config?.location && !created.has(name(route)));
  expect(stray.map(name)).toEqual([]);
});

it('every other write to a resource that has a GET declares its If-Match target, or none and why', () => {
  const created = creations();
  const gets = new Set(t.app.routeTable.filter((r) => r.method === 'GET').map((r) => shapeOf(r.url)));
  const changes = writes().filter((route) => !created.has(name(route)) && hasGet(route.url, gets));
  expect(changes.length).toBeGreaterThan(40);
  const undeclared = changes.filter((route) => route.config?.conditional === undefined);
  expect(undeclared.map(name)).toEqual([]);
  for (const route of writes()) {
    const declared = route.config?.conditional;
    if (typeof declared === 'object') expect(declared.none.length, name(route)).toBeGreaterThan(15);
  }
});

it('every POST declares whether it takes an Idempotency-Key, and whose; the other methods take none', () => {
  const posts = t.app.routeTable.filter((route) => route.method === 'POST');
  expect(posts.filter((route) => route.config?.idempotency === undefined).map(name)).toEqual([]);
  const others = t.app.routeTable.filter((r) => r.method !== 'POST' && r.config?.idempotency !== undefined);
  expect(others.map(name)).toEqual([]);
  for (const route of posts) {
    const declared = route.config!.idempotency!;
    // A key kept per user needs a signed-in caller; one kept per link names a parameter of the path.
    if (declared === 'user') expect(route.access, name(route)).not.toBe('public');
    if (typeof declared === 'object')
      expect(route.url.split('/'), name(route)).toContain(`:${declared.token}`);
  }
});

it('no read declares what only writes use', () => {
  const reads = t.app.routeTable.filter((route) => !WRITES.has(route.method));
  const declaring = reads.filter(
    ({ config }) => config?.conditional !== undefined || config?.location !== undefined,
  );
  expect(declaring.map(name)).toEqual([]);
});

it('stops the app at start-up when a declaration names no GET route, or one its path does not start with', async () => {
  const declared = async (config: Record<string, unknown>) => {
    const app = Fastify({ logger: false });
    registerConditionalRequests(app, null);
    registerLocations(app, 'https://api.example.org');
    app.get('/things/:id', () => ({}));
    app.get('/others/:id', () => ({}));
    app.post('/things/:thingId/parts', { config }, () => ({}));
    try {
      await app.ready();
      return 'ready';
    } catch (err) {
      return (err as Error).message;
    } finally {
      await app.close();
    }
  };
  expect(await declared({ location: '/things/:thingId', conditional: { none: 'a creation' } })).toBe('ready');
  expect(await declared({ conditional: '/things/:id' })).toBe('ready');
  expect(await declared({ location: '/parts/:newId' })).toMatch(/location \/parts\/:newId is no GET route/);
  expect(await declared({ location: '/things/:id' })).toMatch(/takes :id, which the route has not/);
  expect(await declared({ conditional: '/things' })).toMatch(/conditional \/things is no GET route/);
  expect(await declared({ conditional: '/others/:id' })).toMatch(/is not the start of the route's own path/);
  expect(await declared({ conditional: { none: ' ' } })).toMatch(/gives no reason/);
});

it('leaves no module URL in src/http: the routes declare what the hooks need', () => {
  const http = path.resolve(import.meta.dirname, '../src/http');
  const sources = readdirSync(http, { recursive: true, encoding: 'utf8' }).filter(
    (file) => file.endsWith('.ts') && !file.endsWith('.test.ts'),
  );
  expect(sources.length).toBeGreaterThan(10);
  const named = sources.flatMap((file) =>
    readFileSync(path.join(http, file), 'utf8')
      .split('\n')
      .flatMap((line, i) =>
        /\/(orgs|auth|forms|invitations|reports)\//.test(line) ? [`${file}:${i + 1}`] : [],
      ),
  );
  expect(named).toEqual([]);
});
