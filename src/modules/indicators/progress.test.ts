import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import {
  assignProject,
  createProgram,
  createProject,
  createTeam,
  type Team,
  type TestUser,
} from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  FORBIDDEN,
  UNAUTHORIZED,
  badRequest,
  call,
  expectError,
  notFoundBody,
} from '../../../test/helpers/http.js';
import {
  act,
  indicatorCode,
  indicatorsUrl,
  linkIndicator,
  postIndicator,
  postReport,
} from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { insertResultNode } from '../../../test/helpers/results.js';
import type { AggregationMethod, ProgressStatus } from '../../lib/scoring.js';

let t: TestApp;
let team: Team;

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

type Indicator = Record<string, unknown> & { id: string; code: string };
type Project = { id: string; name: string };
type Fate = 'draft' | 'submitted' | 'approved' | 'rejected';
interface Progress {
  value: number | null;
  target: number | null;
  progressPct: number | null;
  status: ProgressStatus;
  gap: number | null;
}

const STATUSES: ProgressStatus[] = ['on_track', 'at_risk', 'off_track', 'no_target', 'no_data'];
const QUARTERS = [
  ['2026-01-01', '2026-03-31'],
  ['2026-04-01', '2026-06-30'],
  ['2026-07-01', '2026-09-30'],
  ['2026-10-01', '2026-12-31'],
] as const;

const newProject = (name = 'Clean Water', orgId = team.org.id) => createProject(t.database.db, orgId, name);

const newIndicator = (body: Record<string, unknown> = {}, as: TestUser = team.officer, orgId = team.org.id) =>
  postIndicator(t.app, as, orgId, body) as Promise<Indicator>;

/** A formula indicator over `formula`, without an aggregation method of its own. */
const newFormula = (code: string, formula: string, body: Record<string, unknown> = {}) =>
  newIndicator({ code, formula, aggregationMethod: undefined, ...body });

/** Quarter `n` (1 to 4) of 2026 as a reporting period of the project. */
const quarter = (projectId: string, n: number, orgId = team.org.id) => {
  const [startDate, endDate] = QUARTERS[n - 1]!;
  return createPeriod(t.database.db, orgId, projectId, { label: `Q${n} 2026`, startDate, endDate });
};

/** A report moved through the workflow to `fate` by the officer (submit) and the admin (review). */
async function report(
  project: Project,
  indicator: Indicator,
  periodId: string,
  value: number,
  target: number | null = null,
  fate: Fate = 'approved',
  { as = team.officer, reviewer = team.admin, orgId = team.org.id } = {},
) {
  const created = await postReport(t.app, as, orgId, project.id, {
    indicatorId: indicator.id,
    reportingPeriodId: periodId,
    value,
    target,
  });
  if (fate !== 'draft') await act(t.app, as, orgId, created.id, 'submit');
  if (fate === 'approved') await act(t.app, reviewer, orgId, created.id, 'approve');
  if (fate === 'rejected') await act(t.app, reviewer, orgId, created.id, 'reject');
  return created;
}

/** [quarter, value, period target, fate] */
type Row = [number, number, (number | null)?, Fate?];

/**
 * A project of its own with one indicator of `method`, linked with `linkTarget`, and a report per row, created
 * in the rows' order; each quarter's period is created when a row first names it.
 */
async function scenario(method: AggregationMethod, linkTarget: number | null, rows: Row[]) {
  const project = await newProject();
  const indicator = await newIndicator({ aggregationMethod: method });
  await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target: linkTarget });
  const periods = new Map<number, string>();
  const reports = [];
  for (const [n, value, target = null, fate = 'approved'] of rows) {
    if (!periods.has(n)) periods.set(n, (await quarter(project.id, n)).id);
    reports.push(await report(project, indicator, periods.get(n)!, value, target, fate));
  }
  return { project, indicator, reports };
}

const entry = (indicator: Indicator, project: Project, progress: Progress) => ({
  ...indicator,
  project: { id: project.id, name: project.name },
  progress,
});

const progress = (
  value: number | null,
  target: number | null,
  progressPct: number | null,
  status: ProgressStatus,
  gap: number | null,
): Progress => ({ value, target, progressPct, status, gap });

function bandUrl(status: string, query: Record<string, string | number> = {}, orgId = team.org.id) {
  const params = new URLSearchParams({
    status,
    ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])),
  });
  return `${indicatorsUrl(orgId)}?${params.toString()}`;
}

/** The entries of one band; 200 asserted. */
async function band(status: ProgressStatus, query: Record<string, string>, as: TestUser = team.officer) {
  const res = await call(t.app, 'GET', bandUrl(status, query), { as });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown[];
}

/** Every band's entries for the filter, so a test sees that nothing landed elsewhere. */
async function allBands(query: Record<string, string>, as: TestUser = team.officer) {
  const bands: Record<string, unknown[]> = {};
  for (const status of STATUSES) bands[status] = await band(status, query, as);
  return bands;
}

/** All five bands with only the given ones filled. */
const only = (filled: Partial<Record<ProgressStatus, unknown[]>>) => ({
  on_track: [],
  at_risk: [],
  off_track: [],
  no_target: [],
  no_data: [],
  ...filled,
});

describe('GET /orgs/:orgId/indicators?status=: which reports count', () => {
  it('counts submitted and approved reports only: drafts and rejected ones neither add values nor targets', async () => {
    const { project, indicator, reports } = await scenario('sum', 100, [
      [1, 30, null, 'approved'],
      [2, 20, null, 'submitted'],
      [3, 40, 10, 'draft'],
      [4, 50, 10, 'rejected'],
    ]);
    expect(await allBands({ projectId: project.id })).toEqual(
      only({ off_track: [entry(indicator, project, progress(50, 100, 50, 'off_track', 50))] }),
    );
    // Submitted again after the rejection, it counts: value and period target.
    await act(t.app, team.officer, team.org.id, reports[3]!.id, 'submit');
    expect(await allBands({ projectId: project.id })).toEqual(
      only({ on_track: [entry(indicator, project, progress(100, 10, 1000, 'on_track', -90))] }),
    );
  });

  it('has no data when no report counts, whatever drafts and rejected reports hold', async () => {
    const { project, indicator } = await scenario('sum', 100, [
      [1, 95, 20, 'draft'],
      [2, 95, 20, 'rejected'],
    ]);
    const bare = await newIndicator();
    await linkIndicator(t.app, team.officer, team.org.id, project.id, bare.id, { target: 5 });
    const expected = [
      entry(indicator, project, progress(null, 100, null, 'no_data', null)),
      entry(bare, project, progress(null, 5, null, 'no_data', null)),
    ].sort((a, b) => a.code.toLowerCase().localeCompare(b.code.toLowerCase()));
    expect(await allBands({ projectId: project.id })).toEqual(only({ no_data: expected }));
  });
});

describe('GET /orgs/:orgId/indicators?status=: aggregation and cumulative target', () => {
  it('sum: adds the values and the counted periods’ targets (the link target is not used)', async () => {
    const { project, indicator } = await scenario('sum', 500, [
      [1, 30, 40],
      [2, 30, 30, 'submitted'],
      [3, 32, 30],
      [4, 5, 1000, 'draft'],
    ]);
    expect(await band('on_track', { projectId: project.id })).toEqual([
      entry(indicator, project, progress(92, 100, 92, 'on_track', 8)),
    ]);
  });

  it('sum: a counted period without a target adds nothing to the cumulative target', async () => {
    const { project, indicator } = await scenario('sum', 500, [
      [1, 30, 40],
      [2, 20, null],
    ]);
    expect(await band('on_track', { projectId: project.id })).toEqual([
      entry(indicator, project, progress(50, 40, 125, 'on_track', -10)),
    ]);
  });

  it('average: averages the values against the target of the latest period (by start) that has one', async () => {
    const { project, indicator } = await scenario('average', 500, [
      [3, 100, 100],
      [1, 60, 50],
      [2, 80, null],
    ]);
    expect(await allBands({ projectId: project.id })).toEqual(
      only({ at_risk: [entry(indicator, project, progress(80, 100, 80, 'at_risk', 20))] }),
    );
  });

  it('latest: takes the period that starts last, not the report created last', async () => {
    const { project, indicator } = await scenario('latest', 500, [
      [3, 45, 60],
      [1, 100, 200],
      [2, 10, null],
      [4, 1, 1, 'draft'],
    ]);
    expect(await allBands({ projectId: project.id })).toEqual(
      only({ at_risk: [entry(indicator, project, progress(45, 60, 75, 'at_risk', 15))] }),
    );
  });

  it('min: the smallest value, against the link target when no period has a target', async () => {
    const { project, indicator } = await scenario('min', 10, [
      [1, 30],
      [3, 10],
      [2, 20],
      [4, 5, null, 'rejected'],
    ]);
    expect(await allBands({ projectId: project.id })).toEqual(
      only({ on_track: [entry(indicator, project, progress(10, 10, 100, 'on_track', 0))] }),
    );
  });

  it('max: the largest value, against the latest period’s target', async () => {
    const { project, indicator } = await scenario('max', 1000, [
      [2, 10, 50],
      [1, 30, 20],
      [3, 20, 40],
      [4, 99, 99, 'draft'],
    ]);
    expect(await allBands({ projectId: project.id })).toEqual(
      only({ at_risk: [entry(indicator, project, progress(30, 40, 75, 'at_risk', 10))] }),
    );
  });

  it('no_target when the link target is null or 0 and no counted period has a target', async () => {
    const none = await scenario('sum', null, [
      [1, 10],
      [2, 5],
    ]);
    expect(await allBands({ projectId: none.project.id })).toEqual(
      only({ no_target: [entry(none.indicator, none.project, progress(15, null, null, 'no_target', null))] }),
    );
    const zero = await scenario('sum', 0, [
      [1, 10],
      [2, 5, null, 'submitted'],
    ]);
    expect(await allBands({ projectId: zero.project.id })).toEqual(
      only({ no_target: [entry(zero.indicator, zero.project, progress(15, 0, null, 'no_target', -15))] }),
    );
  });

  it('bands on the percent: exactly 90 is on_track, exactly 70 at_risk, just below each the next band', async () => {
    const project = await newProject();
    const period = await quarter(project.id, 1);
    const scored = async (value: number) => {
      const indicator = await newIndicator();
      await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target: 100 });
      await report(project, indicator, period.id, value);
      return indicator;
    };
    const [ninety, justBelowNinety, seventy, justBelowSeventy] = [
      await scored(90),
      await scored(89.9),
      await scored(70),
      await scored(69.9),
    ];
    expect(await allBands({ projectId: project.id })).toEqual(
      only({
        on_track: [entry(ninety, project, progress(90, 100, 90, 'on_track', 10))],
        at_risk: [
          entry(seventy, project, progress(70, 100, 70, 'at_risk', 30)),
          entry(justBelowNinety, project, progress(89.9, 100, 89.9, 'at_risk', 10.1)),
        ],
        off_track: [entry(justBelowSeventy, project, progress(69.9, 100, 69.9, 'off_track', 30.1))],
      }),
    );
  });
});

describe('GET /orgs/:orgId/indicators?status=: formula indicators', () => {
  it('evaluates the formula over the inputs’ aggregates in the same project, against the link target', async () => {
    const [project, elsewhere] = [await newProject('Schools'), await newProject('Clinics')];
    const tag = indicatorCode('F');
    const a = await newIndicator({ code: `A_${tag}`, aggregationMethod: 'sum' });
    const b = await newIndicator({ code: `B_${tag}`, aggregationMethod: 'latest' });
    // Codes in a formula may be written in any case.
    const f = await newFormula(`F_${tag}`, `a_${tag} / B_${tag} * 100`);
    const g = await newFormula(`G_${tag}`, `F_${tag} * 2`);
    for (const [indicator, target] of [
      [a, null],
      [b, null],
      [f, 60],
      [g, 100],
    ] as const) {
      await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target });
    }
    const [q1, q2] = [await quarter(project.id, 1), await quarter(project.id, 2)];
    await report(project, a, q1.id, 30);
    await report(project, a, q2.id, 10, null, 'submitted');
    await report(project, b, q2.id, 80);
    await report(project, b, q1.id, 100);
    // Values of the inputs in another project do not enter this project's formula.
    await linkIndicator(t.app, team.officer, team.org.id, elsewhere.id, a.id);
    await report(elsewhere, a, (await quarter(elsewhere.id, 1)).id, 1000);

    expect(await allBands({ projectId: project.id })).toEqual(
      only({
        on_track: [entry(g, project, progress(100, 100, 100, 'on_track', 0))],
        at_risk: [entry(f, project, progress(50, 60, 83.3, 'at_risk', 10))],
        no_target: [
          entry(a, project, progress(40, null, null, 'no_target', null)),
          entry(b, project, progress(80, null, null, 'no_target', null)),
        ],
      }),
    );
  });

  it('has no data when an input has no counted report, or when the formula divides by zero', async () => {
    const project = await newProject();
    const tag = indicatorCode('N');
    const a = await newIndicator({ code: `A_${tag}` });
    const c = await newIndicator({ code: `C_${tag}` });
    const z = await newIndicator({ code: `Z_${tag}` });
    const unlinked = await newIndicator({ code: `U_${tag}` });
    const missing = await newFormula(`M_${tag}`, `A_${tag} + C_${tag}`);
    const notLinked = await newFormula(`N_${tag}`, `A_${tag} + U_${tag}`);
    const divided = await newFormula(`D_${tag}`, `A_${tag} / Z_${tag}`);
    for (const indicator of [a, c, z]) {
      await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id);
    }
    for (const indicator of [missing, notLinked, divided]) {
      await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target: 10 });
    }
    const period = await quarter(project.id, 1);
    await report(project, a, period.id, 10);
    await report(project, c, period.id, 4, null, 'draft');
    await report(project, z, period.id, 0);
    // U has reports in another project only.
    const other = await newProject();
    await linkIndicator(t.app, team.officer, team.org.id, other.id, unlinked.id);
    await report(other, unlinked, (await quarter(other.id, 1)).id, 3);

    expect(await allBands({ projectId: project.id })).toEqual(
      only({
        no_target: [
          entry(a, project, progress(10, null, null, 'no_target', null)),
          entry(z, project, progress(0, null, null, 'no_target', null)),
        ],
        no_data: [
          entry(c, project, progress(null, null, null, 'no_data', null)),
          entry(divided, project, progress(null, 10, null, 'no_data', null)),
          entry(missing, project, progress(null, 10, null, 'no_data', null)),
          entry(notLinked, project, progress(null, 10, null, 'no_data', null)),
        ],
      }),
    );
  });
});

describe('GET /orgs/:orgId/indicators?status=: pairs, order, filters and access', () => {
  const newNode = async () => {
    const program = await createProgram(t.database.db, team.org.id);
    return insertResultNode(t.database.db, team.org.id, program.id, 'impact', null, 0);
  };

  /** Links the indicator to the project with `target` and one approved report of `value` in its quarter 1. */
  const firstQuarters = new Map<string, string>();
  async function scoredIn(project: Project, indicator: Indicator, value: number, target: number) {
    await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target });
    if (!firstQuarters.has(project.id)) firstQuarters.set(project.id, (await quarter(project.id, 1)).id);
    await report(project, indicator, firstQuarters.get(project.id)!, value);
  }

  it('gives one entry per project of an indicator, largest gap first, then by code, then project name', async () => {
    const node = await newNode();
    const [zeta, alpha] = [await newProject('Zeta Wells'), await newProject('Alpha Latrines')];
    const tag = indicatorCode('O');
    const [x, y, z, w] = [
      await newIndicator({ code: `a_${tag}`, resultNodeId: node.id }),
      await newIndicator({ code: `B_${tag}`, resultNodeId: node.id }),
      await newIndicator({ code: `c_${tag}`, resultNodeId: node.id }),
      await newIndicator({ code: `d_${tag}`, resultNodeId: node.id }),
    ];
    const detached = await newIndicator({ code: `e_${tag}` });
    await scoredIn(zeta, x, 10, 100);
    await scoredIn(alpha, x, 30, 100);
    await scoredIn(zeta, y, 30, 100);
    await scoredIn(alpha, z, 60, 200);
    await scoredIn(zeta, w, 50, 100);
    await scoredIn(alpha, w, 50, 100);
    await scoredIn(zeta, detached, 0, 100);

    expect(await band('off_track', { resultNodeId: node.id })).toEqual([
      entry(z, alpha, progress(60, 200, 30, 'off_track', 140)),
      entry(x, zeta, progress(10, 100, 10, 'off_track', 90)),
      entry(x, alpha, progress(30, 100, 30, 'off_track', 70)),
      entry(y, zeta, progress(30, 100, 30, 'off_track', 70)),
      entry(w, alpha, progress(50, 100, 50, 'off_track', 50)),
      entry(w, zeta, progress(50, 100, 50, 'off_track', 50)),
    ]);
  });

  it('combines the projectId and resultNodeId filters with status', async () => {
    const [node, otherNode] = [await newNode(), await newNode()];
    const [first, second] = [await newProject('Alpha'), await newProject('Beta')];
    const tag = indicatorCode('C');
    const onNode = await newIndicator({ code: `a_${tag}`, resultNodeId: node.id });
    const onOther = await newIndicator({ code: `b_${tag}`, resultNodeId: otherNode.id });
    const detached = await newIndicator({ code: `c_${tag}` });
    await scoredIn(first, onNode, 80, 100);
    await scoredIn(second, onNode, 80, 100);
    await scoredIn(first, onOther, 75, 100);
    await scoredIn(first, detached, 85, 100);

    const both = { projectId: first.id, resultNodeId: node.id };
    expect(await band('at_risk', both)).toEqual([entry(onNode, first, progress(80, 100, 80, 'at_risk', 20))]);
    expect(await band('at_risk', { resultNodeId: node.id })).toEqual([
      entry(onNode, first, progress(80, 100, 80, 'at_risk', 20)),
      entry(onNode, second, progress(80, 100, 80, 'at_risk', 20)),
    ]);
    expect(await band('at_risk', { projectId: first.id })).toEqual([
      entry(onOther, first, progress(75, 100, 75, 'at_risk', 25)),
      entry(onNode, first, progress(80, 100, 80, 'at_risk', 20)),
      entry(detached, first, progress(85, 100, 85, 'at_risk', 15)),
    ]);
    expect(await band('on_track', both)).toEqual([]);
    expect(await band('at_risk', { projectId: second.id, resultNodeId: otherNode.id })).toEqual([]);
  });

  it('answers 404 for a filter naming a project or result node of another organization, or a missing one', async () => {
    const foreignProject = await newProject('Theirs', team.outsiderOrg.id);
    const foreignProgram = await createProgram(t.database.db, team.outsiderOrg.id);
    const foreignNode = await insertResultNode(
      t.database.db,
      team.outsiderOrg.id,
      foreignProgram.id,
      'impact',
      null,
      0,
    );
    for (const projectId of [foreignProject.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'GET', bandUrl('on_track', { projectId }), { as: team.officer }),
        notFoundBody('Project'),
      );
    }
    for (const resultNodeId of [foreignNode.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'GET', bandUrl('on_track', { resultNodeId }), { as: team.officer }),
        notFoundBody('Result node'),
      );
    }
  });

  it('gives a reporter only the pairs of projects assigned to them; viewers see all', async () => {
    const node = await newNode();
    const [assigned, unassigned] = [await newProject('Assigned'), await newProject('Unassigned')];
    await assignProject(t.database.db, team.org.id, assigned.id, team.reporter.id);
    const tag = indicatorCode('R');
    const base = await newIndicator({ code: `I_${tag}`, resultNodeId: node.id });
    const doubled = await newFormula(`F_${tag}`, `I_${tag} * 2`, { resultNodeId: node.id });
    await scoredIn(assigned, base, 20, 100);
    await scoredIn(unassigned, base, 40, 100);
    await linkIndicator(t.app, team.officer, team.org.id, assigned.id, doubled.id, { target: 1000 });

    const inAssigned = [
      entry(doubled, assigned, progress(40, 1000, 4, 'off_track', 960)),
      entry(base, assigned, progress(20, 100, 20, 'off_track', 80)),
    ];
    const all = [...inAssigned, entry(base, unassigned, progress(40, 100, 40, 'off_track', 60))];
    // In no band at all, not even as no_data: the unassigned project's pair does not exist for the reporter.
    expect(await allBands({ resultNodeId: node.id }, team.reporter)).toEqual(only({ off_track: inAssigned }));
    expect(await band('off_track', { resultNodeId: node.id, projectId: assigned.id }, team.reporter)).toEqual(
      inAssigned,
    );
    expect(await band('off_track', { resultNodeId: node.id }, team.viewer)).toEqual(all);
    expect(await band('off_track', { resultNodeId: node.id }, team.admin)).toEqual(all);
    expectError(
      await call(t.app, 'GET', bandUrl('off_track', { projectId: unassigned.id }), { as: team.reporter }),
      FORBIDDEN,
    );
  });

  it('never shows another organization’s indicators, projects or reports', async () => {
    const tag = indicatorCode('X');
    const code = `S_${tag}`;
    const ours = await newProject('Ours');
    const mine = await newIndicator({ code });
    const myDouble = await newFormula(`D_${tag}`, `${code} * 2`);
    await scoredIn(ours, mine, 10, 100);
    await linkIndicator(t.app, team.officer, team.org.id, ours.id, myDouble.id, { target: 100 });
    // The other organization uses the same codes, with data that would put ours on track.
    const theirs = await newProject('Theirs', team.outsiderOrg.id);
    const foreign = await newIndicator({ code }, team.outsider, team.outsiderOrg.id);
    const theirDouble = (await postIndicator(t.app, team.outsider, team.outsiderOrg.id, {
      code: `D_${tag}`,
      formula: `${code} * 2`,
      aggregationMethod: undefined,
    })) as Indicator;
    for (const indicator of [foreign, theirDouble]) {
      await linkIndicator(t.app, team.outsider, team.outsiderOrg.id, theirs.id, indicator.id, {
        target: 100,
      });
    }
    const period = await quarter(theirs.id, 1, team.outsiderOrg.id);
    const opts = { as: team.outsider, reviewer: team.outsider, orgId: team.outsiderOrg.id };
    await report(theirs, foreign, period.id, 95, null, 'approved', opts);

    const everything = (await Promise.all(STATUSES.map((status) => band(status, {})))).flat() as {
      orgId: string;
      project: Project;
    }[];
    expect(everything.filter((e) => e.orgId !== team.org.id || e.project.id === theirs.id)).toEqual([]);
    expect(await band('off_track', { projectId: ours.id })).toEqual([
      entry(mine, ours, progress(10, 100, 10, 'off_track', 90)),
      entry(myDouble, ours, progress(20, 100, 20, 'off_track', 80)),
    ]);

    const outsiderView = await call(t.app, 'GET', bandUrl('on_track', {}, team.outsiderOrg.id), {
      as: team.outsider,
    });
    expect([outsiderView.status, outsiderView.body]).toEqual([
      200,
      [
        entry(foreign, theirs, progress(95, 100, 95, 'on_track', 5)),
        entry(theirDouble, theirs, progress(190, 100, 190, 'on_track', -90)),
      ],
    ]);
    expectError(
      await call(t.app, 'GET', bandUrl('on_track', { projectId: theirs.id }), { as: team.officer }),
      notFoundBody('Project'),
    );
    expectError(await call(t.app, 'GET', bandUrl('on_track'), { as: team.outsider }), FORBIDDEN);
    expectError(await call(t.app, 'GET', bandUrl('on_track')), UNAUTHORIZED);
  });
});

describe('GET /orgs/:orgId/indicators?status=: query checks and paging', () => {
  it('rejects an unknown status with 400', async () => {
    const res = await call(t.app, 'GET', bandUrl('bogus'), { as: team.officer });
    expect([res.status, res.body]).toEqual([
      400,
      badRequest('status must be one of: on_track, at_risk, off_track, no_target, no_data'),
    ]);
    const paged = await call(t.app, 'GET', bandUrl('on_track', { page: 0 }), { as: team.officer });
    expect(paged.body).toEqual(badRequest('page must not be less than 1'));
  });

  it('pages with the envelope and the total of the band', async () => {
    const project = await newProject();
    const period = await quarter(project.id, 1);
    const tag = indicatorCode('P');
    const scored = async (code: string, value: number) => {
      const indicator = await newIndicator({ code });
      await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target: 100 });
      await report(project, indicator, period.id, value);
      return indicator;
    };
    const [small, large, middle] = [
      await scored(`a_${tag}`, 60),
      await scored(`b_${tag}`, 10),
      await scored(`c_${tag}`, 30),
    ];
    await scored(`d_${tag}`, 95);
    const expected = [
      entry(large, project, progress(10, 100, 10, 'off_track', 90)),
      entry(middle, project, progress(30, 100, 30, 'off_track', 70)),
      entry(small, project, progress(60, 100, 60, 'off_track', 40)),
    ];
    const page = async (query: Record<string, number>) => {
      const res = await call(t.app, 'GET', bandUrl('off_track', { projectId: project.id, ...query }), {
        as: team.viewer,
      });
      expect(res.status).toBe(200);
      return res.body as unknown;
    };
    expect(await page({ limit: 2 })).toEqual({
      data: expected.slice(0, 2),
      meta: { total: 3, page: 1, limit: 2, totalPages: 2 },
    });
    expect(await page({ page: 2, limit: 2 })).toEqual({
      data: expected.slice(2),
      meta: { total: 3, page: 2, limit: 2, totalPages: 2 },
    });
    expect(await page({ page: 1 })).toEqual({
      data: expected,
      meta: { total: 3, page: 1, limit: 20, totalPages: 1 },
    });
    expect(await page({ page: 3, limit: 2 })).toEqual({
      data: [],
      meta: { total: 3, page: 3, limit: 2, totalPages: 2 },
    });
  });
});
