/**
 * No lost updates (issue 23): ETag on reads, If-None-Match gives 304, If-Match on writes and actions
 * gives 412 when the resource changed, and the check and the write of one resource never interleave.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANGED, conditionalTargetOf, MALFORMED, MISSING } from '../src/http/pipeline/conditional.js';
import { ifMatchHolds, ifNoneMatchHits, isEntityTagList } from '../src/http/pipeline/entity-tags.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { postActivity, participantUrl, person, register } from './helpers/activities.js';
import { assignProject, createProject, type Team, type TestUser, createTeam } from './helpers/factories.js';
import { auditEntriesIn, formUrl, postForm } from './helpers/forms.js';
import { call, MISSING_ID, notFoundBody, type Call } from './helpers/http.js';
import { act, linkIndicator, postIndicator, postReport, reportUrl } from './helpers/indicators.js';
import { createPeriod } from './helpers/periods.js';
import { BODIES, pathFor, resourcesIn, routeName, type Route } from './helpers/route-calls.js';

let t: TestApp;
let team: Team;
let org: string;
beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
  org = `/orgs/${team.org.id}`;
});
afterAll(() => t.close());

const ETAG = /^"[\w-]{22}"$/;
const preconditionFailed = (message: string) => ({
  statusCode: 412,
  message,
  error: 'Precondition Failed',
  code: 'precondition_failed',
});

async function read(url: string, as: TestUser = team.admin): Promise<Call & { etag: string }> {
  const res = await call(t.app, 'GET', url, { as });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.headers.etag).toMatch(ETAG);
  return { ...res, etag: String(res.headers.etag) };
}

const ifMatch = (etag: string) => ({ 'if-match': etag });

describe('ETag and If-None-Match on reads', () => {
  it('answers 304 without a body when the client has the current representation, keeping ETag and Cache-Control', async () => {
    const project = await createProject(t.database.db, team.org.id, 'Wells');
    const url = `${org}/projects/${project.id}`;
    const first = await read(url);
    expect((await read(url)).etag).toBe(first.etag);

    for (const condition of [first.etag, `W/${first.etag}`, `"other", ${first.etag}`, '*']) {
      const again = await call(t.app, 'GET', url, {
        as: team.admin,
        headers: { 'if-none-match': condition },
      });
      expect([again.status, again.response.body], condition).toEqual([304, '']);
      expect(again.headers.etag).toBe(first.etag);
      expect(again.headers['cache-control']).toBe('no-store');
      expect(again.headers['content-type']).toBeUndefined();
    }
    const head = await t.app.inject({
      method: 'HEAD',
      url,
      headers: { authorization: `Bearer ${team.admin.token}`, 'if-none-match': first.etag },
    });
    expect([head.statusCode, head.body, head.headers.etag]).toEqual([304, '', first.etag]);

    const other = await call(t.app, 'GET', url, { as: team.admin, headers: { 'if-none-match': '"other"' } });
    expect(other.status).toBe(200);
    expect(other.body).toEqual(first.body);
  });

  it('gives different callers the ETag of what each reads: a viewer sees no personal data', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const activity = await postActivity(t.app, team.admin, team.org.id, project.id);
    const [registration] = await register(t.app, team.admin, team.org.id, activity.id, [person()]);
    const url = participantUrl(team.org.id, registration!.participantId);
    const admin = await read(url, team.admin);
    const officer = await read(url, team.officer);
    const viewer = await read(url, team.viewer);
    expect(officer.etag).toBe(admin.etag);
    expect(viewer.body.firstName).toBeNull();
    expect(viewer.etag).not.toBe(admin.etag);
    // The viewer's ETag is no ETag of the admin's representation.
    const stale = await call(t.app, 'GET', url, {
      as: team.admin,
      headers: { 'if-none-match': viewer.etag },
    });
    expect(stale.status).toBe(200);
  });

  it('tags collections and the OpenAPI document too, but no error', async () => {
    const list = await call(t.app, 'GET', `${org}/programs`, { as: team.viewer });
    expect(list.headers.etag).toMatch(ETAG);
    const doc = await call(t.app, 'GET', '/api/openapi.json');
    expect(doc.headers.etag).toMatch(ETAG);
    const missing = await call(t.app, 'GET', `${org}/projects/${MISSING_ID}`, { as: team.admin });
    expect(missing.status).toBe(404);
    expect(missing.headers.etag).toBeUndefined();
  });
});

describe('a shared report', () => {
  it('may be kept by its reader, revalidated each time with its ETag, until the link is revoked', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const period = await createPeriod(t.database.db, team.org.id, project.id);
    const report = await call(t.app, 'POST', `${org}/reports`, {
      as: team.officer,
      body: { title: 'For the donor', projectId: project.id, reportType: 'ad_hoc', periodIds: [period.id] },
    });
    expect(report.status).toBe(201);
    const share = await call(t.app, 'PATCH', `${org}/reports/${report.body.id}/share`, { as: team.officer });
    expect(share.status).toBe(200);
    const url = `/reports/share/${share.body.shareToken}`;

    const first = await call(t.app, 'GET', url);
    expect([first.status, first.headers['cache-control']]).toEqual([
      200,
      'private, max-age=0, must-revalidate',
    ]);
    expect(first.headers.etag).toMatch(ETAG);
    // A donor who happens to be signed in gets the same caching: the route chose it.
    const signedIn = await call(t.app, 'GET', url, { as: team.viewer });
    expect([signedIn.headers['cache-control'], signedIn.headers.etag]).toEqual([
      'private, max-age=0, must-revalidate',
      first.headers.etag,
    ]);
    const again = await call(t.app, 'GET', url, { headers: { 'if-none-match': String(first.headers.etag) } });
    expect([again.status, again.response.body, again.headers['cache-control']]).toEqual([
      304,
      '',
      'private, max-age=0, must-revalidate',
    ]);

    const revoke = await call(t.app, 'DELETE', `${org}/reports/${report.body.id}/share`, {
      as: team.officer,
    });
    expect(revoke.status).toBe(204);
    const gone = await call(t.app, 'GET', url, { headers: { 'if-none-match': String(first.headers.etag) } });
    expect([gone.status, gone.body]).toEqual([404, notFoundBody('Report')]);
  });
});

describe('If-Match on writes', () => {
  it('refuses a stale PATCH of a project with 412 and changes nothing; the current ETag goes through', async () => {
    const project = await createProject(t.database.db, team.org.id, 'Boreholes');
    const url = `${org}/projects/${project.id}`;
    const before = await read(url);

    const stale = await call(t.app, 'PATCH', url, {
      as: team.admin,
      body: { name: 'Renamed' },
      headers: ifMatch('"not-the-current-one"'),
    });
    expect([stale.status, stale.body]).toEqual([412, preconditionFailed(CHANGED)]);
    expect(stale.headers.etag).toBe(before.etag);
    const unchanged = await read(url);
    expect([unchanged.body.name, unchanged.etag]).toEqual(['Boreholes', before.etag]);

    const weak = await call(t.app, 'PATCH', url, {
      as: team.admin,
      body: { name: 'Renamed' },
      headers: ifMatch(`W/${before.etag}`),
    });
    expect(weak.status).toBe(412);

    const current = await call(t.app, 'PATCH', url, {
      as: team.admin,
      body: { name: 'Renamed' },
      headers: ifMatch(`"x", ${before.etag}`),
    });
    expect([current.status, current.body.name]).toEqual([200, 'Renamed']);

    const after = await read(url);
    expect(after.etag).not.toBe(before.etag);
    const revalidated = await call(t.app, 'GET', url, {
      as: team.admin,
      headers: { 'if-none-match': after.etag },
    });
    expect(revalidated.status).toBe(304);
    // The ETag read before the write is now stale.
    const late = await call(t.app, 'PATCH', url, {
      as: team.admin,
      body: { location: 'Kisumu' },
      headers: ifMatch(before.etag),
    });
    expect(late.status).toBe(412);
    expect(late.headers.etag).toBe(after.etag);
  });

  it('keeps today’s behaviour without If-Match, takes * for any existing resource, and 412s * on a missing one', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const url = `${org}/projects/${project.id}`;
    const plain = await call(t.app, 'PATCH', url, { as: team.admin, body: { location: 'Mombasa' } });
    expect([plain.status, plain.body.location]).toEqual([200, 'Mombasa']);
    const star = await call(t.app, 'PATCH', url, {
      as: team.admin,
      body: { location: 'Nakuru' },
      headers: ifMatch('*'),
    });
    expect([star.status, star.body.location]).toEqual([200, 'Nakuru']);

    const missing = `${org}/projects/${MISSING_ID}`;
    const starMissing = await call(t.app, 'PATCH', missing, {
      as: team.admin,
      body: { location: 'Nakuru' },
      headers: ifMatch('*'),
    });
    expect([starMissing.status, starMissing.body]).toEqual([412, preconditionFailed(MISSING)]);
    const tagMissing = await call(t.app, 'DELETE', missing, { as: team.admin, headers: ifMatch('"abc"') });
    expect([tagMissing.status, tagMissing.body]).toEqual([404, notFoundBody('Project')]);
    const malformed = await call(t.app, 'PATCH', url, {
      as: team.admin,
      body: { location: 'Eldoret' },
      headers: ifMatch('not-quoted'),
    });
    expect([malformed.status, malformed.body]).toEqual([412, preconditionFailed(MALFORMED)]);
    expect((await read(url)).body.location).toBe('Nakuru');
  });

  it('lets exactly one of several writers holding the same ETag through', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const url = `${org}/projects/${project.id}`;
    const { etag } = await read(url);
    const results = await Promise.all(
      ['A', 'B', 'C', 'D', 'E'].map((name) =>
        call(t.app, 'PATCH', url, { as: team.admin, body: { name: `Name ${name}` }, headers: ifMatch(etag) }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 412, 412, 412, 412]);
    const winner = results.find((r) => r.status === 200)!;
    expect((await read(url)).body.name).toBe(winner.body.name);
  });

  it('guards an indicator report for its reporter, and its approval', async () => {
    const project = await createProject(t.database.db, team.org.id);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const period = await createPeriod(t.database.db, team.org.id, project.id);
    const indicator = await postIndicator(t.app, team.admin, team.org.id);
    await linkIndicator(t.app, team.admin, team.org.id, project.id, indicator.id);
    const report = await postReport(t.app, team.reporter, team.org.id, project.id, {
      indicatorId: indicator.id,
      reportingPeriodId: period.id,
      value: 4,
    });
    const url = reportUrl(team.org.id, report.id);
    const mine = await read(url, team.reporter);
    const admins = await read(url, team.admin);
    expect(admins.etag).toBe(mine.etag);

    // The officer edits while the reporter still holds the old representation.
    const officer = await call(t.app, 'PATCH', url, {
      as: team.officer,
      body: { value: 5 },
      headers: ifMatch(admins.etag),
    });
    expect(officer.status).toBe(200);
    const lost = await call(t.app, 'PATCH', url, {
      as: team.reporter,
      body: { value: 6 },
      headers: ifMatch(mine.etag),
    });
    expect([lost.status, lost.body]).toEqual([412, preconditionFailed(CHANGED)]);
    expect((await read(url, team.reporter)).body.value).toBe(5);

    const submitted = await act(t.app, team.reporter, team.org.id, report.id, 'submit');
    expect(submitted.status).toBe('submitted');
    const seen = await read(url, team.officer);
    // The reporter's ETag is from before the submission: approving on it would approve unseen changes.
    const staleApproval = await call(t.app, 'PATCH', reportUrl(team.org.id, report.id, 'approve'), {
      as: team.officer,
      headers: ifMatch(mine.etag),
    });
    expect([staleApproval.status, staleApproval.body]).toEqual([412, preconditionFailed(CHANGED)]);
    expect((await read(url)).body.status).toBe('submitted');
    const approval = await call(t.app, 'PATCH', reportUrl(team.org.id, report.id, 'approve'), {
      as: team.officer,
      headers: ifMatch(seen.etag),
    });
    expect([approval.status, approval.body.status]).toEqual([200, 'approved']);
  });

  it('guards a form and its publication', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const form = await postForm(t.app, team.officer, team.org.id, { projectId: project.id });
    const url = formUrl(team.org.id, form.id);
    const seen = await read(url, team.officer);
    const edit = await call(t.app, 'PATCH', url, {
      as: team.admin,
      body: { title: 'Edited by the admin' },
      headers: ifMatch(seen.etag),
    });
    expect(edit.status).toBe(200);
    const stalePublish = await call(t.app, 'POST', formUrl(team.org.id, form.id, 'publish'), {
      as: team.officer,
      headers: ifMatch(seen.etag),
    });
    expect([stalePublish.status, stalePublish.body]).toEqual([412, preconditionFailed(CHANGED)]);
    const fresh = await read(url, team.officer);
    expect(fresh.body.isPublished).toBe(false);
    const publish = await call(t.app, 'POST', formUrl(team.org.id, form.id, 'publish'), {
      as: team.officer,
      headers: ifMatch(fresh.etag),
    });
    expect([publish.status, publish.body.isPublished]).toEqual([200, true]);
  });

  it('guards locking a period (PATCH isLocked)', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const period = await createPeriod(t.database.db, team.org.id, project.id);
    const url = `${org}/reporting-periods/${period.id}`;
    const seen = await read(url, team.officer);
    const relabel = await call(t.app, 'PATCH', url, { as: team.admin, body: { label: 'First quarter' } });
    expect(relabel.status).toBe(200);
    const lock = await call(t.app, 'PATCH', url, {
      as: team.officer,
      body: { isLocked: true },
      headers: ifMatch(seen.etag),
    });
    expect([lock.status, lock.body]).toEqual([412, preconditionFailed(CHANGED)]);
    expect((await read(url)).body.isLocked).toBe(false);
  });

  it('does not record the precondition read of a participant in the audit log', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const activity = await postActivity(t.app, team.admin, team.org.id, project.id);
    const [registration] = await register(t.app, team.admin, team.org.id, activity.id, [person()]);
    const url = participantUrl(team.org.id, registration!.participantId);
    const seen = await read(url);
    const before = (await auditEntriesIn(t.database.db, team.org.id)).length;
    const stale = await call(t.app, 'PATCH', url, {
      as: team.admin,
      body: { village: 'Kisii' },
      headers: ifMatch('"stale"'),
    });
    expect(stale.status).toBe(412);
    expect((await auditEntriesIn(t.database.db, team.org.id)).length).toBe(before);
    const patched = await call(t.app, 'PATCH', url, {
      as: team.admin,
      body: { village: 'Kisii' },
      headers: ifMatch(seen.etag),
    });
    expect(patched.status).toBe(200);
    // The answer of the PATCH carries personal data: that one is recorded, once.
    expect((await auditEntriesIn(t.database.db, team.org.id)).length).toBe(before + 1);
  });
});

describe('entity tags (RFC 9110 section 8.8.3)', () => {
  it('compares strongly for If-Match and weakly for If-None-Match, over lists', () => {
    const current = '"abc"';
    expect(ifMatchHolds('"abc"', current)).toBe(true);
    expect(ifMatchHolds(' "x" , ,"abc" ', current)).toBe(true);
    expect(ifMatchHolds('W/"abc"', current)).toBe(false);
    expect(ifMatchHolds('*', current)).toBe(true);
    expect(ifMatchHolds('*', null)).toBe(false);
    expect(ifMatchHolds('"abc"', null)).toBe(false);
    expect(ifMatchHolds('"ab"', current)).toBe(false);
    expect(ifNoneMatchHits('W/"abc"', current)).toBe(true);
    expect(ifNoneMatchHits('"x", W/"abc"', current)).toBe(true);
    expect(ifNoneMatchHits('"a,bc"', current)).toBe(false);
    expect(ifNoneMatchHits('abc', current)).toBe(false);
  });

  it('knows a list of entity tags from anything else', () => {
    for (const valid of ['*', '"a"', 'W/"a"', '"a", W/"b"', '"a,b"', ', "a",', '""']) {
      expect(isEntityTagList(valid), valid).toBe(true);
    }
    for (const invalid of ['a', '"a" "b"', 'w/"a"', '"a', '*, "a"', '"a"x']) {
      expect(isEntityTagList(invalid), invalid).toBe(false);
    }
  });
});

/** The GET route a write's If-Match is checked against, as the route declares it. */
const targetOf = (route: Pick<Route, 'method' | 'url'>) =>
  conditionalTargetOf(t.app.routeTable.find((r) => r.method === route.method && r.url === route.url)?.config);

describe('which writes are conditional', () => {
  it('names the resource a write or an action changes, and nothing for creations in collections', () => {
    const cases: [string, string, string | null][] = [
      ['PATCH', '/orgs/:orgId/projects/:id', '/orgs/:orgId/projects/:id'],
      ['PATCH', '/orgs/:orgId/indicator-reports/:id/approve', '/orgs/:orgId/indicator-reports/:id'],
      ['PATCH', '/orgs/:orgId/reports/:id/share/regenerate', '/orgs/:orgId/reports/:id'],
      ['DELETE', '/orgs/:orgId/reports/:id/share', '/orgs/:orgId/reports/:id'],
      ['POST', '/orgs/:orgId/participants/:id/erase', '/orgs/:orgId/participants/:id'],
      ['POST', '/orgs/:orgId/indicators/:id/disaggregations', null],
      ['POST', '/orgs/:orgId/programs/:programId/projects', null],
      ['POST', '/orgs/:orgId/projects/:projectId/reports', null],
      ['POST', '/orgs/:orgId/projects/:projectId/indicator-reports/prefill', null],
      ['PATCH', '/orgs/:orgId/result-nodes/reorder', null],
      ['PATCH', '/orgs/:orgId/members/:userId', null],
      ['POST', '/forms/public/:token/submit', null],
      ['GET', '/orgs/:orgId/projects/:id', null],
    ];
    for (const [method, url, target] of cases) expect(targetOf({ method, url }), url).toBe(target);
  });

  it('covers the writes and state actions of every resource with a GET', () => {
    const conditional = t.app.routeTable
      .filter((route) => targetOf(route) !== null)
      .map((route) => `${route.method} ${route.url}`)
      .sort();
    const resource = (path: string, ...methods: string[]) => methods.map((m) => `${m} /orgs/:orgId${path}`);
    expect(conditional).toEqual(
      [
        ...resource('', 'PATCH'),
        ...resource('/donors/:id', 'PATCH', 'DELETE'),
        ...resource('/programs/:id', 'PATCH', 'DELETE'),
        ...resource('/projects/:id', 'PATCH', 'DELETE'),
        ...resource('/result-nodes/:id', 'PATCH', 'DELETE'),
        ...resource('/reporting-periods/:id', 'PATCH', 'DELETE'),
        ...resource('/indicators/:id', 'PATCH', 'DELETE'),
        ...resource('/indicator-reports/:id', 'PATCH'),
        ...resource('/indicator-reports/:id/submit', 'PATCH'),
        ...resource('/indicator-reports/:id/approve', 'PATCH'),
        ...resource('/indicator-reports/:id/reject', 'PATCH'),
        ...resource('/activities/:id', 'PATCH', 'DELETE'),
        ...resource('/participants/:id', 'PATCH'),
        ...resource('/participants/:id/erase', 'POST'),
        ...resource('/budget-lines/:id', 'PATCH', 'DELETE'),
        ...resource('/forms/:id', 'PATCH', 'DELETE'),
        ...resource('/forms/:id/publish', 'POST'),
        ...resource('/forms/:id/unpublish', 'POST'),
        ...resource('/forms/:id/regenerate-token', 'POST'),
        ...resource('/reports/:id', 'PATCH', 'DELETE'),
        ...resource('/reports/:id/refresh', 'POST'),
        ...resource('/reports/:id/share', 'PATCH', 'DELETE'),
        ...resource('/reports/:id/share/regenerate', 'PATCH'),
        ...resource('/webhooks/:id', 'PATCH', 'DELETE'),
        ...resource('/webhooks/:id/rotate-secret', 'POST'),
        ...resource('/webhooks/:id/ping', 'POST'),
        ...resource('/validation-rules/:id', 'PATCH', 'DELETE'),
        'DELETE /auth/tokens/:id',
      ].sort(),
    );
  });
});

/** Deletions last, what others hang on after what hangs on it. */
const DELETE_ORDER = [
  '/budget-lines/',
  '/share',
  '/reports/',
  '/activities/',
  '/forms/',
  '/indicators/',
  '/reporting-periods/',
  '/result-nodes/',
  '/donors/',
  '/projects/',
  '/programs/',
];
const deleteRank = (route: Route) =>
  route.method !== 'DELETE' ? -1 : DELETE_ORDER.findIndex((part) => route.url.includes(part)) + 1 || 99;

it('refuses every conditional write on a stale ETag with 412 and nothing changed, and lets the current one through', async () => {
  const ids = await resourcesIn(
    t.app,
    t.database.db,
    team.admin,
    team.org.id,
    'Conditional sweep',
    team.viewer.id,
    team.reporter.id,
  );
  const writes = t.app.routeTable
    .filter((route) => targetOf(route) !== null)
    .sort((a, b) => deleteRank(a) - deleteRank(b));
  expect(writes.length).toBeGreaterThan(30);
  const wrong: string[] = [];
  for (const route of writes) {
    const target = pathFor({ method: 'GET', url: targetOf(route)! }, team.org.id, ids);
    const url = pathFor(route, team.org.id, ids);
    const body = BODIES[routeName(route)]?.(ids) ?? (route.method === 'DELETE' ? undefined : {});
    const send = (etag: string) =>
      call(t.app, route.method as 'PATCH', url, { as: team.admin, body, headers: ifMatch(etag) });
    const before = await read(target);
    const stale = await send('"stale"');
    const after = await read(target);
    if (stale.status !== 412 || stale.headers.etag !== before.etag || after.etag !== before.etag) {
      wrong.push(`${routeName(route)} stale: ${stale.status} ${JSON.stringify(stale.body).slice(0, 100)}`);
    }
    const current = await send(after.etag);
    if ([404, 412].includes(current.status) || current.status >= 500) {
      wrong.push(
        `${routeName(route)} current: ${current.status} ${JSON.stringify(current.body).slice(0, 100)}`,
      );
    }
  }
  expect(wrong).toEqual([]);
});
