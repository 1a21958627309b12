import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import {
  MANAGERS,
  MISSING_ID,
  UNAUTHORIZED,
  badRequestAt,
  call,
  expectError,
  expectViolations,
  notAMember,
  notFoundBody,
  roleRefused,
  TIMESTAMP,
} from '../../../test/helpers/http.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { useSuite } from '../../../test/helpers/suite.js';
import { calendarPeriods } from './periods-generate.js';
import { reportingPeriods } from './periods.tables.js';

const { t, team } = useSuite();

const generateUrl = (projectId: string, orgId = team.org.id) =>
  `/orgs/${orgId}/projects/${projectId}/reporting-periods/generate`;

const stored = (projectId: string) =>
  t.database.db
    .select({
      label: reportingPeriods.label,
      startDate: reportingPeriods.startDate,
      endDate: reportingPeriods.endDate,
      dueDate: reportingPeriods.dueDate,
    })
    .from(reportingPeriods)
    .where(eq(reportingPeriods.projectId, projectId))
    .orderBy(asc(reportingPeriods.startDate));

describe('calendar periods', () => {
  it('labels months, quarters, halves and years, whole periods around from and to', () => {
    expect(
      calendarPeriods({ frequency: 'monthly', from: '2026-01-15', to: '2026-03-01', dueDays: 10 }),
    ).toEqual([
      { label: 'January 2026', startDate: '2026-01-01', endDate: '2026-01-31', dueDate: '2026-02-10' },
      { label: 'February 2026', startDate: '2026-02-01', endDate: '2026-02-28', dueDate: '2026-03-10' },
      { label: 'March 2026', startDate: '2026-03-01', endDate: '2026-03-31', dueDate: '2026-04-10' },
    ]);
    expect(calendarPeriods({ frequency: 'quarterly', from: '2026-05-20', to: '2027-01-01' })).toEqual([
      { label: 'Q2 2026', startDate: '2026-04-01', endDate: '2026-06-30', dueDate: null },
      { label: 'Q3 2026', startDate: '2026-07-01', endDate: '2026-09-30', dueDate: null },
      { label: 'Q4 2026', startDate: '2026-10-01', endDate: '2026-12-31', dueDate: null },
      { label: 'Q1 2027', startDate: '2027-01-01', endDate: '2027-03-31', dueDate: null },
    ]);
    expect(
      calendarPeriods({ frequency: 'semiannual', from: '2028-02-29', to: '2028-07-01', dueDays: 0 }),
    ).toEqual([
      { label: 'H1 2028', startDate: '2028-01-01', endDate: '2028-06-30', dueDate: '2028-06-30' },
      { label: 'H2 2028', startDate: '2028-07-01', endDate: '2028-12-31', dueDate: '2028-12-31' },
    ]);
    expect(
      calendarPeriods({ frequency: 'annual', from: '2026-12-31', to: '2026-12-31', dueDays: 31 }),
    ).toEqual([{ label: '2026', startDate: '2026-01-01', endDate: '2026-12-31', dueDate: '2027-01-31' }]);
  });
});

describe('POST /orgs/:orgId/projects/:projectId/reporting-periods/generate', () => {
  it('creates the quarters a project lacks, lists those in the way, and nothing the second time', async () => {
    const db = t.database.db;
    const project = await createProject(db, team.org.id);
    const q1 = await createPeriod(db, team.org.id, project.id, {
      label: 'First quarter',
      startDate: '2026-01-01',
      endDate: '2026-03-31',
    });
    const odd = await createPeriod(db, team.org.id, project.id, {
      label: 'Baseline survey',
      startDate: '2026-06-15',
      endDate: '2026-07-15',
    });
    const named = await createPeriod(db, team.org.id, project.id, {
      label: 'q4 2026',
      startDate: '2025-10-01',
      endDate: '2025-12-31',
    });
    const body = { frequency: 'quarterly', from: '2026-02-10', to: '2027-05-01', dueDays: 15 };

    const res = await call(t.app, 'POST', generateUrl(project.id), { as: team.officer, body });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(
      `http://api.test/orgs/${team.org.id}/projects/${project.id}/reporting-periods`,
    );
    const fresh = (label: string, startDate: string, endDate: string, dueDate: string) => ({
      id: expect.any(String),
      orgId: team.org.id,
      projectId: project.id,
      label,
      startDate,
      endDate,
      dueDate,
      isLocked: false,
      lockedAt: null,
      lockedBy: null,
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    expect(res.body).toEqual({
      created: [
        fresh('Q1 2027', '2027-01-01', '2027-03-31', '2027-04-15'),
        fresh('Q2 2027', '2027-04-01', '2027-06-30', '2027-07-15'),
      ],
      skipped: [
        {
          label: 'Q1 2026',
          startDate: '2026-01-01',
          endDate: '2026-03-31',
          reason: 'exists',
          periodId: q1.id,
        },
        {
          label: 'Q2 2026',
          startDate: '2026-04-01',
          endDate: '2026-06-30',
          reason: 'overlaps',
          periodId: odd.id,
        },
        {
          label: 'Q3 2026',
          startDate: '2026-07-01',
          endDate: '2026-09-30',
          reason: 'overlaps',
          periodId: odd.id,
        },
        {
          label: 'Q4 2026',
          startDate: '2026-10-01',
          endDate: '2026-12-31',
          reason: 'label_taken',
          periodId: named.id,
        },
      ],
    });
    const read = await call(
      t.app,
      'GET',
      `/orgs/${team.org.id}/reporting-periods/${res.body.created[0].id}`,
      {
        as: team.viewer,
      },
    );
    expect(read.body).toEqual(res.body.created[0]);

    const again = await call(t.app, 'POST', generateUrl(project.id), { as: team.admin, body });
    expect(again.status).toBe(200);
    expect(again.headers.location).toBeUndefined();
    expect(again.body.created).toEqual([]);
    expect(
      again.body.skipped.map((s: { label: string; reason: string }) => `${s.label} ${s.reason}`),
    ).toEqual([
      'Q1 2026 exists',
      'Q2 2026 overlaps',
      'Q3 2026 overlaps',
      'Q4 2026 label_taken',
      'Q1 2027 exists',
      'Q2 2027 exists',
    ]);
    expect(await stored(project.id)).toHaveLength(5);
  });

  it('creates months without a deadline, and replays an Idempotency-Key', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const body = { frequency: 'monthly', from: '2026-01-31', to: '2026-12-01' };
    const headers = { 'idempotency-key': `generate-${project.id}` };
    const res = await call(t.app, 'POST', generateUrl(project.id), { as: team.admin, body, headers });
    expect(res.status).toBe(201);
    expect(res.body.created.map((p: { label: string }) => p.label)).toEqual([
      'January 2026',
      'February 2026',
      'March 2026',
      'April 2026',
      'May 2026',
      'June 2026',
      'July 2026',
      'August 2026',
      'September 2026',
      'October 2026',
      'November 2026',
      'December 2026',
    ]);
    expect(res.body.created.every((p: { dueDate: unknown }) => p.dueDate === null)).toBe(true);
    const replay = await call(t.app, 'POST', generateUrl(project.id), { as: team.admin, body, headers });
    expect([replay.status, replay.headers['idempotent-replayed'], replay.body]).toEqual([
      201,
      'true',
      res.body,
    ]);
    expect(await stored(project.id)).toHaveLength(12);
  });

  it('refuses a bad body, to before from, and a span of more than 120 periods, creating nothing', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const post = (body: unknown) => call(t.app, 'POST', generateUrl(project.id), { as: team.officer, body });

    expectViolations(
      await post({ frequency: 'weekly', from: '2026-02-30', dueDays: -1, extra: 1 }),
      'dueDays must not be less than 0',
      'frequency must be one of monthly, quarterly, semiannual, annual',
      'from must be a valid date (YYYY-MM-DD)',
      'property extra should not exist',
      'to is required',
    );
    expectError(
      await post({ frequency: 'annual', from: '2027-01-01', to: '2026-12-31' }),
      badRequestAt(['body', '/to', 'dateOrder', 'to must not be before from']),
    );
    expectError(
      await post({ frequency: 'monthly', from: '2026-01-01', to: '2036-01-01' }),
      badRequestAt([
        'body',
        '/to',
        'maxItems',
        'from 2026-01-01 to 2036-01-01 spans 121 monthly periods; at most 120 are generated at once',
      ]),
    );
    const most = await post({ frequency: 'monthly', from: '2026-01-01', to: '2035-12-31' });
    expect([most.status, most.body.created.length]).toEqual([201, 120]);
    expect(await stored(project.id)).toHaveLength(120);
  });

  it('answers 401, 403 for reporters, viewers and strangers, 404 for another org’s project', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const foreign = await createProject(t.database.db, team.outsiderOrg.id);
    const body = { frequency: 'annual', from: '2026-01-01', to: '2026-12-31' };
    const post = (as: typeof team.admin | null, url = generateUrl(project.id)) =>
      call(t.app, 'POST', url, { as, body });

    expectError(await post(null), UNAUTHORIZED);
    expectError(await post(team.reporter), roleRefused(MANAGERS));
    expectError(await post(team.viewer), roleRefused(MANAGERS));
    expectError(await post(team.outsider), notAMember(MANAGERS));
    expectError(await post(team.admin, generateUrl(foreign.id)), notFoundBody('Project'));
    expectError(await post(team.admin, generateUrl(MISSING_ID)), notFoundBody('Project'));
    expect(await stored(project.id)).toEqual([]);
    expect(await stored(foreign.id)).toEqual([]);
  });
});
