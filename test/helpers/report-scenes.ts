import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { indicatorReports } from '../../src/modules/indicator-reports/indicator-reports.tables.js';
import { createProject, type TestUser } from './factories.js';
import { call } from './http.js';
import {
  indicatorCode,
  linkIndicator,
  postDisaggregation,
  postIndicator,
  postReport,
  reportsUrl,
  reportUrl,
  type IndicatorJson,
  type ReportJson,
} from './indicators.js';
import { createPeriod } from './periods.js';
import type { Suite } from './suite.js';

export const LOCKED = {
  statusCode: 403,
  message: 'Reporting period is locked',
  error: 'Forbidden',
  code: 'period_locked' as const,
};
export const UNKNOWN = (key: string) =>
  `disaggregatedValues.${key} is not a category of the indicator’s disaggregations`;
export const DIFFERS = (total: number) => `value must equal the total of disaggregatedValues (${total})`;
export const UNEQUAL = (listed: string) =>
  `disaggregatedValues: every disaggregation must add up to the same total (${listed})`;
export const NOT_EDITABLE = (status: string) =>
  `Indicator report can only be edited while draft or rejected; this one is ${status}`;

export const SEX: [string, string[]] = ['Sex', ['female', 'male']];
export const AGE: [string, string[]] = ['Age', ['child', 'adult']];

export interface Scene {
  orgId: string;
  project: { id: string; name: string };
  indicator: IndicatorJson;
  period: { id: string };
}

/** Scenes and calls of the indicator report tests (indicator-reports, -list, -update). */
export function reportScene(suite: Suite) {
  const app = () => suite().t.app;
  const db = () => suite().t.database.db;
  const team = () => suite().team;

  /** A project with one linked indicator (with these disaggregations) and one reporting period. */
  async function scene(
    options: { dimensions?: [string, string[]][]; as?: TestUser; orgId?: string; code?: string } = {},
  ): Promise<Scene> {
    const orgId = options.orgId ?? team().org.id;
    const as = options.as ?? team().officer;
    const project = await createProject(db(), orgId);
    const indicator = await postIndicator(app(), as, orgId, { code: options.code ?? indicatorCode() });
    for (const [name, categories] of options.dimensions ?? []) {
      await postDisaggregation(app(), as, orgId, indicator.id, name, categories);
    }
    await linkIndicator(app(), as, orgId, project.id, indicator.id);
    const period = await createPeriod(db(), orgId, project.id);
    return { orgId, project, indicator, period };
  }

  const create = (s: Scene, body: Record<string, unknown>, as: TestUser | null = team().officer) =>
    call(app(), 'POST', reportsUrl(s.orgId, s.project.id), {
      as,
      body: { indicatorId: s.indicator.id, reportingPeriodId: s.period.id, ...body },
    });

  const newReport = (s: Scene, body: Record<string, unknown> = {}) =>
    postReport(app(), team().officer, s.orgId, s.project.id, {
      indicatorId: s.indicator.id,
      reportingPeriodId: s.period.id,
      ...body,
    });

  const patch = (id: string, body: unknown, as: TestUser | null = team().officer) =>
    call(app(), 'PATCH', reportUrl(team().org.id, id), { as, body });

  async function get(id: string): Promise<ReportJson> {
    const res = await call(app(), 'GET', reportUrl(team().org.id, id), { as: team().admin });
    expect(res.status).toBe(200);
    return res.body as ReportJson;
  }

  const reportsOf = (projectId: string) =>
    db().select().from(indicatorReports).where(eq(indicatorReports.projectId, projectId));

  async function stored(id: string) {
    const [row] = await db().select().from(indicatorReports).where(eq(indicatorReports.id, id));
    return row;
  }

  return { scene, create, newReport, patch, get, reportsOf, stored };
}
