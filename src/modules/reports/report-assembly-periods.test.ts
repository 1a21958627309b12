import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  MISSING_ID,
  badRequest,
  expectError,
  expectViolations,
  notFoundBody,
} from '../../../test/helpers/http.js';
import { indicatorCode } from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { at, indicatorEntry, reportData } from '../../../test/helpers/report-data.js';
import { indicatorReports } from '../indicator-reports/indicator-reports.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import { reports } from './reports.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const data = reportData(() => ({ t, team }));
const { newProject, linked, value, quarters, postOrg, assembleRange, assemblePeriods } = data;

const YEAR = ['2026-01-01', '2026-12-31'] as const;

const storedReports = (projectId: string) =>
  t.database.db.select().from(reports).where(eq(reports.projectId, projectId));

describe('report assembly: which values count', () => {
  it('counts submitted and approved values, in locked periods too, never drafts or rejected ones', async () => {
    const project = await newProject();
    const indicator = await linked(project, { aggregationMethod: 'sum' }, { target: 1 });
    const [q1, q2, q3, q4] = await quarters(project);
    await value(project, indicator, q1!, { value: 1, target: 5, narrative: 'approved' }, 'approved');
    await value(project, indicator, q2!, { value: 10, target: 5, narrative: 'submitted' }, 'submitted');
    await value(project, indicator, q3!, { value: 100, target: 50, narrative: 'draft' }, 'draft');
    await value(project, indicator, q4!, { value: 1000, target: 500, narrative: 'rejected' }, 'rejected');
    await t.database.db
      .update(reportingPeriods)
      .set({ isLocked: true, lockedAt: new Date(), lockedBy: team.admin.id })
      .where(eq(reportingPeriods.id, q2!.id));

    const report = await assembleRange(project.id, ...YEAR);
    expect(report.periodIds).toEqual([q1!.id, q2!.id, q3!.id, q4!.id]);
    // 1 + 10 = 11 of 5 + 5 = 10 → 110%
    expect(report.sections.indicators).toEqual([
      indicatorEntry(
        indicator,
        { value: 11, target: 10, progressPct: 110, status: 'on_track' },
        {
          narrative: 'approved\n\nsubmitted',
          periods: [at(q1!, 1, 5), at(q2!, 10, 5), at(q3!, null), at(q4!, null)],
          // A period's target counts to date whatever its report's status: 5 + 5 + 50 + 500 = 560, 11 is 2.0 %.
          toDate: { targetToDate: 560, progressToDatePct: 2, statusToDate: 'off_track' },
        },
      ),
    ]);
  });

  it('includes every period overlapping the range, whole, boundary days included', async () => {
    const project = await newProject();
    const [q1, q2, q3] = await quarters(project, 3);
    const indicator = await linked(project, { aggregationMethod: 'sum' }, { target: 1000 });
    await value(project, indicator, q1!, { value: 1 });
    await value(project, indicator, q2!, { value: 10 });
    await value(project, indicator, q3!, { value: 100 });
    const cases = [
      // [range, periods included, sum]
      [['2026-03-31', '2026-04-01'], [q1!, q2!], 11], // Q1 ends on the first day, Q2 starts on the last
      [['2026-04-01', '2026-06-30'], [q2!], 10], // exactly Q2
      [['2026-05-15', '2026-05-15'], [q2!], 10], // one day inside Q2 takes all of Q2
      [['2026-06-30', '2026-12-31'], [q2!, q3!], 110],
    ] as const;
    for (const [[startDate, endDate], included, sum] of cases) {
      const report = await assembleRange(project.id, startDate, endDate);
      expect([report.periodIds, report.sections.indicators[0].value]).toEqual([
        included.map((p) => p.id),
        sum,
      ]);
    }
  });

  it('shows every linked indicator: one without counted values is no_data', async () => {
    const project = await newProject();
    const [q1] = await quarters(project, 1);
    const onlyDraft = await linked(project, { aggregationMethod: 'average' }, { target: 30, baseline: 2 });
    await value(project, onlyDraft, q1!, { value: 20, target: 25, narrative: 'not yet' }, 'draft');
    const report = await assembleRange(project.id, ...YEAR);
    expect(report.sections.indicators).toEqual([
      indicatorEntry(
        onlyDraft,
        { value: null, target: 30, progressPct: null, status: 'no_data' },
        {
          baseline: 2,
          periods: [at(q1!, null)],
          toDate: { targetToDate: 25, progressToDatePct: null, statusToDate: 'no_data' },
        },
      ),
    ]);
  });
});

describe('POST /orgs/:orgId/reports with periodIds', () => {
  it('includes only the chosen periods; the report spans the first start to the last end', async () => {
    const project = await newProject();
    const [q1, q2, q3] = await quarters(project, 3);
    const indicator = await linked(project, { aggregationMethod: 'sum' }, { target: 200 });
    for (const [period, v] of [
      [q1!, 1],
      [q2!, 10],
      [q3!, 100],
    ] as const) {
      await value(project, indicator, period, { value: v, narrative: `Q${v}` });
    }

    const report = await assemblePeriods(project.id, [q3!.id, q1!.id]);
    expect(report).toMatchObject({
      orgId: team.org.id,
      title: 'Donor report',
      projectId: project.id,
      reportType: 'quarterly',
      startDate: '2026-01-01',
      endDate: '2026-09-30',
      periodIds: [q1!.id, q3!.id],
      status: 'draft',
      cover: { period: { startDate: '2026-01-01', endDate: '2026-09-30' } },
    });
    // Q2 lies between the chosen periods but was not chosen: 1 + 100 = 101 of 200 → 50.5%
    expect(report.sections.indicators).toEqual([
      indicatorEntry(
        indicator,
        { value: 101, target: 200, progressPct: 50.5, status: 'off_track' },
        { narrative: 'Q1\n\nQ100', periods: [at(q1!, 1), at(q3!, 100)] },
      ),
    ]);
    expect((await storedReports(project.id)).map((row) => row.selectedPeriodIds)).toEqual([[q3!.id, q1!.id]]);
  });

  it('refuses periods of another project (400, by index) and unknown or foreign ones (404)', async () => {
    const project = await newProject();
    const sibling = await newProject('Sibling');
    const [own] = await quarters(project, 1);
    const [theirs, theirsToo] = await quarters(sibling, 2);
    expectError(
      await postOrg({ projectId: project.id, periodIds: [own!.id, theirs!.id] }),
      badRequest('periodIds.1 must be a reporting period of this project'),
    );
    expectViolations(
      await postOrg({ projectId: project.id, periodIds: [theirs!.id, own!.id, theirsToo!.id] }),
      'periodIds.0 must be a reporting period of this project',
      'periodIds.2 must be a reporting period of this project',
    );
    const foreignProject = await newProject('Foreign', team.outsiderOrg.id);
    const foreign = await createPeriod(t.database.db, team.outsiderOrg.id, foreignProject.id);
    for (const periodIds of [[MISSING_ID], [own!.id, foreign.id]]) {
      expectError(await postOrg({ projectId: project.id, periodIds }), notFoundBody('Reporting period'));
    }
    expect(await storedReports(project.id)).toEqual([]);
  });
});

describe('report assembly: a range that no period overlaps', () => {
  it('uses the values submitted within the range (UTC date) with their periods', async () => {
    const project = await newProject();
    const [q1, q2, q3, q4] = await quarters(project);
    const tag = indicatorCode('S');
    const counted = await linked(project, { code: `A_${tag}` }, { target: 60 });
    const other = await linked(project, { code: `B_${tag}` }, { target: 5 });
    const submittedAt = async (id: string, when: string) =>
      t.database.db
        .update(indicatorReports)
        .set({ submittedAt: new Date(when) })
        .where(eq(indicatorReports.id, id));
    const moves: [Awaited<ReturnType<typeof value>>, string][] = [
      [await value(project, counted, q1!, { value: 10, target: 15 }), '2025-06-01T00:00:00.000Z'],
      [
        await value(project, counted, q2!, { value: 20, target: 15 }, 'submitted'),
        '2025-06-30T23:59:59.999Z',
      ],
      [await value(project, counted, q3!, { value: 40, target: 15 }), '2025-07-01T00:00:00.000Z'],
      [await value(project, counted, q4!, { value: 80, target: 15 }), '2025-05-31T23:59:59.999Z'],
      // 2025-06-30 in UTC-2 is already 2025-07-01 in UTC: out.
      [await value(project, other, q1!, { value: 1 }), '2025-06-30T23:30:00.000-02:00'],
      [await value(project, other, q2!, { value: 7 }, 'rejected'), '2025-06-15T12:00:00.000Z'],
      [await value(project, other, q3!, { value: 9 }, 'draft'), '2025-06-15T12:00:00.000Z'],
    ];
    for (const [row, when] of moves) await submittedAt(row.id, when);

    const report = await assembleRange(project.id, '2025-06-01', '2025-06-30');
    expect([report.startDate, report.endDate, report.periodIds]).toEqual([
      '2025-06-01',
      '2025-06-30',
      [q1!.id, q2!.id],
    ]);
    expect(report.sections.indicators).toEqual([
      // Q1 10 + Q2 20 = 30 of 15 + 15 = 30 → 100%
      indicatorEntry(
        counted,
        { value: 30, target: 30, progressPct: 100, status: 'on_track' },
        { periods: [at(q1!, 10, 15), at(q2!, 20, 15)] },
      ),
      indicatorEntry(
        other,
        { value: null, target: 5, progressPct: null, status: 'no_data' },
        { periods: [at(q1!, null), at(q2!, null)] },
      ),
    ]);
  });

  it('gives no periods and no data when nothing was submitted in the range', async () => {
    const project = await newProject();
    const [q1] = await quarters(project, 1);
    const indicator = await linked(project, {}, { target: 5 });
    await value(project, indicator, q1!, { value: 3 });
    const report = await assembleRange(project.id, '2020-01-01', '2020-12-31');
    expect([report.periodIds, report.sections.indicators]).toEqual([
      [],
      [
        indicatorEntry(
          indicator,
          { value: null, target: 5, progressPct: null, status: 'no_data' },
          { periods: [] },
        ),
      ],
    ]);
  });
});
