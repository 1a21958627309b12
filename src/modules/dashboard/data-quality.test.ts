import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assignProject, createProject } from '../../../test/helpers/factories.js';
import {
  ALL_ROLES,
  badRequest,
  call,
  expectError,
  MISSING_ID,
  notAMember,
  UNAUTHORIZED,
} from '../../../test/helpers/http.js';
import { act, linkIndicator, postIndicator, postReport } from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { useSuite } from '../../../test/helpers/suite.js';
import { addDays } from '../../lib/dates.js';
import { todayUtc } from '../../lib/demographics.js';
import { indicatorReports } from '../indicator-reports/indicator-reports.tables.js';

const { t, team } = useSuite();
const org = () => team.org.id;
const url = (query = '', orgId = org()) => `/orgs/${orgId}/data-quality${query}`;

const today = todayUtc();
const LATE = addDays(today, -1);
const AHEAD = addDays(today, 30);

/** The counts of a period, project or scope and their rates (percent of expected, one decimal). */
const rates = (expected: number, [entered, reported, onTime, approved, flagged, openFlags]: number[]) => {
  const pct = (n: number) => (expected === 0 ? null : Math.round((n / expected) * 1000) / 10);
  return {
    expected,
    entered: entered!,
    reported: reported!,
    onTime: onTime!,
    approved: approved!,
    flagged: flagged!,
    openFlags: openFlags!,
    reportedRate: pct(reported!),
    onTimeRate: pct(onTime!),
    approvedRate: pct(approved!),
    flaggedRate: pct(flagged!),
  };
};

async function read(query = '', as = team.officer) {
  const res = await call(t.app, 'GET', url(query), { as });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/**
 * A made-up organization: "Ardent Wells" (three reported indicators and a formula) with Q1 due
 * yesterday and Q2 due in 30 days; "Basin Clinics" in a program of its own, one indicator, a period
 * with no due date.
 */
async function scene() {
  const wells = await createProject(t.database.db, org(), 'Ardent Wells');
  const clinics = await createProject(t.database.db, org(), 'Basin Clinics');
  const dug = await postIndicator(t.app, team.admin, org(), { name: 'Wells dug' });
  const repaired = await postIndicator(t.app, team.admin, org(), { name: 'Wells repaired' });
  const tested = await postIndicator(t.app, team.admin, org(), { name: 'Wells tested' });
  const working = await postIndicator(t.app, team.admin, org(), {
    name: 'Wells working',
    formula: `${dug.code} + ${repaired.code}`,
    aggregationMethod: undefined,
  });
  const visits = await postIndicator(t.app, team.admin, org(), { name: 'Clinic visits' });
  for (const indicator of [dug, repaired, tested, working]) {
    await linkIndicator(t.app, team.admin, org(), wells.id, indicator.id);
  }
  await linkIndicator(t.app, team.admin, org(), clinics.id, visits.id);
  const q1 = await createPeriod(t.database.db, org(), wells.id, {
    label: 'Q1 2026',
    startDate: '2026-01-01',
    endDate: '2026-03-31',
    dueDate: LATE,
  });
  const q2 = await createPeriod(t.database.db, org(), wells.id, {
    label: 'Q2 2026',
    startDate: '2026-04-01',
    endDate: '2026-06-30',
    dueDate: AHEAD,
  });
  const open = await createPeriod(t.database.db, org(), clinics.id, {
    label: 'This year',
    startDate: '2026-01-01',
    endDate: addDays(today, 60),
    dueDate: null,
  });
  const report = (projectId: string, indicatorId: string, reportingPeriodId: string, value: number) =>
    postReport(t.app, team.officer, org(), projectId, { indicatorId, reportingPeriodId, value });

  // Q1, due yesterday: dug approved and repaired submitted, both late; tested missing.
  const dugQ1 = await report(wells.id, dug.id, q1.id, 10);
  await act(t.app, team.officer, org(), dugQ1.id, 'submit');
  await act(t.app, team.admin, org(), dugQ1.id, 'approve');
  const repairedQ1 = await report(wells.id, repaired.id, q1.id, 4);
  await act(t.app, team.officer, org(), repairedQ1.id, 'submit');

  // Q2, due ahead: dug submitted on time, rejected, resubmitted (still on time); repaired a draft
  // breaking a rule with dug (both flagged, both open); tested approved on time.
  const rule = await call(t.app, 'POST', `/orgs/${org()}/validation-rules`, {
    as: team.officer,
    body: {
      name: 'Repairs within digs',
      left: repaired.code,
      operator: '<=',
      right: dug.code,
      importance: 'medium',
      instruction: 'Check the repair log',
    },
  });
  expect(rule.status, JSON.stringify(rule.body)).toBe(201);
  const dugQ2 = await report(wells.id, dug.id, q2.id, 3);
  await act(t.app, team.officer, org(), dugQ2.id, 'submit');
  await act(t.app, team.admin, org(), dugQ2.id, 'reject');
  await act(t.app, team.officer, org(), dugQ2.id, 'submit');
  const repairedQ2 = await report(wells.id, repaired.id, q2.id, 9);
  const testedQ2 = await report(wells.id, tested.id, q2.id, 2);
  await act(t.app, team.officer, org(), testedQ2.id, 'submit');
  await act(t.app, team.admin, org(), testedQ2.id, 'approve');

  // The clinics' year, no due date: submitted counts as on time.
  const visitsYear = await report(clinics.id, visits.id, open.id, 120);
  await act(t.app, team.officer, org(), visitsYear.id, 'submit');

  return { wells, clinics, dug, repaired, tested, visits, q1, q2, open, dugQ2, repairedQ2 };
}

describe('GET /orgs/:orgId/data-quality', () => {
  it('counts expected, reported, on-time, approved and flagged values per project, period and indicator', async () => {
    const s = await scene();
    const body = await read();
    const period = (row: {
      id: string;
      label: string;
      startDate: string;
      endDate: string;
      dueDate: string | null;
    }) => ({
      periodId: row.id,
      label: row.label,
      startDate: row.startDate,
      endDate: row.endDate,
      dueDate: row.dueDate,
    });
    // Counts: entered, reported, onTime, approved, flagged, openFlags.
    const q1 = rates(3, [2, 2, 0, 1, 0, 0]);
    const q2 = rates(3, [3, 2, 2, 1, 2, 2]);
    const clinicsYear = rates(1, [1, 1, 1, 0, 0, 0]);
    expect(body).toEqual({
      programId: null,
      periodFrom: null,
      periodTo: null,
      totals: rates(7, [6, 5, 3, 2, 2, 2]),
      projects: [
        {
          projectId: s.wells.id,
          projectName: 'Ardent Wells',
          programId: expect.any(String),
          ...rates(6, [5, 4, 2, 2, 2, 2]),
          periods: [
            { ...period(s.q1), ...q1 },
            { ...period(s.q2), ...q2 },
          ],
        },
        {
          projectId: s.clinics.id,
          projectName: 'Basin Clinics',
          programId: expect.any(String),
          ...clinicsYear,
          periods: [{ ...period(s.open), ...clinicsYear }],
        },
      ],
      indicators: expect.any(Array),
    });
    // Most open flags first (the rule's two inputs), then by code.
    const indicator = (row: { id: string; code: string; name: string }, expected: number, flags: number) => ({
      indicatorId: row.id,
      code: row.code,
      name: row.name,
      expected,
      flaggedReports: flags,
      openFlags: flags,
    });
    expect(body.indicators.slice(0, 2)).toEqual(
      expect.arrayContaining([indicator(s.dug, 2, 1), indicator(s.repaired, 2, 1)]),
    );
    expect(body.indicators.slice(2)).toEqual(
      expect.arrayContaining([indicator(s.tested, 2, 0), indicator(s.visits, 1, 0)]),
    );
    expect(body.indicators).toHaveLength(4);
    const codes = body.indicators.map((row: { code: string }) => row.code);
    expect([codes.slice(0, 2), codes.slice(2)]).toEqual([
      [...codes.slice(0, 2)].sort(),
      [...codes.slice(2)].sort(),
    ]);

    // A resubmission keeps the first submission's time.
    const [dugQ2] = await t.database.db
      .select({ first: indicatorReports.firstSubmittedAt, last: indicatorReports.submittedAt })
      .from(indicatorReports)
      .where(and(eq(indicatorReports.orgId, org()), eq(indicatorReports.id, s.dugQ2.id)));
    expect(dugQ2!.first!.getTime()).toBeLessThan(dugQ2!.last!.getTime());

    // The dashboard: the periods whose deadline has passed (Q1 only), overall and per program.
    const dashboard = (await call(t.app, 'GET', `/orgs/${org()}/dashboard-summary`, { as: team.viewer }))
      .body;
    expect(dashboard.dataQuality).toEqual(q1);
    const programs = Object.fromEntries(
      dashboard.programs.map((p: { id: string; dataQuality: unknown }) => [p.id, p.dataQuality]),
    );
    expect(programs).toEqual({
      [body.projects[0].programId]: q1,
      [body.projects[1].programId]: rates(0, [0, 0, 0, 0, 0, 0]),
    });

    // One program, one range.
    const clinicsProgram = body.projects[1].programId;
    const ofClinics = await read(`?programId=${clinicsProgram}`);
    expect(ofClinics.totals).toEqual(clinicsYear);
    expect(ofClinics.projects.map((p: { projectId: string }) => p.projectId)).toEqual([s.clinics.id]);
    expect(ofClinics.programId).toBe(clinicsProgram);

    const q2Only = await read('?periodFrom=2026-04-01&periodTo=2026-06-30');
    expect(q2Only).toMatchObject({ periodFrom: '2026-04-01', periodTo: '2026-06-30' });
    // The clinics' year overlaps the range; the wells' Q1 does not.
    expect(q2Only.totals).toEqual(rates(4, [4, 3, 3, 1, 2, 2]));
    expect(q2Only.projects[0].periods.map((p: { periodId: string }) => p.periodId)).toEqual([s.q2.id]);
    const q1Only = await read('?periodTo=2026-03-31');
    expect(q1Only.projects[0].periods.map((p: { periodId: string }) => p.periodId)).toEqual([s.q1.id]);
    expect(q1Only.indicators.every((row: { openFlags: number }) => row.openFlags === 0)).toBe(true);
    expect((await read(`?periodFrom=${addDays(today, 365)}`)).totals).toEqual(rates(0, [0, 0, 0, 0, 0, 0]));

    // A reporter sees only the projects assigned to them; a viewer sees everything.
    await assignProject(t.database.db, org(), s.clinics.id, team.reporter.id);
    expect((await read('', team.reporter)).projects.map((p: { projectId: string }) => p.projectId)).toEqual([
      s.clinics.id,
    ]);
    expect((await read('', team.viewer)).totals).toEqual(body.totals);

    // Approving the flagged value closes its open flag.
    await act(t.app, team.admin, org(), s.dugQ2.id, 'approve');
    const after = await read(
      '?periodFrom=2026-04-01&periodTo=2026-06-30&programId=' + body.projects[0].programId,
    );
    expect(after.totals).toEqual(rates(3, [3, 2, 2, 2, 2, 1]));
  });

  it('refuses a bad range or filter (400) and an unknown program (404)', async () => {
    expectError(
      await call(t.app, 'GET', url('?periodFrom=2026-06-30&periodTo=2026-04-01'), { as: team.officer }),
      badRequest('periodTo must not be before periodFrom'),
    );
    const bad = await call(t.app, 'GET', url('?periodFrom=june'), { as: team.officer });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_failed');
    expect(bad.body.message.join(' ')).toMatch(/periodFrom/);
    const unknown = await call(t.app, 'GET', url('?programId=not-a-uuid'), { as: team.officer });
    expect([unknown.status, unknown.body.code]).toEqual([400, 'validation_failed']);
    const extra = await call(t.app, 'GET', url('?projectId=' + MISSING_ID), { as: team.officer });
    expect(extra.status).toBe(400);

    const theirs = await createProject(t.database.db, team.outsiderOrg.id, 'Their Wells');
    const theirProgram = (
      await call(t.app, 'GET', `/orgs/${team.outsiderOrg.id}/dashboard-summary`, {
        as: team.outsider,
      })
    ).body.programs[0].id;
    expect(theirs.id).toBeTruthy();
    for (const programId of [theirProgram, MISSING_ID]) {
      const res = await call(t.app, 'GET', url(`?programId=${programId}`), { as: team.officer });
      expect([res.status, res.body]).toEqual([
        404,
        { statusCode: 404, message: 'Program not found', error: 'Not Found', code: 'not_found' },
      ]);
    }
  });

  it('refuses no session (401) and a non-member (403)', async () => {
    expectError(await call(t.app, 'GET', url()), UNAUTHORIZED);
    expectError(await call(t.app, 'GET', url(), { as: team.outsider }), notAMember(ALL_ROLES));
    expectError(await call(t.app, 'GET', url('', MISSING_ID), { as: team.admin }), notAMember(ALL_ROLES));
  });
});
