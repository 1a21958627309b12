import { randomUUID } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  erasureUrl,
  householdUrl,
  participantsUrl,
  participantUrl,
  person,
  postActivity,
  register,
  registrationsUrl,
  registrationUrl,
  type HouseholdMemberJson,
} from '../../../test/helpers/activities.js';
import { useAssignedProjects } from '../../../test/helpers/assigned-projects.js';
import type { TestUser } from '../../../test/helpers/factories.js';
import { call, MISSING_ID } from '../../../test/helpers/http.js';
import { auditLog } from '../privacy/privacy.tables.js';

const { t, team, projects } = useAssignedProjects();

type Method = 'GET' | 'POST' | 'PATCH';

/** One request under a request id of its own, and the audit entries written under that id. */
async function audited(method: Method, url: string, as: TestUser | null, body?: unknown) {
  const requestId = `req-${randomUUID()}`;
  const res = await call(t.app, method, url, { as, body, headers: { 'x-request-id': requestId } });
  const entries = await t.database.db
    .select()
    .from(auditLog)
    .where(eq(auditLog.requestId, requestId))
    .orderBy(asc(auditLog.id));
  return { res, entries, requestId };
}

/** An activity of the project with a person registered (district unique to it) and their household member. */
async function scene(projectId = projects.assigned.id) {
  const district = `d${randomUUID().slice(0, 8)}`;
  const activity = await postActivity(t.app, team.officer, team.org.id, projectId);
  const [registration] = await register(t.app, team.officer, team.org.id, activity.id, [
    person({ district, phone: '+254 700 555 000', attended: true }),
  ]);
  const member = await call(t.app, 'POST', householdUrl(team.org.id, registration!.participantId), {
    as: team.officer,
    body: { name: 'Imani', relationship: 'niece', sex: 'female', age: 12 },
  });
  expect(member.status).toBe(201);
  return { activity, district, id: registration!.participantId, member: member.body as HouseholdMemberJson };
}

const ROLES: [string, () => TestUser][] = [
  ['me_officer', () => team.officer],
  ['org_admin', () => team.admin],
  ['reporter', () => team.reporter],
];

describe('the audit entry of each participant route', () => {
  it.each(ROLES)('writes one entry per response to a %s, naming who, what and how', async (role, user) => {
    const as = user();
    const { activity, district, id, member } = await scene();
    const org = team.org.id;
    const entry = (route: string, requestId: string, fields: Record<string, unknown>) => ({
      id: expect.any(Number),
      orgId: org,
      at: expect.any(Date),
      actorId: as.id,
      actorRole: role,
      tokenId: null,
      tokenName: null,
      ip: '127.0.0.1',
      requestId,
      action: 'read',
      route,
      subjectKind: 'participant',
      details: {},
      ...fields,
    });
    const expectOne = (
      call: Awaited<ReturnType<typeof audited>>,
      status: number,
      route: string,
      fields: Record<string, unknown>,
    ) => {
      expect([route, call.res.status]).toEqual([route, status]);
      expect(call.entries).toEqual([entry(route, call.requestId, fields)]);
    };

    const listed = await audited('GET', `${participantsUrl(org)}?search=${district}`, as);
    expectOne(listed, 200, 'GET /orgs/:orgId/participants', {
      subjectIds: [id],
      count: 1,
      details: { searchWords: 1 },
    });
    const paged = await audited('GET', `${participantsUrl(org)}?search=${district}&page=1&limit=5`, as);
    expectOne(paged, 200, 'GET /orgs/:orgId/participants', {
      subjectIds: [id],
      count: 1,
      details: { searchWords: 1, page: 1, limit: 5 },
    });
    // Unknown query parameters are no part of the record (a NUL in one could not be stored: it was a 500).
    const odd = await audited('GET', `${participantsUrl(org)}?search=${district}&pageSize=a%00b&x=1`, as);
    expectOne(odd, 200, 'GET /orgs/:orgId/participants', {
      subjectIds: [id],
      count: 1,
      details: { searchWords: 1 },
    });
    expectOne(await audited('GET', participantUrl(org, id), as), 200, 'GET /orgs/:orgId/participants/:id', {
      subjectIds: [id],
      count: 1,
    });
    expectOne(
      await audited('PATCH', participantUrl(org, id), as, { village: 'Mathare' }),
      200,
      'PATCH /orgs/:orgId/participants/:id',
      { subjectIds: [id], count: 1 },
    );
    expectOne(
      await audited('GET', householdUrl(org, id), as),
      200,
      'GET /orgs/:orgId/participants/:id/household-members',
      { subjectKind: 'household_member', subjectIds: [id, member.id], count: 1 },
    );
    const added = await audited('POST', householdUrl(org, id), as, {
      name: 'Tumaini',
      relationship: 'son',
      sex: 'male',
      age: 2,
    });
    expectOne(added, 201, 'POST /orgs/:orgId/participants/:id/household-members', {
      subjectKind: 'household_member',
      subjectIds: [id, added.res.body.id],
      count: 1,
    });
    expectOne(
      await audited('GET', `${registrationsUrl(org, activity.id)}?attended=true`, as),
      200,
      'GET /orgs/:orgId/activities/:id/participants',
      { subjectIds: [id], count: 1, details: { activityId: activity.id, attended: true } },
    );
    const batch = await audited('POST', registrationsUrl(org, activity.id), as, {
      participants: [person(), { participantId: id }, person()],
    });
    expectOne(batch, 201, 'POST /orgs/:orgId/activities/:id/participants', {
      subjectIds: batch.res.body.map((r: { participantId: string }) => r.participantId),
      count: 3,
    });
    expect(batch.entries[0]!.subjectIds).toContain(id);
    expectOne(
      await audited('PATCH', registrationUrl(org, activity.id, id), as, { attended: false }),
      200,
      'PATCH /orgs/:orgId/activities/:activityId/participants/:participantId',
      { subjectIds: [id], count: 1 },
    );
  });

  it('names every participant of the page sent, and only them; a household read names each member', async () => {
    const { activity, id, member } = await scene();
    const more = await register(t.app, team.officer, team.org.id, activity.id, [person(), person()]);
    const everyone = [id, ...more.map((r) => r.participantId)];
    const all = await audited('GET', registrationsUrl(team.org.id, activity.id), team.officer);
    expect(all.entries).toEqual([
      expect.objectContaining({ count: 3, details: { activityId: activity.id } }),
    ]);
    expect([...all.entries[0]!.subjectIds].sort()).toEqual([...everyone].sort());

    const page = await audited(
      'GET',
      `${registrationsUrl(team.org.id, activity.id)}?page=2&limit=2`,
      team.officer,
    );
    expect(page.res.body.data).toHaveLength(1);
    expect(page.entries).toEqual([
      expect.objectContaining({
        subjectIds: [page.res.body.data[0].participantId],
        count: 1,
        details: { activityId: activity.id, page: 2, limit: 2 },
      }),
    ]);
    const odd = await audited(
      'GET',
      `${registrationsUrl(team.org.id, activity.id)}?page=2&limit=2&pageSize=a%00b`,
      team.officer,
    );
    expect(odd.res.status).toBe(200);
    expect(odd.entries).toEqual([
      expect.objectContaining({ details: { activityId: activity.id, page: 2, limit: 2 } }),
    ]);

    const second = await call(t.app, 'POST', householdUrl(team.org.id, id), {
      as: team.officer,
      body: { name: 'Baraka', relationship: 'son', sex: 'male', age: 40 },
    });
    const household = await audited('GET', householdUrl(team.org.id, id), team.admin);
    expect(household.entries).toEqual([
      expect.objectContaining({
        subjectKind: 'household_member',
        subjectIds: [id, second.body.id, member.id],
        count: 2,
      }),
    ]);
  });

  it('takes the request id from x-request-id, or the one the service gave the response', async () => {
    const { id } = await scene();
    const given = await audited('GET', participantUrl(team.org.id, id), team.officer);
    expect(given.entries.map((entry) => entry.requestId)).toEqual([given.requestId]);
    expect(given.res.headers['x-request-id']).toBe(given.requestId);

    const before = await t.database.db.select().from(auditLog).where(eq(auditLog.actorId, team.admin.id));
    const headerSets: Record<string, string>[] = [{}, { 'x-request-id': 'not valid: spaces' }];
    for (const headers of headerSets) {
      const res = await call(t.app, 'GET', participantUrl(team.org.id, id), { as: team.admin, headers });
      const sent = res.headers['x-request-id'] as string;
      expect(sent).toMatch(/^[0-9a-f-]{36}$/);
      const entries = await t.database.db.select().from(auditLog).where(eq(auditLog.requestId, sent));
      expect(entries).toEqual([expect.objectContaining({ actorId: team.admin.id, subjectIds: [id] })]);
    }
    const after = await t.database.db.select().from(auditLog).where(eq(auditLog.actorId, team.admin.id));
    expect(after.length - before.length).toBe(2);
  });
});

describe('responses that write no audit entry', () => {
  it('writes nothing for a viewer on any participant route', async () => {
    const { activity, district, id } = await scene();
    for (const url of [
      `${participantsUrl(team.org.id)}?search=${district}`,
      `${participantsUrl(team.org.id)}?search=${district}&page=1`,
      participantUrl(team.org.id, id),
      householdUrl(team.org.id, id),
      registrationsUrl(team.org.id, activity.id),
      `${registrationsUrl(team.org.id, activity.id)}?limit=10`,
    ]) {
      const { res, entries } = await audited('GET', url, team.viewer);
      expect([url, res.status, entries]).toEqual([url, 200, []]);
    }
  });

  it('writes nothing for an empty list, page or household', async () => {
    const { activity, district, id } = await scene();
    const empty = await postActivity(t.app, team.officer, team.org.id, projects.assigned.id);
    const nobody = await register(t.app, team.officer, team.org.id, activity.id, [person()]);
    const alone = nobody[0]!.participantId;
    for (const url of [
      `${participantsUrl(team.org.id)}?search=${district}-nobody`,
      `${participantsUrl(team.org.id)}?search=${district}&page=2`,
      registrationsUrl(team.org.id, empty.id),
      `${registrationsUrl(team.org.id, activity.id)}?attended=true&page=3&limit=1`,
      householdUrl(team.org.id, alone),
    ]) {
      const { res, entries } = await audited('GET', url, team.officer);
      expect([url, res.status, entries]).toEqual([url, 200, []]);
    }
    expect((await audited('GET', participantUrl(team.org.id, id), team.officer)).entries).toHaveLength(1);
  });

  it('writes nothing for a refused or failed request', async () => {
    const { activity, id } = await scene(projects.unassigned.id);
    const cases: [Method, string, TestUser | null, unknown][] = [
      ['GET', participantUrl(team.org.id, id), null, undefined],
      ['GET', participantUrl(team.org.id, id), team.reporter, undefined],
      ['GET', participantUrl(team.org.id, id), team.outsider, undefined],
      ['GET', participantUrl(team.org.id, MISSING_ID), team.officer, undefined],
      ['PATCH', participantUrl(team.org.id, id), team.officer, { sex: 'unknown' }],
      ['GET', householdUrl(team.org.id, id), team.reporter, undefined],
      ['POST', householdUrl(team.org.id, id), team.officer, { name: '' }],
      ['GET', registrationsUrl(team.org.id, activity.id), team.reporter, undefined],
      ['POST', registrationsUrl(team.org.id, activity.id), team.officer, { participants: [] }],
      ['PATCH', registrationUrl(team.org.id, activity.id, id), team.reporter, { attended: true }],
    ];
    for (const [method, url, as, body] of cases) {
      const { res, entries } = await audited(method, url, as, body);
      expect([method, url, res.status >= 400, entries]).toEqual([method, url, true, []]);
    }
  });

  it('leaves erased people out of the entry, and writes none when only they were sent', async () => {
    const { activity, id } = await scene();
    const [other] = await register(t.app, team.officer, team.org.id, activity.id, [person()]);
    const erase = await call(t.app, 'POST', erasureUrl(team.org.id, id), {
      as: team.admin,
      body: { reason: 'Asked to be forgotten' },
    });
    expect(erase.status).toBe(200);

    const listed = await audited('GET', registrationsUrl(team.org.id, activity.id), team.officer);
    expect(listed.res.body).toHaveLength(2);
    expect(listed.entries).toEqual([
      expect.objectContaining({ subjectIds: [other!.participantId], count: 1 }),
    ]);

    const reused = await audited('POST', registrationsUrl(team.org.id, activity.id), team.officer, {
      participants: [{ participantId: id }],
    });
    expect([reused.res.status, reused.entries]).toEqual([201, []]);
    for (const url of [participantUrl(team.org.id, id), householdUrl(team.org.id, id)]) {
      const { res, entries } = await audited('GET', url, team.admin);
      expect([url, res.status, entries]).toEqual([url, 200, []]);
    }
    const patched = await audited('PATCH', registrationUrl(team.org.id, activity.id, id), team.officer, {
      attended: true,
    });
    expect([patched.res.status, patched.entries]).toEqual([200, []]);
  });
});
