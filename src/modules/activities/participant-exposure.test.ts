import { randomUUID } from 'node:crypto';
import type { OrgRole } from '../../http/pipeline/access.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  erasureUrl,
  exportUrl,
  householdUrl,
  participantsUrl,
  participantUrl,
  person,
  postActivity,
  register,
  registrationsUrl,
  registrationUrl,
  withoutPersonalData,
  type ActivityJson,
  type HouseholdMemberJson,
  type ParticipantJson,
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
  call,
  expectError,
  ALL_ROLES,
  MANAGERS,
  notAssigned,
  roleRefused,
  ADMINS,
  CONTRIBUTORS,
} from '../../../test/helpers/http.js';

let t: TestApp;
let team: Team;
/** In the project assigned to the reporter. */
let inA: ActivityJson;
/** In a project the reporter is not assigned to. */
let inB: ActivityJson;
let mine: Person;
let theirs: Person;

interface Person {
  participant: ParticipantJson;
  member: HouseholdMemberJson;
  /** Every personal value given for them, as text. */
  secrets: string[];
}

const AGE_BANDS = ['0-17', '18-35', '36-59', '60+', 'unknown'];
let born = 0;

/** A person with every personal field, a household member, and a district of their own. */
async function personIn(activity: ActivityJson, as: TestUser = team.officer): Promise<Person> {
  const tag = randomUUID().slice(0, 8);
  const given = {
    firstName: `Wanjiku${tag}`,
    lastName: `Kamau${tag}`,
    // A birth date of their own (one a month of 1983), so that it names only them.
    dateOfBirth: `1983-${String((born += 1)).padStart(2, '0')}-14`,
    phone: `+254 733 ${tag}`,
    nationalId: `KE-${tag}`,
    district: `Nairobi${tag}`,
  };
  const [registration] = await register(t.app, as, team.org.id, activity.id, [person(given)]);
  const member = await call(t.app, 'POST', householdUrl(team.org.id, registration!.participantId), {
    as,
    body: { name: `Njeri${tag}`, relationship: 'daughter', sex: 'female', age: 11 },
  });
  expect(member.status).toBe(201);
  const full = await call(t.app, 'GET', participantUrl(team.org.id, registration!.participantId), {
    as: team.admin,
  });
  return {
    participant: full.body as ParticipantJson,
    member: member.body as HouseholdMemberJson,
    secrets: [
      given.firstName,
      given.lastName,
      given.dateOfBirth,
      given.phone,
      given.nationalId,
      `Njeri${tag}`,
    ],
  };
}

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
  const a = await createProject(t.database.db, team.org.id, 'Assigned');
  const b = await createProject(t.database.db, team.org.id, 'Unassigned');
  await assignProject(t.database.db, team.org.id, a.id, team.reporter.id);
  inA = await postActivity(t.app, team.officer, team.org.id, a.id, { title: 'Borehole committee' });
  inB = await postActivity(t.app, team.officer, team.org.id, b.id, { title: 'Cash transfer' });
  mine = await personIn(inA);
  theirs = await personIn(inB);
});
afterAll(() => t.close());

const get = (url: string, as: TestUser) => call(t.app, 'GET', url, { as });

/** Every participant and household member in a body: participants have `orgId`, members `relationship`. */
function peopleIn(body: unknown): { participants: ParticipantJson[]; members: HouseholdMemberJson[] } {
  const participants: ParticipantJson[] = [];
  const members: HouseholdMemberJson[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (value === null || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    if ('orgId' in record && 'ageBand' in record) participants.push(record as ParticipantJson);
    if ('relationship' in record) members.push(record as HouseholdMemberJson);
    Object.values(record).forEach(walk);
  };
  walk(body);
  return { participants, members };
}

/** The body carries people, none with a personal field, each with an age band; no secret in its text. */
function expectNothingPersonal(url: string, body: unknown, secrets: string[]) {
  const { participants, members } = peopleIn(body);
  expect([url, participants.length + members.length > 0]).toEqual([url, true]);
  for (const p of participants) {
    expect([url, p.firstName, p.lastName, p.dateOfBirth, p.age, p.phone, p.nationalId]).toEqual([
      url,
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(AGE_BANDS).toContain(p.ageBand);
  }
  for (const m of members) {
    expect([url, m.name, m.age]).toEqual([url, null, null]);
    expect(AGE_BANDS).toContain(m.ageBand);
  }
  const text = JSON.stringify(body);
  for (const secret of secrets) expect([url, text.includes(secret)]).toEqual([url, false]);
}

describe('what a viewer gets', () => {
  it('no personal field on any participant route, lists, pages and nested registrations included', async () => {
    const org = team.org.id;
    const secrets = [...mine.secrets, ...theirs.secrets];
    const district = mine.participant.district as string;
    for (const url of [
      participantsUrl(org),
      `${participantsUrl(org)}?search=${district}`,
      `${participantsUrl(org)}?page=1&limit=100`,
      participantUrl(org, mine.participant.id),
      participantUrl(org, theirs.participant.id),
      householdUrl(org, mine.participant.id),
      registrationsUrl(org, inA.id),
      `${registrationsUrl(org, inB.id)}?page=1&limit=5`,
      `${registrationsUrl(org, inA.id)}?attended=false`,
    ]) {
      const res = await get(url, team.viewer);
      expect([url, res.status]).toEqual([url, 200]);
      expectNothingPersonal(url, res.body, secrets);
    }
  });

  it('exactly what others get, personal fields aside', async () => {
    const org = team.org.id;
    const seen = await get(participantUrl(org, mine.participant.id), team.viewer);
    expect(seen.body).toEqual(withoutPersonalData(mine.participant));
    expect(seen.body).toMatchObject({ ageBand: '36-59', householdMembers: [{ ageBand: '0-17' }] });
    const household = await get(householdUrl(org, mine.participant.id), team.viewer);
    expect(household.body).toEqual([{ ...mine.member, name: null, age: null }]);
    const registrations = await get(registrationsUrl(org, inA.id), team.viewer);
    const full = await get(registrationsUrl(org, inA.id), team.officer);
    expect(registrations.body).toEqual(
      full.body.map((r: { participant: ParticipantJson }) => ({
        ...r,
        participant: withoutPersonalData(r.participant),
      })),
    );
  });

  it('is refused (403) every route that would carry or change personal data, and learns nothing from it', async () => {
    const org = team.org.id;
    const id = mine.participant.id;
    const refused: [string, string, unknown][] = [
      ['GET', exportUrl(org, id), undefined],
      ['POST', erasureUrl(org, id), { reason: 'Curious' }],
      ['PATCH', participantUrl(org, id), { village: 'Elsewhere' }],
      ['POST', householdUrl(org, id), { name: 'X', relationship: 'son', sex: 'male', age: 1 }],
      ['POST', registrationsUrl(org, inA.id), { participants: [{ participantId: id }] }],
      ['PATCH', registrationUrl(org, inA.id, id), { attended: true }],
    ];
    // The roles each route lets in: a viewer has none of them.
    const ROLES_OF: Record<string, readonly OrgRole[]> = {
      [`GET${exportUrl(org, id)}`]: MANAGERS,
      [`POST${erasureUrl(org, id)}`]: ADMINS,
      [`PATCH${participantUrl(org, id)}`]: CONTRIBUTORS,
      [`POST${householdUrl(org, id)}`]: CONTRIBUTORS,
      [`POST${registrationsUrl(org, inA.id)}`]: CONTRIBUTORS,
      [`PATCH${registrationUrl(org, inA.id, id)}`]: CONTRIBUTORS,
    };
    for (const [method, url, body] of refused) {
      const res = await call(t.app, method as 'GET' | 'POST' | 'PATCH', url, { as: team.viewer, body });
      expectError(res, roleRefused(ROLES_OF[method + url]!));
      for (const secret of mine.secrets) expect(JSON.stringify(res.body)).not.toContain(secret);
    }
    expect((await get(participantUrl(org, id), team.admin)).body).toEqual(mine.participant);
  });
});

describe('what a reporter gets', () => {
  it('every personal field of people in assigned projects, on every route', async () => {
    const org = team.org.id;
    const got = await get(participantUrl(org, mine.participant.id), team.reporter);
    expect([got.status, got.body]).toEqual([200, mine.participant]);
    expect(got.body).toMatchObject({
      phone: expect.any(String),
      nationalId: expect.any(String),
      age: expect.any(Number),
    });
    const household = await get(householdUrl(org, mine.participant.id), team.reporter);
    expect([household.status, household.body]).toEqual([200, [mine.member]]);
    const listed = await get(
      `${participantsUrl(org)}?search=${mine.participant.district as string}`,
      team.reporter,
    );
    expect([listed.status, listed.body]).toEqual([200, [mine.participant]]);
    const registrations = await get(registrationsUrl(org, inA.id), team.reporter);
    expect(registrations.body.map((r: { participant: ParticipantJson }) => r.participant)).toContainEqual(
      mine.participant,
    );
  });

  it('nothing of people outside them: 403 alone, left out of lists', async () => {
    const org = team.org.id;
    const id = theirs.participant.id;
    for (const url of [
      participantUrl(org, id),
      householdUrl(org, id),
      registrationsUrl(org, inB.id),
      exportUrl(org, id),
    ]) {
      const res = await get(url, team.reporter);
      expectError(res, url === exportUrl(org, id) ? roleRefused(MANAGERS) : notAssigned(ALL_ROLES));
    }
    for (const url of [
      participantsUrl(org),
      `${participantsUrl(org)}?search=${theirs.participant.district as string}`,
    ]) {
      const res = await get(url, team.reporter);
      expect(res.status).toBe(200);
      const text = JSON.stringify(res.body);
      for (const secret of [...theirs.secrets, id])
        expect([url, text.includes(secret)]).toEqual([url, false]);
    }
    // The export is not theirs even for their own people.
    expectError(await get(exportUrl(org, mine.participant.id), team.reporter), roleRefused(MANAGERS));
  });
});

describe('an erased person', () => {
  it('has no personal field left for anyone, on any route, and is no longer found by name', async () => {
    const erasedOne = await personIn(inA);
    const org = team.org.id;
    const erased = await call(t.app, 'POST', erasureUrl(org, erasedOne.participant.id), {
      as: team.admin,
      body: { reason: 'Asked by the person' },
    });
    expect(erased.status).toBe(200);
    const district = erasedOne.participant.district as string;
    for (const as of [team.admin, team.officer, team.reporter, team.viewer]) {
      for (const url of [
        `${participantsUrl(org)}?search=${district}`,
        participantUrl(org, erasedOne.participant.id),
        householdUrl(org, erasedOne.participant.id),
      ]) {
        const res = await get(url, as);
        expect([url, res.status]).toEqual([url, 200]);
        expectNothingPersonal(url, res.body, erasedOne.secrets);
      }
      const registrations = await get(registrationsUrl(org, inA.id), as);
      const text = JSON.stringify(registrations.body);
      for (const secret of erasedOne.secrets) expect(text).not.toContain(secret);
    }
    const byName = await get(`${participantsUrl(org)}?search=${erasedOne.participant.lastName!}`, team.admin);
    expect([byName.status, byName.body]).toEqual([200, []]);
  });
});
