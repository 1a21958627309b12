import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  erasureUrl,
  householdUrl,
  participantUrl,
  person,
  postActivity,
  register,
  registrationsUrl,
  type ActivityJson,
  type HouseholdMemberJson,
  type ParticipantJson,
} from '../../../test/helpers/activities.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createProject, createTeam, type Team, type TestUser } from '../../../test/helpers/factories.js';
import {
  badRequest,
  call,
  expectError,
  expectViolations,
  MISSING_ID,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  ADMINS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { auditLog } from '../privacy/privacy.tables.js';
import { activityParticipants, householdMembers, participants } from './activities.tables.js';

let t: TestApp;
let team: Team;
let activity: ActivityJson;

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
  const project = await createProject(t.database.db, team.org.id);
  activity = await postActivity(t.app, team.officer, team.org.id, project.id, { title: 'Cash transfer' });
});
afterAll(() => t.close());

const ERASED = {
  statusCode: 409,
  message: 'The personal data of this participant is already erased',
  error: 'Conflict',
  code: 'personal_data_erased' as const,
};
const NOT_FOUND = notFoundBody('Participant');
const REASON = { reason: 'Asked by the person on 12 March' };
/** A sealed value as stored (src/lib/sealed-values.ts): none may be left after erasure. */
const SEALED = /v1\.[0-9a-f]{16}\./;

/** In the 36-59 band until 2037. */
const MIDDLE = '1978-06-01';

const erase = (
  id: string,
  body: unknown = REASON,
  as: TestUser | null = team.admin,
  orgId = team.org.id,
  headers: Record<string, string> = {},
) => call(t.app, 'POST', erasureUrl(orgId, id), { as, body, headers });

const get = (id: string, as: TestUser = team.admin) =>
  call(t.app, 'GET', participantUrl(team.org.id, id), { as });

/** A person with every personal field given, and a household of two (the elder added first). */
async function wanjiku(activityId = activity.id, overrides: Record<string, unknown> = {}) {
  const secret = randomUUID().slice(0, 8);
  const [registration] = await register(t.app, team.officer, team.org.id, activityId, [
    person({
      firstName: `Wanjiku${secret}`,
      lastName: `Kamau${secret}`,
      sex: 'female',
      dateOfBirth: MIDDLE,
      phone: `+254 722 ${secret}`,
      nationalId: `KE-${secret}`,
      village: 'Kibera',
      district: 'Nairobi',
      ...overrides,
    }),
  ]);
  const household: HouseholdMemberJson[] = [];
  for (const member of [
    { name: `Mzee ${secret}`, relationship: 'father', sex: 'male', age: 76 },
    { name: `Njeri ${secret}`, relationship: 'daughter', sex: 'female', age: 9 },
  ]) {
    const res = await call(t.app, 'POST', householdUrl(team.org.id, registration!.participantId), {
      as: team.officer,
      body: member,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    household.push(res.body as HouseholdMemberJson);
  }
  const full = await get(registration!.participantId);
  expect(full.status).toBe(200);
  return { participant: full.body as ParticipantJson, household, secret };
}

/** What erasure leaves of a person, as every route then shows them to everyone. */
function erased(participant: ParticipantJson, household: HouseholdMemberJson[]) {
  return {
    ...participant,
    firstName: null,
    lastName: null,
    dateOfBirth: null,
    age: null,
    phone: null,
    nationalId: null,
    householdMembers: household.map((member) => ({ ...member, name: null, age: null })),
    erasedAt: expect.stringMatching(TIMESTAMP),
    updatedAt: expect.stringMatching(TIMESTAMP),
  };
}

const byId = <T extends { id: string }>(rows: T[]) => [...rows].sort((a, b) => a.id.localeCompare(b.id));

const storedPerson = async (id: string) =>
  (await t.database.db.select().from(participants).where(eq(participants.id, id)))[0]!;
const storedHousehold = async (id: string) =>
  byId(await t.database.db.select().from(householdMembers).where(eq(householdMembers.participantId, id)));

const auditEntriesAbout = (id: string, action: 'erase' | 'read') =>
  t.database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), sql`${auditLog.subjectIds} @> ARRAY[${id}]::uuid[]`));

describe('POST /orgs/:orgId/participants/:id/erase', () => {
  it('answers 200 with the person erased: personal fields null, age bands, sex and places kept', async () => {
    const { participant, household } = await wanjiku();
    expect(participant).toMatchObject({ ageBand: '36-59', erasedAt: null });
    const res = await erase(participant.id, { reason: '  Asked by the person on 12 March ' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect({ ...res.body, householdMembers: byId(res.body.householdMembers) }).toEqual(
      erased(participant, byId(household)),
    );
    expect(res.body).toMatchObject({
      sex: 'female',
      village: 'Kibera',
      district: 'Nairobi',
      ageBand: '36-59',
    });
    expect(byId(res.body.householdMembers as HouseholdMemberJson[]).map((m) => m.ageBand)).toEqual(
      byId(household).map((m) => m.ageBand),
    );
    // Everyone reads the same afterwards, the admin who erased included.
    for (const as of [team.admin, team.officer, team.viewer]) {
      const now = await get(participant.id, as);
      expect([now.status, { ...now.body, householdMembers: byId(now.body.householdMembers) }]).toEqual([
        200,
        { ...res.body, householdMembers: byId(res.body.householdMembers) },
      ]);
    }
  });

  it('leaves no personal value in the rows themselves, sealed or clear, and keeps the rest', async () => {
    const { participant, household, secret } = await wanjiku();
    const before = await storedPerson(participant.id);
    expect(before.phone).toMatch(SEALED);
    expect(before.nationalIdIndex).toEqual(expect.any(String));
    expect((await erase(participant.id)).status).toBe(200);

    const row = await storedPerson(participant.id);
    expect(row).toEqual({
      ...before,
      firstName: null,
      lastName: null,
      dateOfBirth: null,
      phone: null,
      nationalId: null,
      nationalIdIndex: null,
      ageBand: '36-59',
      erasedAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
    const members = await storedHousehold(participant.id);
    expect(members).toEqual(
      byId(household).map((member) => ({
        id: member.id,
        orgId: team.org.id,
        participantId: participant.id,
        name: null,
        relationship: member.relationship,
        sex: member.sex,
        age: null,
        ageBand: member.ageBand,
        createdAt: new Date(member.createdAt),
      })),
    );
    const text = JSON.stringify([row, members]);
    expect(text).not.toMatch(SEALED);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(MIDDLE);
  });

  it('keeps the registrations, and the erased person in the activity lists', async () => {
    const { participant } = await wanjiku();
    const registrations = () =>
      t.database.db
        .select()
        .from(activityParticipants)
        .where(eq(activityParticipants.participantId, participant.id));
    const before = await registrations();
    expect(before).toHaveLength(1);
    expect((await erase(participant.id)).status).toBe(200);
    expect(await registrations()).toEqual(before);
    const listed = await call(t.app, 'GET', registrationsUrl(team.org.id, activity.id), { as: team.admin });
    const mine = listed.body.filter((r: { participantId: string }) => r.participantId === participant.id);
    expect(mine).toEqual([
      expect.objectContaining({
        participant: expect.objectContaining({ firstName: null, phone: null, erasedAt: expect.any(String) }),
      }),
    ]);
  });

  it('frees the national id: registering it again makes a new person', async () => {
    const { participant } = await wanjiku();
    expect((await erase(participant.id)).status).toBe(200);
    const [again] = await register(t.app, team.officer, team.org.id, activity.id, [
      person({ nationalId: participant.nationalId }),
    ]);
    expect(again!.participantId).not.toBe(participant.id);
    expect(again!.participant).toMatchObject({ nationalId: participant.nationalId, erasedAt: null });
  });

  it('answers 409 to a second erasure, and to personal data given again; other fields still change', async () => {
    const { participant } = await wanjiku();
    const first = await erase(participant.id);
    expect(first.status).toBe(200);
    expectError(await erase(participant.id, { reason: 'Again' }), ERASED);

    const GIVEN_AGAIN = {
      statusCode: 409,
      message: 'The personal data of this participant was erased; it cannot be given again',
      error: 'Conflict',
      code: 'personal_data_erased',
    };
    for (const body of [
      { firstName: 'Wanjiku' },
      { lastName: 'Kamau', village: 'Mathare' },
      { dateOfBirth: MIDDLE },
      { phone: '+254 700 000 000' },
      { nationalId: participant.nationalId },
      { phone: null },
    ]) {
      const res = await call(t.app, 'PATCH', participantUrl(team.org.id, participant.id), {
        as: team.officer,
        body,
      });
      expect([body, res.status, res.body]).toEqual([body, 409, GIVEN_AGAIN]);
    }
    const member = await call(t.app, 'POST', householdUrl(team.org.id, participant.id), {
      as: team.officer,
      body: { name: 'Someone', relationship: 'son', sex: 'male', age: 3 },
    });
    expectError(member, {
      statusCode: 409,
      message: 'The personal data of this participant was erased',
      error: 'Conflict',
      code: 'personal_data_erased',
    });
    expect(await storedHousehold(participant.id)).toHaveLength(2);

    const moved = await call(t.app, 'PATCH', participantUrl(team.org.id, participant.id), {
      as: team.officer,
      body: { village: 'Mathare', sex: 'other' },
    });
    expect([moved.status, moved.body]).toEqual([
      200,
      { ...first.body, village: 'Mathare', sex: 'other', updatedAt: expect.stringMatching(TIMESTAMP) },
    ]);
    expect(moved.body.erasedAt).toBe(first.body.erasedAt);
  });

  it('erases once when two erasures arrive together: one 200, one 409, one audit entry', async () => {
    const { participant } = await wanjiku();
    const results = await Promise.all([
      erase(participant.id, { reason: 'First' }),
      erase(participant.id, { reason: 'Second' }),
    ]);
    expect(results.map((res) => res.status).sort()).toEqual([200, 409]);
    expect(results.find((res) => res.status === 409)!.body).toEqual(ERASED);
    const entries = await auditEntriesAbout(participant.id, 'erase');
    expect(entries).toHaveLength(1);
    const winner = results.find((res) => res.status === 200)!;
    expect((await get(participant.id)).body.erasedAt).toBe(winner.body.erasedAt);
  });

  it('leaves nothing personal when a household member or a change arrives with the erasure', async () => {
    // The erasure locks the person; an addition or a change waits for it, then finds them erased (409),
    // or went first and was erased with them. Never a named member under an erased person, never a 500.
    const people = await Promise.all([1, 2, 3, 4].map(() => wanjiku()));
    const results = await Promise.all(
      people.flatMap(({ participant }) => [
        erase(participant.id),
        call(t.app, 'POST', householdUrl(team.org.id, participant.id), {
          as: team.officer,
          body: { name: 'Late Arrival', relationship: 'cousin', sex: 'male', age: 12 },
        }),
        call(t.app, 'PATCH', participantUrl(team.org.id, participant.id), {
          as: team.officer,
          body: { phone: '+254 700 000 001' },
        }),
      ]),
    );
    for (const res of results) expect([200, 201, 409]).toContain(res.status);
    for (const { participant } of people) {
      expect((await storedHousehold(participant.id)).filter((member) => member.name !== null)).toEqual([]);
      expect(await storedPerson(participant.id)).toMatchObject({ phone: null, erasedAt: expect.any(Date) });
    }
  });

  it('records the erasure in the audit log with its reason, trimmed, and who asked from where', async () => {
    const { participant, household } = await wanjiku();
    const requestId = `erase-${randomUUID()}`;
    const res = await erase(
      participant.id,
      { reason: ' Asked by the person on 12 March  ' },
      team.admin,
      team.org.id,
      {
        'x-request-id': requestId,
      },
    );
    expect(res.status).toBe(200);
    const entries = await auditEntriesAbout(participant.id, 'erase');
    expect(entries).toEqual([
      {
        id: expect.any(Number),
        orgId: team.org.id,
        at: expect.any(Date),
        actorId: team.admin.id,
        actorRole: 'org_admin',
        tokenId: null,
        tokenName: null,
        ip: '127.0.0.1',
        requestId,
        action: 'erase',
        route: 'POST /orgs/:orgId/participants/:id/erase',
        subjectKind: 'participant',
        subjectIds: [participant.id, ...household.map((member) => member.id)],
        count: 1,
        details: { reason: 'Asked by the person on 12 March', householdMembers: 2 },
      },
    ]);
    // The admin reads it through the API too.
    const log = await call(t.app, 'GET', `/orgs/${team.org.id}/audit-log?subjectId=${participant.id}`, {
      as: team.admin,
    });
    expect(log.status).toBe(200);
    expect(log.body.filter((entry: { action: string }) => entry.action === 'erase')).toEqual([
      expect.objectContaining({
        requestId,
        details: { reason: 'Asked by the person on 12 March', householdMembers: 2 },
      }),
    ]);
  });

  it('writes no read entry afterwards: nothing personal is left to read', async () => {
    const { participant } = await wanjiku();
    expect((await erase(participant.id)).status).toBe(200);
    const reads = (await auditEntriesAbout(participant.id, 'read')).length;
    expect((await get(participant.id, team.officer)).status).toBe(200);
    const household = await call(t.app, 'GET', householdUrl(team.org.id, participant.id), { as: team.admin });
    expect([household.status, household.body.map((m: HouseholdMemberJson) => m.name)]).toEqual([
      200,
      [null, null],
    ]);
    expect(await auditEntriesAbout(participant.id, 'read')).toHaveLength(reads);
  });

  it('rejects a missing, blank or too long reason, and anything else in the body, with 400', async () => {
    const { participant } = await wanjiku();
    const cases: [unknown, string[]][] = [
      [{}, ['reason is required']],
      [{ reason: '' }, ['reason should not be empty']],
      [{ reason: '   ' }, ['reason should not be empty']],
      [{ reason: 'x'.repeat(1001) }, ['reason must be at most 1000 characters']],
      [{ reason: 42 }, ['reason must be a string']],
      [{ reason: null }, ['reason must be a string']],
      [{ ...REASON, firstName: 'x' }, ['property firstName should not exist']],
    ];
    for (const [body, messages] of cases) {
      expectViolations(await erase(participant.id, body), ...messages);
    }
    expectError(await erase('nope'), badRequest('id must be a UUID'));
    expect((await get(participant.id)).body).toEqual(participant);
    expect((await erase(participant.id, { reason: 'x'.repeat(1000) })).status).toBe(200);
  });

  it('is for org admins only: 401 without a session, 403 to every other role and to an outsider', async () => {
    const { participant } = await wanjiku();
    expectError(await erase(participant.id, REASON, null), UNAUTHORIZED);
    for (const as of [team.officer, team.reporter, team.viewer, team.outsider]) {
      expectError(await erase(participant.id, REASON, as), refusedTo(team, as, ADMINS));
    }
    expect((await get(participant.id)).body).toEqual(participant);
  });

  it("answers 404 for another organization's participant or a missing one, erasing nothing", async () => {
    const foreignProject = await createProject(t.database.db, team.outsiderOrg.id);
    const foreignActivity = await postActivity(t.app, team.outsider, team.outsiderOrg.id, foreignProject.id);
    const [foreign] = await register(t.app, team.outsider, team.outsiderOrg.id, foreignActivity.id, [
      person({ firstName: 'Foreign' }),
    ]);
    const { participant } = await wanjiku();
    expectError(await erase(foreign!.participantId), NOT_FOUND);
    expectError(await erase(MISSING_ID), NOT_FOUND);
    expectError(await erase(participant.id, REASON, team.outsider, team.outsiderOrg.id), NOT_FOUND);
    expect((await storedPerson(foreign!.participantId)).firstName).toBe('Foreign');
    expect((await get(participant.id)).body).toEqual(participant);
  });
});
