import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  erasureUrl,
  exportUrl,
  householdUrl,
  participantUrl,
  person,
  postActivity,
  register,
  registrationsUrl,
  type ActivityJson,
  type HouseholdMemberJson,
  type ParticipantJson,
  type RegistrationJson,
} from '../../../test/helpers/activities.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import {
  assignProject,
  createProject,
  createTeam,
  type Team,
  type TestUser,
} from '../../../test/helpers/factories.js';
import {
  badRequest,
  call,
  expectError,
  MISSING_ID,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  MANAGERS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { auditLog } from '../privacy/privacy.tables.js';

let t: TestApp;
let team: Team;
let project: { id: string };
let later: ActivityJson;
let earlier: ActivityJson;

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
  project = await createProject(t.database.db, team.org.id);
  // The reporter reaches the people of this project: they may read them, never export them.
  await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
  const other = await createProject(t.database.db, team.org.id, 'School Meals');
  later = await postActivity(t.app, team.officer, team.org.id, project.id, {
    title: 'Savings group',
    startDate: '2026-05-01',
    endDate: '2026-05-02',
  });
  earlier = await postActivity(t.app, team.officer, team.org.id, other.id, {
    title: 'Cooking class',
    startDate: '2026-01-10',
    endDate: '2026-01-12',
  });
});
afterAll(() => t.close());

const exportOf = (
  id: string,
  as: TestUser | null = team.officer,
  orgId = team.org.id,
  headers: Record<string, string> = {},
) => call(t.app, 'GET', exportUrl(orgId, id), { as, headers });

/** Someone registered in both activities (the later one first), with one household member. */
async function registeredTwice() {
  const secret = randomUUID().slice(0, 8);
  const [first] = await register(t.app, team.officer, team.org.id, later.id, [
    person({
      firstName: `Achieng${secret}`,
      phone: `+254 711 ${secret}`,
      nationalId: `KE-${secret}`,
      role: 'treasurer',
      attended: true,
    }),
  ]);
  const id = first!.participantId;
  const [second] = await register(t.app, team.admin, team.org.id, earlier.id, [{ participantId: id }]);
  const member = await call(t.app, 'POST', householdUrl(team.org.id, id), {
    as: team.officer,
    body: { name: `Otieno ${secret}`, relationship: 'husband', sex: 'male', age: 41 },
  });
  expect(member.status).toBe(201);
  const full = await call(t.app, 'GET', participantUrl(team.org.id, id), { as: team.admin });
  return {
    participant: full.body as ParticipantJson,
    member: member.body as HouseholdMemberJson,
    registrations: [second!, first!] as RegistrationJson[],
  };
}

const entriesAbout = (id: string) =>
  t.database.db
    .select()
    .from(auditLog)
    .where(sql`${auditLog.subjectIds} @> ARRAY[${id}]::uuid[]`);

describe('GET /orgs/:orgId/participants/:id/export', () => {
  it('gives the record in clear, the household, every registration oldest activity first, and the access log', async () => {
    const { participant, member, registrations } = await registeredTwice();
    const { householdMembers, ...record } = participant;
    const res = await exportOf(participant.id, team.officer, team.org.id, { 'x-request-id': 'export-1' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      exportedAt: expect.stringMatching(TIMESTAMP),
      participant: record,
      householdMembers: [member],
      registrations: [
        {
          activityId: earlier.id,
          activityTitle: 'Cooking class',
          projectId: earlier.projectId,
          startDate: '2026-01-10',
          endDate: '2026-01-12',
          role: 'attendee',
          attended: false,
          registeredAt: registrations[0]!.registeredAt,
        },
        {
          activityId: later.id,
          activityTitle: 'Savings group',
          projectId: project.id,
          startDate: '2026-05-01',
          endDate: '2026-05-02',
          role: 'treasurer',
          attended: true,
          registeredAt: registrations[1]!.registeredAt,
        },
      ],
      accessLog: expect.any(Array),
    });
    expect(householdMembers).toEqual([member]);
    expect(res.body.participant).toMatchObject({
      phone: participant.phone,
      nationalId: participant.nationalId,
    });
    // The person reads who (by role) did what, when, about them: not the staff's ids and addresses,
    // request ids, filters, or other people's ids.
    expect(res.body.accessLog[0]).toEqual({
      at: expect.stringMatching(TIMESTAMP),
      actorRole: 'me_officer',
      action: 'export',
      route: 'GET /orgs/:orgId/participants/:id/export',
      subjectIds: [participant.id, member.id],
    });
  });

  it('lists every earlier read of the person, newest first, the export itself on top', async () => {
    const { participant } = await registeredTwice();
    const read = (url: string, as: TestUser, requestId: string) =>
      call(t.app, 'GET', url, { as, headers: { 'x-request-id': requestId } });
    expect((await read(participantUrl(team.org.id, participant.id), team.admin, 'read-1')).status).toBe(200);
    expect((await read(householdUrl(team.org.id, participant.id), team.reporter, 'read-2')).status).toBe(200);
    expect((await read(registrationsUrl(team.org.id, later.id), team.officer, 'read-3')).status).toBe(200);
    // Viewers get nothing personal, so their reads are not in it.
    expect((await read(participantUrl(team.org.id, participant.id), team.viewer, 'read-4')).status).toBe(200);

    const res = await exportOf(participant.id, team.admin, team.org.id, { 'x-request-id': 'export-2' });
    expect(res.status).toBe(200);
    const log = res.body.accessLog as { route: string; action: string; actorRole: string; at: string }[];
    expect(log.slice(0, 4).map((entry) => [entry.route, entry.action, entry.actorRole])).toEqual([
      ['GET /orgs/:orgId/participants/:id/export', 'export', 'org_admin'],
      ['GET /orgs/:orgId/activities/:id/participants', 'read', 'me_officer'],
      ['GET /orgs/:orgId/participants/:id/household-members', 'read', 'reporter'],
      ['GET /orgs/:orgId/participants/:id', 'read', 'org_admin'],
    ]);
    const times = log.map((entry) => entry.at);
    expect(times).toEqual([...times].sort().reverse());
    // Every entry about the person (the viewer's read is none), the registrations and household additions
    // before these reads too.
    const stored = await entriesAbout(participant.id);
    expect(stored.map((entry) => entry.requestId)).not.toContain('read-4');
    expect(log.map((entry) => entry.at).sort()).toEqual(stored.map((entry) => entry.at.toISOString()).sort());
    expect(log.length).toBeGreaterThanOrEqual(7);
  });

  it('records one export entry and no read entry', async () => {
    const { participant } = await registeredTwice();
    const requestId = `export-${randomUUID()}`;
    expect(
      (await exportOf(participant.id, team.officer, team.org.id, { 'x-request-id': requestId })).status,
    ).toBe(200);
    const mine = (await entriesAbout(participant.id)).filter((entry) => entry.requestId === requestId);
    expect(mine.map((entry) => [entry.action, entry.orgId, entry.count])).toEqual([
      ['export', team.org.id, 1],
    ]);
  });

  it('exports what is left of an erased person, with the erasure in the log', async () => {
    const { participant, member } = await registeredTwice();
    const erased = await call(t.app, 'POST', erasureUrl(team.org.id, participant.id), {
      as: team.admin,
      body: { reason: 'Withdrew consent' },
    });
    expect(erased.status).toBe(200);
    const res = await exportOf(participant.id);
    expect(res.status).toBe(200);
    expect(res.body.participant).toMatchObject({
      firstName: null,
      lastName: null,
      dateOfBirth: null,
      age: null,
      phone: null,
      nationalId: null,
      ageBand: participant.ageBand,
      erasedAt: erased.body.erasedAt,
    });
    expect(res.body.householdMembers).toEqual([{ ...member, name: null, age: null }]);
    expect(res.body.registrations.map((r: { activityId: string }) => r.activityId)).toEqual([
      earlier.id,
      later.id,
    ]);
    expect(res.body.accessLog.slice(0, 2)).toEqual([
      expect.objectContaining({ action: 'export' }),
      expect.objectContaining({
        action: 'erase',
        actorRole: 'org_admin',
        subjectIds: [participant.id, member.id],
      }),
    ]);
    expect(JSON.stringify(res.body)).not.toContain(participant.firstName!);
  });

  it('is for org admins and M&E officers: 401, 403 to reporters, viewers and outsiders', async () => {
    const { participant } = await registeredTwice();
    const before = (await entriesAbout(participant.id)).length;
    expectError(await exportOf(participant.id, null), UNAUTHORIZED);
    for (const as of [team.reporter, team.viewer, team.outsider]) {
      expectError(await exportOf(participant.id, as), refusedTo(team, as, MANAGERS));
    }
    expect(await entriesAbout(participant.id)).toHaveLength(before);
    for (const as of [team.admin, team.officer]) {
      expect((await exportOf(participant.id, as)).status).toBe(200);
    }
  });

  it("answers 404 for another organization's participant or a missing one, 400 for a bad id", async () => {
    const foreignProject = await createProject(t.database.db, team.outsiderOrg.id);
    const foreignActivity = await postActivity(t.app, team.outsider, team.outsiderOrg.id, foreignProject.id);
    const [foreign] = await register(t.app, team.outsider, team.outsiderOrg.id, foreignActivity.id, [
      person(),
    ]);
    const { participant } = await registeredTwice();
    expectError(await exportOf(foreign!.participantId, team.admin), notFoundBody('Participant'));
    expectError(await exportOf(MISSING_ID), notFoundBody('Participant'));
    expectError(
      await exportOf(participant.id, team.outsider, team.outsiderOrg.id),
      notFoundBody('Participant'),
    );
    expectError(await exportOf('nope'), badRequest('id must be a UUID'));
  });
});
