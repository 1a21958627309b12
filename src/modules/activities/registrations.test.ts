import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  householdUrl,
  participantUrl,
  postActivity,
  person,
  register,
  registrationsUrl,
  registrationUrl,
  withoutPersonalData,
  type RegistrationJson,
} from '../../../test/helpers/activities.js';
import { assignProject, createProject, type TestUser } from '../../../test/helpers/factories.js';
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
  refusedTo,
} from '../../../test/helpers/http.js';
import { activityParticipants } from './activities.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

/** Born on 1 January thirty years ago: 30 whatever today is. */
const thirtyYearsAgo = () => `${new Date().getUTCFullYear() - 30}-01-01`;

/** An activity of a fresh project with three people registered, the first with a household. */
async function scene() {
  const project = await createProject(t.database.db, team.org.id);
  const activity = await postActivity(t.app, team.officer, team.org.id, project.id);
  const [zawadi, amani, baraka] = await register(t.app, team.officer, team.org.id, activity.id, [
    person({
      firstName: 'Zawadi',
      lastName: 'Wanjiru',
      dateOfBirth: thirtyYearsAgo(),
      phone: '+254 700 123 456',
      nationalId: `KE-${activity.id}`,
      role: 'leader',
      attended: true,
    }),
    person({ firstName: 'Amani', lastName: 'Otieno', sex: 'male', dateOfBirth: null }),
    person({ firstName: 'Baraka', lastName: 'Otieno', sex: 'male' }),
  ]);
  return { project, activity, zawadi: zawadi!, amani: amani!, baraka: baraka! };
}

const list = (activityId: string, as: TestUser | null, query = '', orgId = team.org.id) =>
  call(t.app, 'GET', `${registrationsUrl(orgId, activityId)}${query}`, { as });
const patch = (
  activityId: string,
  participantId: string,
  body: unknown,
  as: TestUser | null = team.officer,
) => call(t.app, 'PATCH', registrationUrl(team.org.id, activityId, participantId), { as, body });
const remove = (activityId: string, participantId: string, as: TestUser | null = team.officer) =>
  call(t.app, 'DELETE', registrationUrl(team.org.id, activityId, participantId), { as });
const names = (body: RegistrationJson[]) => body.map((r) => r.participant.firstName);

async function stored(activityId: string) {
  const rows = await t.database.db
    .select()
    .from(activityParticipants)
    .where(eq(activityParticipants.activityId, activityId));
  return rows.map((row) => [row.participantId, row.role, row.attended]).sort();
}

/** Someone of the org registered in another activity only. */
async function registeredElsewhere() {
  const project = await createProject(t.database.db, team.org.id);
  const other = await postActivity(t.app, team.officer, team.org.id, project.id);
  const [registration] = await register(t.app, team.officer, team.org.id, other.id, [person()]);
  return registration!.participantId;
}

describe('GET /orgs/:orgId/activities/:id/participants', () => {
  it('lists registrations by last then first name, each with its participant, age and household', async () => {
    const { activity, zawadi } = await scene();
    const household = await call(t.app, 'POST', householdUrl(team.org.id, zawadi.participantId), {
      as: team.officer,
      body: { name: 'Neema Wanjiru', relationship: 'daughter', sex: 'female', age: 7 },
    });
    expect(household.status).toBe(201);
    const res = await list(activity.id, team.officer);
    expect(res.status).toBe(200);
    expect(names(res.body)).toEqual(['Amani', 'Baraka', 'Zawadi']);
    expect(res.body[0].participant).toMatchObject({ dateOfBirth: null, age: null, householdMembers: [] });
    expect(res.body[2]).toEqual({
      id: zawadi.id,
      activityId: activity.id,
      participantId: zawadi.participantId,
      role: 'leader',
      attended: true,
      registeredAt: expect.stringMatching(TIMESTAMP),
      participant: {
        id: zawadi.participantId,
        orgId: team.org.id,
        firstName: 'Zawadi',
        lastName: 'Wanjiru',
        sex: 'female',
        dateOfBirth: thirtyYearsAgo(),
        age: 30,
        ageBand: '18-35',
        phone: '+254 700 123 456',
        nationalId: `KE-${activity.id}`,
        village: 'Kibera',
        district: 'Nairobi',
        householdMembers: [
          {
            id: expect.any(String),
            participantId: zawadi.participantId,
            name: 'Neema Wanjiru',
            relationship: 'daughter',
            sex: 'female',
            age: 7,
            ageBand: '0-17',
            createdAt: expect.stringMatching(TIMESTAMP),
          },
        ],
        erasedAt: null,
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP),
      },
    });
  });

  it('filters by attendance and pages on request', async () => {
    const { activity } = await scene();
    expect(names((await list(activity.id, team.officer, '?attended=true')).body)).toEqual(['Zawadi']);
    expect(names((await list(activity.id, team.officer, '?attended=false')).body)).toEqual([
      'Amani',
      'Baraka',
    ]);
    const page = await list(activity.id, team.officer, '?page=2&limit=2');
    expect(page.status).toBe(200);
    expect(names(page.body.data)).toEqual(['Zawadi']);
    expect(page.body.meta).toEqual({ total: 3, page: 2, limit: 2, totalPages: 2 });
    expectViolations(await list(activity.id, team.officer, '?attended=maybe'), 'attended must be a boolean');
  });

  it('hides every personal field from a viewer only, the age band given instead', async () => {
    const { activity, zawadi } = await scene();
    const contact = (body: RegistrationJson[]) =>
      body.filter((r) => r.participantId === zawadi.participantId).map((r) => r.participant);
    const seenByViewer = await list(activity.id, team.viewer);
    expect(seenByViewer.status).toBe(200);
    expect(contact(seenByViewer.body)).toEqual([withoutPersonalData(zawadi.participant)]);
    expect(contact(seenByViewer.body)).toMatchObject([{ firstName: null, ageBand: '18-35' }]);
    for (const user of [team.officer, team.admin]) {
      const seen = await list(activity.id, user);
      expect(contact(seen.body)).toMatchObject([
        { phone: '+254 700 123 456', nationalId: `KE-${activity.id}` },
      ]);
    }
  });

  it('is for members: 401 without a session, 403 for an outsider or an unassigned reporter', async () => {
    const { project, activity } = await scene();
    expectError(await list(activity.id, null), UNAUTHORIZED);
    expectError(await list(activity.id, team.outsider), notAMember(ALL_ROLES));
    expectError(await list(activity.id, team.reporter), notAssigned(ALL_ROLES));
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    expect(names((await list(activity.id, team.reporter)).body)).toEqual(['Amani', 'Baraka', 'Zawadi']);
  });

  it("answers 404 for another organization's activity or a missing one, 400 for a bad id", async () => {
    const { activity } = await scene();
    expectError(await list(activity.id, team.outsider, '', team.outsiderOrg.id), notFoundBody('Activity'));
    expectError(await list(MISSING_ID, team.officer), notFoundBody('Activity'));
    expectError(await list('nope', team.officer), badRequest('id must be a UUID'));
  });
});

describe('POST /orgs/:orgId/activities/:id/participants (access)', () => {
  const post = (activityId: string, as: TestUser | null, orgId = team.org.id) =>
    call(t.app, 'POST', registrationsUrl(orgId, activityId), { as, body: { participants: [person()] } });

  it('lets an assigned reporter register; refuses 401, viewer, outsider and unassigned reporter', async () => {
    const { project, activity } = await scene();
    const before = await stored(activity.id);
    expectError(await post(activity.id, null), UNAUTHORIZED);
    for (const user of [team.viewer, team.outsider, team.reporter]) {
      expectError(await post(activity.id, user), refusedTo(team, user, CONTRIBUTORS));
    }
    expect(await stored(activity.id)).toEqual(before);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const res = await post(activity.id, team.reporter);
    expect(res.status).toBe(201);
    expect(await stored(activity.id)).toHaveLength(4);
  });

  it("answers 404 for another organization's activity or a missing one", async () => {
    const { activity } = await scene();
    expectError(await post(activity.id, team.outsider, team.outsiderOrg.id), notFoundBody('Activity'));
    expectError(await post(MISSING_ID, team.officer), notFoundBody('Activity'));
    expect(await stored(activity.id)).toHaveLength(3);
  });
});

describe('PATCH /orgs/:orgId/activities/:activityId/participants/:participantId', () => {
  it('confirms attendance and changes the role (trimmed), leaving the rest', async () => {
    const { activity, amani } = await scene();
    const attended = await patch(activity.id, amani.participantId, { attended: true });
    expect(attended.status).toBe(200);
    expect(attended.body).toEqual({ ...amani, attended: true });
    const role = await patch(activity.id, amani.participantId, { role: '  volunteer ' });
    expect(role.body).toEqual({ ...amani, attended: true, role: 'volunteer' });
    const both = await patch(activity.id, amani.participantId, { role: 'cook', attended: false });
    expect(both.body).toEqual({ ...amani, role: 'cook', attended: false });
    expect((await list(activity.id, team.officer, '?attended=true')).body).toHaveLength(1);
  });

  it('returns the registration unchanged for an empty body', async () => {
    const { activity, zawadi } = await scene();
    const res = await patch(activity.id, zawadi.participantId, {});
    expect([res.status, res.body]).toEqual([200, zawadi]);
  });

  it('answers 404 Participant for someone not registered here, of another org or missing', async () => {
    const { activity } = await scene();
    const foreignProject = await createProject(t.database.db, team.outsiderOrg.id);
    const foreignActivity = await postActivity(t.app, team.outsider, team.outsiderOrg.id, foreignProject.id);
    const [foreign] = await register(t.app, team.outsider, team.outsiderOrg.id, foreignActivity.id, [
      person(),
    ]);
    for (const participantId of [await registeredElsewhere(), foreign!.participantId, MISSING_ID]) {
      for (const body of [{ attended: true }, {}]) {
        expectError(await patch(activity.id, participantId, body), notFoundBody('Participant'));
      }
    }
    expect(await stored(foreignActivity.id)).toEqual([[foreign!.participantId, 'attendee', false]]);
  });

  it('rejects a bad body or bad ids with 400', async () => {
    const { activity, zawadi } = await scene();
    expectViolations(
      await patch(activity.id, zawadi.participantId, { role: ' ', attended: 'yes', note: 'x' }),
      'role should not be empty',
      'attended must be a boolean',
      'property note should not exist',
    );
    expectViolations(
      await patch(activity.id, zawadi.participantId, { role: 'r'.repeat(51) }),
      'role must be at most 50 characters',
    );
    expectViolations(await patch('nope', zawadi.participantId, {}), 'activityId must be a UUID');
    expectViolations(await patch(activity.id, 'nope', {}), 'participantId must be a UUID');
    expect((await patch(activity.id, zawadi.participantId, {})).body).toEqual(zawadi);
  });

  it('is for contributors on the project: 401, 403 for viewer, outsider, unassigned reporter', async () => {
    const { project, activity, amani } = await scene();
    expectError(await patch(activity.id, amani.participantId, { attended: true }, null), UNAUTHORIZED);
    for (const user of [team.viewer, team.outsider, team.reporter]) {
      expectError(
        await patch(activity.id, amani.participantId, { attended: true }, user),
        refusedTo(team, user, CONTRIBUTORS),
      );
    }
    expect((await list(activity.id, team.officer, '?attended=true')).body).toHaveLength(1);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const res = await patch(activity.id, amani.participantId, { attended: true }, team.reporter);
    expect([res.status, res.body.attended]).toEqual([200, true]);
  });

  it("answers 404 Activity for another organization's activity or a missing one", async () => {
    const { activity, amani } = await scene();
    const foreign = await call(
      t.app,
      'PATCH',
      registrationUrl(team.outsiderOrg.id, activity.id, amani.participantId),
      { as: team.outsider, body: { attended: true } },
    );
    expectError(foreign, notFoundBody('Activity'));
    expectError(await patch(MISSING_ID, amani.participantId, { attended: true }), notFoundBody('Activity'));
  });
});

describe('DELETE /orgs/:orgId/activities/:activityId/participants/:participantId', () => {
  it('removes the registration (204) and keeps the participant in the organization', async () => {
    const { activity, amani } = await scene();
    const res = await remove(activity.id, amani.participantId);
    expect([res.status, res.body]).toEqual([204, null]);
    expect(names((await list(activity.id, team.officer)).body)).toEqual(['Baraka', 'Zawadi']);
    const kept = await call(t.app, 'GET', participantUrl(team.org.id, amani.participantId), {
      as: team.admin,
    });
    expect([kept.status, kept.body.id]).toEqual([200, amani.participantId]);
    expectError(await remove(activity.id, amani.participantId), notFoundBody('Participant'));
  });

  it('answers 404 Participant for someone not registered here, of another org or missing', async () => {
    const { activity } = await scene();
    const foreignProject = await createProject(t.database.db, team.outsiderOrg.id);
    const foreignActivity = await postActivity(t.app, team.outsider, team.outsiderOrg.id, foreignProject.id);
    const [foreign] = await register(t.app, team.outsider, team.outsiderOrg.id, foreignActivity.id, [
      person(),
    ]);
    for (const participantId of [await registeredElsewhere(), foreign!.participantId, MISSING_ID]) {
      expectError(await remove(activity.id, participantId), notFoundBody('Participant'));
    }
    expect(await stored(foreignActivity.id)).toHaveLength(1);
    expect(await stored(activity.id)).toHaveLength(3);
  });

  it('is for contributors on the project: 401, 403 for viewer, outsider, unassigned reporter', async () => {
    const { project, activity, amani } = await scene();
    expectError(await remove(activity.id, amani.participantId, null), UNAUTHORIZED);
    for (const user of [team.viewer, team.outsider, team.reporter]) {
      expectError(await remove(activity.id, amani.participantId, user), refusedTo(team, user, CONTRIBUTORS));
    }
    expect(await stored(activity.id)).toHaveLength(3);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    expect((await remove(activity.id, amani.participantId, team.reporter)).status).toBe(204);
    expect(await stored(activity.id)).toHaveLength(2);
  });

  it("answers 404 Activity for another organization's activity or a missing one, 400 for bad ids", async () => {
    const { activity, amani } = await scene();
    const foreign = await call(
      t.app,
      'DELETE',
      registrationUrl(team.outsiderOrg.id, activity.id, amani.participantId),
      {
        as: team.outsider,
      },
    );
    expectError(foreign, notFoundBody('Activity'));
    expectError(await remove(MISSING_ID, amani.participantId), notFoundBody('Activity'));
    expectViolations(await remove(activity.id, 'nope'), 'participantId must be a UUID');
    expect(await stored(activity.id)).toHaveLength(3);
  });
});
