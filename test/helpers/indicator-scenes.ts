import { asc, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { indicators, projectIndicators } from '../../src/modules/indicators/indicators.tables.js';
import { createProject, type TestUser } from './factories.js';
import { call, conflictBody, TIMESTAMP } from './http.js';
import {
  indicatorsUrl,
  indicatorUrl,
  linkIndicator,
  linksUrl,
  postIndicator,
  postReport,
} from './indicators.js';
import { createPeriod } from './periods.js';
import { createProgram, insertResultNode } from './results.js';
import type { Suite } from './suite.js';

/** Calls and fixtures of the indicator route tests (indicators, indicator-formulas, indicators-update). */
export function indicatorScene(suite: Suite) {
  const app = () => suite().t.app;
  const db = () => suite().t.database.db;
  const team = () => suite().team;

  const create = (body: unknown, as: TestUser = team().officer, orgId = team().org.id) =>
    call(app(), 'POST', indicatorsUrl(orgId), { as, body });
  const patch = (id: string, body: unknown, as: TestUser = team().officer) =>
    call(app(), 'PATCH', indicatorUrl(team().org.id, id), { as, body });
  const remove = (id: string, as: TestUser = team().officer) =>
    call(app(), 'DELETE', indicatorUrl(team().org.id, id), { as });
  const list = (query = '', as: TestUser = team().viewer) =>
    call(app(), 'GET', `${indicatorsUrl(team().org.id)}${query}`, { as });

  /** A plain indicator of the team's organization. */
  const indicator = (body: Record<string, unknown> = {}) =>
    postIndicator(app(), team().officer, team().org.id, body);
  /** A formula indicator over `formula`, without an aggregationMethod. */
  const formulaIndicator = (formula: string, body: Record<string, unknown> = {}) =>
    indicator({ formula, aggregationMethod: undefined, ...body });

  /** An impact node of a program of its own. */
  async function newNode(orgId = team().org.id) {
    const program = await createProgram(db(), orgId);
    return insertResultNode(db(), orgId, program.id, 'impact', null, 0);
  }

  async function stored(id: string) {
    const [row] = await db().select().from(indicators).where(eq(indicators.id, id));
    return row;
  }

  /** A draft report of the indicator in a project of its own (linked, with one period). */
  async function reportOn(indicatorId: string, body: Record<string, unknown> = { value: 5 }) {
    const project = await createProject(db(), team().org.id);
    const period = await createPeriod(db(), team().org.id, project.id);
    await linkIndicator(app(), team().officer, team().org.id, project.id, indicatorId);
    return postReport(app(), team().officer, team().org.id, project.id, {
      indicatorId,
      reportingPeriodId: period.id,
      ...body,
    });
  }

  return { create, patch, remove, list, indicator, formulaIndicator, newNode, stored, reportOn };
}

/** A link as every project-indicator route returns it. */
export const linkJson = (
  projectId: string,
  indicator: Record<string, unknown> & { id: string },
  values: { target?: number | null; baseline?: number | null; baselineYear?: number | null } = {},
) => ({
  projectId,
  indicatorId: indicator.id,
  target: null,
  baseline: null,
  baselineYear: null,
  ...values,
  createdAt: expect.stringMatching(TIMESTAMP),
  updatedAt: expect.stringMatching(TIMESTAMP),
  indicator,
});

/** Fixtures of the project-indicator link tests (project-indicators, project-indicators-update). */
export function projectIndicatorScene(suite: Suite) {
  const app = () => suite().t.app;
  const db = () => suite().t.database.db;
  const team = () => suite().team;

  const linkUrl = (projectId: string, indicatorId: string, orgId = team().org.id) =>
    `${linksUrl(orgId, projectId)}/${indicatorId}`;

  /** The project's link rows as stored, oldest indicator id first. */
  const storedLinks = (projectId: string) =>
    db()
      .select({
        indicatorId: projectIndicators.indicatorId,
        target: projectIndicators.target,
        baseline: projectIndicators.baseline,
        baselineYear: projectIndicators.baselineYear,
      })
      .from(projectIndicators)
      .where(eq(projectIndicators.projectId, projectId))
      .orderBy(asc(projectIndicators.indicatorId));

  const newProject = () => createProject(db(), team().org.id);
  const newIndicator = (body: Record<string, unknown> = {}) =>
    postIndicator(app(), team().officer, team().org.id, body) as Promise<
      Record<string, unknown> & { id: string }
    >;

  return { linkUrl, storedLinks, newProject, newIndicator };
}

export { conflictBody };
export const CODE_TAKEN = conflictBody('An indicator with this code already exists');
