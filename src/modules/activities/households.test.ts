import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  householdUrl,
  participantUrl,
  postActivity,
  person,
  register,
  memberWithoutPersonalData,
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

async function participantIn(activityId: string, as: TestUser = team.officer, orgId = team.org.id) {
  const [registration] = await register(t.app, as, orgId, activityId, [person()]);
  return registration!.participant;
}

const list = (participantId: string, as: TestUser | null = team.officer, orgId = team.org.id) =>
  call(t.app, 'GET', householdUrl(orgId, participantId), { as });

const add = (participantId: string, body: unknown, as: TestUser | null = team.officer, orgId = team.org.id) =>
  call(t.app, 'POST', householdUrl(orgId, participantId), { as, body });

async function addMember(participantId: string, body: Record<string, unknown>): Promise<HouseholdMemberJson> {
  const res = await add(participantId, { name: 'Baraka', relationship: 'son', sex: 'male', age: 9, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as HouseholdMemberJson;
}

describe('POST /orgs/:orgId/participants/:id/household-members', () => {
  it("adds a member (201), trimmed, and the participant's GET shows them", async () => {
    const participant = await participantIn(activity.id);
    const res = await add(participant.id, {
      name: ' Neema Otieno ',
      relationship: ' daughter',
      sex: 'female',
      age: 14,
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      participantId: participant.id,
      name: 'Neema Otieno',
      relationship: 'daughter',
      sex: 'female',
      age: 14,
      ageBand: '0-17',
      createdAt: expect.stringMatching(TIMESTAMP),
    });
    const shown = await call(t.app, 'GET', participantUrl(team.org.id, participant.id), { as: team.viewer });
    expect([shown.status, shown.body]).toEqual([
      200,
      withoutPersonalData({ ...participant, householdMembers: [res.body] }),
    ]);
    const full = await call(t.app, 'GET', participantUrl(team.org.id, participant.id), { as: team.officer });
    expect([full.status, full.body]).toEqual([200, { ...participant, householdMembers: [res.body] }]);
  });

  it('takes every sex and the ages 0 to 130, each with its age band', async () => {
    const participant = await participantIn(activity.id);
    for (const [sex, age, ageBand] of [
      ['female', 0, '0-17'],
      ['male', 130, '60+'],
      ['other', 47, '36-59'],
      ['female', 17, '0-17'],
      ['female', 18, '18-35'],
      ['male', 35, '18-35'],
      ['male', 36, '36-59'],
      ['other', 59, '36-59'],
      ['other', 60, '60+'],
    ] as const) {
      const member = await addMember(participant.id, { sex, age });
      expect([member.sex, member.age, member.ageBand]).toEqual([sex, age, ageBand]);
    }
  });

  it('rejects each body violation with 400 naming the field', async () => {
    const participant = await participantIn(activity.id);
    const valid = { name: 'Baraka', relationship: 'son', sex: 'male', age: 9 };
    const cases: [unknown, string[]][] = [
      [{}, ['name is required', 'relationship is required', 'sex is required', 'age is required']],
      [{ ...valid, age: -1 }, ['age must not be less than 0']],
      [{ ...valid, age: 131 }, ['age must not be greater than 130']],
      [{ ...valid, age: 2.5 }, ['age must be an integer']],
      [{ ...valid, age: '9' }, ['age must be an integer']],
      [{ ...valid, age: null }, ['age must be an integer']],
      [{ ...valid, sex: 'unknown' }, ['sex must be one of female, male, other']],
      [{ ...valid, sex: 'Female' }, ['sex must be one of female, male, other']],
      [{ ...valid, name: '   ' }, ['name should not be empty']],
      [{ ...valid, name: 'x'.repeat(201) }, ['name must be at most 200 characters']],
      [{ ...valid, relationship: '' }, ['relationship should not be empty']],
      [{ ...valid, relationship: 'x'.repeat(101) }, ['relationship must be at most 100 characters']],
      [{ ...valid, participantId: MISSING_ID }, ['property participantId should not exist']],
    ];
    for (const [body, messages] of cases) {
      expectViolations(await add(participant.id, body), ...messages);
    }
    expect((await list(participant.id)).body).toEqual([]);
  });

  it('answers 404 for a participant of another organization or a missing one, 400 for a bad id', async () => {
    const foreignProject = await createProject(t.database.db, team.outsiderOrg.id);
    const foreignActivity = await postActivity(t.app, team.outsider, team.outsiderOrg.id, foreignProject.id);
    const foreign = await participantIn(foreignActivity.id, team.outsider, team.outsiderOrg.id);
    const ours = await participantIn(activity.id);
    const body = { name: 'Baraka', relationship: 'son', sex: 'male', age: 9 };
    expectError(await add(foreign.id, body, team.admin), NOT_FOUND);
    expectError(await add(MISSING_ID, body, team.officer), NOT_FOUND);
    expectError(await add(ours.id, body, team.outsider, team.outsiderOrg.id), NOT_FOUND);
    expectError(await add('nope', body), badRequest('id must be a UUID'));
    expect((await list(foreign.id, team.outsider, team.outsiderOrg.id)).body).toEqual([]);
    expect((await list(ours.id)).body).toEqual([]);
  });

  it('is refused to viewers and outsiders (403) and without a session (401)', async () => {
    const participant = await participantIn(activity.id);
    const body = { name: 'Baraka', relationship: 'son', sex: 'male', age: 9 };
    expectError(await add(participant.id, body, team.viewer), roleRefused(CONTRIBUTORS));
    expectError(await add(participant.id, body, team.outsider), notAMember(CONTRIBUTORS));
    expectError(await add(participant.id, body, null), UNAUTHORIZED);
    expect((await list(participant.id)).body).toEqual([]);
  });
});

describe('GET /orgs/:orgId/participants/:id/household-members', () => {
  it('lists the household oldest first, then by id (viewers: by id)', async () => {
    const participant = await participantIn(activity.id);
    const neighbour = await participantIn(activity.id);
    await addMember(neighbour.id, { name: 'Next door', age: 99 });
    const child = await addMember(participant.id, { name: 'Child', relationship: 'son', age: 8 });
    const twinA = await addMember(participant.id, { name: 'Twin', relationship: 'sister', age: 40 });
    const elder = await addMember(participant.id, { name: 'Elder', relationship: 'mother', age: 67 });
    const baby = await addMember(participant.id, { name: 'Baby', relationship: 'daughter', age: 0 });
    const twinB = await addMember(participant.id, { name: 'Twin', relationship: 'brother', age: 40 });
    const twins = [twinA, twinB].sort((a, b) => a.id.localeCompare(b.id));
    const household = [elder, twins[0], twins[1], child, baby];

    const res = await list(participant.id, team.officer);
    expect([res.status, res.body]).toEqual([200, household]);
    const shown = await call(t.app, 'GET', participantUrl(team.org.id, participant.id), { as: team.admin });
    expect(shown.body.householdMembers).toEqual(household);
    // A viewer's order tells nothing of ages: by id.
    const seenByViewer = await list(participant.id, team.viewer);
    expect([seenByViewer.status, seenByViewer.body]).toEqual([
      200,
      [...household]
        .sort((a, b) => a!.id.localeCompare(b!.id))
        .map((member) => memberWithoutPersonalData(member!)),
    ]);
  });

  it('is an empty array for a participant with no household', async () => {
    const participant = await participantIn(activity.id);
    const res = await list(participant.id, team.admin);
    expect([res.status, res.body]).toEqual([200, []]);
  });

  it("answers 404 for another organization's participant, 403 to an outsider, 401 without a session", async () => {
    const foreignProject = await createProject(t.database.db, team.outsiderOrg.id);
    const foreignActivity = await postActivity(t.app, team.outsider, team.outsiderOrg.id, foreignProject.id);
    const foreign = await participantIn(foreignActivity.id, team.outsider, team.outsiderOrg.id);
    const ours = await participantIn(activity.id);
    expectError(await list(foreign.id, team.viewer), NOT_FOUND);
    expectError(await list(MISSING_ID), NOT_FOUND);
    expectError(await list(ours.id, team.outsider, team.outsiderOrg.id), NOT_FOUND);
    expectError(await list(ours.id, team.outsider), notAMember(ALL_ROLES));
    expectError(await list(ours.id, null), UNAUTHORIZED);
    expectError(await list('nope'), badRequest('id must be a UUID'));
  });
});

describe('a reporter and households', () => {
  it('reads and adds for people of assigned projects only; others are 403', async () => {
    const [mine, theirs] = await Promise.all([
      createProject(t.database.db, team.org.id, 'Assigned'),
      createProject(t.database.db, team.org.id, 'Unassigned'),
    ]);
    await assignProject(t.database.db, team.org.id, mine.id, team.reporter.id);
    const inMine = await postActivity(t.app, team.officer, team.org.id, mine.id);
    const inTheirs = await postActivity(t.app, team.officer, team.org.id, theirs.id);
    const reachable: ParticipantJson = await participantIn(inMine.id, team.reporter);
    const unreachable = await participantIn(inTheirs.id);
    const existing = await addMember(unreachable.id, { name: 'Kept private' });
    const body = { name: 'Amani', relationship: 'husband', sex: 'male', age: 51 };

    const added = await add(reachable.id, body, team.reporter);
    expect([added.status, added.body]).toEqual([
      201,
      {
        ...body,
        ageBand: '36-59',
        id: expect.any(String),
        participantId: reachable.id,
        createdAt: expect.stringMatching(TIMESTAMP),
      },
    ]);
    const listed = await list(reachable.id, team.reporter);
    expect([listed.status, listed.body]).toEqual([200, [added.body]]);

    expectError(await list(unreachable.id, team.reporter), notAssigned(ALL_ROLES));
    expectError(await add(unreachable.id, body, team.reporter), notAssigned(CONTRIBUTORS));
    expect((await list(unreachable.id)).body).toEqual([existing]);
  });
});
