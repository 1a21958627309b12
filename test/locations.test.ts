/**
 * `Location` on every 201 (issue 23): each route the OpenAPI document says can answer 201 is called
 * once, and its Location is an absolute URL under BASE_URL that its creator can read.
 */
import ExcelJS from 'exceljs';
import { expect, it } from 'vitest';
import { locationOf, locationProblem } from '../src/http/pipeline/location.js';
import { shapeOf } from '../src/http/pipeline/location.js';
import { uniqueDonorCode } from './helpers/donors.js';
import { registerUser, uniqueCode, uniqueEmail, type TestUser } from './helpers/factories.js';
import { multipart as parts } from './helpers/files.js';
import { answers, SURVEY_FIELDS } from './helpers/forms.js';
import { call, TEST_BASE_URL, type Call } from './helpers/http.js';
import { indicatorCode, linkIndicator, postIndicator } from './helpers/indicators.js';
import { createPeriod } from './helpers/periods.js';
import { BODIES, pathFor, pdf, resourcesIn, type Ids } from './helpers/route-calls.js';
import { useSuite } from './helpers/suite.js';

const { t, team } = useSuite();
/** A body that creates something new next to the fixtures of `resourcesIn`. */
type Creation = (ids: Ids) => Promise<{
  body?: unknown;
  multipart?: ReturnType<typeof pdf>;
  query?: string;
  as?: TestUser | null;
}>;

/** A one-question XLSForm. */
async function xlsform(): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  book.addWorksheet('survey').addRows([
    ['type', 'name', 'label'],
    ['text', 'village', 'Village'],
  ]);
  return Buffer.from(await book.xlsx.writeBuffer());
}

const CREATIONS: Record<string, Creation> = {
  'POST /auth/register': async () => ({
    as: null,
    body: { email: uniqueEmail(), password: 'long enough 1', firstName: 'New', lastName: 'Member' },
  }),
  'POST /orgs': async () => ({ body: { name: 'Another NGO', code: uniqueCode() } }),
  'POST /auth/tokens': async () => ({ body: { name: 'Power BI', orgId: team.org.id, scope: 'read' } }),
  'POST /orgs/:orgId/members': async () => ({ body: { email: uniqueEmail('invitee'), role: 'viewer' } }),
  'POST /orgs/:orgId/validation-rules': async (ids) => ({
    body: BODIES['POST /orgs/:orgId/validation-rules']!(ids),
  }),
  'POST /orgs/:orgId/donors': async () => ({
    body: { name: 'ECHO', code: uniqueDonorCode(), type: 'multilateral' },
  }),
  'POST /orgs/:orgId/programs': async () => ({
    body: { name: 'Nutrition', startDate: '2026-01-01', endDate: '2026-12-31' },
  }),
  'POST /orgs/:orgId/programs/:programId/projects': async (ids) => ({
    body: BODIES['POST /orgs/:orgId/programs/:programId/projects']!(ids),
  }),
  'POST /orgs/:orgId/projects/:projectId/members': async (ids) => ({ body: { userId: ids.assignee } }),
  'POST /orgs/:orgId/programs/:programId/result-nodes': async () => ({
    body: { level: 'impact', title: 'New' },
  }),
  'POST /orgs/:orgId/projects/:projectId/reporting-periods': async () => ({
    body: { label: 'Q3', startDate: '2026-07-01', endDate: '2026-09-30' },
  }),
  'POST /orgs/:orgId/projects/:projectId/reporting-periods/generate': async () => ({
    body: { frequency: 'annual', from: '2032-06-01', to: '2032-06-30', dueDays: 30 },
  }),
  'POST /orgs/:orgId/indicators': async () => ({
    body: { name: 'Latrines built', code: indicatorCode(), unit: 'latrines', aggregationMethod: 'sum' },
  }),
  'POST /orgs/:orgId/indicators/:id/disaggregations': async () => ({
    body: { name: 'Age', categories: ['young', 'old'] },
  }),
  'POST /orgs/:orgId/projects/:projectId/indicators': async () => ({
    body: { indicatorId: (await postIndicator(t.app, team.admin, team.org.id)).id },
  }),
  'POST /orgs/:orgId/projects/:projectId/indicator-reports': async (ids) => ({
    body: { indicatorId: ids.indicator, reportingPeriodId: await newPeriod(ids, '2026-04-01'), value: 2 },
  }),
  'POST /orgs/:orgId/projects/:projectId/indicator-reports/prefill': async (ids) => {
    // Counted without disaggregations: the fixtures' indicator has some the pre-fill cannot fill.
    const indicator = await postIndicator(t.app, team.admin, team.org.id);
    await linkIndicator(t.app, team.admin, team.org.id, ids.project!, indicator.id);
    return { body: { indicatorId: indicator.id, reportingPeriodId: await newPeriod(ids, '2026-10-01') } };
  },
  'POST /orgs/:orgId/projects/:projectId/activities': async (ids) => ({
    body: BODIES['POST /orgs/:orgId/projects/:projectId/activities']!(ids),
  }),
  'POST /orgs/:orgId/activities/:id/participants': async (ids) => ({
    body: BODIES['POST /orgs/:orgId/activities/:id/participants']!(ids),
  }),
  'POST /orgs/:orgId/participants/:id/household-members': async (ids) => ({
    body: BODIES['POST /orgs/:orgId/participants/:id/household-members']!(ids),
  }),
  'POST /orgs/:orgId/projects/:projectId/budget-lines': async () => ({ body: { category: 'Fuel' } }),
  'POST /orgs/:orgId/projects/:projectId/attachments': async () => ({ multipart: pdf() }),
  'POST /orgs/:orgId/forms': async (ids) => ({
    body: { title: 'Another survey', projectId: ids.project, fields: SURVEY_FIELDS },
  }),
  'POST /orgs/:orgId/forms/import': async (ids) => ({
    query: `?projectId=${ids.project}`,
    multipart: parts([
      {
        name: 'file',
        value: await xlsform(),
        fileName: 'village.xlsx',
        contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      },
    ]),
  }),
  'POST /forms/public/:token/submit': async () => ({ as: null, body: { answers: answers() } }),
  'POST /orgs/:orgId/reports': async (ids) => ({
    body: { title: 'Org report', projectId: ids.project, reportType: 'ad_hoc', periodIds: [ids.period] },
  }),
  'POST /orgs/:orgId/projects/:projectId/reports': async (ids) => ({
    body: BODIES['POST /orgs/:orgId/projects/:projectId/reports']!(ids),
  }),
  'POST /orgs/:orgId/webhooks': async (ids) => ({ body: BODIES['POST /orgs/:orgId/webhooks']!(ids) }),
};

let periods = 0;
async function newPeriod(ids: Ids, startDate: string): Promise<string> {
  periods += 1;
  const endDate = `${startDate.slice(0, 5)}${String(Number(startDate.slice(5, 7)) + 2).padStart(2, '0')}-28`;
  const period = await createPeriod(t.database.db, team.org.id, ids.project!, {
    label: `Extra ${periods}`,
    startDate,
    endDate,
  });
  return period.id;
}

/** Every route whose schema declares a 201, as `METHOD /path/:param`. */
function routesAnswering201(): string[] {
  const doc = t.app.swagger() as {
    paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  };
  return Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, operation]) => operation.responses?.['201'] !== undefined)
      .map(([method]) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
  );
}

it('sets Location on every 201 the API can answer, to a URL its creator can read', async () => {
  const ids = await resourcesIn(
    t.app,
    t.database.db,
    team.admin,
    team.org.id,
    'Locations',
    team.viewer.id,
    team.reporter.id,
  );
  const token = (await call(t.app, 'GET', `/orgs/${team.org.id}/forms/${ids.form}`, { as: team.admin })).body
    .publicToken as string;
  const creations = routesAnswering201();
  expect(creations.sort()).toEqual(Object.keys(CREATIONS).sort());

  const wrong: string[] = [];
  for (const name of creations) {
    const [method, url] = name.split(' ') as [string, string];
    const { body, multipart, query = '', as = team.admin } = await CREATIONS[name]!(ids);
    const path =
      (url.startsWith('/forms/public/')
        ? url.replace(':token', token)
        : pathFor({ method, url }, team.org.id, ids)) + query;
    const created: Call = await call(t.app, 'POST', path, {
      as,
      ...(multipart ?? (body === undefined ? {} : { body })),
    });
    const location = String(created.headers.location ?? '');
    if (created.status !== 201 || !location.startsWith(`${TEST_BASE_URL}/`)) {
      wrong.push(`${name}: ${created.status} ${location} ${JSON.stringify(created.body).slice(0, 120)}`);
      continue;
    }
    const reader = as ?? (await registerUser(t.app));
    const read = await call(t.app, 'GET', location.slice(TEST_BASE_URL.length), { as: reader });
    const itself = typeof created.body?.id === 'string' && location.endsWith(`/${created.body.id}`);
    if (read.status !== 200 || (itself && read.body.id !== created.body.id)) {
      wrong.push(`${name} -> ${location}: GET ${read.status}`);
    }
  }
  expect(wrong).toEqual([]);
});

it('fills a declared location from the path as sent and the created id', () => {
  const org = '/orgs/O1';
  expect(
    locationOf(
      '/orgs/:orgId/projects/:newId',
      '/orgs/:orgId/programs/:programId/projects',
      `${org}/programs/p1/projects`,
      'x1',
    ),
  ).toBe(`${org}/projects/x1`);
  expect(locationOf('/orgs/:newId', '/orgs', '/orgs', 'o2')).toBe('/orgs/o2');
  expect(
    locationOf(
      '/orgs/:orgId/indicators/:id/disaggregations',
      '/orgs/:orgId/indicators/:id/disaggregations',
      `${org}/indicators/i1/disaggregations`,
      'g1',
    ),
  ).toBe(`${org}/indicators/i1/disaggregations`);
  expect(locationOf('/orgs/:orgId/invitations', '/orgs/:orgId/members', `${org}/members`, undefined)).toBe(
    `${org}/invitations`,
  );
  // An answer without an id (a list) gives no Location where the id is needed.
  expect(
    locationOf('/orgs/:orgId/donors/:newId', '/orgs/:orgId/donors', `${org}/donors`, undefined),
  ).toBeNull();
});

it('refuses a declared location that names no GET route or a parameter the route has not', () => {
  const gets = new Set(t.app.routeTable.filter((r) => r.method === 'GET').map((r) => shapeOf(r.url)));
  expect(
    locationProblem('/orgs/:orgId/projects/:newId', '/orgs/:orgId/programs/:programId/projects', gets),
  ).toBeNull();
  expect(locationProblem('/orgs/:orgId/unknown/:newId', '/orgs/:orgId/unknown', gets)).toMatch(
    /no GET route/,
  );
  expect(locationProblem('/orgs/:orgId/programs/:programId', '/orgs/:orgId/members', gets)).toMatch(
    /takes :programId/,
  );
});

it('leaves other answers without Location', async () => {
  const updated = await call(t.app, 'PATCH', `/orgs/${team.org.id}`, {
    as: team.admin,
    body: { name: 'Renamed' },
  });
  expect(updated.status).toBe(200);
  expect(updated.headers.location).toBeUndefined();
  const refused = await call(t.app, 'POST', `/orgs/${team.org.id}/donors`, { as: team.admin, body: {} });
  expect(refused.status).toBe(400);
  expect(refused.headers.location).toBeUndefined();
});
