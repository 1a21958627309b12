import { asc, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCountingTestApp } from '../../../test/helpers/app.js';
import {
  addMember,
  assignProject,
  createProject,
  createTeam,
  registerUser,
  type Team,
  type TestUser,
} from '../../../test/helpers/factories.js';
import {
  CONTRIBUTORS,
  TEST_APP_URL,
  UNAUTHORIZED,
  call,
  expectError,
  expectViolations,
  notAMember,
  notAssigned,
  roleRefused,
} from '../../../test/helpers/http.js';
import {
  act,
  indicatorCode,
  linkIndicator,
  postDisaggregation,
  postIndicator,
  postReport,
} from '../../../test/helpers/indicators.js';
import { loadWorkbook, XLSX } from '../../../test/helpers/imports.js';
import { createPeriod, type PeriodRow } from '../../../test/helpers/periods.js';
import { rowsOf } from '../../db/client.js';
import { indicators as indicatorsTable } from '../indicators/indicators.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import { projects } from '../projects/projects.tables.js';
import { indicatorReportHistory, indicatorReports } from './indicator-reports.tables.js';

let t: Awaited<ReturnType<typeof buildCountingTestApp>>;
let team: Team;

beforeAll(async () => {
  t = await buildCountingTestApp();
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

const bulkUrl = (query = '', orgId = team.org.id) => `/orgs/${orgId}/indicator-reports/bulk${query}`;
const post = (
  body: unknown,
  query = '',
  as: TestUser | null = team.officer,
  headers: Record<string, string> = {},
) => call(t.app, 'POST', bulkUrl(query), { as, body, headers });
const postCsv = (text: string, query = '', as: TestUser = team.officer) =>
  call(t.app, 'POST', bulkUrl(query), { as, body: text, headers: { 'content-type': 'text/csv' } });

async function projectWithCode(name: string) {
  const project = await createProject(t.database.db, team.org.id, name);
  const [row] = await t.database.db
    .select({ code: projects.code })
    .from(projects)
    .where(eq(projects.id, project.id));
  return { id: project.id, code: row!.code };
}

/**
 * Project A (assigned to the reporter) with a plain, a disaggregated (sex: female, male) and a formula
 * indicator linked; project B (not assigned) with the plain one; an indicator linked to neither. A's
 * periods: Q1 (a draft report of the plain indicator, value 5), Q2 (locked), Q3 (its plain report
 * approved), Q4; B's: Q1 2026.
 */
async function scene() {
  const db = t.database.db;
  const org = team.org.id;
  const a = await projectWithCode('Bulk A');
  const b = await projectWithCode('Bulk B');
  await assignProject(db, org, a.id, team.reporter.id);
  const plain = await postIndicator(t.app, team.admin, org, { name: 'Latrines built' });
  const sexed = await postIndicator(t.app, team.admin, org, { name: 'People trained' });
  await postDisaggregation(t.app, team.admin, org, sexed.id, 'Sex', ['female', 'male']);
  const formula = await postIndicator(t.app, team.admin, org, {
    name: 'Twice',
    formula: `${plain.code} * 2`,
  });
  const unlinked = await postIndicator(t.app, team.admin, org, { name: 'Elsewhere' });
  for (const indicator of [plain, sexed, formula])
    await linkIndicator(t.app, team.admin, org, a.id, indicator.id);
  await linkIndicator(t.app, team.admin, org, b.id, plain.id);
  const quarter = (projectId: string, n: number, extra: Partial<PeriodRow> = {}) =>
    createPeriod(db, org, projectId, {
      label: `Q${n} 2026`,
      startDate: `2026-${String(n * 3 - 2).padStart(2, '0')}-01`,
      endDate: `2026-${String(n * 3).padStart(2, '0')}-28`,
      ...extra,
    });
  const periods = {
    q1: await quarter(a.id, 1),
    q2: await quarter(a.id, 2, { isLocked: true, lockedAt: new Date(), lockedBy: team.admin.id }),
    q3: await quarter(a.id, 3),
    q4: await quarter(a.id, 4),
    b1: await quarter(b.id, 1),
  };
  const draft = await postReport(t.app, team.officer, org, a.id, {
    indicatorId: plain.id,
    reportingPeriodId: periods.q1.id,
    value: 5,
  });
  const approved = await postReport(t.app, team.officer, org, a.id, {
    indicatorId: plain.id,
    reportingPeriodId: periods.q3.id,
    value: 9,
  });
  await act(t.app, team.officer, org, approved.id, 'submit');
  await act(t.app, team.admin, org, approved.id, 'approve');
  return { a, b, plain, sexed, formula, unlinked, periods, draft, approved };
}
type Scene = Awaited<ReturnType<typeof scene>>;

/** The reports of the scene's projects, as (indicator code, period label, status, value, cells, narrative). */
async function reportsOf(s: Scene) {
  // By the scene's names for them (their codes are random, and would order the list differently each run).
  const codes = new Map(
    (['plain', 'sexed', 'formula', 'unlinked'] as const).map((name) => [s[name].id, name]),
  );
  const labels = new Map(
    Object.values(s.periods).map((p) => [p.id, `${p.projectId === s.a.id ? 'A' : 'B'} ${p.label}`]),
  );
  const rows = await t.database.db
    .select()
    .from(indicatorReports)
    .where(inArray(indicatorReports.projectId, [s.a.id, s.b.id]))
    .orderBy(asc(indicatorReports.createdAt), asc(indicatorReports.id));
  return rows
    .map((r) => ({
      indicator: codes.get(r.indicatorId),
      period: labels.get(r.reportingPeriodId),
      status: r.status,
      value: r.value,
      disaggregatedValues: r.disaggregatedValues,
      narrative: r.narrative,
    }))
    .sort((x, y) => `${x.period} ${x.indicator}`.localeCompare(`${y.period} ${y.indicator}`));
}

async function historyCount(s: Scene) {
  const result = await t.database.db.execute(sql`SELECT count(*)::int AS n FROM indicator_report_history h
    JOIN indicator_reports r ON r.org_id = h.org_id AND r.id = h.indicator_report_id
    WHERE r.project_id IN (${s.a.id}, ${s.b.id})`);
  return rowsOf<{ n: number }>(result)[0]!.n;
}

/** Rows of every kind of refusal beside rows that create, update and change nothing. */
function mixed(s: FullScene) {
  const { a, b, plain, sexed, formula, unlinked } = s;
  return [
    // 1: update of the draft (5 -> 7), by codes in another case.
    {
      projectCode: a.code.toUpperCase(),
      indicatorCode: plain.code.toLowerCase(),
      periodLabel: 'q1 2026',
      value: 7,
    },
    // 2: create, by ids, with disaggregations adding up.
    {
      projectId: a.id,
      indicatorId: sexed.id,
      periodId: s.periods.q1.id,
      disaggregatedValues: { female: 3, male: 4 },
      narrative: 'Two sessions',
    },
    // 3: create on project B.
    { projectCode: b.code, indicatorId: plain.id, periodLabel: 'Q1 2026', value: 2 },
    // 4: locked period.
    { projectCode: a.code, indicatorCode: plain.code, periodLabel: 'Q2 2026', value: 1 },
    // 5: approved report.
    { projectCode: a.code, indicatorCode: plain.code, periodLabel: 'Q3 2026', value: 1 },
    // 6: disaggregations that do not add up to the value.
    {
      projectCode: a.code,
      indicatorCode: sexed.code,
      periodLabel: 'Q4 2026',
      value: 10,
      disaggregatedValues: { female: 3, male: 4 },
    },
    // 7: unknown codes.
    { projectCode: 'NO-SUCH', indicatorCode: 'NO_SUCH', periodLabel: 'Q1 2026', value: 1 },
    // 8: formula indicator.
    { projectCode: a.code, indicatorCode: formula.code, periodLabel: 'Q1 2026', value: 1 },
    // 9: indicator not linked, and a period label the project lacks.
    { projectCode: a.code, indicatorCode: unlinked.code, periodLabel: 'Q9 2026', value: 1 },
    // 10: another org's project id, nothing to write.
    { projectId: s.foreignProjectId, indicatorCode: plain.code, periodId: s.periods.b1.id },
    // 11: the period of another project, and code and id naming different indicators.
    {
      projectCode: a.code,
      indicatorCode: plain.code,
      indicatorId: sexed.id,
      periodId: s.periods.b1.id,
      value: 1,
    },
    // 12: the same report as row 1.
    { projectId: a.id, indicatorId: plain.id, periodId: s.periods.q1.id, value: 8 },
    // 13: a category the indicator does not have.
    {
      projectCode: a.code,
      indicatorCode: sexed.code,
      periodLabel: 'Q3 2026',
      disaggregatedValues: { other: 1 },
    },
  ];
}

function expectedRows(s: FullScene) {
  const { a, b, plain, sexed, formula, unlinked } = s;
  const row = (n: number, cell: string, action: string, messages: string[] = []) => ({
    sheet: 'values',
    row: n,
    cell,
    action,
    messages,
  });
  return [
    row(1, '/values/0', 'update', ['value 5 → 7']),
    row(2, '/values/1', 'create'),
    row(3, '/values/2', 'create'),
    row(4, '/values/3/periodLabel', 'refused', ['reporting period Q2 2026 is locked']),
    row(5, '/values/4', 'refused', [
      `the indicator report of ${plain.code} for Q3 2026 is approved: it can only change while draft or rejected`,
    ]),
    row(6, '/values/5/disaggregatedValues', 'refused', [
      'value must equal the total of disaggregatedValues (7)',
    ]),
    row(7, '/values/6/projectCode', 'refused', [
      'projectCode NO-SUCH is not a project of the organization',
      'indicatorCode NO_SUCH is not an indicator of the organization',
    ]),
    row(8, '/values/7/indicatorCode', 'refused', [
      `indicator ${formula.code} is a formula indicator: its values are computed, not reported`,
    ]),
    row(9, '/values/8/indicatorCode', 'refused', [
      `indicator ${unlinked.code} is not linked to project ${a.code}`,
      `periodLabel "Q9 2026" is not a reporting period of project ${a.code}`,
    ]),
    row(10, '/values/9/projectId', 'refused', [
      `projectId ${s.foreignProjectId} is not a project of the organization`,
      'the row has no value, disaggregatedValues or narrative',
    ]),
    row(11, '/values/10/indicatorCode', 'refused', [
      `indicatorCode ${plain.code} and indicatorId ${sexed.id} name different things`,
      `periodId ${s.periods.b1.id} is a reporting period of another project than ${a.code}`,
    ]),
    row(12, '/values/11', 'refused', [
      `the same indicator report as row 1 (${plain.code}, Q1 2026): one row per project, indicator and period`,
    ]),
    row(13, '/values/12/disaggregatedValues', 'refused', [
      'disaggregatedValues.other is not a category of the indicator’s disaggregations',
    ]),
  ].map((r) => ({ ...r, messages: r.messages.map((m) => m.replace(b.code, b.code)) }));
}

type FullScene = Scene & { foreignProjectId: string };
async function fullScene(): Promise<FullScene> {
  const s = await scene();
  const foreign = await createProject(t.database.db, team.outsiderOrg.id);
  return { ...s, foreignProjectId: foreign.id };
}

const summaryOf = (created: number, updated: number, unchanged: number, refused: number) => ({
  created,
  updated,
  unchanged,
  refused,
});

describe('POST /orgs/:orgId/indicator-reports/bulk', () => {
  it('atomic (the default): one refused row and nothing is written, every row saying why or what it would do', async () => {
    const s = await fullScene();
    const before = await reportsOf(s);
    const history = await historyCount(s);
    const res = await post({ values: mixed(s) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      dryRun: true,
      applied: false,
      summary: summaryOf(2, 1, 0, 10),
      rows: expectedRows(s),
      meta: { totalRows: 13, page: 1, limit: 1000, totalPages: 1 },
    });
    expect(await reportsOf(s)).toEqual(before);
    expect(await historyCount(s)).toBe(history);
  });

  it('atomic=false applies the good rows with an `imported` history entry; sent again, they are unchanged', async () => {
    const s = await fullScene();
    const res = await post({ values: mixed(s) }, '?atomic=false');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      dryRun: false,
      applied: true,
      summary: summaryOf(2, 1, 0, 10),
      rows: expectedRows(s),
      meta: { totalRows: 13, page: 1, limit: 1000, totalPages: 1 },
    });
    const plainCode = 'plain';
    const sexedCode = 'sexed';
    expect(await reportsOf(s)).toEqual([
      {
        indicator: plainCode,
        period: 'A Q1 2026',
        status: 'draft',
        value: 7,
        disaggregatedValues: {},
        narrative: null,
      },
      {
        indicator: sexedCode,
        period: 'A Q1 2026',
        status: 'draft',
        value: 7,
        disaggregatedValues: { female: 3, male: 4 },
        narrative: 'Two sessions',
      },
      {
        indicator: plainCode,
        period: 'A Q3 2026',
        status: 'approved',
        value: 9,
        disaggregatedValues: {},
        narrative: null,
      },
      {
        indicator: plainCode,
        period: 'B Q1 2026',
        status: 'draft',
        value: 2,
        disaggregatedValues: {},
        narrative: null,
      },
    ]);
    const history = await call(
      t.app,
      'GET',
      `/orgs/${team.org.id}/projects/${s.a.id}/indicator-reports/${s.draft.id}/history`,
      { as: team.viewer },
    );
    expect(history.body.at(-1)).toMatchObject({
      kind: 'imported',
      actorId: team.officer.id,
      actorName: 'Omar Officer',
      changes: { value: { from: 5, to: 7 } },
      reason: null,
    });
    const created = await t.database.db
      .select({ kind: indicatorReportHistory.kind, changes: indicatorReportHistory.changes })
      .from(indicatorReportHistory)
      .innerJoin(indicatorReports, eq(indicatorReports.id, indicatorReportHistory.indicatorReportId))
      .where(eq(indicatorReports.indicatorId, s.sexed.id));
    expect(created).toEqual([
      {
        kind: 'imported',
        changes: {
          value: { from: null, to: 7 },
          disaggregatedValues: { from: {}, to: { female: 3, male: 4 } },
          narrative: { from: null, to: 'Two sessions' },
          status: { from: null, to: 'draft' },
        },
      },
    ]);

    const historyBefore = await historyCount(s);
    const again = await post({ values: mixed(s) }, '?atomic=false');
    expect(again.body.summary).toEqual(summaryOf(0, 0, 3, 10));
    expect(again.body.rows.slice(0, 3).map((r: { action: string }) => r.action)).toEqual([
      'unchanged',
      'unchanged',
      'unchanged',
    ]);
    expect(await historyCount(s)).toBe(historyBefore);
  });

  it('dryRun=true says what would change and writes nothing; atomic applies a clean import', async () => {
    const s = await fullScene();
    const values = mixed(s).slice(0, 3);
    const before = await reportsOf(s);
    const dry = await post({ values }, '?dryRun=true&atomic=false');
    expect(dry.body).toMatchObject({ dryRun: true, applied: false, summary: summaryOf(2, 1, 0, 0) });
    expect(await reportsOf(s)).toEqual(before);

    const applied = await post({ values });
    expect(applied.body).toMatchObject({ dryRun: false, applied: true, summary: summaryOf(2, 1, 0, 0) });
    expect(applied.body.rows).toEqual(expectedRows(s).slice(0, 3));
    expect((await reportsOf(s)).length).toBe(before.length + 2);

    // A field left out keeps what the report has; a narrative alone is an update.
    const narrative = await post({
      values: [
        { projectId: s.a.id, indicatorId: s.plain.id, periodId: s.periods.q1.id, narrative: 'Checked' },
      ],
    });
    expect(narrative.body.rows).toEqual([
      { sheet: 'values', row: 1, cell: '/values/0', action: 'update', messages: ['narrative changes'] },
    ]);
    expect((await reportsOf(s)).find((r) => r.indicator === 'plain')).toMatchObject({
      value: 7,
      narrative: 'Checked',
    });
  });

  it('pages the rows of the report', async () => {
    const s = await fullScene();
    const res = await post({ values: mixed(s) }, '?dryRun=true&page=2&limit=5');
    expect(res.body.rows).toEqual(expectedRows(s).slice(5, 10));
    expect(res.body.meta).toEqual({ totalRows: 13, page: 2, limit: 5, totalPages: 3 });
    expect(res.body.summary).toEqual(summaryOf(2, 1, 0, 10));
  });

  it('a reporter writes the projects assigned to them only; with none assigned, 403', async () => {
    const s = await fullScene();
    const values = [
      { projectCode: s.a.code, indicatorCode: s.plain.code, periodLabel: 'Q4 2026', value: 3 },
      { projectCode: s.b.code, indicatorCode: s.plain.code, periodLabel: 'Q1 2026', value: 3 },
      // Nothing is said of a project out of reach: not whether its periods exist or its indicators link.
      { projectCode: s.b.code, indicatorCode: s.sexed.code, periodLabel: 'Q9 2026', value: 3 },
    ];
    const res = await post({ values }, '?atomic=false', team.reporter);
    expect(res.body.rows).toEqual([
      { sheet: 'values', row: 1, cell: '/values/0', action: 'create', messages: [] },
      {
        sheet: 'values',
        row: 2,
        cell: '/values/1/projectCode',
        action: 'refused',
        messages: [`project ${s.b.code} is not assigned to you`],
      },
      {
        sheet: 'values',
        row: 3,
        cell: '/values/2/projectCode',
        action: 'refused',
        messages: [`project ${s.b.code} is not assigned to you`],
      },
    ]);
    const lonely = await registerUser(t.app, { firstName: 'Lone', lastName: 'Reporter' });
    await addMember(t.database.db, team.org.id, lonely.id, 'reporter');
    expectError(await post({ values }, '', lonely), notAssigned(CONTRIBUTORS));
  });

  it('answers 401, 403 to viewers and strangers, and 400 for a body not of the shape', async () => {
    const values = [{ projectCode: 'X', indicatorCode: 'Y', periodLabel: 'Q1', value: 1 }];
    expectError(await post({ values }, '', null), UNAUTHORIZED);
    expectError(await post({ values }, '', team.viewer), roleRefused(CONTRIBUTORS));
    expectError(await post({ values }, '', team.outsider), notAMember(CONTRIBUTORS));
    expectViolations(
      await post({ values: [{ projectId: 'nope', value: '3', colour: 'red' }], extra: true }),
      'property extra should not exist',
      'property values.0.colour should not exist',
      'values.0.projectId must be a UUID',
      'values.0.value must be a number',
    );
    expectViolations(await post({}), 'values is required');
  });

  it('replays an Idempotency-Key with the answer of the first import', async () => {
    const s = await fullScene();
    const headers = { 'idempotency-key': `bulk-${s.a.id}` };
    const body = { values: mixed(s).slice(0, 3) };
    const first = await post(body, '', team.officer, headers);
    const history = await historyCount(s);
    const replay = await post(body, '', team.officer, headers);
    expect([replay.status, replay.headers['idempotent-replayed'], replay.body]).toEqual([
      200,
      'true',
      first.body,
    ]);
    expect(first.body.summary).toEqual(summaryOf(2, 1, 0, 0));
    expect(await historyCount(s)).toBe(history);
  });

  it('reads a CSV body: columns named either way, a JSON cell of disaggregated values, cells that are no number', async () => {
    const s = await fullScene();
    const csv = [
      'Project Code,indicatorCode,period_label,value,disaggregated_values,Narrative',
      `${s.a.code},${s.plain.code},Q1 2026,11,,"Checked, twice"`,
      `${s.a.code},${s.sexed.code},Q4 2026,,"{""female"": 2, ""male"": 1}",`,
      `${s.a.code},${s.plain.code},Q4 2026,"12,5",,`,
      `${s.a.code},${s.sexed.code},Q1 2026,,{female: 1},`,
      '',
      `${s.a.code},${s.plain.code},Q2 2026,1,,`,
    ].join('\r\n');
    const res = await postCsv(csv, '?atomic=false');
    expect(res.status).toBe(200);
    expect(res.body.rows).toEqual([
      {
        sheet: 'data',
        row: 2,
        cell: 'data!2:2',
        action: 'update',
        messages: ['value 5 → 11', 'narrative changes'],
      },
      { sheet: 'data', row: 3, cell: 'data!3:3', action: 'create', messages: [] },
      {
        sheet: 'data',
        row: 4,
        cell: 'data!D4',
        action: 'refused',
        messages: ['value "12,5" is not a number (a point for decimals)'],
      },
      {
        sheet: 'data',
        row: 5,
        cell: 'data!E5',
        action: 'refused',
        messages: [
          'disaggregatedValues must be a JSON object of category and number ({"female": 12, "male": 8})',
        ],
      },
      {
        sheet: 'data',
        row: 7,
        cell: 'data!C7',
        action: 'refused',
        messages: ['reporting period Q2 2026 is locked'],
      },
    ]);
    expect((await reportsOf(s)).find((r) => r.indicator === 'sexed')).toMatchObject({
      value: 3,
      disaggregatedValues: { female: 2, male: 1 },
    });

    expectViolations(
      await postCsv('project_code,indicator,value\nA,B,1\n'),
      'data!B1: unknown column indicator (the columns are projectCode, projectId, indicatorCode, indicatorId, periodLabel, periodId, value, disaggregatedValues, narrative)',
    );
    expectViolations(await postCsv('value\n1\n', '?atomic=maybe'), 'atomic must be a boolean');
    const tooMany = ['project_code,indicator_code,period_label,value'];
    for (let i = 0; i < 5001; i++) tooMany.push(`P,I,Q1,${i}`);
    expectViolations(await postCsv(tooMany.join('\n')), 'data: more than 5000 rows');
  });

  it('checks the text of CSV cells as JSON is checked: control characters and ids refuse their row, never a 500', async () => {
    const s = await fullScene();
    const before = await reportsOf(s);
    const csv = [
      'project_code,project_id,indicator_code,period_label,value,narrative',
      `"A\u0000B",,${s.plain.code},Q4 2026,1,`,
      `${s.a.code},,${s.plain.code},Q4 2026,1,"ring\u0007\u001b[31m"`,
      `${s.a.code},not-a-uuid,${s.plain.code},Q4 2026,1,`,
      `${s.a.code},,${s.plain.code},Q4 2026,2,"Two lines\nand a tab\tare fine"`,
    ].join('\n');
    const res = await postCsv(csv, '?atomic=false');
    expect(res.status).toBe(200);
    expect(res.body.rows.map((r: any) => [r.row, r.cell, r.action, r.messages])).toEqual([
      [2, 'data!A2', 'refused', ['projectCode must not contain NUL characters']],
      [
        3,
        'data!F3',
        'refused',
        ['narrative must not contain control characters other than tabs and line breaks'],
      ],
      [4, 'data!B4', 'refused', ['projectId must be a UUID']],
      [5, 'data!5:5', 'create', []],
    ]);
    const after = await reportsOf(s);
    expect(after.length).toBe(before.length + 1);
    expect(after.find((r) => r.period === 'A Q4 2026' && r.indicator === 'plain')?.narrative).toBe(
      'Two lines\nand a tab\tare fine',
    );
  });

  it('format=xlsx answers the CSV as a checked workbook; saved back as CSV, its status column is not read', async () => {
    const s = await fullScene();
    const csv = [
      'Project Code,Indicator Code,Period Label,Value',
      `${s.a.code},${s.plain.code},Q1 2026,11`,
      `${s.a.code},${s.plain.code},Q2 2026,1`,
    ].join('\n');
    const checked = await postCsv(csv, '?format=xlsx');
    expect(checked.status).toBe(200);
    expect(checked.headers['content-type']).toBe(XLSX);
    expect(checked.headers['content-disposition']).toContain('values-checked.xlsx');
    expect(checked.headers['import-applied']).toBe('false');
    // A page of the client application reads both: the file's name, and whether it was applied.
    const fromApp = await call(t.app, 'POST', bulkUrl('?format=xlsx&dryRun=true'), {
      as: team.officer,
      body: csv,
      headers: { 'content-type': 'text/csv', origin: TEST_APP_URL },
    });
    expect(String(fromApp.headers['access-control-expose-headers'])).toMatch(
      /Content-Disposition.*Import-Applied/,
    );
    const sheet = (await loadWorkbook(checked.response.rawPayload)).getWorksheet('data')!;
    expect(sheet.getRow(1).values).toEqual([
      undefined,
      'Project Code',
      'Indicator Code',
      'Period Label',
      'Value',
      'status',
    ]);
    expect(sheet.getCell('E2').value).toBe('update: value 5 → 11');
    expect(sheet.getCell('E3').value).toBe('refused: reporting period Q2 2026 is locked');
    expect(sheet.getCell('C3').note).toBe('reporting period Q2 2026 is locked');
    expect((await reportsOf(s)).find((r) => r.period === 'A Q1 2026')?.value).toBe(5);

    // The officer drops the locked row and saves the sheet as CSV, status column and all.
    const fixed = [
      'Project Code,Indicator Code,Period Label,Value,status',
      `${s.a.code},${s.plain.code},Q1 2026,11,update: value 5 → 11`,
    ].join('\n');
    const applied = await postCsv(fixed, '?format=xlsx');
    expect([applied.status, applied.headers['import-applied']]).toEqual([200, 'true']);
    const again = (await loadWorkbook(applied.response.rawPayload)).getWorksheet('data')!;
    expect(again.getCell('E2').value).toBe('update: value 5 → 11');
    expect((await reportsOf(s)).find((r) => r.period === 'A Q1 2026')?.value).toBe(11);
    expect((await postCsv(fixed)).body.summary).toEqual(summaryOf(0, 0, 1, 0));

    // A JSON body has no sheet to check.
    expectViolations(
      await post({ values: [] }, '?format=xlsx'),
      'format=xlsx answers a CSV body as a checked workbook: send the values as text/csv',
    );
    expectViolations(await postCsv(csv, '?format=pdf'), 'format must be one of json, xlsx');
  });

  it('keeps no checked workbook for an Idempotency-Key: the applied import is not run again (409)', async () => {
    const s = await fullScene();
    const csv = `project_code,indicator_code,period_label,value\n${s.a.code},${s.plain.code},Q4 2026,3\n`;
    const headers = { 'content-type': 'text/csv', 'idempotency-key': `bulk-xlsx-${s.a.id}` };
    const send = () => call(t.app, 'POST', bulkUrl('?format=xlsx'), { as: team.officer, body: csv, headers });
    expect((await send()).headers['import-applied']).toBe('true');
    const history = await historyCount(s);
    const retry = await send();
    expect(retry.status).toBe(409);
    expect(await historyCount(s)).toBe(history);
  });

  it('imports 5,000 values in a few statements; 5,001 rows are refused', async () => {
    const db = t.database.db;
    const org = team.org.id;
    const project = await projectWithCode('Bulk big');
    // Written directly: 50 indicators through the API would take most of the test's time.
    const indicators = await db
      .insert(indicatorsTable)
      .values(
        Array.from({ length: 50 }, (_, i) => ({
          orgId: org,
          name: `Big ${i}`,
          code: indicatorCode('BIG'),
          unit: 'people',
          aggregationMethod: 'sum' as const,
        })),
      )
      .returning();
    await db.execute(sql`INSERT INTO project_indicators (org_id, project_id, indicator_id)
      SELECT ${org}::uuid, ${project.id}::uuid, i.id FROM indicators i WHERE i.org_id = ${org} AND i.name LIKE 'Big %'`);
    const months: (typeof reportingPeriods.$inferInsert)[] = [];
    for (let m = 0; m < 100; m++) {
      const year = 2026 + Math.floor(m / 12);
      const month = String((m % 12) + 1).padStart(2, '0');
      months.push({
        orgId: org,
        projectId: project.id,
        label: `M${m}`,
        startDate: `${year}-${month}-01`,
        endDate: `${year}-${month}-28`,
      });
    }
    await db.insert(reportingPeriods).values(months);
    const values = indicators.flatMap((indicator, i) =>
      months.map((month, m) => ({
        projectCode: project.code,
        indicatorCode: indicator.code,
        periodLabel: month.label,
        value: i * 1000 + m,
      })),
    );
    expect(values).toHaveLength(5000);

    expectViolations(
      await post({ values: [...values, values[0]] }),
      'values must contain at most 5000 items',
    );
    let res: Awaited<ReturnType<typeof post>> | undefined;
    const statements = await t.during(async () => {
      res = await post({ values }, '?limit=1');
    });
    expect(res!.body.summary).toEqual(summaryOf(5000, 0, 0, 0));
    // The session check, the idempotency-free import: reads and three writes, whatever the rows.
    expect(statements).toBeLessThan(20);
    const stored = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(indicatorReports)
      .where(eq(indicatorReports.projectId, project.id));
    expect(stored[0]!.n).toBe(5000);
  });
});
