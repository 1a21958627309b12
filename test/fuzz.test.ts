/**
 * Schema-driven fuzzing (issue 10, suite 3): 2,000 generated requests that violate the routes' schemas
 * (test/helpers/fuzz.ts), over every route, as an org_admin and without a session. Never a 5xx, every
 * error in the contract's body, and the service answers normally afterwards. `npm run fuzz -- --requests N`
 * runs the same generator longer.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.js';
import type { Team } from './helpers/factories.js';
import { fuzzRequests, runFuzz } from './helpers/fuzz.js';
import { teamWithResources, type Ids } from './helpers/route-calls.js';

/** `npm run fuzz` sets these; `npm test` runs 2,000 requests from a fixed seed. */
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);

let t: TestApp;
let team: Team;
let ids: Ids;

beforeAll(async () => {
  t = await buildTestApp();
  ({ team, ids } = await teamWithResources(t.app, t.database.db, 'Fuzzed project'));
});
afterAll(() => t.close());

it(
  'answers 2,000 schema-violating requests over every route without a 5xx, in the contract error body',
  { timeout: 180_000 + REQUESTS * 50 },
  async () => {
    const routes = t.app.routeTable.filter(
      (route) =>
        !route.url.startsWith('/api') &&
        route.url !== '*' &&
        `${route.method} ${route.url}` !== 'POST /auth/logout',
    );
    const requests = fuzzRequests(routes, team.org.id, ids, REQUESTS, SEED);
    expect(
      new Set(requests.map((r) => r.method + r.url.split('?')[0]!.replace(/[0-9a-f-]{36}/g, ':id'))).size,
    ).toBeGreaterThan(80);
    const problems = await runFuzz(t.app, requests, team.admin);
    expect(problems.slice(0, 10)).toEqual([]);
    const health = await t.app.inject({ method: 'GET', url: '/health/ready' });
    expect(health.statusCode).toBe(200);
    const org = await t.app.inject({
      method: 'GET',
      url: `/orgs/${team.org.id}`,
      headers: { authorization: `Bearer ${team.admin.token}` },
    });
    expect(org.statusCode).toBe(200);
  },
);
