import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  householdUrl,
  participantsUrl,
  participantUrl,
  postActivity,
  person,
  register,
  withoutPersonalData,
  type ActivityJson,
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
  badRequest,
  call,
  expectError,
  expectViolations,
  MISSING_ID,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  ALL_ROLES,
  CONTRIBUTORS,
  notAMember,
  notAssigned,
  roleRefused,
} from '../../../test/helpers/http.js';

let t: TestApp;
let team: Team;
let activity: ActivityJson;

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
  const project = await createProject(t.database.db, team.org.id);
  activity = await postActivity(t.app, team.officer, team.org.id, project.id);
});
afterAll(() => t.close());

const NOT_FOUND = notFoundBody('Participant');
const TAKEN = {
  statusCode: 409,
  message: 'A participant with this nationalId already exists',
  error: 'Conflict',
  code: 'duplicate' as const,
};

/** A word found in no other test's participants, to keep searches to this test's people. */
const marker = () => `m${randomUUID().slice(0, 8)}`;

/** Registers these people in the shared activity and returns them as the service sent them. */
async function enrol(...people: Record<string, unknown>[]): Promise<ParticipantJson[]> {
  const registrations = await register(t.app, team.officer, team.org.id, activity.id, people);
  return registrations.map((r) => r.participant);
}

const search = (words: string, as = team.officer, extra = '') =>
  call(t.app, 'GET', `${participantsUrl(team.org.id)}?search=${encodeURIComponent(words)}${extra}`, { as });

const get = (id: string, as: TestUser | null = team.admin, orgId = team.org.id) =>
  call(t.app, 'GET', participantUrl(orgId, id), { as });
const patch = (id: string, body: unknown, as: TestUser | null = team.officer, orgId = team.org.id) =>
  call(t.app, 'PATCH', participantUrl(orgId, id), { as, body });

/** Each search answers 200 with exactly these participants, in this order. */
async function expectFinds(cases: [string, ParticipantJson[]][]) {
  for (const [words, expected] of cases) {
    const res = await search(words);
    expect([words, res.status, res.body]).toEqual([words, 200, expected]);
  }
}

/** The date `years` years before today (UTC) shifted by `days`; a missing Feb 29 becomes Feb 28. */
function ago(years: number, days = 0): string {
  const now = new Date();
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + days));
  const year = day.getUTCFullYear() - years;
  const lastOfMonth = new Date(Date.UTC(year, day.getUTCMonth() + 1, 0)).getUTCDate();
  const date = new Date(Date.UTC(year, day.getUTCMonth(), Math.min(day.getUTCDate(), lastOfMonth)));
  return date.toISOString().slice(0, 10);
}

describe('GET /orgs/:orgId/participants', () => {
  it('finds people with every search word in a name, the village or the district, in any case', async () => {
    const area = marker();
    const [amina, kamina, other] = await enrol(
      person({ firstName: 'Amina', lastName: 'Otieno', village: 'Kisumu', district: `${area} North` }),
      person({ firstName: 'Brian', lastName: 'Kamina', village: 'Eldoret', district: `${area} South` }),
      person({ firstName: 'Carol', lastName: 'Wekesa', village: 'Kisumu Ndogo', district: `${area} South` }),
    );
    await enrol(person({ firstName: 'Amina', village: 'Kisumu', district: 'Elsewhere' }));
    const cases: [string, ParticipantJson[]][] = [
      [`${area} amina`, [kamina!, amina!]],
      [`  ${area.toUpperCase()}   KISUMU `, [amina!, other!]],
      [`${area} north`, [amina!]],
      [`${area} amina kisumu`, [amina!]],
      [`${area} eLDoReT`, [kamina!]],
      [`${area} nobody`, []],
    ];
    await expectFinds(cases);
  });

  it('takes %, _ and \\ in the search literally, not as wildcards or escapes', async () => {
    const area = marker();
    const [underscore, , percent, , backslash] = await enrol(
      person({ firstName: 'Ann_e', district: area }),
      person({ firstName: 'Annie', district: area }),
      person({ village: '100% Dam', district: area }),
      person({ village: '1000 Dam', district: area }),
      person({ lastName: 'O\\Brien', district: area }),
      person({ lastName: 'Obrien', district: area }),
    );
    const cases: [string, ParticipantJson[]][] = [
      [`${area} n_e`, [underscore!]],
      [`${area} _`, [underscore!]],
      [`${area} 100%`, [percent!]],
      [`${area} %`, [percent!]],
      [`${area} o\\b`, [backslash!]],
    ];
    await expectFinds(cases);
  });

  it('orders by last name, first name, then id (viewers: by id); plain or in the paging envelope', async () => {
    const area = marker();
    const [zulu, chris, annaA, annaB, achieng] = await enrol(
      person({ firstName: 'Abel', lastName: 'Zulu', district: area }),
      person({ firstName: 'Chris', lastName: 'Banda', district: area }),
      person({ firstName: 'Anna', lastName: 'Banda', district: area }),
      person({ firstName: 'Anna', lastName: 'Banda', district: area }),
      person({ firstName: 'Zed', lastName: 'Achieng', district: area }),
    );
    const twins = [annaA!, annaB!].sort((a, b) => a.id.localeCompare(b.id));
    const ordered = [achieng!, twins[0]!, twins[1]!, chris!, zulu!];

    expect((await search(area)).body).toEqual(ordered);
    // A viewer's order tells no name: by id, the order people were registered in.
    const byId = [...ordered].sort((a, b) => a.id.localeCompare(b.id));
    expect((await search(area, team.viewer, '&page=2&limit=2')).body).toEqual({
      data: byId.slice(2, 4).map(withoutPersonalData),
      meta: { total: 5, page: 2, limit: 2, totalPages: 3 },
    });
    expect((await search(area, team.admin, '&page=4&limit=2')).body).toEqual({
      data: [],
      meta: { total: 5, page: 4, limit: 2, totalPages: 3 },
    });
    expect((await search(area, team.admin, '&page=1')).body).toEqual({
      data: ordered,
      meta: { total: 5, page: 1, limit: 20, totalPages: 1 },
    });
  });

  it('requires every word to match, however many words the search has', async () => {
    const area = marker();
    const [amina] = await enrol(person({ firstName: 'Amina', district: area }));
    const nineMatching = 'am mi in na ami min ina amin mina';
    expect((await search(`${area} ${nineMatching}`)).body).toEqual([amina]);
    expect((await search(`${area} ${nineMatching} nowhere`)).body).toEqual([]);
  });

  it('finds people by name for those who may see names, never for a viewer', async () => {
    const area = marker();
    const [zuhura] = await enrol(person({ firstName: 'Zuhura', lastName: 'Mwakilema', district: area }));
    expect((await search(`${area} Zuhura Mwakilema`)).body).toEqual([zuhura]);
    // Otherwise a viewer would learn that a named person is a participant, and where they live.
    expect((await search(`${area} Zuhura Mwakilema`, team.viewer)).body).toEqual([]);
    expect((await search(area, team.viewer)).body).toEqual([withoutPersonalData(zuhura!)]);
  });

  it('rejects a bad query with 400', async () => {
    expectViolations(await search('x'.repeat(101)), 'search must be at most 100 characters');
    expectViolations(await search('x', team.officer, '&page=0'), 'page must not be less than 1');
    expectViolations(await search('x', team.officer, '&limit=101'), 'limit must not be greater than 100');
    expectViolations(await search('x', team.officer, '&limit=ten'), 'limit must be an integer');
  });

  it('answers 401 without a session and 403 to an outsider', async () => {
    expectError(await call(t.app, 'GET', participantsUrl(team.org.id)), UNAUTHORIZED);
    expectError(
      await call(t.app, 'GET', participantsUrl(team.org.id), { as: team.outsider }),
      notAMember(ALL_ROLES),
    );
  });
});

describe('who sees what of a participant', () => {
  it('gives viewers no personal field but the age band, in the list and alone; officers see them', async () => {
    const area = marker();
    const [full] = await enrol(person({ district: area, phone: '+254700000001', nationalId: `ID-${area}` }));
    expect(full).toMatchObject({
      firstName: expect.any(String),
      dateOfBirth: '1990-05-17',
      ageBand: '36-59',
      phone: '+254700000001',
      nationalId: `ID-${area}`,
    });
    const hidden = {
      ...full,
      firstName: null,
      lastName: null,
      dateOfBirth: null,
      age: null,
      phone: null,
      nationalId: null,
    };
    expect((await search(area, team.viewer)).body).toEqual([hidden]);
    const alone = await get(full!.id, team.viewer);
    expect([alone.status, alone.body]).toEqual([200, hidden]);
    for (const user of [team.officer, team.admin]) {
      expect((await search(area, user)).body).toEqual([full]);
      expect((await get(full!.id, user)).body).toEqual(full);
    }
  });

  it('shows a reporter only people registered in activities of projects assigned to them', async () => {
    const area = marker();
    const mine = await createProject(t.database.db, team.org.id, 'Assigned');
    const theirs = await createProject(t.database.db, team.org.id, 'Unassigned');
    await assignProject(t.database.db, team.org.id, mine.id, team.reporter.id);
    const inMine = await postActivity(t.app, team.officer, team.org.id, mine.id);
    const inTheirs = await postActivity(t.app, team.officer, team.org.id, theirs.id);
    const registerIn = async (activityId: string, item: Record<string, unknown>) =>
      (await register(t.app, team.admin, team.org.id, activityId, [item]))[0]!.participant;
    const a = await registerIn(inMine.id, person({ lastName: 'Abdi', district: area }));
    const b = await registerIn(inTheirs.id, person({ lastName: 'Abdi', district: area }));
    const both = await registerIn(inTheirs.id, person({ lastName: 'Bello', district: area }));
    await registerIn(inMine.id, { participantId: both.id });

    expect((await search(area, team.reporter)).body).toEqual([a, both]);
    expect((await search(area, team.reporter, '&limit=1')).body).toEqual({
      data: [a],
      meta: { total: 2, page: 1, limit: 1, totalPages: 2 },
    });
    expect((await search(area, team.officer)).body).toHaveLength(3);

    const own = await get(both.id, team.reporter);
    expect([own.status, own.body]).toEqual([200, both]);
    const edited = await patch(a.id, { village: 'Moyale' }, team.reporter);
    expect([edited.status, edited.body.village]).toEqual([200, 'Moyale']);
    expectError(await get(b.id, team.reporter), notAssigned(ALL_ROLES));
    expectError(await patch(b.id, { village: 'Moyale' }, team.reporter), notAssigned(CONTRIBUTORS));
    expect((await get(b.id)).body).toEqual(b);
  });
});

describe('GET /orgs/:orgId/participants/:id', () => {
  it('returns the participant with age and household members', async () => {
    const [p] = await enrol(person({ firstName: 'Halima', dateOfBirth: ago(40, -3), nationalId: marker() }));
    const added = await call(t.app, 'POST', householdUrl(team.org.id, p!.id), {
      as: team.officer,
      body: { name: 'Juma', relationship: 'son', sex: 'male', age: 12 },
    });
    const res = await get(p!.id, team.officer);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: p!.id,
      orgId: team.org.id,
      firstName: 'Halima',
      lastName: 'Mwangi',
      sex: 'female',
      dateOfBirth: ago(40, -3),
      age: 40,
      ageBand: '36-59',
      phone: null,
      nationalId: p!.nationalId,
      village: 'Kibera',
      district: 'Nairobi',
      householdMembers: [{ ...added.body, name: 'Juma', age: 12, ageBand: '0-17' }],
      erasedAt: null,
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    const seenByViewer = await get(p!.id, team.viewer);
    expect([seenByViewer.status, seenByViewer.body]).toEqual([200, withoutPersonalData(res.body)]);
  });

  it('gives the age band of the age today, and unknown without a date of birth', async () => {
    const cases: [string | null, string][] = [
      [ago(17), '0-17'],
      [ago(18, 1), '0-17'],
      [ago(18), '18-35'],
      [ago(35), '18-35'],
      [ago(36), '36-59'],
      [ago(59), '36-59'],
      [ago(60), '60+'],
      [null, 'unknown'],
    ];
    const people = await enrol(...cases.map(([dateOfBirth]) => person({ dateOfBirth })));
    for (const [i, [dateOfBirth, ageBand]] of cases.entries()) {
      for (const as of [team.officer, team.viewer]) {
        const res = await get(people[i]!.id, as);
        expect([dateOfBirth, res.status, res.body.ageBand]).toEqual([dateOfBirth, 200, ageBand]);
      }
    }
  });

  it("counts age in completed years on today's UTC date; null without a date of birth", async () => {
    const cases: [string | null, number | null][] = [
      [ago(32), 32],
      [ago(32, 1), 31],
      [ago(32, -1), 32],
      [ago(0), 0],
      [ago(130), 130],
      [null, null],
    ];
    const people = await enrol(...cases.map(([dateOfBirth]) => person({ dateOfBirth })));
    for (const [i, [dateOfBirth, age]] of cases.entries()) {
      const res = await get(people[i]!.id, team.officer);
      expect([res.status, res.body.dateOfBirth, res.body.age]).toEqual([200, dateOfBirth, age]);
    }
  });

  it("answers 404 for another organization's participant, 403 to an outsider, 401, 400 for a bad id", async () => {
    const foreignProject = await createProject(t.database.db, team.outsiderOrg.id);
    const foreignActivity = await postActivity(t.app, team.outsider, team.outsiderOrg.id, foreignProject.id);
    const [foreign] = await register(t.app, team.outsider, team.outsiderOrg.id, foreignActivity.id, [
      person(),
    ]);
    const [ours] = await enrol(person());
    for (const [id, as, orgId] of [
      [foreign!.participantId, team.admin, team.org.id],
      [MISSING_ID, team.officer, team.org.id],
      [ours!.id, team.outsider, team.outsiderOrg.id],
    ] as const) {
      expectError(await get(id, as, orgId), NOT_FOUND);
      expectError(await patch(id, { village: 'X' }, as, orgId), NOT_FOUND);
    }
    expectError(await get(ours!.id, null), UNAUTHORIZED);
    expectError(await get(ours!.id, team.outsider), notAMember(ALL_ROLES));
    expectError(await get('nope'), badRequest('id must be a UUID'));
  });
});

describe('PATCH /orgs/:orgId/participants/:id', () => {
  it('changes each field on its own, trimming text; null clears the optional ones', async () => {
    let [current] = await enrol(person({ phone: '0700', nationalId: marker() }));
    const nationalId = marker();
    const steps: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ firstName: ' Wanjiru ' }, { firstName: 'Wanjiru' }],
      [{ lastName: 'Kamau ' }, { lastName: 'Kamau' }],
      [{ sex: 'other' }, { sex: 'other' }],
      [{ dateOfBirth: ago(25, -10) }, { dateOfBirth: ago(25, -10), age: 25, ageBand: '18-35' }],
      [{ phone: ' +254711000222 ' }, { phone: '+254711000222' }],
      [{ nationalId: ` ${nationalId} ` }, { nationalId }],
      [{ village: ' Mathare' }, { village: 'Mathare' }],
      [{ district: 'Kiambu' }, { district: 'Kiambu' }],
      [{ dateOfBirth: null }, { dateOfBirth: null, age: null, ageBand: 'unknown' }],
      [
        { phone: null, nationalId: '  ' },
        { phone: null, nationalId: null },
      ],
      [{}, {}],
    ];
    for (const [body, changes] of steps) {
      const res = await patch(current!.id, body);
      const updatedAt = Object.keys(body).length > 0 ? expect.stringMatching(TIMESTAMP) : current!.updatedAt;
      expect([body, res.status, res.body]).toEqual([body, 200, { ...current, ...changes, updatedAt }]);
      current = res.body as ParticipantJson;
    }
    expect((await get(current!.id)).body).toEqual(current);
  });

  it('answers 409 for a nationalId another participant of the organization has', async () => {
    const nationalId = marker();
    const [holder, other] = await enrol(person({ nationalId }), person());
    for (const taken of [nationalId, ` ${nationalId}  `]) {
      expectError(await patch(other!.id, { firstName: 'Changed', nationalId: taken }), TAKEN);
    }
    expect((await get(other!.id)).body).toEqual(other);
    const same = await patch(holder!.id, { nationalId });
    expect([same.status, same.body.nationalId]).toEqual([200, nationalId]);
  });

  it('refuses a date of birth in the future or more than 130 years ago', async () => {
    const [p] = await enrol(person());
    const future = await patch(p!.id, { dateOfBirth: ago(0, 1) });
    expectError(future, badRequest('dateOfBirth must not be in the future'));
    const ancient = await patch(p!.id, { dateOfBirth: ago(131) });
    expectError(ancient, badRequest('dateOfBirth must be at most 130 years ago'));
    for (const [dateOfBirth, age] of [
      [ago(0), 0],
      [ago(131, 1), 130],
    ] as const) {
      const res = await patch(p!.id, { dateOfBirth });
      expect([res.status, res.body.dateOfBirth, res.body.age]).toEqual([200, dateOfBirth, age]);
    }
  });

  it('rejects each body violation with 400 naming the field', async () => {
    const [p] = await enrol(person());
    const cases: [unknown, string[]][] = [
      [{ firstName: '  ' }, ['firstName should not be empty']],
      [{ lastName: '' }, ['lastName should not be empty']],
      [{ firstName: 'x'.repeat(101) }, ['firstName must be at most 100 characters']],
      [{ lastName: null }, ['lastName must be a string']],
      [{ sex: 'unknown' }, ['sex must be one of female, male, other']],
      [{ dateOfBirth: '2001-02-30' }, ['dateOfBirth must be a valid date (YYYY-MM-DD)']],
      [{ dateOfBirth: 19900101 }, ['dateOfBirth must be a string']],
      [{ phone: 'x'.repeat(41) }, ['phone must be at most 40 characters']],
      [{ nationalId: 'x'.repeat(65) }, ['nationalId must be at most 64 characters']],
      [{ village: 'x'.repeat(201) }, ['village must be at most 200 characters']],
      [{ district: ' ', village: '' }, ['district should not be empty', 'village should not be empty']],
      [{ orgId: MISSING_ID, age: 3 }, ['property orgId should not exist', 'property age should not exist']],
    ];
    for (const [body, messages] of cases) {
      expectViolations(await patch(p!.id, body), ...messages);
    }
    expect((await get(p!.id)).body).toEqual(p);
  });

  it('is refused to viewers and outsiders (403) and without a session (401)', async () => {
    const [p] = await enrol(person());
    expectError(await patch(p!.id, { village: 'X' }, team.viewer), roleRefused(CONTRIBUTORS));
    expectError(await patch(p!.id, { village: 'X' }, team.outsider), notAMember(CONTRIBUTORS));
    expectError(await patch(p!.id, { village: 'X' }, null), UNAUTHORIZED);
    expect((await get(p!.id)).body).toEqual(p);
  });
});
