/**
 * Tenant isolation over every registered route (issue 10, suite 1). Organization B holds one of every
 * kind of resource; organization A's org_admin then calls every `/orgs/:orgId/...` route
 *   - on B's paths (B's org id, B's ids): always 403, whatever the route;
 *   - on A's paths with B's ids: 404, never one of B's ids in the answer (routes that need a body are
 *     sent a valid one, so that they get past validation to the ids);
 *   - with B's ids inside the bodies of A's requests: 404 for the main cases;
 *   - on A's lists: none of B's ids.
 * A route with a path parameter this file does not know fails the suite: new routes must be added here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createProject, createTeam, type Team } from './helpers/factories.js';
import { call, notAMember, type Call } from './helpers/http.js';
import {
  callRoute,
  isForbidden,
  orgRoutes,
  pathFor,
  resourcesIn,
  takesIds,
  type Ids,
  type Route,
} from './helpers/route-calls.js';

let t: TestApp;
let a: Team;
let b: Team;
/** B's ids by kind. */
let theirs: Ids;
let routes: Route[];

const request = (route: Route, orgId: string) => callRoute(t.app, route, orgId, theirs, a.admin);

/** B's ids found in an answer (`assignee` is A's own user, whom B's bodies name; `fileKey` is no id). */
const leaks = (res: Call) => {
  const text = JSON.stringify(res.body ?? '');
  return Object.entries(theirs).filter(
    ([kind, id]) => kind !== 'fileKey' && kind !== 'assignee' && text.includes(id),
  );
};

beforeAll(async () => {
  t = await buildTestApp();
  [a, b] = await Promise.all([createTeam(t.app, t.database.db), createTeam(t.app, t.database.db)]);
  theirs = await resourcesIn(
    t.app,
    t.database.db,
    b.admin,
    b.org.id,
    'Their project',
    b.officer.id,
    a.officer.id,
  );
  routes = orgRoutes(t.app);
  // A publishes to IATI: its export is one of the lists (it needs an IATI identifier and a project).
  await createProject(t.database.db, a.org.id, 'Our project');
  const iati = await call(t.app, 'PATCH', `/orgs/${a.org.id}`, {
    as: a.admin,
    body: { iatiRef: 'XM-OUR-1' },
  });
  expect(iati.status).toBe(200);
});
afterAll(() => t.close());

describe('tenant isolation over every /orgs/:orgId route', () => {
  it('knows every path parameter of every route (a new route must be added to this suite)', () => {
    expect(routes.length).toBeGreaterThan(80);
    for (const route of routes) expect(() => pathFor(route, a.org.id, theirs)).not.toThrow();
  });

  it("refuses A's admin every route on B's paths with 403, not a member, naming the route's roles", async () => {
    const wrong: string[] = [];
    for (const route of routes) {
      const res = await request(route, b.org.id);
      const access = t.app.routeTable.find((r) => r.method === route.method && r.url === route.url)?.access;
      const roles = typeof access === 'object' ? access.roles : [];
      if (!isForbidden(res, notAMember(roles))) {
        wrong.push(`${route.method} ${route.url}: ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("answers A's paths carrying B's ids with 404, never B's data", async () => {
    const wrong: string[] = [];
    const withIds = routes.filter(takesIds);
    expect(withIds.length).toBeGreaterThan(50);
    for (const route of withIds) {
      const res = await request(route, a.org.id);
      const leaked = leaks(res);
      if (res.status !== 404 || leaked.length > 0) {
        wrong.push(
          `${route.method} ${route.url}: ${res.status} ${leaked.map(([k]) => k).join(',')} ${JSON.stringify(res.body).slice(0, 120)}`,
        );
      }
    }
    expect(wrong).toEqual([]);
  });

  it("refuses B's ids inside the bodies of A's requests", async () => {
    const ours = await createProject(t.database.db, a.org.id, 'Our project');
    const { programId } = (await call(t.app, 'GET', `/orgs/${a.org.id}/projects/${ours.id}`, { as: a.admin }))
      .body as { programId: string };
    const org = `/orgs/${a.org.id}`;
    const cases: [string, string, unknown, number, string][] = [
      [
        'POST',
        `${org}/reports`,
        { title: 'Mine', projectId: theirs.project, reportType: 'ad_hoc', periodIds: [theirs.period] },
        404,
        'Project not found',
      ],
      [
        'POST',
        `${org}/reports`,
        { title: 'Mine', projectId: ours.id, reportType: 'ad_hoc', periodIds: [theirs.period] },
        404,
        'Reporting period not found',
      ],
      [
        'POST',
        `${org}/projects/${ours.id}/indicators`,
        { indicatorId: theirs.indicator },
        404,
        'Indicator not found',
      ],
      ['POST', `${org}/projects/${ours.id}/members`, { userId: theirs.member }, 404, 'Member not found'],
      [
        'POST',
        `${org}/forms`,
        { title: 'Mine', projectId: theirs.project, fields: [{ key: 'q', label: 'Q', type: 'text' }] },
        404,
        'Project not found',
      ],
      ['PATCH', `${org}/programs/${programId}`, { donorIds: [theirs.donor] }, 404, 'Donor not found'],
      [
        'POST',
        `${org}/programs`,
        { name: 'Mine', startDate: '2026-01-01', endDate: '2026-12-31', donorIds: [theirs.donor] },
        404,
        'Donor not found',
      ],
    ];
    const wrong: string[] = [];
    for (const [method, url, body, status, message] of cases) {
      const res = await call(t.app, method as 'POST', url, { as: a.admin, body });
      const expected = { statusCode: status, message, error: 'Not Found', code: 'not_found' };
      if (JSON.stringify(res.body) !== JSON.stringify(expected) || leaks(res).length > 0) {
        wrong.push(
          `${method} ${url.replace(a.org.id, 'A')} ${JSON.stringify(body).slice(0, 60)}: ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`,
        );
      }
    }
    expect(wrong).toEqual([]);
  });

  it("lists none of B's ids in any of A's lists", async () => {
    const lists = routes.filter((route) => route.method === 'GET' && !takesIds(route));
    expect(lists.length).toBeGreaterThan(8);
    const wrong: string[] = [];
    for (const route of lists) {
      const res = await call(t.app, 'GET', pathFor(route, a.org.id, theirs), { as: a.admin });
      if (res.status !== 200 || leaks(res).length > 0) {
        wrong.push(
          `${route.url}: ${res.status} ${leaks(res)
            .map(([k]) => k)
            .join(',')}`,
        );
      }
    }
    expect(wrong).toEqual([]);
  });
});
