import { expect } from 'vitest';
import type { AggregationMethod, Progress, ProgressStatus } from '../../src/lib/scoring.js';
import { createProject, type TestUser } from './factories.js';
import { call } from './http.js';
import { act, indicatorsUrl, linkIndicator, postIndicator, postReport } from './indicators.js';
import { createPeriod } from './periods.js';
import type { Suite } from './suite.js';

export type Indicator = Record<string, unknown> & { id: string; code: string };
export type Project = { id: string; name: string };
export type Fate = 'draft' | 'submitted' | 'approved' | 'rejected';

export const STATUSES: ProgressStatus[] = ['on_track', 'at_risk', 'off_track', 'no_target', 'no_data'];
const QUARTERS = [
  ['2026-01-01', '2026-03-31'],
  ['2026-04-01', '2026-06-30'],
  ['2026-07-01', '2026-09-30'],
  ['2026-10-01', '2026-12-31'],
] as const;

/** [quarter, value, period target, fate] */
type Row = [number, number, (number | null)?, Fate?];

export const entry = (indicator: Indicator, project: Project, progress: Progress) => ({
  ...indicator,
  project: { id: project.id, name: project.name },
  progress,
});

export const progress = (
  value: number | null,
  target: number | null,
  progressPct: number | null,
  status: ProgressStatus,
  gap: number | null,
): Progress => ({ value, target, progressPct, status, gap });

/** All five bands with only the given ones filled. */
export const only = (filled: Partial<Record<ProgressStatus, unknown[]>>) => ({
  on_track: [],
  at_risk: [],
  off_track: [],
  no_target: [],
  no_data: [],
  ...filled,
});

/** Projects, indicators and reports of the progress tests, and the bands they land in. */
export function progressScene(suite: Suite) {
  const app = () => suite().t.app;
  const db = () => suite().t.database.db;
  const team = () => suite().team;

  const newProject = (name = 'Clean Water', orgId = team().org.id) => createProject(db(), orgId, name);

  const newIndicator = (
    body: Record<string, unknown> = {},
    as: TestUser = team().officer,
    orgId = team().org.id,
  ) => postIndicator(app(), as, orgId, body) as Promise<Indicator>;

  /** A formula indicator over `formula`, without an aggregation method of its own. */
  const newFormula = (code: string, formula: string, body: Record<string, unknown> = {}) =>
    newIndicator({ code, formula, aggregationMethod: undefined, ...body });

  /** Quarter `n` (1 to 4) of 2026 as a reporting period of the project. */
  const quarter = (projectId: string, n: number, orgId = team().org.id) => {
    const [startDate, endDate] = QUARTERS[n - 1]!;
    return createPeriod(db(), orgId, projectId, { label: `Q${n} 2026`, startDate, endDate });
  };

  /** A report moved through the workflow to `fate` by the officer (submit) and the admin (review). */
  async function report(
    project: Project,
    indicator: Indicator,
    periodId: string,
    value: number,
    target: number | null = null,
    fate: Fate = 'approved',
    { as = team().officer, reviewer = team().admin, orgId = team().org.id } = {},
  ) {
    const created = await postReport(app(), as, orgId, project.id, {
      indicatorId: indicator.id,
      reportingPeriodId: periodId,
      value,
      target,
    });
    if (fate !== 'draft') await act(app(), as, orgId, created.id, 'submit');
    if (fate === 'approved') await act(app(), reviewer, orgId, created.id, 'approve');
    if (fate === 'rejected') await act(app(), reviewer, orgId, created.id, 'reject');
    return created;
  }

  /**
   * A project of its own with one indicator of `method`, linked with `linkTarget`, and a report per row, created
   * in the rows' order; each quarter's period is created when a row first names it.
   */
  async function scenario(method: AggregationMethod, linkTarget: number | null, rows: Row[]) {
    const project = await newProject();
    const indicator = await newIndicator({ aggregationMethod: method });
    await linkIndicator(app(), team().officer, team().org.id, project.id, indicator.id, {
      target: linkTarget,
    });
    const periods = new Map<number, string>();
    const reports = [];
    for (const [n, value, target = null, fate = 'approved'] of rows) {
      if (!periods.has(n)) periods.set(n, (await quarter(project.id, n)).id);
      reports.push(await report(project, indicator, periods.get(n)!, value, target, fate));
    }
    return { project, indicator, reports };
  }

  function bandUrl(status: string, query: Record<string, string | number> = {}, orgId = team().org.id) {
    const params = new URLSearchParams({
      status,
      ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])),
    });
    return `${indicatorsUrl(orgId)}?${params.toString()}`;
  }

  /** The entries of one band; 200 asserted. */
  async function band(status: ProgressStatus, query: Record<string, string>, as: TestUser = team().officer) {
    const res = await call(app(), 'GET', bandUrl(status, query), { as });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as unknown[];
  }

  /** Every band's entries for the filter, so a test sees that nothing landed elsewhere. */
  async function allBands(query: Record<string, string>, as: TestUser = team().officer) {
    const bands: Record<string, unknown[]> = {};
    for (const status of STATUSES) bands[status] = await band(status, query, as);
    return bands;
  }

  return { newProject, newIndicator, newFormula, quarter, report, scenario, bandUrl, band, allBands };
}
