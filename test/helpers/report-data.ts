import { expect } from 'vitest';
import { progressOf, targetToDate, type AggregationMethod } from '../../src/lib/scoring.js';
import type { TestUser } from './factories.js';
import { call } from './http.js';
import { act, linkIndicator, postReport } from './indicators.js';
import type { PeriodRow } from './periods.js';
import { progressScene, type Fate, type Indicator, type Project } from './progress-scenes.js';
import type { Suite } from './suite.js';

export const orgReportsUrl = (orgId: string) => `/orgs/${orgId}/reports`;
export const projectReportsUrl = (orgId: string, projectId: string) =>
  `/orgs/${orgId}/projects/${projectId}/reports`;

export type Status = 'on_track' | 'at_risk' | 'off_track' | 'no_target' | 'no_data';

/** One row of an entry's per-period breakdown. */
export const at = (period: PeriodRow, value: number | null, target: number | null = null) => ({
  periodId: period.id,
  label: period.label,
  value,
  target,
});

/** The indicator entry a report shows for an indicator created through the API; unset fields empty. */
export function indicatorEntry(
  indicator: Indicator,
  score: { value: number | null; target: number | null; progressPct: number | null; status: Status },
  rest: {
    periods: ReturnType<typeof at>[];
    narrative?: string;
    disaggregatedValues?: Record<string, number>;
    baseline?: number | null;
    resultNode?: { id: string; level: string; title: string } | null;
    /** By default: nothing counted from forms (the values were typed in), the rest unchecked. */
    provenance?: unknown;
    /** A formula's inputs; by default any. */
    inputs?: { code: string; value: number | null }[];
    /**
     * The to-date figures; by default those of the periods' targets shown (when only submitted and approved
     * reports hold targets, they are all the periods' targets).
     */
    toDate?: { targetToDate: number | null; progressToDatePct: number | null; statusToDate: Status | null };
  },
) {
  const formula = indicator.isFormula === true;
  const toDateTarget =
    formula || !indicator.aggregationMethod
      ? null
      : targetToDate(
          indicator.aggregationMethod as AggregationMethod,
          rest.periods.map((p, i) => ({ periodStart: String(i).padStart(4, '0'), target: p.target })),
        );
  const toDateScore = progressOf(score.value, toDateTarget);
  const toDate = rest.toDate ?? {
    targetToDate: toDateTarget,
    progressToDatePct: toDateScore.progressPct,
    statusToDate: toDateScore.status,
  };
  // Values typed in through the API: all manual.
  const typedIn = (manual?: number) =>
    expect.objectContaining({
      counted: 0,
      submissions: 0,
      prefill: null,
      ...(manual === undefined ? {} : { manual }),
    });
  return {
    indicatorId: indicator.id,
    indicatorName: indicator.name,
    code: indicator.code,
    unit: indicator.unit,
    aggregationMethod: indicator.aggregationMethod,
    ...score,
    ...toDate,
    baseline: rest.baseline ?? null,
    narrative: rest.narrative ?? '',
    disaggregatedValues: rest.disaggregatedValues ?? {},
    resultNode: rest.resultNode ?? null,
    provenance: formula ? null : (rest.provenance ?? typedIn()),
    inputs: formula ? (rest.inputs ?? expect.any(Array)) : null,
    periods: rest.periods,
  };
}

/** Scenes of the report assembly tests: projects with indicators, values and assembled reports. */
export function reportData(suite: Suite) {
  const app = () => suite().t.app;
  const team = () => suite().team;
  const scene = progressScene(suite);

  /** An indicator of the org linked to the project with `link` (target, baseline). */
  async function linked(project: Project, body: Record<string, unknown>, link: Record<string, unknown> = {}) {
    const indicator = await scene.newIndicator(body);
    await linkIndicator(app(), team().officer, team().org.id, project.id, indicator.id, link);
    return indicator;
  }

  /** Links an existing indicator (a formula, say) to the project. */
  const link = (project: Project, indicator: Indicator, body: Record<string, unknown> = {}) =>
    linkIndicator(app(), team().officer, team().org.id, project.id, indicator.id, body);

  /** A value with any fields (narrative, disaggregatedValues) moved through the workflow to `fate`. */
  async function value(
    project: Project,
    indicator: Indicator,
    period: PeriodRow,
    body: Record<string, unknown>,
    fate: Fate = 'approved',
  ) {
    const { officer, admin, org } = team();
    const created = await postReport(app(), officer, org.id, project.id, {
      indicatorId: indicator.id,
      reportingPeriodId: period.id,
      ...body,
    });
    if (fate !== 'draft') await act(app(), officer, org.id, created.id, 'submit');
    if (fate === 'approved') await act(app(), admin, org.id, created.id, 'approve');
    if (fate === 'rejected') await act(app(), admin, org.id, created.id, 'reject');
    return created;
  }

  /** The project's quarters 1 to `n` of 2026. */
  async function quarters(project: Project, n = 4) {
    const rows: PeriodRow[] = [];
    for (let q = 1; q <= n; q++) rows.push(await scene.quarter(project.id, q));
    return rows;
  }

  /** POST .../projects/:projectId/reports over a date range. */
  const postRange = (
    projectId: string,
    body: Record<string, unknown>,
    as: TestUser = team().officer,
    orgId = team().org.id,
  ) =>
    call(app(), 'POST', projectReportsUrl(orgId, projectId), {
      as,
      body: { title: 'Quarterly report', ...body },
    });

  /** POST /orgs/:orgId/reports. */
  const postOrg = (body: Record<string, unknown>, as: TestUser = team().officer, orgId = team().org.id) =>
    call(app(), 'POST', orgReportsUrl(orgId), {
      as,
      body: { title: 'Donor report', reportType: 'quarterly', ...body },
    });

  /** A report assembled over the range; 201 asserted. */
  async function assembleRange(projectId: string, startDate: string, endDate: string) {
    const res = await postRange(projectId, { startDate, endDate });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }

  /** A report assembled from chosen periods; 201 asserted. */
  async function assemblePeriods(projectId: string, periodIds: string[]) {
    const res = await postOrg({ projectId, periodIds });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }

  return { ...scene, linked, link, value, quarters, postRange, postOrg, assembleRange, assemblePeriods };
}
