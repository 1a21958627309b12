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
import { budgetLines } from '../src/modules/budget/budget.tables.js';
import { postActivity, person, register } from './helpers/activities.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createProject, createTeam, insertDonor, type Team, type TestUser } from './helpers/factories.js';
import { multipart, PDF } from './helpers/files.js';
import { answers, publishedForm, submitUrl } from './helpers/forms.js';
import { call, FORBIDDEN, type Call } from './helpers/http.js';
import { linkIndicator, postDisaggregation, postIndicator, postReport } from './helpers/indicators.js';
import { createPeriod } from './helpers/periods.js';
import { insertResultNode } from './helpers/results.js';

let t: TestApp;
let a: Team;
let b: Team;
/** B's ids by kind. */
let theirs: Record<string, string>;

interface Route {
  method: string;
  url: string;
}
let routes: Route[];

/** The kind of resource a `:id` names, from the path segment before it. */
const KIND_OF_SEGMENT: Record<string, string> = {
  activities: 'activity',
  attachments: 'attachment',
  'budget-lines': 'budgetLine',
  donors: 'donor',
  forms: 'form',
  'indicator-reports': 'indicatorReport',
  indicators: 'indicator',
  invitations: 'invitation',
  participants: 'participant',
  programs: 'program',
  projects: 'project',
  'reporting-periods': 'period',
  reports: 'report',
  'result-nodes': 'resultNode',
};
/** The kind a named parameter holds. */
const KIND_OF_PARAM: Record<string, string> = {
  activityId: 'activity',
  participantId: 'participant',
  disaggregationId: 'disaggregation',
  formId: 'form',
  submissionId: 'submission',
  key: 'fileKey',
  indicatorId: 'indicator',
  programId: 'program',
  projectId: 'project',
  userId: 'member',
};

/** Uploads: a real file, so that the route gets past the content type to the ids. */
const MULTIPART = new Set(['POST /orgs/:orgId/projects/:projectId/attachments']);
const pdf = () =>
  multipart([{ name: 'file', value: PDF, fileName: 'a.pdf', contentType: 'application/pdf' }]);

/**
 * Valid bodies for the routes that refuse `{}`, so that they get past validation to the ids in their
 * path. A new route that needs a body and is missing here answers 400 and fails the suite.
 */
const BODIES: Record<string, () => unknown> = {
  'PATCH /orgs/:orgId/members/:userId': () => ({ role: 'viewer' }),
  'POST /orgs/:orgId/programs/:programId/projects': () => ({
    name: 'Mine',
    code: 'mine-1',
    currency: 'USD',
    budget: 1,
    startDate: '2026-01-01',
    endDate: '2026-12-31',
  }),
  'POST /orgs/:orgId/projects/:projectId/members': () => ({ userId: a.officer.id }),
  'POST /orgs/:orgId/programs/:programId/result-nodes': () => ({ level: 'impact', title: 'Mine' }),
  'POST /orgs/:orgId/projects/:projectId/reporting-periods': () => ({
    label: 'Q1',
    startDate: '2026-01-01',
    endDate: '2026-03-31',
  }),
  'POST /orgs/:orgId/indicators/:id/disaggregations': () => ({ name: 'Age', categories: ['young', 'old'] }),
  'POST /orgs/:orgId/projects/:projectId/indicators': () => ({ indicatorId: theirs.indicator }),
  'POST /orgs/:orgId/projects/:projectId/indicator-reports': () => ({
    indicatorId: theirs.indicator,
    reportingPeriodId: theirs.period,
    value: 1,
  }),
  'POST /orgs/:orgId/projects/:projectId/indicator-reports/prefill': () => ({
    indicatorId: theirs.indicator,
    reportingPeriodId: theirs.period,
  }),
  'PATCH /orgs/:orgId/indicator-reports/:id/reject': () => ({ comment: 'No' }),
  'POST /orgs/:orgId/projects/:projectId/activities': () => ({
    title: 'Mine',
    startDate: '2026-02-01',
    endDate: '2026-02-03',
  }),
  'POST /orgs/:orgId/activities/:id/participants': () => ({ participants: [person()] }),
  'POST /orgs/:orgId/participants/:id/household-members': () => ({
    name: 'Kid',
    relationship: 'child',
    sex: 'female',
    age: 4,
  }),
  'POST /orgs/:orgId/projects/:projectId/budget-lines': () => ({ category: 'Travel', plannedAmount: 1 }),
  'POST /orgs/:orgId/projects/:projectId/reports': () => ({
    title: 'Mine',
    reportType: 'ad_hoc',
    startDate: '2026-01-01',
    endDate: '2026-03-31',
  }),
};

/** What a route is sent: a file, a body from BODIES, `{}`, or nothing on GET and DELETE. */
function request(route: Route, orgId: string) {
  const name = `${route.method} ${route.url}`;
  const body = BODIES[name];
  return call(t.app, route.method as 'GET', pathFor(route, orgId), {
    as: a.admin,
    ...(MULTIPART.has(name)
      ? pdf()
      : body
        ? { body: body() }
        : route.method === 'GET' || route.method === 'DELETE'
          ? {}
          : { body: {} }),
  });
}

/** The route's path for `orgId` with B's ids; throws on a parameter this file does not know. */
function pathFor(route: Route, orgId: string): string {
  const segments = route.url.split('/');
  return segments
    .map((segment, index) => {
      if (!segment.startsWith(':')) return segment;
      const param = segment.slice(1);
      if (param === 'orgId') return orgId;
      const kind = param === 'id' ? KIND_OF_SEGMENT[segments[index - 1]!] : KIND_OF_PARAM[param];
      const id = kind ? theirs[kind] : undefined;
      if (!id)
        throw new Error(`${route.method} ${route.url}: no fixture for :${param}; add one to this suite`);
      return id;
    })
    .join('/');
}

const leaks = (res: Call) => {
  const text = JSON.stringify(res.body ?? '');
  return Object.entries(theirs).filter(([kind, id]) => kind !== 'fileKey' && text.includes(id));
};

beforeAll(async () => {
  t = await buildTestApp();
  [a, b] = await Promise.all([createTeam(t.app, t.database.db), createTeam(t.app, t.database.db)]);
  const db = t.database.db;
  const admin: TestUser = b.admin;
  const orgId = b.org.id;
  const project = await createProject(db, orgId, 'Their project');
  const { programId } = (await call(t.app, 'GET', `/orgs/${orgId}/projects/${project.id}`, { as: admin }))
    .body as { programId: string };
  const indicator = await postIndicator(t.app, admin, orgId);
  const disaggregation = await postDisaggregation(t.app, admin, orgId, indicator.id, 'Sex', [
    'female',
    'male',
  ]);
  await linkIndicator(t.app, admin, orgId, project.id, indicator.id);
  const period = await createPeriod(db, orgId, project.id);
  const indicatorReport = await postReport(t.app, admin, orgId, project.id, {
    indicatorId: indicator.id,
    reportingPeriodId: period.id,
    value: 3,
  });
  const activity = await postActivity(t.app, admin, orgId, project.id);
  const [registration] = await register(t.app, admin, orgId, activity.id, [person()]);
  const form = await publishedForm(t.app, admin, orgId, { projectId: project.id });
  const submitted = await call(t.app, 'POST', submitUrl(form.publicToken), { body: { answers: answers() } });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
  const [budgetLine] = await db
    .insert(budgetLines)
    .values({ orgId, projectId: project.id, category: 'Travel', plannedAmount: 100 })
    .returning();
  const attachment = await call(t.app, 'POST', `/orgs/${orgId}/projects/${project.id}/attachments`, {
    as: admin,
    ...pdf(),
  });
  expect(attachment.status, JSON.stringify(attachment.body)).toBe(201);
  const donor = await insertDonor(db, orgId, 'Their donor');
  const report = await call(t.app, 'POST', `/orgs/${orgId}/reports`, {
    as: admin,
    body: { title: 'Their report', projectId: project.id, reportType: 'ad_hoc', periodIds: [period.id] },
  });
  expect(report.status, JSON.stringify(report.body)).toBe(201);
  const resultNode = await insertResultNode(db, orgId, programId, 'impact', null, 0);
  const invitation = await call(t.app, 'POST', `/orgs/${orgId}/members`, {
    as: admin,
    body: { email: 'their-invitee@example.org', role: 'viewer' },
  });
  expect(invitation.status, JSON.stringify(invitation.body)).toBe(201);

  theirs = {
    org: orgId,
    program: programId,
    project: project.id,
    indicator: indicator.id,
    disaggregation: disaggregation.id,
    period: period.id,
    indicatorReport: indicatorReport.id,
    activity: activity.id,
    participant: registration!.participantId,
    form: form.id,
    submission: submitted.body.id as string,
    fileKey: 'photo',
    budgetLine: budgetLine!.id,
    attachment: attachment.body.id as string,
    donor: donor.id,
    report: report.body.id as string,
    resultNode: resultNode.id,
    invitation: invitation.body.id as string,
    member: b.officer.id,
  };

  routes = t.app.routeTable
    .filter((route) => route.url.startsWith('/orgs/:orgId'))
    .map(({ method, url }) => ({ method, url }));
});
afterAll(() => t.close());

describe('tenant isolation over every /orgs/:orgId route', () => {
  it('knows every path parameter of every route (a new route must be added to this suite)', () => {
    expect(routes.length).toBeGreaterThan(80);
    for (const route of routes) expect(() => pathFor(route, a.org.id)).not.toThrow();
  });

  it("refuses A's admin every route on B's paths with 403", async () => {
    const wrong: string[] = [];
    for (const route of routes) {
      const res = await request(route, b.org.id);
      if (res.status !== 403 || JSON.stringify(res.body) !== JSON.stringify(FORBIDDEN)) {
        wrong.push(`${route.method} ${route.url}: ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("answers A's paths carrying B's ids with 404, never B's data", async () => {
    const wrong: string[] = [];
    const withIds = routes.filter((route) =>
      route.url.split('/').some((s) => s.startsWith(':') && s !== ':orgId'),
    );
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
      const expected = { statusCode: status, message, error: 'Not Found' };
      if (JSON.stringify(res.body) !== JSON.stringify(expected) || leaks(res).length > 0) {
        wrong.push(
          `${method} ${url.replace(a.org.id, 'A')} ${JSON.stringify(body).slice(0, 60)}: ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`,
        );
      }
    }
    expect(wrong).toEqual([]);
  });

  it("lists none of B's ids in any of A's lists", async () => {
    const lists = routes.filter(
      (route) =>
        route.method === 'GET' && !route.url.split('/').some((s) => s.startsWith(':') && s !== ':orgId'),
    );
    expect(lists.length).toBeGreaterThan(8);
    const wrong: string[] = [];
    for (const route of lists) {
      const res = await call(t.app, 'GET', pathFor(route, a.org.id), { as: a.admin });
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
