import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf, type Db } from '../../src/db/client.js';
import { newId } from '../../src/lib/ids.js';
import { activityParticipants, participants } from '../../src/modules/activities/activities.tables.js';
import { sealedContact } from '../../src/modules/activities/participant-sealing.js';
import {
  householdUrl,
  participantsUrl,
  participantUrl,
  person,
  postActivity,
  register,
  registrationsUrl,
  registrationUrl,
  type ActivityJson,
  type ParticipantJson,
} from '../helpers/activities.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { assignProject, createProject, createTeam, type Team, type TestUser } from '../helpers/factories.js';
import {
  ALL_ROLES,
  call,
  CONTRIBUTORS,
  expectError,
  MISSING_ID,
  notAssigned,
  notFoundBody,
} from '../helpers/http.js';

let t: TestApp;
let team: Team;
/** Activities of project A (assigned to the reporter) and of project B (not assigned). */
let inA: ActivityJson;
let alsoInA: ActivityJson;
let inB: ActivityJson;
/** Registered by an me_officer in B only: out of the reporter's reach. */
let outsider: ParticipantJson;

const NOT_FOUND = notFoundBody('Participant');
const ELSEWHERE = {
  statusCode: 409,
  message: 'A participant with this national id is registered in a project you are not assigned to',
  error: 'Conflict',
  code: 'duplicate' as const,
};

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
  const [a, b] = [
    await createProject(t.database.db, team.org.id, 'Project A'),
    await createProject(t.database.db, team.org.id, 'Project B'),
  ];
  await assignProject(t.database.db, team.org.id, a.id, team.reporter.id);
  inA = await postActivity(t.app, team.officer, team.org.id, a.id, { title: 'Borehole committee' });
  alsoInA = await postActivity(t.app, team.officer, team.org.id, a.id, { title: 'Latrine building' });
  inB = await postActivity(t.app, team.officer, team.org.id, b.id, { title: 'Cash transfer' });
  const [registered] = await register(t.app, team.officer, team.org.id, inB.id, [
    person({
      firstName: 'Wanjiku',
      lastName: 'Kamau',
      phone: '+254 722 000 111',
      nationalId: 'KE-SECRET-1',
      dateOfBirth: '1984-03-09',
    }),
  ]);
  outsider = registered!.participant;
  const household = await call(t.app, 'POST', householdUrl(team.org.id, outsider.id), {
    as: team.officer,
    body: { name: 'Njeri Kamau', relationship: 'daughter', sex: 'female', age: 9 },
  });
  expect(household.status).toBe(201);
});
afterAll(() => t.close());

const post = (activityId: string, items: unknown[], as: TestUser = team.reporter) =>
  call(t.app, 'POST', registrationsUrl(team.org.id, activityId), { as, body: { participants: items } });

/** Every registration and participant of the organization, to show a refused batch stored nothing. */
async function stored() {
  const org = team.org.id;
  const result = await t.database.db.execute(sql`SELECT
    (SELECT count(*)::int FROM participants WHERE org_id = ${org}) AS people,
    (SELECT count(*)::int FROM activity_participants WHERE org_id = ${org}) AS registrations`);
  return rowsOf<{ people: number; registrations: number }>(result)[0]!;
}

const activitiesOf = async (participantId: string) =>
  (
    await t.database.db
      .select({ activityId: activityParticipants.activityId })
      .from(activityParticipants)
      .where(eq(activityParticipants.participantId, participantId))
  ).map((row) => row.activityId);

/** No personal field of the out-of-scope participant anywhere in a response. */
function expectNothingPersonal(body: unknown): void {
  const text = JSON.stringify(body);
  for (const value of [
    'Wanjiku',
    'Kamau',
    '722 000 111',
    'KE-SECRET-1',
    '1984-03-09',
    'Njeri',
    outsider.id,
  ]) {
    expect(text).not.toContain(value);
  }
}

/**
 * Runs the request while the test's own transaction holds a row it needs, and commits that transaction
 * once the request waits for it (on PGlite, which runs one transaction at a time, it simply waits).
 */
async function heldUp<T>(hold: (tx: Db) => Promise<unknown>, start: () => Promise<T>): Promise<T> {
  let request: Promise<T> | undefined;
  await t.database.db.transaction(async (tx) => {
    await hold(tx);
    request = start();
    request.catch(() => undefined);
    for (let tries = 0; t.database.driver === 'pg' && tries < 200; tries += 1) {
      const waiting = await tx.execute(sql`SELECT count(*)::int AS n FROM pg_locks
        WHERE locktype = 'transactionid' AND NOT granted AND transactionid = pg_current_xact_id()::text::xid`);
      if (rowsOf<{ n: number }>(waiting)[0]!.n >= 1) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  return request!;
}

describe('finding 2: reporters reach participants only in assigned projects', () => {
  it('refuses a participantId outside the assigned projects as unknown (404), storing nothing', async () => {
    const before = await stored();
    for (const items of [
      [{ participantId: outsider.id }],
      // All or nothing: the good item of the batch is not stored either.
      [person({ firstName: 'Baraka' }), { participantId: outsider.id, attended: true }],
    ]) {
      const res = await post(inA.id, items);
      expectError(res, NOT_FOUND);
    }
    // Exactly what an id that exists nowhere gets.
    expectError(await post(inA.id, [{ participantId: MISSING_ID }]), NOT_FOUND);
    expect(await stored()).toEqual(before);
    expect(await activitiesOf(outsider.id)).toEqual([inB.id]);
  });

  it('refuses a new participant whose nationalId is of someone outside them (409), saying nothing of that person', async () => {
    const before = await stored();
    for (const items of [
      [person({ firstName: 'Impostor', nationalId: 'KE-SECRET-1' })],
      // Trimmed as stored, and all or nothing.
      [person({ firstName: 'Baraka' }), person({ nationalId: '  KE-SECRET-1 ' })],
    ]) {
      const res = await post(inA.id, items);
      expectError(res, ELSEWHERE);
      expectNothingPersonal(res.body);
    }
    expect(await stored()).toEqual(before);
    expect(await activitiesOf(outsider.id)).toEqual([inB.id]);
  });

  it('keeps every participant route of that person closed to the reporter (403), and them unchanged', async () => {
    const org = team.org.id;
    const calls = [
      call(t.app, 'GET', participantUrl(org, outsider.id), { as: team.reporter }),
      call(t.app, 'PATCH', participantUrl(org, outsider.id), {
        as: team.reporter,
        body: { phone: '+254 700 999 999' },
      }),
      call(t.app, 'GET', householdUrl(org, outsider.id), { as: team.reporter }),
      call(t.app, 'POST', householdUrl(org, outsider.id), {
        as: team.reporter,
        body: { name: 'Planted', relationship: 'son', sex: 'male', age: 4 },
      }),
    ];
    const roles = [ALL_ROLES, CONTRIBUTORS, ALL_ROLES, CONTRIBUTORS];
    for (const [i, res] of (await Promise.all(calls)).entries()) {
      expectError(res, notAssigned(roles[i]!));
      expectNothingPersonal(res.body);
    }
    // Not registered in the reporter's activity: no registration to change.
    const registration = await call(t.app, 'PATCH', registrationUrl(org, inA.id, outsider.id), {
      as: team.reporter,
      body: { attended: true },
    });
    expect(registration.status).toBe(404);
    expectNothingPersonal(registration.body);
    const now = await call(t.app, 'GET', participantUrl(org, outsider.id), { as: team.officer });
    expect(now.body).toMatchObject({
      phone: '+254 722 000 111',
      householdMembers: [{ name: 'Njeri Kamau' }],
    });
  });

  it('leaves that person out of the reporter’s search', async () => {
    for (const query of ['?search=Kamau', '?search=Wanjiku&page=1&limit=100', '']) {
      const res = await call(t.app, 'GET', `${participantsUrl(team.org.id)}${query}`, { as: team.reporter });
      expect(res.status).toBe(200);
      expectNothingPersonal(res.body);
    }
    const officer = await call(t.app, 'GET', `${participantsUrl(team.org.id)}?search=Wanjiku`, {
      as: team.officer,
    });
    expect(officer.body.map((p: ParticipantJson) => p.id)).toEqual([outsider.id]);
  });

  it('still reuses people of the assigned projects, by id and by nationalId (201)', async () => {
    const [known] = await register(t.app, team.officer, team.org.id, inA.id, [
      person({ firstName: 'Zawadi', nationalId: 'KE-MINE-1' }),
    ]);
    const byId = await post(alsoInA.id, [{ participantId: known!.participantId, role: 'leader' }]);
    expect(byId.status).toBe(201);
    expect(byId.body).toEqual([
      expect.objectContaining({
        participantId: known!.participantId,
        role: 'leader',
        participant: known!.participant,
      }),
    ]);
    const byNationalId = await post(alsoInA.id, [person({ firstName: 'Other', nationalId: 'KE-MINE-1' })]);
    expect(byNationalId.status).toBe(201);
    expect(byNationalId.body[0]).toMatchObject({
      participantId: known!.participantId,
      participant: { firstName: 'Zawadi', nationalId: 'KE-MINE-1' },
    });
    // Someone in both projects is in reach too.
    const [shared] = await register(t.app, team.officer, team.org.id, inB.id, [
      person({ firstName: 'Amani', nationalId: 'KE-BOTH-1' }),
    ]);
    await register(t.app, team.officer, team.org.id, inA.id, [{ participantId: shared!.participantId }]);
    const both = await post(alsoInA.id, [
      person({ nationalId: 'KE-BOTH-1' }),
      { participantId: shared!.participantId },
    ]);
    expect([both.status, both.body.map((r: { participantId: string }) => r.participantId)]).toEqual([
      201,
      [shared!.participantId],
    ]);
    const got = await call(t.app, 'GET', participantUrl(team.org.id, shared!.participantId), {
      as: team.reporter,
    });
    expect(got.status).toBe(200);
  });

  it('lets an me_officer reuse anyone of the organization across projects', async () => {
    const [elsewhere] = await register(t.app, team.officer, team.org.id, inB.id, [
      person({ firstName: 'Halima', nationalId: 'KE-ORG-1' }),
    ]);
    const byId = await post(inA.id, [{ participantId: elsewhere!.participantId }], team.officer);
    expect([byId.status, byId.body[0].participantId]).toEqual([201, elsewhere!.participantId]);
    const byNationalId = await post(alsoInA.id, [person({ nationalId: 'KE-ORG-1' })], team.officer);
    expect([byNationalId.status, byNationalId.body[0].participant]).toEqual([201, elsewhere!.participant]);
  });

  it('refuses a nationalId another request registers outside the reporter’s projects at the same time', async () => {
    const before = await stored();
    const held = { id: newId() };
    // The other request's participant and its registration in B commit while this one waits on them.
    const res = await heldUp(
      async (tx) => {
        await tx.insert(participants).values({
          id: held.id,
          orgId: team.org.id,
          firstName: 'Racing',
          lastName: 'Private',
          sex: 'male',
          village: 'Kibera',
          district: 'Nairobi',
          // Stored as the service stores it: sealed, with its blind index.
          ...sealedContact(t.config.piiKeyring, team.org.id, { nationalId: 'KE-RACE-B' }),
        });
        await tx
          .insert(activityParticipants)
          .values({ orgId: team.org.id, activityId: inB.id, participantId: held.id });
      },
      () => post(inA.id, [person({ firstName: 'Baraka' }), person({ nationalId: 'KE-RACE-B' })]),
    );
    expectError(res, ELSEWHERE);
    expect(JSON.stringify(res.body)).not.toContain('Racing');
    expect(await stored()).toEqual({ people: before.people + 1, registrations: before.registrations + 1 });
    expect(await activitiesOf(held.id)).toEqual([inB.id]);
  });
});
