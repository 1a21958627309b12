import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  activitiesUrl,
  activityUrl,
  postActivity,
  type ActivityJson,
} from '../../../test/helpers/activities.js';
import {
  assignProject,
  createProgram,
  createProject,
  type TestUser,
} from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  badRequest,
  call,
  expectError,
  expectViolations,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  ALL_ROLES,
  CONTRIBUTORS,
  notAMember,
  notAssigned,
  refusedTo,
} from '../../../test/helpers/http.js';
import { projects } from '../projects/projects.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

/** A project of the org with its program's id, which owns the results framework. */
async function projectWithProgram(orgId = team.org.id) {
  const project = await createProject(t.database.db, orgId);
  const [row] = await t.database.db
    .select({ programId: projects.programId })
    .from(projects)
    .where(eq(projects.id, project.id));
  return { id: project.id, programId: row!.programId };
}

async function postNode(orgId: string, as: TestUser, programId: string, level: string, parentId?: string) {
  const res = await call(t.app, 'POST', `/orgs/${orgId}/programs/${programId}/result-nodes`, {
    as,
    body: { level, title: `A ${level}`, ...(parentId ? { parentId } : {}) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}

/** impact > outcome > output of a program, through the results API. */
async function framework(programId: string, orgId = team.org.id, as = team.officer) {
  const impact = await postNode(orgId, as, programId, 'impact');
  const outcome = await postNode(orgId, as, programId, 'outcome', impact.id);
  const output = await postNode(orgId, as, programId, 'output', outcome.id);
  return { impact, outcome, output };
}

const plan = (projectId: string, body: Record<string, unknown> = {}, as: TestUser = team.officer) =>
  postActivity(t.app, as, team.org.id, projectId, body);
const list = (projectId: string, query = '', as: TestUser = team.officer) =>
  call(t.app, 'GET', `${activitiesUrl(team.org.id, projectId)}${query}`, { as });
const ids = (body: ActivityJson[]) => body.map((a) => a.id);

describe('POST /orgs/:orgId/projects/:projectId/activities', () => {
  it('plans an activity (201) echoing every field, with no participants yet', async () => {
    const project = await projectWithProgram();
    const { output } = await framework(project.programId);
    const res = await call(t.app, 'POST', activitiesUrl(team.org.id, project.id), {
      as: team.admin,
      body: {
        title: ' Borehole maintenance training ',
        description: 'Two days for the water committee',
        outputId: output.id,
        startDate: '2026-03-10',
        endDate: '2026-03-11',
        location: ' Kisumu ',
        facilitator: 'Jane Achieng',
        status: 'in_progress',
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      orgId: team.org.id,
      projectId: project.id,
      outputId: output.id,
      title: 'Borehole maintenance training',
      description: 'Two days for the water committee',
      startDate: '2026-03-10',
      endDate: '2026-03-11',
      location: 'Kisumu',
      facilitator: 'Jane Achieng',
      status: 'in_progress',
      participantCount: 0,
      attendedCount: 0,
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    const stored = await call(t.app, 'GET', activityUrl(team.org.id, res.body.id), { as: team.viewer });
    expect([stored.status, stored.body]).toEqual([200, res.body]);
  });

  it('defaults to planned with no output, and stores text of only spaces as null', async () => {
    const project = await projectWithProgram();
    const res = await call(t.app, 'POST', activitiesUrl(team.org.id, project.id), {
      as: team.officer,
      body: {
        title: 'Seed distribution',
        startDate: '2026-05-01',
        endDate: '2026-05-01',
        description: '   ',
        location: ' ',
        facilitator: null,
        outputId: null,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Seed distribution',
      startDate: '2026-05-01',
      endDate: '2026-05-01',
      description: null,
      outputId: null,
      location: null,
      facilitator: null,
      status: 'planned',
      participantCount: 0,
      attendedCount: 0,
    });
  });

  it('rejects every body violation with 400 naming the field, and plans nothing', async () => {
    const project = await projectWithProgram();
    const ok = { title: 'Training', startDate: '2026-02-01', endDate: '2026-02-03' };
    const cases: [unknown, string[]][] = [
      [{}, ['title is required', 'startDate is required', 'endDate is required']],
      [{ ...ok, title: '   ' }, ['title should not be empty']],
      [{ ...ok, title: 'x'.repeat(301) }, ['title must be at most 300 characters']],
      [{ ...ok, startDate: '2026-02-30' }, ['startDate must be a valid date (YYYY-MM-DD)']],
      [{ ...ok, endDate: '03/02/2026' }, ['endDate must be a valid date (YYYY-MM-DD)']],
      [{ ...ok, status: 'done' }, ['status must be one of planned, in_progress, completed, cancelled']],
      [{ ...ok, outputId: 'output-1' }, ['outputId must be a UUID']],
      [{ ...ok, description: 5 }, ['description must be a string']],
      [{ ...ok, location: 'x'.repeat(301) }, ['location must be at most 300 characters']],
      [
        { ...ok, id: MISSING_ID, participantCount: 3 },
        ['property id should not exist', 'property participantCount should not exist'],
      ],
      [{ ...ok, endDate: '2026-01-31' }, ['endDate must not be before startDate']],
    ];
    for (const [body, messages] of cases) {
      const res = await call(t.app, 'POST', activitiesUrl(team.org.id, project.id), {
        as: team.officer,
        body,
      });
      expectViolations(res, ...messages);
    }
    const badPath = await call(t.app, 'POST', activitiesUrl(team.org.id, 'nope'), {
      as: team.officer,
      body: ok,
    });
    expectError(badPath, badRequest('projectId must be a UUID'));
    expect((await list(project.id)).body).toEqual([]);
  });

  it("takes only an output of the project's program: unknown or foreign 404, any other node 400", async () => {
    const project = await projectWithProgram();
    const { impact, outcome } = await framework(project.programId);
    const otherProgram = await createProgram(t.database.db, team.org.id, 'Another program');
    const { output: otherOutput } = await framework(otherProgram.id);
    const foreign = await projectWithProgram(team.outsiderOrg.id);
    const { output: foreignOutput } = await framework(foreign.programId, team.outsiderOrg.id, team.outsider);

    for (const outputId of [MISSING_ID, foreignOutput.id]) {
      const res = await call(t.app, 'POST', activitiesUrl(team.org.id, project.id), {
        as: team.officer,
        body: { title: 'x', startDate: '2026-02-01', endDate: '2026-02-01', outputId },
      });
      expectError(res, notFoundBody('Result node'));
    }
    for (const outputId of [impact.id, outcome.id, otherOutput.id]) {
      const res = await call(t.app, 'POST', activitiesUrl(team.org.id, project.id), {
        as: team.officer,
        body: { title: 'x', startDate: '2026-02-01', endDate: '2026-02-01', outputId },
      });
      expectError(res, badRequest("outputId must be an output of the project's program"));
    }
    expect((await list(project.id)).body).toEqual([]);
  });

  it('answers 404 for a project of another organization or a missing one', async () => {
    const foreign = await projectWithProgram(team.outsiderOrg.id);
    for (const id of [foreign.id, MISSING_ID]) {
      const res = await call(t.app, 'POST', activitiesUrl(team.org.id, id), {
        as: team.admin,
        body: { title: 'x', startDate: '2026-02-01', endDate: '2026-02-01' },
      });
      expectError(res, notFoundBody('Project'));
    }
    const ours = await projectWithProgram();
    const underTheirs = await call(t.app, 'POST', activitiesUrl(team.outsiderOrg.id, ours.id), {
      as: team.outsider,
      body: { title: 'x', startDate: '2026-02-01', endDate: '2026-02-01' },
    });
    expectError(underTheirs, notFoundBody('Project'));
    expect((await list(ours.id)).body).toEqual([]);
  });

  it('is for contributors: an assigned reporter may, others 403, no session 401', async () => {
    const project = await projectWithProgram();
    const body = { title: 'Village meeting', startDate: '2026-02-01', endDate: '2026-02-01' };
    for (const user of [team.viewer, team.outsider, team.reporter]) {
      const res = await call(t.app, 'POST', activitiesUrl(team.org.id, project.id), { as: user, body });
      expectError(res, refusedTo(team, user, CONTRIBUTORS));
    }
    expectError(await call(t.app, 'POST', activitiesUrl(team.org.id, project.id), { body }), UNAUTHORIZED);
    expect((await list(project.id)).body).toEqual([]);

    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const allowed = await plan(project.id, body, team.reporter);
    expect(allowed).toMatchObject({ projectId: project.id, title: 'Village meeting' });
  });
});

describe('GET /orgs/:orgId/projects/:projectId/activities', () => {
  it('lists the newest first (latest startDate, then latest created), plain or paged', async () => {
    const project = await projectWithProgram();
    const other = await projectWithProgram();
    await plan(other.id, { title: 'Elsewhere' });
    const feb = await plan(project.id, { startDate: '2026-02-01', endDate: '2026-02-05' });
    const march = await plan(project.id, { startDate: '2026-03-01', endDate: '2026-03-01' });
    const febAgain = await plan(project.id, { startDate: '2026-02-01', endDate: '2026-02-01' });
    const jan = await plan(project.id, { startDate: '2026-01-15', endDate: '2026-04-30' });

    const res = await list(project.id, '', team.viewer);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([march.id, febAgain.id, feb.id, jan.id]);
    expect(res.body[0]).toEqual(march);

    const paged = await list(project.id, '?page=2&limit=3');
    expect([paged.status, paged.body]).toEqual([
      200,
      { data: [jan], meta: { total: 4, page: 2, limit: 3, totalPages: 2 } },
    ]);
    const limitOnly = await list(project.id, '?limit=2');
    expect(limitOnly.body).toEqual({
      data: [march, febAgain],
      meta: { total: 4, page: 1, limit: 2, totalPages: 2 },
    });
    expectError(await list(project.id, '?limit=101'), badRequest('limit must not be greater than 100'));
    expectError(await list(project.id, '?page=0'), badRequest('page must not be less than 1'));
  });

  it('filters by status and keeps the activities overlapping from..to, both ends inclusive', async () => {
    const project = await projectWithProgram();
    const jan = await plan(project.id, { startDate: '2026-01-10', endDate: '2026-01-20' });
    const feb = await plan(project.id, {
      startDate: '2026-02-01',
      endDate: '2026-02-03',
      status: 'completed',
    });
    const long = await plan(project.id, { startDate: '2026-01-15', endDate: '2026-03-15' });
    const apr = await plan(project.id, {
      startDate: '2026-04-01',
      endDate: '2026-04-02',
      status: 'completed',
    });

    const cases: [string, ActivityJson[]][] = [
      ['?status=completed', [apr, feb]],
      ['?status=cancelled', []],
      ['?from=2026-02-03', [apr, feb, long]],
      ['?to=2026-01-15', [long, jan]],
      ['?from=2026-02-01&to=2026-02-01', [feb, long]],
      ['?from=2026-01-21&to=2026-01-31', [long]],
      ['?from=2026-02-04&to=2026-03-31', [long]],
      ['?status=completed&from=2026-02-04', [apr]],
      ['?from=2026-05-01', []],
    ];
    for (const [query, expected] of cases) {
      const res = await list(project.id, query);
      expect([query, res.status, ids(res.body)]).toEqual([query, 200, ids(expected)]);
    }
    const paged = await list(project.id, '?status=completed&limit=1');
    expect(paged.body).toEqual({ data: [apr], meta: { total: 2, page: 1, limit: 1, totalPages: 2 } });
  });

  it('rejects a bad filter with 400', async () => {
    const project = await projectWithProgram();
    const cases: [string, string][] = [
      ['?from=2026-02-02&to=2026-02-01', 'to must not be before from'],
      ['?status=done', 'status must be one of planned, in_progress, completed, cancelled'],
      ['?from=2026-02-31', 'from must be a valid date (YYYY-MM-DD)'],
      ['?to=soon', 'to must be a valid date (YYYY-MM-DD)'],
    ];
    for (const [query, message] of cases) expectError(await list(project.id, query), badRequest(message));
  });

  it('lets a reporter read assigned projects only; outsiders 403, no session 401', async () => {
    const project = await projectWithProgram();
    const activity = await plan(project.id);
    expectError(await list(project.id, '', team.reporter), notAssigned(ALL_ROLES));
    expectError(await list(project.id, '', team.outsider), notAMember(ALL_ROLES));
    expectError(await call(t.app, 'GET', activitiesUrl(team.org.id, project.id)), UNAUTHORIZED);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const allowed = await list(project.id, '', team.reporter);
    expect([allowed.status, allowed.body]).toEqual([200, [activity]]);
  });

  it('answers 404 for a project of another organization', async () => {
    const foreign = await projectWithProgram(team.outsiderOrg.id);
    expectError(await list(foreign.id, '', team.admin), notFoundBody('Project'));
    const ours = await projectWithProgram();
    const underTheirs = await call(t.app, 'GET', activitiesUrl(team.outsiderOrg.id, ours.id), {
      as: team.outsider,
    });
    expectError(underTheirs, notFoundBody('Project'));
  });
});

describe('GET /orgs/:orgId/activities/:id', () => {
  const show = (id: string, as?: TestUser, orgId = team.org.id) =>
    call(t.app, 'GET', activityUrl(orgId, id), { as });

  it('answers the activity to every role that may read its project', async () => {
    const project = await projectWithProgram();
    const activity = await plan(project.id, { location: 'Kakamega' });
    for (const user of [team.admin, team.officer, team.viewer]) {
      const res = await show(activity.id, user);
      expect([res.status, res.body]).toEqual([200, activity]);
    }
    expectError(await show(activity.id, team.reporter), notAssigned(ALL_ROLES));
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const assigned = await show(activity.id, team.reporter);
    expect([assigned.status, assigned.body]).toEqual([200, activity]);
  });

  it('answers 404 for a missing id or ours under another org; outsiders 403, no session 401', async () => {
    const activity = await plan((await projectWithProgram()).id);
    expectError(await show(MISSING_ID, team.admin), notFoundBody('Activity'));
    expectError(await show(activity.id, team.outsider, team.outsiderOrg.id), notFoundBody('Activity'));
    expectError(await show(activity.id, team.outsider), notAMember(ALL_ROLES));
    expectError(await show(activity.id), UNAUTHORIZED);
    expectError(await show('x', team.admin), badRequest('id must be a UUID'));
  });
});
