/**
 * Calling every `/orgs/:orgId/...` route with real ids, for the suites that sweep the whole API
 * (tenant-isolation.test.ts, role-matrix.test.ts): one resource of each kind in a project, the path of
 * any route filled from them, and a valid body for each route that needs one.
 */
import { isDeepStrictEqual } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Db } from '../../src/db/client.js';
import { budgetLines } from '../../src/modules/budget/budget.tables.js';
import { postActivity, person, register } from './activities.js';
import {
  createProject,
  createTeam,
  insertDonor,
  uniqueEmail,
  type Team,
  type TestUser,
} from './factories.js';
import { multipart, PDF } from './files.js';
import { answers, publishedForm, submitUrl } from './forms.js';
import { call, type Call } from './http.js';
import { linkIndicator, postDisaggregation, postIndicator, postReport } from './indicators.js';
import { createPeriod } from './periods.js';
import { insertResultNode } from './results.js';

export interface Route {
  method: string;
  url: string;
}

/** Ids by kind: what `pathFor` fills a route's parameters with. */
export type Ids = Record<string, string>;

export const orgRoutes = (app: FastifyInstance): Route[] =>
  app.routeTable
    .filter((route) => route.url.startsWith('/orgs/:orgId'))
    .map(({ method, url }) => ({ method, url }));

export const routeName = (route: Route) => `${route.method} ${route.url}`;

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
  submissions: 'submission',
  tokens: 'accessToken',
  'validation-rules': 'validationRule',
  webhooks: 'webhook',
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
  deliveryId: 'delivery',
};

/** The route's path for `orgId` filled from `ids`; throws on a parameter no kind is known for. */
export function pathFor(route: Route, orgId: string, ids: Ids): string {
  const segments = route.url.split('/');
  return segments
    .map((segment, index) => {
      if (!segment.startsWith(':')) return segment;
      const param = segment.slice(1);
      if (param === 'orgId') return orgId;
      const kind = param === 'id' ? KIND_OF_SEGMENT[segments[index - 1]!] : KIND_OF_PARAM[param];
      const id = kind ? ids[kind] : undefined;
      if (!id) throw new Error(`${routeName(route)}: no fixture for :${param}; add one to route-calls.ts`);
      return id;
    })
    .join('/');
}

/** Whether the route names a resource by id (besides the organization). */
export const takesIds = (route: Route) =>
  route.url.split('/').some((segment) => segment.startsWith(':') && segment !== ':orgId');

/** Uploads: a real file, so that the route gets past the content type to the ids. */
export const MULTIPART = new Set([
  'POST /orgs/:orgId/projects/:projectId/attachments',
  'POST /orgs/:orgId/activities/:activityId/participants/import',
]);
export const pdf = () =>
  multipart([{ name: 'file', value: PDF, fileName: 'a.pdf', contentType: 'application/pdf' }]);

/**
 * Valid bodies for the routes that refuse `{}`, so that they get past validation to the ids in their
 * path. A new route that needs a body and is missing here answers 400 and fails the suite.
 */
export const BODIES: Record<string, (ids: Ids) => unknown> = {
  'POST /orgs/:orgId/webhooks': () => ({ url: 'https://hooks.example.org/mine', events: ['period.locked'] }),
  'PATCH /orgs/:orgId/members/:userId': () => ({ role: 'viewer' }),
  'POST /orgs/:orgId/programs/:programId/projects': () => ({
    name: 'Mine',
    code: 'mine-1',
    currency: 'USD',
    budget: 1,
    startDate: '2026-01-01',
    endDate: '2026-12-31',
  }),
  'POST /orgs/:orgId/projects/:projectId/members': (ids) => ({ userId: ids.assignee }),
  'POST /orgs/:orgId/programs/:programId/result-nodes': () => ({ level: 'impact', title: 'Mine' }),
  'POST /orgs/:orgId/projects/:projectId/reporting-periods': () => ({
    label: 'Q1',
    startDate: '2026-01-01',
    endDate: '2026-03-31',
  }),
  'POST /orgs/:orgId/projects/:projectId/reporting-periods/generate': () => ({
    frequency: 'annual',
    from: '2031-01-01',
    to: '2031-12-31',
  }),
  'POST /orgs/:orgId/validation-rules': (ids) => ({
    name: 'Not negative',
    left: ids.indicatorCode,
    operator: '>=',
    right: '0',
    importance: 'low',
  }),
  'POST /orgs/:orgId/indicators/:id/disaggregations': () => ({
    name: 'Age',
    categories: ['young', 'old'],
  }),
  'POST /orgs/:orgId/projects/:projectId/indicators': (ids) => ({ indicatorId: ids.indicator }),
  'POST /orgs/:orgId/projects/:projectId/indicator-reports': (ids) => ({
    indicatorId: ids.indicator,
    reportingPeriodId: ids.period,
    value: 1,
  }),
  'POST /orgs/:orgId/projects/:projectId/indicator-reports/prefill': (ids) => ({
    indicatorId: ids.indicator,
    reportingPeriodId: ids.period,
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
  'POST /orgs/:orgId/participants/:id/erase': () => ({ reason: 'Asked by the person' }),
  'POST /orgs/:orgId/forms/:formId/submissions/:id/erase': () => ({ reason: 'Asked by the person' }),
  'POST /orgs/:orgId/projects/:projectId/reports': () => ({
    title: 'Mine',
    reportType: 'ad_hoc',
    startDate: '2026-01-01',
    endDate: '2026-03-31',
  }),
};

/** Calls the route as `as`, with a file, a body from BODIES, `{}`, or nothing on GET and DELETE. */
export function callRoute(app: FastifyInstance, route: Route, orgId: string, ids: Ids, as: TestUser) {
  const name = routeName(route);
  const body = BODIES[name];
  return call(app, route.method as 'GET', pathFor(route, orgId, ids), {
    as,
    ...(MULTIPART.has(name)
      ? pdf()
      : body
        ? { body: body(ids) }
        : route.method === 'GET' || route.method === 'DELETE'
          ? {}
          : { body: {} }),
  });
}

/**
 * A refusal as the contract words it: the error body of a 403 (`refusal`, with the roles and reason it names); a page of the service (HTML, the
 * webhooks settings page) answers its 403 page instead, which says the same to a person.
 */
export function isForbidden(res: Call, refusal: object): boolean {
  if (res.status !== 403) return false;
  if (String(res.headers['content-type']).startsWith('text/html')) {
    return String(res.body).includes('<h1>You do not have access to this page</h1>');
  }
  return isDeepStrictEqual(res.body, refusal);
}

/**
 * One resource of every kind, made by `admin` in a new project of `orgId` named `name`. `member` is
 * the user the member routes act on; `assignee` the one project-member routes add.
 */
export async function resourcesIn(
  app: FastifyInstance,
  db: Db,
  admin: TestUser,
  orgId: string,
  name: string,
  member: string,
  assignee: string,
): Promise<Ids> {
  const project = await createProject(db, orgId, name);
  const { programId } = (await call(app, 'GET', `/orgs/${orgId}/projects/${project.id}`, { as: admin }))
    .body as { programId: string };
  const indicator = await postIndicator(app, admin, orgId);
  const disaggregation = await postDisaggregation(app, admin, orgId, indicator.id, 'Sex', ['female', 'male']);
  await linkIndicator(app, admin, orgId, project.id, indicator.id);
  const period = await createPeriod(db, orgId, project.id);
  const indicatorReport = await postReport(app, admin, orgId, project.id, {
    indicatorId: indicator.id,
    reportingPeriodId: period.id,
    value: 3,
  });
  const activity = await postActivity(app, admin, orgId, project.id);
  const [registration] = await register(app, admin, orgId, activity.id, [person()]);
  const form = await publishedForm(app, admin, orgId, { projectId: project.id });
  const submitted = await call(app, 'POST', submitUrl(form.publicToken), { body: { answers: answers() } });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
  const [budgetLine] = await db
    .insert(budgetLines)
    .values({ orgId, projectId: project.id, category: 'Travel', plannedAmount: 100 })
    .returning();
  const attachment = await call(app, 'POST', `/orgs/${orgId}/projects/${project.id}/attachments`, {
    as: admin,
    ...pdf(),
  });
  expect(attachment.status, JSON.stringify(attachment.body)).toBe(201);
  const donor = await insertDonor(db, orgId, `${name} donor`);
  const report = await call(app, 'POST', `/orgs/${orgId}/reports`, {
    as: admin,
    body: { title: `${name} report`, projectId: project.id, reportType: 'ad_hoc', periodIds: [period.id] },
  });
  expect(report.status, JSON.stringify(report.body)).toBe(201);
  const resultNode = await insertResultNode(db, orgId, programId, 'impact', null, 0);
  const invitation = await call(app, 'POST', `/orgs/${orgId}/members`, {
    as: admin,
    body: { email: uniqueEmail('invitee'), role: 'viewer' },
  });
  expect(invitation.status, JSON.stringify(invitation.body)).toBe(201);
  const webhook = await call(app, 'POST', `/orgs/${orgId}/webhooks`, {
    as: admin,
    body: { url: `https://hooks.example.org/${project.id}`, events: ['period.locked'] },
  });
  expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
  // A ping is a delivery (no worker runs in these apps: it stays pending).
  const delivery = await call(app, 'POST', `/orgs/${orgId}/webhooks/${webhook.body.id}/ping`, { as: admin });
  expect(delivery.status, JSON.stringify(delivery.body)).toBe(202);
  const rule = await call(app, 'POST', `/orgs/${orgId}/validation-rules`, {
    as: admin,
    body: { name: `${name} rule`, left: indicator.code, operator: '>=', right: '0', importance: 'low' },
  });
  expect(rule.status, JSON.stringify(rule.body)).toBe(201);
  const token = await call(app, 'POST', '/auth/tokens', {
    as: admin,
    body: { name: `${name} token`, orgId, scope: 'read' },
  });
  expect(token.status, JSON.stringify(token.body)).toBe(201);

  return {
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
    webhook: webhook.body.id as string,
    delivery: delivery.body.id as string,
    validationRule: rule.body.id as string,
    accessToken: token.body.id as string,
    indicatorCode: indicator.code,
    member,
    assignee,
  };
}

/** A team of one member per role, with one resource of every kind in a project named `name`. */
export async function teamWithResources(
  app: FastifyInstance,
  db: Db,
  name: string,
): Promise<{ team: Team; ids: Ids }> {
  const team = await createTeam(app, db);
  const ids = await resourcesIn(app, db, team.admin, team.org.id, name, team.viewer.id, team.reporter.id);
  return { team, ids };
}
