import { beforeAll, describe, expect, it } from 'vitest';
import { createDonor } from '../../../test/helpers/donors.js';
import { assignProject, createProject } from '../../../test/helpers/factories.js';
import {
  ALL_ROLES,
  call,
  expectError,
  MISSING_ID,
  notAMember,
  notAssigned,
  notFoundBody,
  UNAUTHORIZED,
  type Caller,
} from '../../../test/helpers/http.js';
import {
  act,
  indicatorCode,
  indicatorUrl,
  linkIndicator,
  postDisaggregation,
  postIndicator,
  postReport,
} from '../../../test/helpers/indicators.js';
import {
  apiProgress,
  indicatorRow,
  readLogframe,
  sheetRows,
  STATUS_WORDS,
} from '../../../test/helpers/logframe.js';
import { postProgram, postProject } from '../../../test/helpers/programs.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const logframeUrl = (orgId: string, projectId: string) =>
  `/orgs/${orgId}/projects/${projectId}/logframe.xlsx`;

async function post(url: string, body: Record<string, unknown>, as: Caller = team.admin) {
  const res = await call(t.app, 'POST', url, { as, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Record<string, any> & { id: string };
}

/** A value through the workflow: a draft, submitted, approved, or returned (submitted then rejected). */
async function value(
  projectId: string,
  indicatorId: string,
  periodId: string,
  body: Record<string, unknown>,
  fate: 'draft' | 'submitted' | 'approved' | 'returned',
) {
  const orgId = team.org.id;
  const report = await postReport(t.app, team.officer, orgId, projectId, {
    indicatorId,
    reportingPeriodId: periodId,
    ...body,
  });
  if (fate !== 'draft') await act(t.app, team.officer, orgId, report.id, 'submit');
  if (fate === 'approved') await act(t.app, team.admin, orgId, report.id, 'approve');
  if (fate === 'returned') await act(t.app, team.admin, orgId, report.id, 'reject');
}

/** Fills the draft value holding a period's target, then moves it along. */
async function fill(id: string, body: Record<string, unknown>, fate: 'draft' | 'submitted' | 'approved') {
  const orgId = team.org.id;
  const res = await call(t.app, 'PATCH', `/orgs/${orgId}/indicator-reports/${id}`, {
    as: team.officer,
    body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  if (fate !== 'draft') await act(t.app, team.officer, orgId, id, 'submit');
  if (fate === 'approved') await act(t.app, team.admin, orgId, id, 'approve');
}

/**
 * A project set up through the API as an officer would: a donor, a program with a results framework
 * (impact > outcome > output), three quarters, four indicators (summed with a cross of Sex by Age, an
 * average with decimals, a formula, one in no result), targets per period, and values in every state.
 */
async function fullProject() {
  const orgId = team.org.id;
  const donor = await createDonor(t.app, team.admin, orgId, { name: 'European Commission' });
  const program = await postProgram(t.app, team.admin, orgId, { name: 'Safe Water', donorIds: [donor.id] });
  const project = await postProject(t.app, team.admin, orgId, program.id, {
    name: 'Wells for Turkana',
    startDate: '2026-01-01',
    endDate: '2026-12-31',
  });
  const nodes = `/orgs/${orgId}/programs/${program.id}/result-nodes`;
  const impact = await post(nodes, { level: 'impact', title: 'Fewer water-borne diseases' });
  const outcome = await post(nodes, { level: 'outcome', title: 'Safe water used', parentId: impact.id });
  const output = await post(nodes, { level: 'output', title: 'Wells built and used', parentId: outcome.id });
  const periodsUrl = `/orgs/${orgId}/projects/${project.id}/reporting-periods`;
  const quarters = [];
  for (const [label, startDate, endDate] of [
    ['Q1 2026', '2026-01-01', '2026-03-31'],
    ['Q2 2026', '2026-04-01', '2026-06-30'],
    ['Q3 2026', '2026-07-01', '2026-09-30'],
  ]) {
    quarters.push(await post(periodsUrl, { label, startDate, endDate }, team.officer));
  }
  const [q1, q2, q3] = quarters as [{ id: string }, { id: string }, { id: string }];

  const people = await postIndicator(t.app, team.officer, orgId, {
    name: 'People using a safe water source',
    code: indicatorCode('PEOPLE'),
    unit: 'people',
    resultNodeId: output.id,
  });
  await postDisaggregation(t.app, team.officer, orgId, people.id, 'Sex', ['female', 'male']);
  await postDisaggregation(t.app, team.officer, orgId, people.id, 'Age', ['0-17', '18+']);
  await post(`${indicatorUrl(orgId, people.id)}/disaggregations`, {
    name: 'Sex by age',
    crosses: ['Sex', 'Age'],
  });
  await linkIndicator(t.app, team.officer, orgId, project.id, people.id, {
    target: 1000,
    baseline: 50,
    baselineYear: 2025,
  });
  // Targets per period: each held by a draft value of its period, filled in below.
  const targeted = await call(
    t.app,
    'PATCH',
    `/orgs/${orgId}/projects/${project.id}/indicators/${people.id}`,
    {
      as: team.officer,
      body: { periodTargets: { [q1.id]: 300, [q2.id]: 300, [q3.id]: 400 } },
    },
  );
  expect(targeted.status, JSON.stringify(targeted.body)).toBe(200);
  const held = (period: { id: string }) =>
    (targeted.body.periodTargets as { reportingPeriodId: string; indicatorReportId: string }[]).find(
      (p) => p.reportingPeriodId === period.id,
    )!.indicatorReportId;
  const share = await postIndicator(t.app, team.officer, orgId, {
    name: 'Households treating water',
    code: indicatorCode('SHARE'),
    unit: '%',
    aggregationMethod: 'average',
    resultNodeId: outcome.id,
  });
  await linkIndicator(t.app, team.officer, orgId, project.id, share.id, { target: 80, baseline: 60.5 });
  const formula = await postIndicator(t.app, team.officer, orgId, {
    name: 'Wells needed',
    code: indicatorCode('WELLS'),
    unit: 'wells',
    aggregationMethod: undefined,
    formula: `${people.code} / 100`,
    resultNodeId: output.id,
  });
  await linkIndicator(t.app, team.officer, orgId, project.id, formula.id, { target: 10 });
  const loose = await postIndicator(t.app, team.officer, orgId, {
    name: 'Water committees active',
    code: indicatorCode('COMMITTEES'),
    unit: 'committees',
    aggregationMethod: 'latest',
  });
  await linkIndicator(t.app, team.officer, orgId, project.id, loose.id, { target: 12 });

  const cells = (f0: number, f1: number, m0: number, m1: number) => ({
    'female|0-17': f0,
    'female|18+': f1,
    'male|0-17': m0,
    'male|18+': m1,
  });
  await fill(held(q1), { value: 280, disaggregatedValues: cells(60, 90, 40, 90) }, 'approved');
  await fill(held(q2), { value: 310, disaggregatedValues: cells(70, 100, 50, 90) }, 'submitted');
  await fill(held(q3), { value: 50 }, 'draft');
  await value(project.id, share.id, q1.id, { value: 65.5 }, 'approved');
  await value(project.id, share.id, q2.id, { value: 70.25 }, 'approved');
  await value(project.id, share.id, q3.id, { value: 99 }, 'returned');
  await value(project.id, loose.id, q1.id, { value: 10 }, 'approved');
  await value(project.id, loose.id, q2.id, { value: 9 }, 'submitted');
  return { donor, program, project, quarters: [q1, q2, q3], people, share, formula, loose };
}
type Scene = Awaited<ReturnType<typeof fullProject>>;

const logframe = (projectId: string, as: Caller = team.viewer) =>
  readLogframe(t.app, team.org.id, projectId, as);

describe('GET /orgs/:orgId/projects/:projectId/logframe.xlsx', () => {
  let scene: Scene;
  beforeAll(async () => {
    scene = await fullProject();
  });

  it('gives the figures the API gives: actuals, targets, progress and status, per period and to date', async () => {
    const { workbook, res } = await logframe(scene.project.id);
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="${scene.project.code} logframe.xlsx"`,
    );
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['Cover', 'Logframe', 'Disaggregations']);
    const sheet = workbook.getWorksheet('Logframe')!;
    const progress = await apiProgress(t.app, team.org.id, scene.project.id, team.viewer);
    // The assembled report over every period: the API's per-period values.
    const report = await call(t.app, 'POST', `/orgs/${team.org.id}/reports`, {
      as: team.officer,
      body: {
        title: 'All periods',
        reportType: 'ad_hoc',
        projectId: scene.project.id,
        periodIds: scene.quarters.map((q) => q.id),
      },
    });
    expect(report.status, JSON.stringify(report.body)).toBe(201);
    const entries = new Map<string, Record<string, any>>(
      report.body.sections.indicators.map((entry: { code: string }) => [entry.code, entry]),
    );
    for (const indicator of [scene.people, scene.share, scene.formula, scene.loose]) {
      const row = indicatorRow(sheet, indicator.code);
      const api = progress.get(indicator.code)!;
      const entry = entries.get(indicator.code)!;
      // To date: actual, cumulative target, progress and status, as the progress score.
      expect(row.slice(14), indicator.code).toEqual([
        api.value,
        api.target,
        api.progressPct,
        STATUS_WORDS[api.status as string],
      ]);
      // Per period: the report's actuals.
      const actuals = [row[9], row[11], row[13]].map((v) => v ?? null);
      expect(actuals, indicator.code).toEqual(entry.periods.map((p: { value: number | null }) => p.value));
    }
    // The figures themselves, so that a change of the API's would show here too.
    expect(indicatorRow(sheet, scene.people.code)).toEqual([
      'Indicator',
      scene.people.code,
      'People using a safe water source',
      'people',
      'Sum',
      50,
      2025,
      1000,
      300,
      280,
      300,
      310,
      400,
      undefined,
      590,
      600,
      98.3,
      'On track',
    ]);
    expect(indicatorRow(sheet, scene.share.code).slice(5)).toEqual([
      60.5,
      undefined,
      80,
      undefined,
      65.5,
      undefined,
      70.25,
      undefined,
      undefined,
      67.875,
      80,
      84.8,
      'At risk',
    ]);
    expect(indicatorRow(sheet, scene.formula.code).slice(4)).toEqual([
      'Formula',
      undefined,
      undefined,
      10,
      undefined,
      2.8,
      undefined,
      3.1,
      undefined,
      undefined,
      5.9,
      10,
      59,
      'Off track',
    ]);
    expect(indicatorRow(sheet, scene.loose.code).slice(14)).toEqual([9, 12, 75, 'At risk']);
  });

  it('lays the framework out for a donor: frozen headers, merged period headings, formats and widths', async () => {
    const { workbook } = await logframe(scene.project.id);
    const sheet = workbook.getWorksheet('Logframe')!;
    expect(sheet.views).toEqual([expect.objectContaining({ state: 'frozen', xSplit: 3, ySplit: 2 })]);
    expect((sheet.getRow(1).values as unknown[]).slice(1, 11)).toEqual([
      'Level',
      'Code',
      'Result / indicator',
      'Unit',
      'Aggregation',
      'Baseline',
      'Baseline year',
      'Target',
      'Q1 2026',
      'Q1 2026',
    ]);
    expect(sheet.getCell('I1').isMerged && sheet.getCell('J1').master.address).toBe('I1');
    expect(sheet.getCell('O1').value).toBe('To date');
    expect((sheet.getRow(2).values as unknown[]).slice(9)).toEqual([
      'Target',
      'Actual',
      'Target',
      'Actual',
      'Target',
      'Actual',
      'Actual',
      'Target',
      'Progress',
      'Status',
    ]);
    expect(sheet.getRow(1).font).toMatchObject({ bold: true });
    // The framework in order: impact, outcome with its indicator, output with its two, then the loose one.
    const column = (letter: string) =>
      sheet
        .getColumn(letter)
        .values.slice(3)
        .map((v) => (v === undefined ? null : v));
    expect(column('A')).toEqual([
      'Impact',
      'Outcome',
      'Indicator',
      'Output',
      'Indicator',
      'Indicator',
      'Indicator',
    ]);
    expect(column('C')).toEqual([
      'Fewer water-borne diseases',
      'Safe water used',
      'Households treating water',
      'Wells built and used',
      'People using a safe water source',
      'Wells needed',
      'Water committees active',
    ]);
    const people = sheet.getRow(7);
    expect(people.getCell('J').numFmt).toBe('#,##0');
    expect(people.getCell('Q').numFmt).toBe('0.0"%"');
    expect(sheet.getRow(5).getCell('O').numFmt).toBe('#,##0.00');
    expect(sheet.getColumn('C').width).toBe(48);
    expect(people.getCell('C').alignment).toMatchObject({ indent: 3 });

    const cover = workbook.getWorksheet('Cover')!;
    const lines = new Map<unknown, unknown>();
    cover.eachRow((row) => lines.set(row.getCell(1).value, row.getCell(2).value));
    expect(cover.getCell('A1').value).toBe('Logframe: Wells for Turkana');
    expect(lines.get('Project code')).toBe(scene.project.code);
    expect(lines.get('Program')).toBe('Safe Water');
    expect(lines.get('Donors')).toBe(`European Commission (${scene.donor.code})`);
    expect(lines.get('Start date')).toEqual(new Date('2026-01-01T00:00:00.000Z'));
    expect(lines.get('Reporting periods')).toBe('3: Q1 2026 (2026-01-01) to Q3 2026 (2026-09-30)');
    const exported = lines.get('Exported at (UTC)') as Date;
    expect(Math.abs(exported.getTime() - Date.now())).toBeLessThan(60_000);
    expect(String(lines.get('Actuals'))).toMatch(/^Submitted and approved values only/);
  });

  it('gives each disaggregation by period, and each cross as tables whose cells and totals are the API’s', async () => {
    const { workbook } = await logframe(scene.project.id);
    const sheet = workbook.getWorksheet('Disaggregations')!;
    const rows = sheetRows(sheet);
    const from = (first: unknown, count: number) => {
      const start = rows.findIndex((row) => row[0] === first);
      expect(start, String(first)).toBeGreaterThanOrEqual(0);
      return rows.slice(start, start + count);
    };
    expect(from(`${scene.people.code}: People using a safe water source`, 1)).toHaveLength(1);
    expect(from('Sex', 3)).toEqual([
      ['Sex', 'Q1 2026', 'Q2 2026', 'Q3 2026', 'All periods'],
      ['female', 150, 170, null, 320],
      ['male', 130, 140, null, 270],
    ]);
    expect(from('Sex by age, Q1 2026', 5)).toEqual([
      ['Sex by age, Q1 2026'],
      ['Sex \\ Age', '0-17', '18+', 'Total'],
      ['female', 60, 90, 150],
      ['male', 40, 90, 130],
      ['Total', 100, 180, 280],
    ]);
    const all = from('Sex by age, All periods', 5);
    // The report's cross table over every period, cell for cell.
    const report = await call(t.app, 'POST', `/orgs/${team.org.id}/reports`, {
      as: team.officer,
      body: {
        title: 'All',
        reportType: 'ad_hoc',
        projectId: scene.project.id,
        periodIds: scene.quarters.map((q) => q.id),
      },
    });
    const entry = report.body.sections.indicators.find((i: { code: string }) => i.code === scene.people.code);
    const [table] = entry.crossTabulations as {
      cells: { key: string; value: number }[];
      dimensions: { categories: { category: string; value: number }[] }[];
      total: number;
    }[];
    const cell = (key: string) => table!.cells.find((c) => c.key === key)!.value;
    const margin = (d: number, category: string) =>
      table!.dimensions[d]!.categories.find((c) => c.category === category)!.value;
    expect(all.slice(2)).toEqual([
      ['female', cell('female|0-17'), cell('female|18+'), margin(0, 'female')],
      ['male', cell('male|0-17'), cell('male|18+'), margin(0, 'male')],
      ['Total', margin(1, '0-17'), margin(1, '18+'), table!.total],
    ]);
    expect(all.slice(2)).toEqual([
      ['female', 130, 190, 320],
      ['male', 90, 180, 270],
      ['Total', 220, 370, 590],
    ]);
    // No table for the draft's period, none for an indicator without disaggregations.
    expect(rows.some((row) => row[0] === 'Sex by age, Q3 2026')).toBe(false);
    expect(rows.some((row) => String(row[0]).startsWith(scene.share.code))).toBe(false);
  });

  it('lets every member read, reporters only when assigned; 401, other organizations 403, their projects 404', async () => {
    const url = logframeUrl(team.org.id, scene.project.id);
    expectError(await call(t.app, 'GET', url), UNAUTHORIZED);
    expectError(await call(t.app, 'GET', url, { as: team.reporter }), notAssigned(ALL_ROLES));
    expectError(await call(t.app, 'GET', url, { as: team.outsider }), notAMember(ALL_ROLES));
    await assignProject(t.database.db, team.org.id, scene.project.id, team.reporter.id);
    await logframe(scene.project.id, team.reporter);
    const foreign = await createProject(t.database.db, team.outsiderOrg.id);
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'GET', logframeUrl(team.org.id, id), { as: team.admin }),
        notFoundBody('Project'),
      );
    }
    expectError(
      await call(t.app, 'GET', logframeUrl(team.outsiderOrg.id, scene.project.id), { as: team.outsider }),
      notFoundBody('Project'),
    );
    const bad = await call(t.app, 'GET', logframeUrl(team.org.id, 'not-a-uuid'), { as: team.admin });
    expect([bad.status, bad.body.code]).toEqual([400, 'validation_failed']);
  });

  it('writes the headers alone for a project without periods or indicators', async () => {
    const empty = await createProject(t.database.db, team.org.id);
    const { workbook } = await logframe(empty.id, team.admin);
    const sheet = workbook.getWorksheet('Logframe')!;
    expect(sheet.rowCount).toBe(2);
    expect((sheet.getRow(2).values as unknown[]).slice(9)).toEqual([
      'Actual',
      'Target',
      'Progress',
      'Status',
    ]);
    const disaggregations = workbook.getWorksheet('Disaggregations')!;
    expect(disaggregations.getCell('A2').value).toBe('No indicator of the project has disaggregations.');
  });
});
