/**
 * Minimal exposure (issue 22, DECISIONS.md section 5): every route walked by every persona, looking
 * for the personal values the organization holds in each response. Personal data appears only where it
 * is meant to (the participant and submission routes, for members who may see it) and nowhere else:
 * never to a viewer, never in reports, the dashboard, the feed, the pre-fill or a shared report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { householdUrl, postActivity, prefillUrl, register } from './helpers/activities.js';
import {
  addMember,
  assignProject,
  createTeam,
  registerUser,
  type Team,
  type TestUser,
} from './helpers/factories.js';
import { PERSONAL_FIELDS, personalAnswers, publishedForm, submitUrl } from './helpers/forms.js';
import { call } from './helpers/http.js';
import { linkIndicator, postIndicator } from './helpers/indicators.js';
import { publicReportUrl } from './helpers/reports.js';
import { orgRoutes, pathFor, resourcesIn, routeName, type Ids, type Route } from './helpers/route-calls.js';

/** The GET routes whose answers carry personal data in clear, to those who may see it. */
const PERSONAL_ROUTES = new Set([
  'GET /orgs/:orgId/participants',
  'GET /orgs/:orgId/participants/:id',
  'GET /orgs/:orgId/participants/:id/household-members',
  'GET /orgs/:orgId/participants/:id/export',
  'GET /orgs/:orgId/activities/:id/participants',
  'GET /orgs/:orgId/forms/:id/submissions',
  'GET /orgs/:orgId/forms/:id/submissions.csv',
]);

const WANJIKU = {
  firstName: 'Wanjiku',
  lastName: 'Kamau-Njoroge',
  sex: 'female',
  dateOfBirth: '1987-04-12',
  phone: '+254700111222',
  nationalId: 'KE-77-SECRET',
  village: 'Kibera',
  district: 'Nairobi',
};
const CHILD = { name: 'Baraka Kamau-Njoroge', relationship: 'son', sex: 'male', age: 7 };
const ANSWERS = personalAnswers({ name: 'Achieng Otieno-Adhiambo', home: { lat: -0.09173, lng: 34.76811 } });

/** What must never reach someone who may not see it. */
const SECRETS = [
  WANJIKU.firstName,
  WANJIKU.lastName,
  WANJIKU.dateOfBirth,
  WANJIKU.phone,
  WANJIKU.nationalId,
  CHILD.name,
  ANSWERS.name,
  '-0.09173',
  '34.76811',
];
const secretsIn = (text: string) => SECRETS.filter((secret) => text.includes(secret));

type Persona = 'viewer' | 'reporterOut' | 'reporterIn' | 'officer' | 'admin';

let t: TestApp;
let team: Team;
let ids: Ids;
let shareToken: string;
const as = {} as Record<Persona, TestUser>;

beforeAll(async () => {
  t = await buildTestApp();
  const db = t.database.db;
  team = await createTeam(t.app, db);
  const outside = await registerUser(t.app, { firstName: 'Rose', lastName: 'Elsewhere' });
  await addMember(db, team.org.id, outside.id, 'reporter');
  const [member, assignee] = await Promise.all([registerUser(t.app), registerUser(t.app)]);
  const orgId = team.org.id;
  ids = await resourcesIn(t.app, db, team.admin, orgId, 'Exposure', member.id, assignee.id);
  await assignProject(db, orgId, ids.project!, team.reporter.id);
  Object.assign(as, {
    viewer: team.viewer,
    reporterOut: outside,
    reporterIn: team.reporter,
    officer: team.officer,
    admin: team.admin,
  });

  // The person, their household, and a consent form with personal answers, in that project.
  const [registration] = await register(t.app, team.admin, orgId, ids.activity!, [
    { ...WANJIKU, attended: true },
  ]);
  ids.participant = registration!.participantId;
  const child = await call(t.app, 'POST', householdUrl(orgId, ids.participant), {
    as: team.admin,
    body: CHILD,
  });
  expect(child.status).toBe(201);
  const form = await publishedForm(t.app, team.admin, orgId, {
    projectId: ids.project,
    fields: PERSONAL_FIELDS,
  });
  const submitted = await call(t.app, 'POST', submitUrl(form.publicToken), { body: { answers: ANSWERS } });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
  ids.form = form.id;
  ids.submission = submitted.body.id as string;

  // A stored report over the activity's period, shared; a pre-filled participant count.
  const share = await call(t.app, 'PATCH', `/orgs/${orgId}/reports/${ids.report}/share`, { as: team.admin });
  expect(share.status, JSON.stringify(share.body)).toBe(200);
  shareToken = share.body.shareToken as string;
}, 60_000);
afterAll(() => t?.close());

const getRoutes = (): Route[] =>
  orgRoutes(t.app).filter(
    (route) => route.method === 'GET' && !route.url.includes('/files/') && !route.url.endsWith('/download'),
  );

async function walk(persona: Persona) {
  const seen: { route: string; status: number; secrets: string[] }[] = [];
  for (const route of getRoutes()) {
    const res = await call(t.app, 'GET', pathFor(route, team.org.id, ids), { as: as[persona] });
    seen.push({ route: routeName(route), status: res.status, secrets: secretsIn(res.response.body) });
  }
  return seen;
}

describe('who sees personal data, route by route', () => {
  it('walks every GET route of an organization that answers JSON or CSV', () => {
    const names = getRoutes().map(routeName);
    for (const route of PERSONAL_ROUTES) expect(names).toContain(route);
    expect(names.length).toBeGreaterThan(30);
  });

  it('gives a viewer no personal value on any route', async () => {
    const seen = await walk('viewer');
    expect(seen.filter((s) => s.secrets.length > 0)).toEqual([]);
    // The viewer did read the participant routes: the absence is masking, not refusal.
    const read = seen.filter((s) => s.status === 200).map((s) => s.route);
    for (const route of PERSONAL_ROUTES) {
      if (!route.endsWith('/export')) expect(read).toContain(route);
    }
  });

  it('gives a reporter nothing personal of a project not assigned to them', async () => {
    const seen = await walk('reporterOut');
    expect(seen.filter((s) => s.secrets.length > 0)).toEqual([]);
  });

  it.each(['reporterIn', 'officer', 'admin'] as const)(
    'gives %s personal values on the participant and submission routes only',
    async (persona) => {
      const seen = await walk(persona);
      const elsewhere = seen.filter((s) => !PERSONAL_ROUTES.has(s.route) && s.secrets.length > 0);
      expect(elsewhere).toEqual([]);
      const carrying = new Set(seen.filter((s) => s.secrets.length > 0).map((s) => s.route));
      const expected = [...PERSONAL_ROUTES].filter(
        (route) => !(route.endsWith('/export') && persona === 'reporterIn'),
      );
      expect([...carrying].sort()).toEqual(expected.sort());
    },
  );
});

describe('what carries no personal data for anyone', () => {
  it('the pre-fill, a new report snapshot, the dashboard and the feed', async () => {
    const orgId = team.org.id;
    const indicator = await postIndicator(t.app, team.admin, orgId);
    await linkIndicator(t.app, team.admin, orgId, ids.project!, indicator.id);
    const prefill = await call(t.app, 'POST', prefillUrl(orgId, ids.project!), {
      as: team.admin,
      body: { indicatorId: indicator.id, reportingPeriodId: ids.period },
    });
    expect(prefill.status, JSON.stringify(prefill.body)).toBe(201);
    // Wanjiku, who attended, is counted: by sex and age band, never by name.
    expect(prefill.body.value).toBe(1);
    const report = await call(t.app, 'POST', `/orgs/${orgId}/reports`, {
      as: team.admin,
      body: { title: 'Quarter', projectId: ids.project, reportType: 'ad_hoc', periodIds: [ids.period] },
    });
    expect(report.status, JSON.stringify(report.body)).toBe(201);
    for (const res of [
      prefill,
      report,
      await call(t.app, 'GET', `/orgs/${orgId}/dashboard-summary`, { as: team.admin }),
      await call(t.app, 'GET', `/orgs/${orgId}/activity-feed`, { as: team.admin }),
    ]) {
      expect(secretsIn(res.response.body)).toEqual([]);
    }
  });

  it('the shared report, its page, and the public form', async () => {
    const shared = await call(t.app, 'GET', publicReportUrl(shareToken));
    expect(shared.status).toBe(200);
    const page = await call(t.app, 'GET', `/r/${shareToken}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    for (const res of [shared, page]) expect(secretsIn(res.response.body)).toEqual([]);
  });

  it('refuses a viewer the writes that answer with participants, naming no one', async () => {
    const orgId = team.org.id;
    const activity = await postActivity(t.app, team.admin, orgId, ids.project!);
    const res = await call(t.app, 'POST', `/orgs/${orgId}/activities/${activity.id}/participants`, {
      as: team.viewer,
      body: { participants: [{ participantId: ids.participant }] },
    });
    expect(res.status).toBe(403);
    expect(secretsIn(res.response.body)).toEqual([]);
  });
});
