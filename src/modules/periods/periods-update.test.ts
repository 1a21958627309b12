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
  MANAGERS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { createPeriod, periodJson, type PeriodRow } from '../../../test/helpers/periods.js';
import { reportingPeriods } from './periods.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const periodUrl = (id: string, orgId = team.org.id) => `/orgs/${orgId}/reporting-periods/${id}`;

async function stored(id: string): Promise<PeriodRow | undefined> {
  const [row] = await t.database.db.select().from(reportingPeriods).where(eq(reportingPeriods.id, id));
  return row;
}

/** A project with Q1 (2026-01-01..03-31) and Q2 (04-01..06-30). */
async function twoQuarters(orgId = team.org.id) {
  const project = await createProject(t.database.db, orgId);
  const q1 = await createPeriod(t.database.db, orgId, project.id, { label: 'Q1', dueDate: '2026-04-15' });
  const q2 = await createPeriod(t.database.db, orgId, project.id, {
    label: 'Q2',
    startDate: '2026-04-01',
    endDate: '2026-06-30',
  });
  return { project, q1, q2 };
}

describe('PATCH /orgs/:orgId/reporting-periods/:id (edits)', () => {
  it('changes label, dates and dueDate and returns the whole period', async () => {
    const { q2 } = await twoQuarters();
    const res = await call(t.app, 'PATCH', periodUrl(q2.id), {
      as: team.officer,
      body: { label: 'Spring', startDate: '2026-04-02', endDate: '2026-07-15', dueDate: '2026-08-01' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...periodJson(q2),
      label: 'Spring',
      startDate: '2026-04-02',
      endDate: '2026-07-15',
      dueDate: '2026-08-01',
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    expect(res.body.updatedAt >= res.body.createdAt).toBe(true);
    expect(periodJson((await stored(q2.id))!)).toEqual(res.body);
  });

  it('removes the deadline with dueDate null and leaves unsent fields alone', async () => {
    const { q1 } = await twoQuarters();
    const res = await call(t.app, 'PATCH', periodUrl(q1.id), { as: team.admin, body: { dueDate: null } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      label: 'Q1',
      startDate: '2026-01-01',
      endDate: '2026-03-31',
      dueDate: null,
    });
  });

  it('answers an empty body with the unchanged period', async () => {
    const { q1 } = await twoQuarters();
    const res = await call(t.app, 'PATCH', periodUrl(q1.id), { as: team.officer, body: {} });
    expect([res.status, res.body]).toEqual([200, periodJson(q1)]);
  });

  it('checks the date order against the stored dates, naming the field sent', async () => {
    const { q1 } = await twoQuarters();
    const patch = (body: object) => call(t.app, 'PATCH', periodUrl(q1.id), { as: team.officer, body });
    expectError(await patch({ endDate: '2025-12-31' }), badRequest('endDate must not be before startDate'));
    expectError(await patch({ startDate: '2026-04-01' }), badRequest('startDate must not be after endDate'));
    expectError(
      await patch({ startDate: '2026-03-01', endDate: '2026-02-01' }),
      badRequest('endDate must not be before startDate'),
    );
    expect(periodJson((await stored(q1.id))!)).toEqual(periodJson(q1));
  });

  it('refuses dates overlapping another period (409) but not the period’s own old dates', async () => {
    const { q1, q2 } = await twoQuarters();
    const patch = (id: string, body: object) =>
      call(t.app, 'PATCH', periodUrl(id), { as: team.officer, body });
    expectError(await patch(q1.id, { endDate: '2026-04-01' }), conflictBody('Reporting period overlaps Q2'));
    expectError(
      await patch(q2.id, { startDate: '2026-03-31' }),
      conflictBody('Reporting period overlaps Q1'),
    );
    expect((await patch(q1.id, { startDate: '2026-01-15', endDate: '2026-03-15' })).status).toBe(200);
    expect((await patch(q2.id, { startDate: '2026-03-16' })).status).toBe(200);
    expect((await stored(q2.id))!.startDate).toBe('2026-03-16');
  });

  it('lets only one of two concurrent moves into the same free dates through', async () => {
    const { project, q1, q2 } = await twoQuarters();
    const q4 = await createPeriod(t.database.db, team.org.id, project.id, {
      label: 'Q4',
      startDate: '2026-10-01',
      endDate: '2026-12-31',
    });
    const moves = await Promise.all([
      call(t.app, 'PATCH', periodUrl(q1.id), {
        as: team.officer,
        body: { startDate: '2026-07-01', endDate: '2026-09-30' },
      }),
      call(t.app, 'PATCH', periodUrl(q4.id), {
        as: team.admin,
        body: { startDate: '2026-07-01', endDate: '2026-09-30' },
      }),
    ]);
    expect(moves.map((r) => r.status).sort()).toEqual([200, 409]);
    const starts = [(await stored(q1.id))!.startDate, (await stored(q4.id))!.startDate].sort();
    expect(starts).toEqual(
      moves[0].status === 200 ? ['2026-07-01', '2026-10-01'] : ['2026-01-01', '2026-07-01'],
    );
    expect((await stored(q2.id))!.startDate).toBe('2026-04-01');
  });

  it('rejects unknown, read-only and malformed fields with 400', async () => {
    const { q1 } = await twoQuarters();
    const patch = (body: unknown) => call(t.app, 'PATCH', periodUrl(q1.id), { as: team.admin, body });
    expectViolations(
      await patch({ id: MISSING_ID, projectId: MISSING_ID, lockedAt: null, lockedBy: null }),
      'property id should not exist',
      'property projectId should not exist',
      'property lockedAt should not exist',
      'property lockedBy should not exist',
    );
    expectViolations(
      await patch({ label: '', startDate: '2026-13-01', dueDate: 5, isLocked: 'yes' }),
      'label should not be empty',
      'startDate must be a valid date (YYYY-MM-DD)',
      'dueDate must be a string',
      'isLocked must be a boolean',
    );
    expectError(
      await call(t.app, 'PATCH', periodUrl('abc'), { as: team.admin, body: {} }),
      badRequest('id must be a UUID'),
    );
    expect(periodJson((await stored(q1.id))!)).toEqual(periodJson(q1));
  });

  it('answers 404 for a period of another organization or a missing one', async () => {
    const { q1: foreign } = await twoQuarters(team.outsiderOrg.id);
    for (const id of [foreign.id, MISSING_ID]) {
      for (const body of [{ label: 'Mine now' }, { isLocked: true }, { isLocked: false }]) {
        const res = await call(t.app, 'PATCH', periodUrl(id), { as: team.admin, body });
        expectError(res, notFoundBody('Reporting period'));
      }
    }
    expect(periodJson((await stored(foreign.id))!)).toEqual(periodJson(foreign));
  });

  it('is for managers: reporters (even assigned), viewers and outsiders 403; no session 401', async () => {
    const { project, q1 } = await twoQuarters();
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      for (const body of [{ label: 'X' }, { isLocked: true }]) {
        expectError(
          await call(t.app, 'PATCH', periodUrl(q1.id), { as: user, body }),
          refusedTo(team, user, MANAGERS),
        );
      }
    }
    expectError(await call(t.app, 'PATCH', periodUrl(q1.id), { body: { label: 'X' } }), UNAUTHORIZED);
    expect(periodJson((await stored(q1.id))!)).toEqual(periodJson(q1));
  });
});

describe('DELETE /orgs/:orgId/reporting-periods/:id', () => {
  it('deletes an unlocked period (204); it is gone afterwards', async () => {
    const { project, q1, q2 } = await twoQuarters();
    const res = await call(t.app, 'DELETE', periodUrl(q1.id), { as: team.officer });
    expect([res.status, res.body]).toEqual([204, null]);
    expect(await stored(q1.id)).toBeUndefined();
    const list = await call(t.app, 'GET', `/orgs/${team.org.id}/projects/${project.id}/reporting-periods`, {
      as: team.admin,
    });
    expect(list.body).toEqual([periodJson(q2)]);
    expectError(
      await call(t.app, 'DELETE', periodUrl(q1.id), { as: team.admin }),
      notFoundBody('Reporting period'),
    );
    // Its dates are free again.
    const again = await call(t.app, 'POST', `/orgs/${team.org.id}/projects/${project.id}/reporting-periods`, {
      as: team.admin,
      body: { label: 'Q1 again', startDate: '2026-01-01', endDate: '2026-03-31' },
    });
    expect(again.status).toBe(201);
  });

  it('refuses a locked period with 409 and keeps it', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const locked = await createPeriod(t.database.db, team.org.id, project.id, {
      isLocked: true,
      lockedAt: new Date(),
      lockedBy: team.officer.id,
    });
    for (const user of [team.admin, team.officer]) {
      expectError(
        await call(t.app, 'DELETE', periodUrl(locked.id), { as: user }),
        conflictBody('Reporting period is locked'),
      );
    }
    expect(await stored(locked.id)).toBeDefined();
  });

  it('answers 404 for a period of another organization or a missing one, 400 for a non-UUID id', async () => {
    const { q1: foreign } = await twoQuarters(team.outsiderOrg.id);
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'DELETE', periodUrl(id), { as: team.admin }),
        notFoundBody('Reporting period'),
      );
    }
    expect(await stored(foreign.id)).toBeDefined();
    expectError(
      await call(t.app, 'DELETE', periodUrl('q1'), { as: team.admin }),
      badRequest('id must be a UUID'),
    );
  });

  it('is for managers: reporters (even assigned), viewers and outsiders 403; no session 401', async () => {
    const { project, q1 } = await twoQuarters();
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(
        await call(t.app, 'DELETE', periodUrl(q1.id), { as: user }),
        refusedTo(team, user, MANAGERS),
      );
    }
    expectError(await call(t.app, 'DELETE', periodUrl(q1.id)), UNAUTHORIZED);
    expect(await stored(q1.id)).toBeDefined();
  });
});
