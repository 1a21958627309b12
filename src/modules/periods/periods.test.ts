import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assignProject, createProject } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  badRequest,
  call,
  expectError,
  expectViolations,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  conflictBody,
  ALL_ROLES,
  MANAGERS,
  notAMember,
  notAssigned,
  refusedTo,
} from '../../../test/helpers/http.js';
import { createPeriod, periodJson } from '../../../test/helpers/periods.js';
import { reportingPeriods } from './periods.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const periodsUrl = (projectId: string, orgId = team.org.id) =>
  `/orgs/${orgId}/projects/${projectId}/reporting-periods`;

async function periodRows(projectId: string) {
  return t.database.db
    .select({ label: reportingPeriods.label })
    .from(reportingPeriods)
    .where(eq(reportingPeriods.projectId, projectId));
}

describe('GET /orgs/:orgId/projects/:projectId/reporting-periods', () => {
  it('lists the project’s periods by startDate, with exact bodies and paging', async () => {
    const db = t.database.db;
    const project = await createProject(db, team.org.id);
    const other = await createProject(db, team.org.id, 'Other');
    const q3 = await createPeriod(db, team.org.id, project.id, {
      label: 'Q3',
      startDate: '2026-07-01',
      endDate: '2026-09-30',
    });
    const q1 = await createPeriod(db, team.org.id, project.id, {
      label: 'Q1',
      dueDate: '2026-04-15',
      isLocked: true,
      lockedAt: new Date('2026-04-20T10:00:00.000Z'),
      lockedBy: team.officer.id,
    });
    const q2 = await createPeriod(db, team.org.id, project.id, {
      label: 'Q2',
      startDate: '2026-04-01',
      endDate: '2026-06-30',
    });
    await createPeriod(db, team.org.id, other.id, { label: 'Elsewhere' });

    const res = await call(t.app, 'GET', periodsUrl(project.id), { as: team.viewer });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([periodJson(q1), periodJson(q2), periodJson(q3)]);
    expect(res.body[0]).toMatchObject({
      dueDate: '2026-04-15',
      isLocked: true,
      lockedAt: '2026-04-20T10:00:00.000Z',
      lockedBy: team.officer.id,
    });

    const page2 = await call(t.app, 'GET', `${periodsUrl(project.id)}?page=2&limit=2`, { as: team.admin });
    expect(page2.body).toEqual({
      data: [periodJson(q3)],
      meta: { total: 3, page: 2, limit: 2, totalPages: 2 },
    });
    const first = await call(t.app, 'GET', `${periodsUrl(project.id)}?limit=1`, { as: team.officer });
    expect(first.body).toEqual({
      data: [periodJson(q1)],
      meta: { total: 3, page: 1, limit: 1, totalPages: 3 },
    });
  });

  it('returns [] for a project without periods, and an empty envelope when paged', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const res = await call(t.app, 'GET', periodsUrl(project.id), { as: team.admin });
    expect([res.status, res.body]).toEqual([200, []]);
    const paged = await call(t.app, 'GET', `${periodsUrl(project.id)}?page=1`, { as: team.admin });
    expect(paged.body).toEqual({ data: [], meta: { total: 0, page: 1, limit: 20, totalPages: 0 } });
  });

  it('lets every role read; a reporter only assigned projects; outsiders 403; no session 401', async () => {
    const db = t.database.db;
    const assigned = await createProject(db, team.org.id);
    const unassigned = await createProject(db, team.org.id);
    await assignProject(db, team.org.id, assigned.id, team.reporter.id);
    const period = await createPeriod(db, team.org.id, assigned.id);
    for (const user of [team.admin, team.officer, team.viewer, team.reporter]) {
      const res = await call(t.app, 'GET', periodsUrl(assigned.id), { as: user });
      expect([res.status, res.body]).toEqual([200, [periodJson(period)]]);
    }
    expectError(
      await call(t.app, 'GET', periodsUrl(unassigned.id), { as: team.reporter }),
      notAssigned(ALL_ROLES),
    );
    expectError(
      await call(t.app, 'GET', periodsUrl(assigned.id), { as: team.outsider }),
      notAMember(ALL_ROLES),
    );
    expectError(await call(t.app, 'GET', periodsUrl(assigned.id)), UNAUTHORIZED);
  });

  it('answers 404 for a project of another organization or a missing one, even to a reporter', async () => {
    const foreign = await createProject(t.database.db, team.outsiderOrg.id);
    await createPeriod(t.database.db, team.outsiderOrg.id, foreign.id);
    for (const user of [team.admin, team.reporter]) {
      for (const id of [foreign.id, MISSING_ID]) {
        expectError(await call(t.app, 'GET', periodsUrl(id), { as: user }), notFoundBody('Project'));
      }
    }
    // The outsider's own org id with our project id: still not found there.
    const ours = await createProject(t.database.db, team.org.id);
    const res = await call(t.app, 'GET', periodsUrl(ours.id, team.outsiderOrg.id), { as: team.outsider });
    expectError(res, notFoundBody('Project'));
  });

  it('rejects a non-UUID project id and bad paging with 400', async () => {
    expectError(
      await call(t.app, 'GET', periodsUrl('nope'), { as: team.admin }),
      badRequest('projectId must be a UUID'),
    );
    const project = await createProject(t.database.db, team.org.id);
    const res = await call(t.app, 'GET', `${periodsUrl(project.id)}?limit=101`, { as: team.admin });
    expectError(res, badRequest('limit must not be greater than 100'));
  });
});

describe('POST /orgs/:orgId/projects/:projectId/reporting-periods', () => {
  it('creates an unlocked period (201) with every field, and lists it', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const res = await call(t.app, 'POST', periodsUrl(project.id), {
      as: team.officer,
      body: { label: 'Q1 2026', startDate: '2026-01-01', endDate: '2026-03-31', dueDate: '2026-04-15' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      orgId: team.org.id,
      projectId: project.id,
      label: 'Q1 2026',
      startDate: '2026-01-01',
      endDate: '2026-03-31',
      dueDate: '2026-04-15',
      isLocked: false,
      lockedAt: null,
      lockedBy: null,
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    const list = await call(t.app, 'GET', periodsUrl(project.id), { as: team.viewer });
    expect(list.body).toEqual([res.body]);
  });

  it('makes dueDate optional (null) and accepts a one-day period', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const res = await call(t.app, 'POST', periodsUrl(project.id), {
      as: team.admin,
      body: { label: 'Launch day', startDate: '2026-05-05', endDate: '2026-05-05' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ startDate: '2026-05-05', endDate: '2026-05-05', dueDate: null });
    const explicitNull = await call(t.app, 'POST', periodsUrl(project.id), {
      as: team.admin,
      body: { label: 'Next day', startDate: '2026-05-06', endDate: '2026-05-06', dueDate: null },
    });
    expect([explicitNull.status, explicitNull.body.dueDate]).toEqual([201, null]);
  });

  it('refuses overlapping periods of one project with 409 naming the other; touching ones are fine', async () => {
    const db = t.database.db;
    const project = await createProject(db, team.org.id);
    await createPeriod(db, team.org.id, project.id, {
      label: 'Q2',
      startDate: '2026-04-01',
      endDate: '2026-06-30',
    });
    const post = (startDate: string, endDate: string) =>
      call(t.app, 'POST', periodsUrl(project.id), {
        as: team.officer,
        body: { label: 'New', startDate, endDate },
      });

    for (const [start, end] of [
      ['2026-06-30', '2026-07-31'], // shares the last day
      ['2026-03-01', '2026-04-01'], // shares the first day
      ['2026-05-01', '2026-05-31'], // inside
      ['2026-01-01', '2026-12-31'], // around
    ] as const) {
      expectError(await post(start, end), conflictBody('Reporting period overlaps Q2'));
    }
    expect((await post('2026-01-01', '2026-03-31')).status).toBe(201);
    expect((await post('2026-07-01', '2026-09-30')).status).toBe(201);
    expect((await periodRows(project.id)).map((p) => p.label).sort()).toEqual(['New', 'New', 'Q2']);

    // Another project (or organization) may use the same dates.
    const other = await createProject(db, team.org.id);
    const res = await call(t.app, 'POST', periodsUrl(other.id), {
      as: team.officer,
      body: { label: 'Q2', startDate: '2026-04-01', endDate: '2026-06-30' },
    });
    expect(res.status).toBe(201);
  });

  it('lets exactly one of several concurrent overlapping creations through', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call(t.app, 'POST', periodsUrl(project.id), {
          as: team.officer,
          body: { label: `Try ${i}`, startDate: '2026-01-01', endDate: `2026-03-${10 + i}` },
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect(await periodRows(project.id)).toHaveLength(1);
  });

  it('rejects every body violation with 400 naming the field', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const post = (body: unknown) => call(t.app, 'POST', periodsUrl(project.id), { as: team.admin, body });
    const valid = { label: 'Q1', startDate: '2026-01-01', endDate: '2026-03-31' };
    expectViolations(await post({}), 'label is required', 'startDate is required', 'endDate is required');
    expectViolations(
      await post({ label: '  ', startDate: '2026-02-30', endDate: '31/03/2026', dueDate: 'soon' }),
      'label should not be empty',
      'startDate must be a valid date (YYYY-MM-DD)',
      'endDate must be a valid date (YYYY-MM-DD)',
      'dueDate must be a valid date (YYYY-MM-DD)',
    );
    expectViolations(await post({ ...valid, endDate: '2025-12-31' }), 'endDate must not be before startDate');
    expectViolations(
      await post({ ...valid, label: 'x'.repeat(201) }),
      'label must be at most 200 characters',
    );
    expectViolations(
      await post({ ...valid, id: MISSING_ID, orgId: team.org.id, isLocked: true, projectId: project.id }),
      'property id should not exist',
      'property orgId should not exist',
      'property isLocked should not exist',
      'property projectId should not exist',
    );
    expectError(
      await call(t.app, 'POST', periodsUrl('x'), { as: team.admin, body: valid }),
      badRequest('projectId must be a UUID'),
    );
    expect(await periodRows(project.id)).toEqual([]);
  });

  it('is for managers: reporters (even assigned), viewers and outsiders 403; no session 401', async () => {
    const project = await createProject(t.database.db, team.org.id);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const body = { label: 'Q1', startDate: '2026-01-01', endDate: '2026-03-31' };
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(
        await call(t.app, 'POST', periodsUrl(project.id), { as: user, body }),
        refusedTo(team, user, MANAGERS),
      );
    }
    expectError(await call(t.app, 'POST', periodsUrl(project.id), { body }), UNAUTHORIZED);
    expect(await periodRows(project.id)).toEqual([]);
  });

  it('answers 404 for a project of another organization or a missing one', async () => {
    const foreign = await createProject(t.database.db, team.outsiderOrg.id);
    const body = { label: 'Q1', startDate: '2026-01-01', endDate: '2026-03-31' };
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'POST', periodsUrl(id), { as: team.admin, body }),
        notFoundBody('Project'),
      );
    }
    expect(await periodRows(foreign.id)).toEqual([]);
  });
});
