/**
 * Schema-driven fuzzing (issues 10 and 20): generated requests that violate the routes' schemas, or keep
 * their shape with values an attacker picks (test/helpers/fuzz.ts), over every route, as an org_admin and
 * without a session. Never a 5xx, every error in the contract's body, no request that holds the service,
 * and nothing stored that breaks a later read: afterwards every list of the organization answers.
 * `npm run fuzz -- --requests N` runs the same generator longer; `npm test` runs 2,000 from a fixed seed.
 */
import { Writable } from 'node:stream';
import { NO_PROJECTS, SAME_IDENTIFIER } from '../src/modules/iati/iati.service.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loggerOptions } from '../src/http/observability/logging.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import type { Team } from './helpers/factories.js';
import { publishedForm } from './helpers/forms.js';
import { fuzzRequests, runFuzz } from './helpers/fuzz.js';
import { call } from './helpers/http.js';
import { orgRoutes, pathFor, teamWithResources, type Ids } from './helpers/route-calls.js';

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);

let t: TestApp;
let team: Team;
let ids: Ids;

beforeAll(async () => {
  // Logged at info, as in production: what the request log does with a hostile URL is fuzzed too.
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  t = await buildTestApp({}, { logger: { ...loggerOptions({ logLevel: 'info' }), stream: sink } });
  ({ team, ids } = await teamWithResources(t.app, t.database.db, 'Fuzzed project'));
  // Public submissions count their household size into the project's indicator, so extreme answers
  // reach the counting statement; the report is shared, so its public routes are reached too.
  const counting = await publishedForm(t.app, team.admin, team.org.id, {
    projectId: ids.project,
    indicatorId: ids.indicator,
    reportingPeriodId: ids.period,
    valueFieldKey: 'household_size',
  });
  const shared = await call(t.app, 'PATCH', `/orgs/${team.org.id}/reports/${ids.report}/share`, {
    as: team.admin,
  });
  expect(shared.status).toBe(200);
  ids = { ...ids, formToken: counting.publicToken, shareToken: shared.body.shareToken as string };
});
afterAll(() => t.close());

it(
  `answers ${REQUESTS} hostile requests over every route without a 5xx, in the contract error body`,
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

    // Every list of the organization still reads what the fuzz stored. A list under a resource the fuzz
    // deleted (it sends DELETE too) is that resource's 404.
    const broken: string[] = [];
    // The IATI export needs the organization's identifier, which the fuzz may have cleared; no project
    // left (the fuzz deletes too), or two it created with codes giving one IATI identifier, are a 409
    // the stored data deserves.
    const iati = await call(t.app, 'PATCH', `/orgs/${team.org.id}`, {
      as: team.admin,
      body: { iatiRef: 'XM-FUZZ-1' },
    });
    expect(iati.status).toBe(200);
    for (const route of orgRoutes(t.app)) {
      if (route.method !== 'GET' || route.url.endsWith('/download') || /\/:[a-zA-Z]+$/.test(route.url))
        continue;
      const res = await call(t.app, 'GET', pathFor(route, team.org.id, ids), { as: team.admin });
      const gone =
        (res.status === 404 && /^[A-Z][a-z ]+ not found$/.test(String(res.body?.message))) ||
        (res.status === 409 &&
          [NO_PROJECTS, SAME_IDENTIFIER].some((refusal) => String(res.body?.message).startsWith(refusal)));
      if (res.status !== 200 && !gone) broken.push(`${route.url}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(broken).toEqual([]);
    const org = await call(t.app, 'GET', `/orgs/${team.org.id}`, { as: team.admin });
    expect(org.status).toBe(200);
  },
);
