import { describe, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { importSetup, xlsx } from '../../../test/helpers/imports.js';
import { act, indicatorCode, reportsUrl, type ReportJson } from '../../../test/helpers/indicators.js';
import {
  apiProgress,
  indicatorRow,
  readLogframe,
  sheetRows,
  STATUS_WORDS,
} from '../../../test/helpers/logframe.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

/**
 * The whole path an officer takes: a project set up from one workbook (framework, indicators with a
 * disaggregation, baselines, targets per period, periods and the season's values), the values reviewed
 * through the API, then the logframe handed to the donor. Its numbers are the API's.
 */
describe('a project set up from one workbook, exported as its logframe', () => {
  it('gives in the logframe the figures the API gives for what the workbook imported', async () => {
    const orgId = team.org.id;
    const { id: projectId } = await createProject(t.database.db, orgId, 'Turkana wells');
    const code = {
      people: indicatorCode('PEOPLE'),
      share: indicatorCode('SHARE'),
      loose: indicatorCode('CMTE'),
    };
    const workbook = await xlsx({
      results: [
        ['code', 'title', 'level', 'parent_code'],
        ['1', 'Fewer water-borne diseases', 'impact', null],
        ['1.1', 'Safe water used', 'outcome', '1'],
        ['1.1.1', 'Wells built and used', 'output', '1.1'],
      ],
      indicators: [
        [
          'code',
          'name',
          'unit',
          'aggregation',
          'result_code',
          'disaggregations',
          'baseline',
          'baseline_year',
          'target',
          'target Q1 2026',
          'target Q2 2026',
        ],
        [
          code.people,
          'People using a safe water source',
          'people',
          'sum',
          '1.1.1',
          'Sex: female|male',
          50,
          2025,
          1000,
          300,
          400,
        ],
        [code.share, 'Households treating water', '%', 'average', '1.1', null, 60.5, null, 80, null, null],
        [
          code.loose,
          'Water committees active',
          'committees',
          'latest',
          null,
          null,
          null,
          null,
          12,
          null,
          null,
        ],
      ],
      periods: [
        ['label', 'start_date', 'end_date', 'due_date'],
        ['Q1 2026', '2026-01-01', '2026-03-31', '2026-04-15'],
        ['Q2 2026', '2026-04-01', '2026-06-30', '2026-07-15'],
      ],
      values: [
        ['indicator_code', 'period', 'value', 'narrative', 'female', 'male'],
        [code.people, 'Q1 2026', null, 'Two wells opened', 150, 130],
        [code.people, 'Q2 2026', 310, null, 170, 140],
        [code.share, 'Q1 2026', 65.5, null, null, null],
        [code.share, 'Q2 2026', 70.25, null, null, null],
        [code.loose, 'Q1 2026', 10, null, null, null],
        [code.loose, 'Q2 2026', 9, null, null, null],
      ],
    });

    const applied = await importSetup(t.app, orgId, projectId, workbook, {
      as: team.officer,
      query: '?apply=true',
    });
    expect(applied.status).toBe(200);
    // 3 results, 3 indicators, 2 periods and 4 values created; the 2 values of targeted periods fill the
    // reports the targets made (update).
    expect(applied.body).toMatchObject({
      applied: true,
      summary: { created: 12, updated: 2, unchanged: 0, refused: 0 },
    });
    const again = await importSetup(t.app, orgId, projectId, workbook, { as: team.officer });
    expect(again.body.summary).toEqual({ created: 0, updated: 0, unchanged: 14, refused: 0 });

    // Reviewed through the API: all approved but the committees' second quarter, left a draft.
    const listed = await call(t.app, 'GET', `${reportsUrl(orgId, projectId)}?limit=100`, { as: team.admin });
    expect(listed.status).toBe(200);
    const reports = (listed.body as { data: ReportJson[] }).data;
    expect(reports).toHaveLength(6);
    const loose = (
      await call(t.app, 'GET', `/orgs/${orgId}/indicators?projectId=${projectId}`, { as: team.admin })
    ).body.find((i: { code: string }) => i.code === code.loose).id as string;
    const periods = (
      await call(t.app, 'GET', `/orgs/${orgId}/projects/${projectId}/reporting-periods`, { as: team.admin })
    ).body as { id: string; label: string }[];
    const q2 = periods.find((p) => p.label === 'Q2 2026')!.id;
    for (const report of reports) {
      if (report.indicatorId === loose && report.reportingPeriodId === q2) continue;
      await act(t.app, team.officer, orgId, report.id, 'submit');
      await act(t.app, team.admin, orgId, report.id, 'approve');
    }

    const { workbook: logframe } = await readLogframe(t.app, orgId, projectId, team.viewer);
    const sheet = logframe.getWorksheet('Logframe')!;
    const progress = await apiProgress(t.app, orgId, projectId, team.viewer);
    const assembled = await call(t.app, 'POST', `/orgs/${orgId}/reports`, {
      as: team.officer,
      body: { title: 'All periods', reportType: 'ad_hoc', projectId, periodIds: periods.map((p) => p.id) },
    });
    expect(assembled.status, JSON.stringify(assembled.body)).toBe(201);
    const entries = new Map<string, Record<string, any>>(
      assembled.body.sections.indicators.map((entry: { code: string }) => [entry.code, entry]),
    );
    for (const indicator of Object.values(code)) {
      const row = indicatorRow(sheet, indicator);
      const api = progress.get(indicator)!;
      // To date: actual, cumulative target, progress and status, as the API scores them.
      expect(row.slice(12), indicator).toEqual([
        api.value,
        api.target,
        api.progressPct,
        STATUS_WORDS[api.status as string],
      ]);
      // Per period: the assembled report's actuals (approved values only).
      expect(
        [row[9], row[11]].map((v) => v ?? null),
        indicator,
      ).toEqual(entries.get(indicator)!.periods.map((p: { value: number | null }) => p.value));
    }
    // The figures themselves: the workbook's baseline, targets and values, through the review.
    expect(indicatorRow(sheet, code.people)).toEqual([
      'Indicator',
      code.people,
      'People using a safe water source',
      'people',
      'Sum',
      50,
      2025,
      1000,
      300,
      280,
      400,
      310,
      590,
      700,
      84.3,
      'At risk',
    ]);
    expect(indicatorRow(sheet, code.share).slice(5)).toEqual([
      60.5,
      undefined,
      80,
      undefined,
      65.5,
      undefined,
      70.25,
      67.875,
      80,
      84.8,
      'At risk',
    ]);
    // The draft is left out: the latest approved value counts.
    expect(indicatorRow(sheet, code.loose).slice(9)).toEqual([
      10,
      undefined,
      undefined,
      10,
      12,
      83.3,
      'At risk',
    ]);
    // The framework as the results sheet wrote it, each indicator under its result.
    expect(
      sheetRows(sheet)
        .slice(2)
        .map((row) => [row[0], row[1]]),
    ).toEqual([
      ['Impact', '1'],
      ['Outcome', '1.1'],
      ['Indicator', code.share],
      ['Output', '1.1.1'],
      ['Indicator', code.people],
      ['Indicator', code.loose],
    ]);

    // The disaggregation as the report gives it, per period and over both.
    const rows = sheetRows(logframe.getWorksheet('Disaggregations')!);
    const start = rows.findIndex((row) => row[0] === 'Sex');
    expect(rows.slice(start, start + 3)).toEqual([
      ['Sex', 'Q1 2026', 'Q2 2026', 'All periods'],
      ['female', 150, 170, 320],
      ['male', 130, 140, 270],
    ]);
    expect(entries.get(code.people)!.disaggregatedValues).toMatchObject({ female: 320, male: 270 });
  });
});
