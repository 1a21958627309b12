import { describe, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import { randomUUID } from 'node:crypto';
import { call } from '../../../test/helpers/http.js';
import { multipart } from '../../../test/helpers/files.js';
import { actions, importSetup, XLSX, xlsx, type Sheets } from '../../../test/helpers/imports.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const RESULTS = [
  ['code', 'title', 'level', 'parent_code', 'description'],
  // The output comes before its parent: parents are written first whatever the order.
  ['1.1.1', 'Boreholes rehabilitated', 'output', '1.1', null],
  ['1', 'Fewer cases of water-borne disease', 'impact', null, 'Under-five diarrhoea cases'],
  ['1.1', 'Households drink safe water', 'outcome', '1', null],
  ['1.2', 'Hygiene practised at home', 'outcome', '1', null],
];
const PERIODS = [
  ['label', 'start_date', 'end_date', 'due_date'],
  ['Q1 2026', '2026-01-01', '2026-03-31', '2026-04-15'],
  ['Q2 2026', new Date('2026-04-01T00:00:00Z'), new Date('2026-06-30T00:00:00Z'), null],
];
/** Indicators are the organization's: each test names its own. */
const indicators = (tag: string) =>
  INDICATORS.map((row, i) => (i === 0 ? row : [`${row[0]}_${tag}`, ...row.slice(1)]));
const INDICATORS = [
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
    'HH_WATER',
    'Households using safe water',
    'households',
    'sum',
    '1.1',
    'Sex: female|male; Age: 0-17|18+',
    100,
    2025,
    1200,
    300,
    600,
  ],
  ['PCT_LATRINE', 'Share of homes with a latrine', 'percent', 'Average', '1.2', null, 20, null, 60, null, 40],
];
const setup = (tag: string): Sheets => ({ results: RESULTS, indicators: indicators(tag), periods: PERIODS });

const project = async () => {
  const { id } = await createProject(t.database.db, team.org.id);
  const res = await call(t.app, 'GET', `/orgs/${team.org.id}/projects/${id}`, { as: team.admin });
  return { id, programId: res.body.programId as string };
};
const post = (projectId: string, bytes: Buffer, query = '', as = team.officer) =>
  importSetup(t.app, team.org.id, projectId, bytes, { as, query });
const get = async (path: string) => {
  const res = await call(t.app, 'GET', `/orgs/${team.org.id}${path}`, { as: team.admin });
  expect(res.status).toBe(200);
  return res.body;
};

describe('POST /orgs/:orgId/projects/:projectId/import', () => {
  it('sets up a project from one workbook: a dry run first, then applied, then all unchanged', async () => {
    const p = await project();
    const bytes = await xlsx(setup('A'));

    const dry = await post(p.id, bytes);
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({
      dryRun: true,
      applied: false,
      summary: { created: 8, updated: 0, unchanged: 0, refused: 0 },
      meta: { totalRows: 8, page: 1, totalPages: 1 },
    });
    // In the workbook's order of sheets, rows in order.
    expect(actions(dry.body.rows)).toEqual([
      'results 2 create',
      'results 3 create',
      'results 4 create',
      'results 5 create',
      'indicators 2 create',
      'indicators 3 create',
      'periods 2 create',
      'periods 3 create',
    ]);
    expect(dry.body.rows[0]).toEqual({
      sheet: 'results',
      row: 2,
      cell: 'results!2:2',
      action: 'create',
      messages: [],
    });
    // The dry run wrote nothing.
    expect(await get(`/programs/${p.programId}/result-nodes`)).toEqual([]);
    expect(await get(`/projects/${p.id}/reporting-periods`)).toEqual([]);
    expect(await get(`/indicators?projectId=${p.id}`)).toEqual([]);

    const applied = await post(p.id, bytes, '?apply=true');
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({
      dryRun: false,
      applied: true,
      summary: { created: 8, updated: 0, unchanged: 0, refused: 0 },
    });

    const [impact] = await get(`/programs/${p.programId}/result-nodes`);
    expect(impact).toMatchObject({
      code: '1',
      level: 'impact',
      title: 'Fewer cases of water-borne disease',
      description: 'Under-five diarrhoea cases',
      children: [
        {
          code: '1.1',
          level: 'outcome',
          children: [{ code: '1.1.1', level: 'output', title: 'Boreholes rehabilitated', children: [] }],
        },
        { code: '1.2', title: 'Hygiene practised at home', children: [] },
      ],
    });

    const periods = await get(`/projects/${p.id}/reporting-periods`);
    expect(periods.map((x: any) => [x.label, x.startDate, x.endDate, x.dueDate])).toEqual([
      ['Q1 2026', '2026-01-01', '2026-03-31', '2026-04-15'],
      ['Q2 2026', '2026-04-01', '2026-06-30', null],
    ]);

    const links = await get(`/projects/${p.id}/indicators`);
    const outcome = impact.children[0];
    expect(
      links.map((l: any) => [
        l.indicator.code,
        l.indicator.unit,
        l.indicator.aggregationMethod,
        l.indicator.resultNodeId,
        l.baseline,
        l.baselineYear,
        l.target,
      ]),
    ).toEqual([
      ['HH_WATER_A', 'households', 'sum', outcome.id, 100, 2025, 1200],
      ['PCT_LATRINE_A', 'percent', 'average', impact.children[1].id, 20, null, 60],
    ]);
    const water = links[0].indicator.id;
    const dimensions = await get(`/indicators/${water}/disaggregations`);
    expect(dimensions.map((d: any) => [d.name, d.categories])).toEqual([
      ['Sex', ['female', 'male']],
      ['Age', ['0-17', '18+']],
    ]);
    const reports = await get(`/projects/${p.id}/indicator-reports`);
    const targets = Object.fromEntries(
      reports.map((r: any) => [
        `${links.find((l: any) => l.indicator.id === r.indicatorId).indicator.code} ${
          periods.find((x: any) => x.id === r.reportingPeriodId).label
        }`,
        [r.target, r.status, r.value],
      ]),
    );
    expect(targets).toEqual({
      'HH_WATER_A Q1 2026': [300, 'draft', null],
      'HH_WATER_A Q2 2026': [600, 'draft', null],
      'PCT_LATRINE_A Q2 2026': [40, 'draft', null],
    });

    // The same workbook again changes nothing.
    const again = await post(p.id, bytes, '?apply=true');
    expect(again.body).toMatchObject({
      applied: true,
      summary: { created: 0, updated: 0, unchanged: 8, refused: 0 },
    });
    expect(again.body.rows.every((row: any) => row.action === 'unchanged' && row.messages.length === 0)).toBe(
      true,
    );
  });

  it('updates what differs and says what, leaving what the sheets leave out', async () => {
    const p = await project();
    await post(p.id, await xlsx(setup('B')), '?apply=true');
    // Another project (of another program) takes the organization's indicators: it links them, and
    // their result_code now names a node of its own program.
    const other = await project();
    const linked = await post(other.id, await xlsx(setup('B')));
    expect(linked.body.rows.filter((r: any) => r.sheet === 'indicators').map((r: any) => r.messages)).toEqual(
      [
        ['changes result_code', 'links it to the project', 'sets the targets of Q1 2026, Q2 2026'],
        ['changes result_code', 'links it to the project', 'sets the targets of Q2 2026'],
      ],
    );
    expect(linked.body.summary).toEqual({ created: 6, updated: 2, unchanged: 0, refused: 0 });
    const changed = await xlsx({
      results: [RESULTS[0]!, ['1.2', 'Handwashing practised at home', 'outcome', '1', 'Observed']],
      indicators: [
        ['code', 'name', 'unit', 'disaggregations', 'target', 'target Q1 2026'],
        ['HH_WATER_B', 'Households using safe water', 'households', 'Sex: female|male', 1500, 350],
      ],
      periods: [PERIODS[0]!, ['q2 2026', '2026-04-01', '2026-06-30', '2026-07-10']],
    });
    const dry = await post(p.id, changed);
    expect(dry.body.summary).toEqual({ created: 0, updated: 3, unchanged: 0, refused: 0 });
    expect(dry.body.rows.map((r: any) => [r.cell, r.action, r.messages])).toEqual([
      ['results!2:2', 'update', ['changes title, description']],
      [
        'indicators!2:2',
        'update',
        ['removes disaggregation Age', 'changes target', 'sets the targets of Q1 2026'],
      ],
      ['periods!2:2', 'update', ['changes label, due_date of Q2 2026']],
    ]);
    expect((await post(p.id, changed, '?apply=true')).body.applied).toBe(true);
    const [impact] = await get(`/programs/${p.programId}/result-nodes`);
    expect(impact.children[1]).toMatchObject({ code: '1.2', title: 'Handwashing practised at home' });
    const [link] = await get(`/projects/${p.id}/indicators`);
    expect([link.target, link.baseline, link.indicator.aggregationMethod]).toEqual([1500, 100, 'sum']);
    expect((await get(`/projects/${p.id}/reporting-periods`))[1]).toMatchObject({
      label: 'q2 2026',
      dueDate: '2026-07-10',
    });
    expect((await post(p.id, changed)).body.summary.unchanged).toBe(3);
  });

  it('refuses rows with the cell and the reason, and applies nothing when one is refused', async () => {
    const p = await project();
    const bytes = await xlsx({
      results: [
        RESULTS[0]!,
        ['1', 'Impact', 'impact', null, null],
        ['1.1', 'Orphan', 'outcome', '9', null],
        ['1', 'Again', 'impact', null, null],
        ['2', 'Odd', 'goal', null, null],
        ['1.3', 'Under a refused row', 'output', '1.1', null],
      ],
      indicators: [
        ['code', 'name', 'unit', 'aggregation', 'result_code', 'target', 'target Q3 2026'],
        ['A_1', 'Bad aggregation', 'people', 'total', null, null, null],
        ['A_2', 'No unit', null, 'sum', null, null, null],
        ['A_3', 'Unknown result', 'people', 'sum', 'X9', 'many', null],
        ['A_4', 'Unknown period', 'people', 'sum', null, null, 5],
        ['4bad', 'Bad code', 'people', 'sum', null, null, null],
      ],
      periods: [
        PERIODS[0]!,
        ['Q1 2026', '2026-01-01', '2026-03-31', null],
        ['Backwards', '2026-05-01', '2026-04-01', null],
        ['Overlapping', '2026-03-01', '2026-05-31', null],
        ['Not a date', '1/4/2026', '2026-06-30', null],
      ],
    });
    const res = await post(p.id, bytes, '?apply=true');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      dryRun: true,
      applied: false,
      summary: { created: 2, updated: 0, unchanged: 0, refused: 12 },
    });
    expect(res.body.rows.map((r: any) => [r.cell, r.action, r.messages])).toEqual([
      ['results!2:2', 'create', []],
      [
        'results!D3',
        'refused',
        ["parent_code 9 is not a code of this sheet or of the program's results framework"],
      ],
      ['results!A4', 'refused', ['code 1 is given twice (first on results!2:2)']],
      ['results!C5', 'refused', ['level must be one of impact, outcome, output']],
      ['results!D6', 'refused', ['parent_code 1.1 is refused on its own row (results!3:3)']],
      ['indicators!D2', 'refused', ['aggregation must be one of sum, average, latest, min, max']],
      ['indicators!C3', 'refused', [expect.stringMatching(/^unit /)]],
      [
        'indicators!E4',
        'refused',
        [
          "result_code X9 is not a code of the results sheet or of the program's results framework",
          'target must be a number',
        ],
      ],
      ['indicators!G5', 'refused', ['target_q3_2026: the project has no reporting period labelled q3 2026']],
      ['indicators!A6', 'refused', [expect.stringMatching(/^code must be 1 to 64 letters/)]],
      ['periods!2:2', 'create', []],
      ['periods!C3', 'refused', ['end_date must not be before start_date']],
      ['periods!B4', 'refused', ['Reporting period overlaps Q1 2026']],
      ['periods!B5', 'refused', [expect.stringMatching(/^start_date must /)]],
    ]);
    // One refused row: nothing was written.
    expect(await get(`/projects/${p.id}/reporting-periods`)).toEqual([]);
    expect(await get(`/programs/${p.programId}/result-nodes`)).toEqual([]);
  });

  it('refuses to change categories that indicator reports use, by the disaggregations rules', async () => {
    const p = await project();
    const sheet = (written: string) =>
      xlsx({
        indicators: [
          ['code', 'name', 'unit', 'aggregation', 'disaggregations'],
          ['GIRLS_ENROLLED_C', 'Pupils enrolled', 'people', 'sum', written],
        ],
        periods: PERIODS,
      });
    await post(p.id, await sheet('Sex: female|male'), '?apply=true');
    const [link] = await get(`/projects/${p.id}/indicators`);
    const [q1] = await get(`/projects/${p.id}/reporting-periods`);
    const report = await call(t.app, 'POST', `/orgs/${team.org.id}/projects/${p.id}/indicator-reports`, {
      as: team.officer,
      body: {
        indicatorId: link.indicator.id,
        reportingPeriodId: q1.id,
        disaggregatedValues: { female: 4, male: 5 },
      },
    });
    expect(report.status).toBe(201);
    const res = await post(p.id, await sheet('Sex: girl|boy'));
    expect(res.body.rows[0]).toEqual({
      sheet: 'indicators',
      row: 2,
      cell: 'indicators!E2',
      action: 'refused',
      messages: ['Disaggregation is used by indicator reports'],
    });
    // Adding a disaggregation beside it is fine.
    const more = await post(p.id, await sheet('Sex: female|male; Area: urban|rural'));
    expect(more.body.rows[0]).toMatchObject({ action: 'update', messages: ['adds disaggregation Area'] });
  });

  it('answers a retry with the same Idempotency-Key from the first answer', async () => {
    const p = await project();
    const key = randomUUID();
    const upload = multipart([
      { name: 'file', value: await xlsx({ periods: PERIODS }), fileName: 's.xlsx', contentType: XLSX },
    ]);
    const send = () =>
      call(t.app, 'POST', `/orgs/${team.org.id}/projects/${p.id}/import?apply=true`, {
        as: team.officer,
        body: upload.body,
        headers: { ...upload.headers, 'idempotency-key': key },
      });
    const first = await send();
    const second = await send();
    expect(first.body.summary).toEqual({ created: 2, updated: 0, unchanged: 0, refused: 0 });
    expect([second.status, second.headers['idempotent-replayed'], second.body]).toEqual([
      200,
      'true',
      first.body,
    ]);
  });

  it('pages the report', async () => {
    const p = await project();
    const res = await post(p.id, await xlsx({ results: RESULTS, periods: PERIODS }), '?page=2&limit=4');
    expect(res.body.meta).toEqual({ totalRows: 6, page: 2, limit: 4, totalPages: 2 });
    expect(res.body.summary).toEqual({ created: 6, updated: 0, unchanged: 0, refused: 0 });
    expect(actions(res.body.rows)).toEqual(['periods 2 create', 'periods 3 create']);
  });

  it('answers 400 for a sheet without a required column, an unknown column, or no sheet it reads', async () => {
    const p = await project();
    const missing = await post(
      p.id,
      await xlsx({
        periods: [
          ['label', 'start_date'],
          ['Q1', '2026-01-01'],
        ],
        notes: [['x'], ['y']],
      }),
    );
    expect([missing.status, missing.body.message]).toEqual([
      400,
      ['periods!1:1: the column end_date is required'],
    ]);
    const unknown = await post(
      p.id,
      await xlsx({
        results: [
          ['code', 'title', 'level', 'colour', 'status'],
          ['1', 'I', 'impact', 'red', 'old'],
        ],
      }),
    );
    expect([unknown.status, unknown.body.message]).toEqual([
      400,
      [
        'results!D1: results has no column colour (its columns: code, title, level, parent_code, description)',
      ],
    ]);
    const none = await post(p.id, await xlsx({ Sheet1: [['a'], ['b']] }));
    expect([none.status, none.body.message]).toEqual([
      400,
      ['the workbook has none of the sheets results, indicators, periods, values'],
    ]);
  });

  it('answers 415 for a file that is not an .xlsx, 400 without the file part', async () => {
    const p = await project();
    const text = await post(p.id, Buffer.from('code,title\n1,x\n'));
    expect([text.status, text.body.code]).toEqual([415, 'unsupported_media_type']);
    const empty = await post(p.id, Buffer.alloc(0));
    expect(empty.status).toBe(415);
    const json = await call(t.app, 'POST', `/orgs/${team.org.id}/projects/${p.id}/import`, {
      as: team.officer,
      body: {},
    });
    expect(json.status).toBe(415);
  });

  it('answers 413 past the rows of a sheet', async () => {
    const p = await project();
    const rows = Array.from({ length: 5001 }, (_, i) => [`P${i}`, '2026-01-01', '2026-01-01']);
    const res = await post(p.id, await xlsx({ periods: [['label', 'start_date', 'end_date'], ...rows] }));
    expect([res.status, res.body.code, res.body.message]).toEqual([
      413,
      'payload_too_large',
      'file: periods: more than 5000 rows',
    ]);
  });
});
