/**
 * The role matrix (issue 10, suite 2): DECISIONS.md section 5 written out route by route, and every
 * `/orgs/:orgId/...` route called by every persona: viewer, reporter on a project they are not
 * assigned to, the same reporter on their assigned project, me_officer and org_admin. A denial is 403
 * with the contract's body, naming the roles the route allows (and, for the reporter outside the
 * project, `reason: "project_not_assigned"`); an allowance is anything else (the call may still be a 400, 404 or 409:
 * what matters here is that the role was let through). A route missing from the table fails the suite.
 *
 * Rows of DECISIONS.md section 5, as rules:
 *   read-org      org-level data: every role
 *   read-project  project data: every role, a reporter only on assigned projects (lists are filtered)
 *   admin         org settings, members, invitations, assignments, programs, projects, donors
 *   manage        results, indicators, links, periods, forms, reports, budget lines, attachments
 *   contribute    indicator reports (create, edit, submit), activities, participants: assigned reporters too
 *   review        approve and reject indicator reports
 * Where the table is silent the service's choice is written down: listing invitations is `admin`; so
 * are erasing personal data and reading the audit log (issue 22); a participant's export is `manage`;
 * webhook endpoints and their deliveries are `admin` (issue 25).
 * Unlocking a period (org_admin only) is a body-level rule, tested in periods-lock.test.ts.
 */
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrgRole } from '../src/http/pipeline/access.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import {
  addMember,
  assignProject,
  createTeam,
  registerUser,
  type Team,
  type TestUser,
} from './helpers/factories.js';
import { ADMINS, ALL_ROLES, CONTRIBUTORS, MANAGERS, notAssigned, roleRefused } from './helpers/http.js';
import {
  callRoute,
  isForbidden,
  orgRoutes,
  resourcesIn,
  routeName,
  type Ids,
  type Route,
} from './helpers/route-calls.js';

type Rule = 'read-org' | 'read-project' | 'admin' | 'manage' | 'contribute' | 'review';

const MATRIX: Record<string, Rule> = {
  'GET /orgs/:orgId': 'read-org',
  'PATCH /orgs/:orgId': 'admin',
  'GET /orgs/:orgId/members': 'read-org',
  'POST /orgs/:orgId/members': 'admin',
  'PATCH /orgs/:orgId/members/:userId': 'admin',
  'DELETE /orgs/:orgId/members/:userId': 'admin',
  'GET /orgs/:orgId/invitations': 'admin',
  'DELETE /orgs/:orgId/invitations/:id': 'admin',
  'GET /orgs/:orgId/donors': 'read-org',
  'POST /orgs/:orgId/donors': 'admin',
  'GET /orgs/:orgId/donors/:id': 'read-org',
  'PATCH /orgs/:orgId/donors/:id': 'admin',
  'DELETE /orgs/:orgId/donors/:id': 'admin',
  'GET /orgs/:orgId/programs': 'read-org',
  'POST /orgs/:orgId/programs': 'admin',
  'GET /orgs/:orgId/programs/:id': 'read-org',
  'PATCH /orgs/:orgId/programs/:id': 'admin',
  'DELETE /orgs/:orgId/programs/:id': 'admin',
  'GET /orgs/:orgId/programs/:id/donors': 'read-org',
  'GET /orgs/:orgId/programs/:programId/projects': 'read-project',
  'POST /orgs/:orgId/programs/:programId/projects': 'admin',
  'GET /orgs/:orgId/projects/:id': 'read-project',
  'PATCH /orgs/:orgId/projects/:id': 'admin',
  'DELETE /orgs/:orgId/projects/:id': 'admin',
  'GET /orgs/:orgId/projects/:projectId/members': 'read-project',
  'POST /orgs/:orgId/projects/:projectId/members': 'admin',
  'DELETE /orgs/:orgId/projects/:projectId/members/:userId': 'admin',
  'GET /orgs/:orgId/programs/:programId/result-nodes': 'read-org',
  'POST /orgs/:orgId/programs/:programId/result-nodes': 'manage',
  'GET /orgs/:orgId/result-nodes/:id': 'read-org',
  'PATCH /orgs/:orgId/result-nodes/reorder': 'manage',
  'PATCH /orgs/:orgId/result-nodes/:id': 'manage',
  'DELETE /orgs/:orgId/result-nodes/:id': 'manage',
  'GET /orgs/:orgId/projects/:projectId/reporting-periods': 'read-project',
  'POST /orgs/:orgId/projects/:projectId/reporting-periods': 'manage',
  'POST /orgs/:orgId/projects/:projectId/reporting-periods/generate': 'manage',
  'GET /orgs/:orgId/reporting-periods/:id': 'read-project',
  'PATCH /orgs/:orgId/reporting-periods/:id': 'manage',
  'DELETE /orgs/:orgId/reporting-periods/:id': 'manage',
  'GET /orgs/:orgId/indicators': 'read-org',
  'POST /orgs/:orgId/indicators': 'manage',
  'GET /orgs/:orgId/indicators/:id': 'read-org',
  'PATCH /orgs/:orgId/indicators/:id': 'manage',
  'DELETE /orgs/:orgId/indicators/:id': 'manage',
  'GET /orgs/:orgId/indicators/:id/disaggregations': 'read-org',
  'POST /orgs/:orgId/indicators/:id/disaggregations': 'manage',
  'DELETE /orgs/:orgId/indicators/:id/disaggregations/:disaggregationId': 'manage',
  'GET /orgs/:orgId/projects/:projectId/indicators': 'read-project',
  'POST /orgs/:orgId/projects/:projectId/indicators': 'manage',
  'PATCH /orgs/:orgId/projects/:projectId/indicators/:indicatorId': 'manage',
  'DELETE /orgs/:orgId/projects/:projectId/indicators/:indicatorId': 'manage',
  'GET /orgs/:orgId/projects/:projectId/indicator-reports': 'read-project',
  'POST /orgs/:orgId/projects/:projectId/indicator-reports': 'contribute',
  'POST /orgs/:orgId/projects/:projectId/indicator-reports/prefill': 'contribute',
  // Not on one project: a reporter's rows on projects not assigned to them are refused row by row.
  'POST /orgs/:orgId/indicator-reports/bulk': 'contribute',
  'GET /orgs/:orgId/validation-rules': 'manage',
  'POST /orgs/:orgId/validation-rules': 'manage',
  'GET /orgs/:orgId/validation-rules/:id': 'manage',
  'PATCH /orgs/:orgId/validation-rules/:id': 'manage',
  'DELETE /orgs/:orgId/validation-rules/:id': 'manage',
  'GET /orgs/:orgId/indicator-reports/:id': 'read-project',
  'PATCH /orgs/:orgId/indicator-reports/:id': 'contribute',
  'PATCH /orgs/:orgId/indicator-reports/:id/submit': 'contribute',
  'PATCH /orgs/:orgId/indicator-reports/:id/approve': 'review',
  'PATCH /orgs/:orgId/indicator-reports/:id/reject': 'review',
  'GET /orgs/:orgId/projects/:projectId/indicator-reports/:id/history': 'read-project',
  'GET /orgs/:orgId/projects/:projectId/indicator-reports/:id/sources': 'read-project',
  'POST /orgs/:orgId/projects/:projectId/indicator-reports/:id/recount': 'review',
  'GET /orgs/:orgId/projects/:projectId/activities': 'read-project',
  'POST /orgs/:orgId/projects/:projectId/activities': 'contribute',
  'GET /orgs/:orgId/activities/:id': 'read-project',
  'PATCH /orgs/:orgId/activities/:id': 'contribute',
  'DELETE /orgs/:orgId/activities/:id': 'contribute',
  'GET /orgs/:orgId/activities/:id/participants': 'read-project',
  'POST /orgs/:orgId/activities/:id/participants': 'contribute',
  'POST /orgs/:orgId/activities/:activityId/participants/import': 'contribute',
  'PATCH /orgs/:orgId/activities/:activityId/participants/:participantId': 'contribute',
  'DELETE /orgs/:orgId/activities/:activityId/participants/:participantId': 'contribute',
  'GET /orgs/:orgId/participants': 'read-project',
  'GET /orgs/:orgId/participants/:id': 'read-project',
  'PATCH /orgs/:orgId/participants/:id': 'contribute',
  'GET /orgs/:orgId/participants/:id/household-members': 'read-project',
  'POST /orgs/:orgId/participants/:id/household-members': 'contribute',
  'POST /orgs/:orgId/participants/:id/erase': 'admin',
  'GET /orgs/:orgId/participants/:id/export': 'manage',
  'GET /orgs/:orgId/projects/:projectId/budget-lines': 'read-project',
  'POST /orgs/:orgId/projects/:projectId/budget-lines': 'manage',
  'POST /orgs/:orgId/projects/:projectId/import': 'manage',
  'GET /orgs/:orgId/import-template.xlsx': 'read-org',
  'GET /orgs/:orgId/budget-lines/:id': 'read-project',
  'PATCH /orgs/:orgId/budget-lines/:id': 'manage',
  'DELETE /orgs/:orgId/budget-lines/:id': 'manage',
  'GET /orgs/:orgId/projects/:projectId/attachments': 'read-project',
  'POST /orgs/:orgId/projects/:projectId/attachments': 'manage',
  'GET /orgs/:orgId/attachments/:id/download': 'read-project',
  'DELETE /orgs/:orgId/attachments/:id': 'manage',
  'GET /orgs/:orgId/forms': 'read-project',
  'POST /orgs/:orgId/forms': 'manage',
  'POST /orgs/:orgId/forms/import': 'manage',
  'GET /orgs/:orgId/forms/:id': 'read-project',
  'GET /orgs/:orgId/forms/:id/xlsform': 'read-project',
  'PATCH /orgs/:orgId/forms/:id': 'manage',
  'DELETE /orgs/:orgId/forms/:id': 'manage',
  'POST /orgs/:orgId/forms/:id/publish': 'manage',
  'POST /orgs/:orgId/forms/:id/unpublish': 'manage',
  'POST /orgs/:orgId/forms/:id/regenerate-token': 'manage',
  'GET /orgs/:orgId/forms/:id/submissions': 'read-project',
  'GET /orgs/:orgId/forms/:id/submissions.csv': 'read-project',
  'GET /orgs/:orgId/forms/:id/submissions.xlsx': 'read-project',
  'GET /orgs/:orgId/forms/:formId/submissions/:submissionId/files/:key': 'read-project',
  'POST /orgs/:orgId/forms/:formId/submissions/:id/erase': 'admin',
  'GET /orgs/:orgId/reports': 'read-project',
  'POST /orgs/:orgId/reports': 'manage',
  'POST /orgs/:orgId/projects/:projectId/reports': 'manage',
  'GET /orgs/:orgId/reports/:id': 'read-project',
  'GET /orgs/:orgId/reports/:id/indicators.csv': 'read-project',
  'GET /orgs/:orgId/projects/:projectId/logframe.xlsx': 'read-project',
  'PATCH /orgs/:orgId/reports/:id': 'manage',
  'POST /orgs/:orgId/reports/:id/refresh': 'manage',
  'DELETE /orgs/:orgId/reports/:id': 'manage',
  'PATCH /orgs/:orgId/reports/:id/share': 'manage',
  'PATCH /orgs/:orgId/reports/:id/share/regenerate': 'manage',
  'DELETE /orgs/:orgId/reports/:id/share': 'manage',
  'GET /orgs/:orgId/dashboard-summary': 'read-project',
  'GET /orgs/:orgId/data-quality': 'read-project',
  'GET /orgs/:orgId/iati/activities.xml': 'manage',
  'GET /orgs/:orgId/activity-feed': 'read-project',
  'GET /orgs/:orgId/audit-log': 'admin',
  'GET /orgs/:orgId/webhooks': 'admin',
  'POST /orgs/:orgId/webhooks': 'admin',
  'GET /orgs/:orgId/webhooks/:id': 'admin',
  'PATCH /orgs/:orgId/webhooks/:id': 'admin',
  'DELETE /orgs/:orgId/webhooks/:id': 'admin',
  'POST /orgs/:orgId/webhooks/:id/rotate-secret': 'admin',
  'GET /orgs/:orgId/webhooks/:id/deliveries': 'admin',
  'POST /orgs/:orgId/webhooks/:id/deliveries/:deliveryId/redeliver': 'admin',
  'POST /orgs/:orgId/webhooks/:id/ping': 'admin',
  // The page the failing-endpoint email links to: the webhooks of the organization, for its admins.
  'GET /orgs/:orgId/settings/webhooks': 'admin',
};

/** The roles each rule lets in: what a route of that rule declares, and what its 403s name. */
const ROLES_OF_RULE: Record<Rule, readonly OrgRole[]> = {
  'read-org': ALL_ROLES,
  'read-project': ALL_ROLES,
  admin: ADMINS,
  manage: MANAGERS,
  review: MANAGERS,
  contribute: CONTRIBUTORS,
};

type Persona = 'viewer' | 'reporterOut' | 'reporterIn' | 'officer' | 'admin';
/** Least privileged first: a denial is checked before anyone allowed may have changed or deleted the thing. */
const PERSONAS: Persona[] = ['viewer', 'reporterOut', 'reporterIn', 'officer', 'admin'];

/** Kinds that belong to a project: a reporter reaches them only through an assigned project. */
const PROJECT_KINDS =
  /:(projectId|activityId|participantId|formId|submissionId)\b|\/(projects|reporting-periods|indicator-reports|activities|participants|budget-lines|attachments|forms|reports)\/:id\b/;
const onProject = (route: Route) => PROJECT_KINDS.test(route.url);

function allowed(rule: Rule, persona: Persona, route: Route): boolean {
  const manager = persona === 'officer' || persona === 'admin';
  switch (rule) {
    case 'read-org':
      return true;
    case 'read-project':
      return persona !== 'reporterOut' || !onProject(route);
    case 'admin':
      return persona === 'admin';
    case 'manage':
    case 'review':
      return manager;
    case 'contribute':
      return manager || persona === 'reporterIn' || (persona === 'reporterOut' && !onProject(route));
  }
}

/** Deletions last, the things others hang on after what hangs on them. */
const DELETE_ORDER = [
  '/attachments/',
  '/budget-lines/',
  '/share',
  '/reports/',
  '/participants/:participantId',
  '/activities/',
  '/forms/',
  '/projects/:projectId/indicators/',
  '/disaggregations/',
  '/indicators/',
  '/reporting-periods/',
  '/result-nodes/',
  '/donors/',
  '/invitations/',
  '/projects/:projectId/members/',
  '/members/',
  '/projects/',
  '/programs/',
];
const deleteRank = (route: Route) => {
  const rank = DELETE_ORDER.findIndex((part) => route.url.includes(part));
  return rank === -1 ? DELETE_ORDER.length : rank;
};

let t: TestApp;
let team: Team;
let routes: Route[];
const ids = {} as Record<'assigned' | 'other', Ids>;
const as = {} as Record<Persona, TestUser>;

beforeAll(async () => {
  t = await buildTestApp();
  const db = t.database.db;
  team = await createTeam(t.app, db);
  // The users the member routes act on: never one of the personas.
  const [member, assignee] = await Promise.all([registerUser(t.app), registerUser(t.app)]);
  await addMember(db, team.org.id, member.id, 'viewer');
  await addMember(db, team.org.id, assignee.id, 'reporter');
  const org = team.org.id;
  ids.assigned = await resourcesIn(t.app, db, team.admin, org, 'Assigned project', member.id, assignee.id);
  ids.other = await resourcesIn(t.app, db, team.admin, org, 'Other project', member.id, assignee.id);
  await assignProject(db, org, ids.assigned.project!, team.reporter.id);
  Object.assign(as, {
    viewer: team.viewer,
    reporterOut: team.reporter,
    reporterIn: team.reporter,
    officer: team.officer,
    admin: team.admin,
  });
  routes = orgRoutes(t.app);
  routes.sort((a, b) =>
    a.method === 'DELETE' && b.method === 'DELETE'
      ? deleteRank(a) - deleteRank(b)
      : Number(a.method === 'DELETE') - Number(b.method === 'DELETE'),
  );
});
afterAll(() => t.close());

describe('the role matrix of DECISIONS.md section 5, over every /orgs/:orgId route', () => {
  it('has a rule for every route, and no rule for a route that is gone', () => {
    const names = routes.map(routeName);
    expect(names.filter((name) => !(name in MATRIX))).toEqual([]);
    expect(Object.keys(MATRIX).filter((name) => !names.includes(name))).toEqual([]);
  });

  it('finds the roles of its rule declared on every route', () => {
    const wrong = t.app.routeTable
      .filter((route) => MATRIX[routeName(route)] !== undefined)
      .filter((route) => {
        const declared = typeof route.access === 'object' ? [...route.access.roles].sort() : route.access;
        return !isDeepStrictEqual(declared, [...ROLES_OF_RULE[MATRIX[routeName(route)]!]].sort());
      })
      .map(routeName);
    expect(wrong).toEqual([]);
  });

  it('lets every persona through exactly where the matrix says, and answers 403 elsewhere', async () => {
    const wrong: string[] = [];
    let calls = 0;
    for (const route of routes) {
      const rule = MATRIX[routeName(route)];
      if (!rule) continue;
      for (const persona of PERSONAS) {
        const res = await callRoute(
          t.app,
          route,
          team.org.id,
          persona === 'reporterIn' ? ids.assigned : ids.other,
          as[persona],
        );
        calls += 1;
        const denied = res.status === 403;
        // The roles the route declares; a reporter those let in is refused for the project alone.
        const roles = ROLES_OF_RULE[rule];
        const refusal =
          persona === 'reporterOut' && roles.includes('reporter') ? notAssigned(roles) : roleRefused(roles);
        if (denied && !isForbidden(res, refusal)) {
          wrong.push(`${routeName(route)} as ${persona}: 403 with ${JSON.stringify(res.body)}`);
        } else if (denied === allowed(rule, persona, route)) {
          wrong.push(
            `${routeName(route)} as ${persona}: expected ${allowed(rule, persona, route) ? 'allowed' : '403'}, got ${res.status} ${JSON.stringify(res.body).slice(0, 100)}`,
          );
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(calls).toBe(routes.length * PERSONAS.length);
    // Every route times every persona, one after another (about 1,500 calls): a few seconds on a quiet
    // machine, near the suite's 30 s default on a loaded one. What it proves is not its speed.
  }, 120_000);
});
