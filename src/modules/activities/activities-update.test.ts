import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  activitiesUrl,
  activityUrl,
  participantUrl,
  person,
  postActivity,
  register,
  registrationsUrl,
  type ActivityJson,
} from '../../../test/helpers/activities.js';
import { assignProject, createProject, type TestUser } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  badRequest,
  call,
  expectError,
  expectViolations,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  CONTRIBUTORS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { conflictBody } from '../../../test/helpers/indicator-scenes.js';
import { projects } from '../projects/projects.tables.js';
import { ACTIVITY_STATUSES, activityParticipants, type ActivityStatus } from './activities.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const plan = async (body: Record<string, unknown> = {}, projectId?: string) =>
  postActivity(
    t.app,
    team.officer,
    team.org.id,
    projectId ?? (await createProject(t.database.db, team.org.id)).id,
    body,
  );
const patch = (id: string, body: unknown, as: TestUser = team.officer) =>
  call(t.app, 'PATCH', activityUrl(team.org.id, id), { as, body });
const show = (id: string, as: TestUser = team.officer) =>
  call(t.app, 'GET', activityUrl(team.org.id, id), { as });
const remove = (id: string, as: TestUser = team.officer) =>
  call(t.app, 'DELETE', activityUrl(team.org.id, id), { as });

/** An output node of the project's program, through the results API. */
async function outputOf(projectId: string) {
  const [row] = await t.database.db
    .select({ programId: projects.programId })
    .from(projects)
    .where(eq(projects.id, projectId));
  let parentId: string | undefined;
  for (const level of ['impact', 'outcome', 'output']) {
    const res = await call(t.app, 'POST', `/orgs/${team.org.id}/programs/${row!.programId}/result-nodes`, {
      as: team.officer,
      body: { level, title: `A ${level}`, ...(parentId ? { parentId } : {}) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    parentId = res.body.id as string;
  }
  return parentId!;
}

describe('PATCH /orgs/:orgId/activities/:id', () => {
  it('changes each field alone and answers the whole activity', async () => {
    const activity = await plan({ description: 'Day one', location: 'Kisumu', facilitator: 'Jane' });
    const changes: Record<string, unknown>[] = [
      { title: 'Refresher training' },
      { description: 'Both days' },
      { location: 'Homa Bay' },
      { facilitator: 'Peter Otieno' },
      { startDate: '2026-01-30' },
      { endDate: '2026-02-10' },
      { status: 'in_progress' },
    ];
    let current: ActivityJson = activity;
    for (const change of changes) {
      const res = await patch(activity.id, change);
      expect([change, res.status]).toEqual([change, 200]);
      expect(res.body).toEqual({ ...current, ...change, updatedAt: expect.stringMatching(TIMESTAMP) });
      current = res.body as ActivityJson;
    }
    expect((await show(activity.id)).body).toEqual(current);
    expect((current.updatedAt as string) > (activity.updatedAt as string)).toBe(true);
  });

  it('trims text, clears optional text with null or spaces, and an empty body changes nothing', async () => {
    const activity = await plan({ description: 'Day one', location: 'Kisumu', facilitator: 'Jane' });
    const res = await patch(activity.id, {
      title: ' Field day ',
      description: null,
      location: '  ',
      facilitator: null,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      title: 'Field day',
      description: null,
      location: null,
      facilitator: null,
    });
    const same = await patch(activity.id, {});
    expect([same.status, same.body]).toEqual([200, res.body]);
  });

  it("sets the output to one of the project's program and clears it with null", async () => {
    const project = await createProject(t.database.db, team.org.id);
    const activity = await plan({}, project.id);
    const outputId = await outputOf(project.id);
    const set = await patch(activity.id, { outputId });
    expect([set.status, set.body.outputId]).toEqual([200, outputId]);
    const kept = await patch(activity.id, { title: 'Still attached' });
    expect(kept.body.outputId).toBe(outputId);
    const cleared = await patch(activity.id, { outputId: null });
    expect([cleared.status, cleared.body.outputId]).toEqual([200, null]);

    const otherOutput = await outputOf((await createProject(t.database.db, team.org.id)).id);
    expectError(await patch(activity.id, { outputId: MISSING_ID }), notFoundBody('Result node'));
    expectError(
      await patch(activity.id, { outputId: otherOutput }),
      badRequest("outputId must be an output of the project's program"),
    );
    expect((await show(activity.id)).body.outputId).toBe(null);
  });

  it('keeps the activity, unattached, when its output node is deleted', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const outputId = await outputOf(project.id);
    const activity = await plan({ outputId }, project.id);
    const gone = await call(t.app, 'DELETE', `/orgs/${team.org.id}/result-nodes/${outputId}`, {
      as: team.officer,
    });
    expect(gone.status).toBe(204);
    const res = await show(activity.id);
    expect([res.status, res.body]).toEqual([
      200,
      { ...activity, outputId: null, updatedAt: expect.stringMatching(TIMESTAMP) },
    ]);
  });

  it('keeps endDate on or after startDate against the stored dates (400 naming the field sent)', async () => {
    const activity = await plan({ startDate: '2026-02-01', endDate: '2026-02-03' });
    const cases: [Record<string, unknown>, string][] = [
      [{ endDate: '2026-01-31' }, 'endDate must not be before startDate'],
      [{ startDate: '2026-02-04' }, 'startDate must not be after endDate'],
      [{ startDate: '2026-03-02', endDate: '2026-03-01' }, 'endDate must not be before startDate'],
    ];
    for (const [body, message] of cases) expectError(await patch(activity.id, body), badRequest(message));
    expect((await show(activity.id)).body).toEqual(activity);
    const oneDay = await patch(activity.id, { startDate: '2026-02-03' });
    expect([oneDay.status, oneDay.body.startDate, oneDay.body.endDate]).toEqual([
      200,
      '2026-02-03',
      '2026-02-03',
    ]);
  });

  it('rejects every body violation with 400 naming the field', async () => {
    const activity = await plan();
    const cases: [unknown, string[]][] = [
      [{ title: '' }, ['title should not be empty']],
      [{ title: null }, ['title must be a string']],
      [{ startDate: '2026-02-29' }, ['startDate must be a valid date (YYYY-MM-DD)']],
      [{ status: 'done' }, ['status must be one of planned, in_progress, completed, cancelled']],
      [{ outputId: 'x' }, ['outputId must be a UUID']],
      [
        { projectId: MISSING_ID, attendedCount: 2 },
        ['property projectId should not exist', 'property attendedCount should not exist'],
      ],
    ];
    for (const [body, messages] of cases) expectViolations(await patch(activity.id, body), ...messages);
    expectError(await patch('x', {}), badRequest('id must be a UUID'));
    expect((await show(activity.id)).body).toEqual(activity);
  });

  it('is for contributors: an assigned reporter may, others 403; 404 across orgs; no session 401', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const activity = await plan({}, project.id);
    for (const user of [team.viewer, team.outsider, team.reporter]) {
      expectError(await patch(activity.id, { title: 'Mine' }, user), refusedTo(team, user, CONTRIBUTORS));
    }
    expectError(
      await call(t.app, 'PATCH', activityUrl(team.org.id, activity.id), { body: {} }),
      UNAUTHORIZED,
    );
    const underTheirs = await call(t.app, 'PATCH', activityUrl(team.outsiderOrg.id, activity.id), {
      as: team.outsider,
      body: { title: 'Mine' },
    });
    expectError(underTheirs, notFoundBody('Activity'));
    expectError(await patch(MISSING_ID, { title: 'x' }), notFoundBody('Activity'));
    expect((await show(activity.id)).body).toEqual(activity);

    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const allowed = await patch(activity.id, { title: 'Reported' }, team.reporter);
    expect([allowed.status, allowed.body.title]).toEqual([200, 'Reported']);
  });
});

describe('activity status transitions (DECISIONS.md section 6)', () => {
  const LEGAL: Record<ActivityStatus, ActivityStatus[]> = {
    planned: ['planned', 'in_progress', 'completed', 'cancelled'],
    in_progress: ['in_progress', 'completed', 'cancelled'],
    completed: ['completed'],
    cancelled: ['cancelled', 'planned'],
  };
  for (const from of ACTIVITY_STATUSES) {
    for (const to of ACTIVITY_STATUSES) {
      const legal = LEGAL[from].includes(to);
      it(`${from} > ${to}: ${legal ? '200' : '409'}`, async () => {
        const activity = await plan({ status: from });
        const res = await patch(activity.id, { status: to, title: 'Moved' });
        if (legal) {
          expect([res.status, res.body.status, res.body.title]).toEqual([200, to, 'Moved']);
        } else {
          expectError(res, conflictBody(`Cannot change activity status from ${from} to ${to}`));
          expect((await show(activity.id)).body).toEqual(activity);
        }
      });
    }
  }
});

describe('DELETE /orgs/:orgId/activities/:id', () => {
  it('deletes the activity (204), then 404, and drops it from the list', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const kept = await plan({}, project.id);
    const activity = await plan({}, project.id);
    const res = await remove(activity.id);
    expect([res.status, res.body]).toEqual([204, null]);
    expectError(await remove(activity.id), notFoundBody('Activity'));
    expectError(await show(activity.id), notFoundBody('Activity'));
    const list = await call(t.app, 'GET', activitiesUrl(team.org.id, project.id), { as: team.officer });
    expect(list.body).toEqual([kept]);
  });

  it('takes its registrations with it and keeps its participants in the organization', async () => {
    const activity = await plan();
    const registered = await register(t.app, team.officer, team.org.id, activity.id, [person(), person()]);
    expect((await remove(activity.id)).status).toBe(204);
    for (const { participantId, participant } of registered) {
      const res = await call(t.app, 'GET', participantUrl(team.org.id, participantId), { as: team.officer });
      expect([res.status, res.body.id, res.body.firstName]).toEqual([
        200,
        participantId,
        participant.firstName,
      ]);
    }
    const registrations = await call(t.app, 'GET', registrationsUrl(team.org.id, activity.id), {
      as: team.officer,
    });
    expectError(registrations, notFoundBody('Activity'));
    const left = await t.database.db
      .select()
      .from(activityParticipants)
      .where(eq(activityParticipants.activityId, activity.id));
    expect(left).toEqual([]);
  });

  it('is for contributors: an assigned reporter may, others 403; 404 across orgs; no session 401', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const activity = await plan({}, project.id);
    for (const user of [team.viewer, team.outsider, team.reporter])
      expectError(await remove(activity.id, user), refusedTo(team, user, CONTRIBUTORS));
    expectError(await call(t.app, 'DELETE', activityUrl(team.org.id, activity.id)), UNAUTHORIZED);
    const underTheirs = await call(t.app, 'DELETE', activityUrl(team.outsiderOrg.id, activity.id), {
      as: team.outsider,
    });
    expectError(underTheirs, notFoundBody('Activity'));
    expectError(await remove(MISSING_ID), notFoundBody('Activity'));
    expectError(await remove('x'), badRequest('id must be a UUID'));
    expect((await show(activity.id)).body).toEqual(activity);

    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const allowed = await remove(activity.id, team.reporter);
    expect([allowed.status, allowed.body]).toEqual([204, null]);
  });
});

describe('participant counts', () => {
  it('counts the registered people and those whose attendance is confirmed, per activity', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const activity = await plan({}, project.id);
    const other = await plan({ startDate: '2026-01-01', endDate: '2026-01-01' }, project.id);
    const [first] = await register(t.app, team.officer, team.org.id, activity.id, [
      { ...person(), attended: true },
      { ...person(), attended: true },
      person(),
    ]);
    await register(t.app, team.officer, team.org.id, other.id, [{ participantId: first!.participantId }]);

    const counts = (a: ActivityJson) => [a.participantCount, a.attendedCount];
    expect(counts((await show(activity.id, team.viewer)).body)).toEqual([3, 2]);
    expect(counts((await show(other.id)).body)).toEqual([1, 0]);
    const list = await call(t.app, 'GET', activitiesUrl(team.org.id, project.id), { as: team.viewer });
    expect(list.body.map(counts)).toEqual([
      [3, 2],
      [1, 0],
    ]);
    const changed = await patch(activity.id, { status: 'completed' });
    expect(counts(changed.body)).toEqual([3, 2]);
  });
});
