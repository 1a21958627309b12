import { and, asc, count, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { byCode } from './indicators.repo.js';
import { inWindow, type Window } from '../../db/window.js';
import { indicators, projectIndicators } from './indicators.tables.js';
import { resultNodes } from '../results/results.tables.js';

export type LinkValues = { target?: number | null; baseline?: number | null; baselineYear?: number | null };

const ofProject = (orgId: string, projectId: string) =>
  and(eq(projectIndicators.orgId, orgId), eq(projectIndicators.projectId, projectId));

const indicatorOfLink = and(
  eq(indicators.orgId, projectIndicators.orgId),
  eq(indicators.id, projectIndicators.indicatorId),
);

const linkWithIndicator = {
  projectId: projectIndicators.projectId,
  indicatorId: projectIndicators.indicatorId,
  target: projectIndicators.target,
  baseline: projectIndicators.baseline,
  baselineYear: projectIndicators.baselineYear,
  createdAt: projectIndicators.createdAt,
  updatedAt: projectIndicators.updatedAt,
  indicator: indicators,
};

export async function countLinks(db: Db, orgId: string, projectId: string): Promise<number> {
  const [row] = await db
    .select({ total: count() })
    .from(projectIndicators)
    .where(ofProject(orgId, projectId));
  return row?.total ?? 0;
}

/** The project's indicators by code (whatever the case), then id. */
export function listLinks(db: Db, orgId: string, projectId: string, window: Window) {
  return inWindow(
    db
      .select(linkWithIndicator)
      .from(projectIndicators)
      .innerJoin(indicators, indicatorOfLink)
      .where(ofProject(orgId, projectId))
      .orderBy(byCode, asc(indicators.id))
      .$dynamic(),
    window,
  );
}

export async function findLink(db: Db, orgId: string, projectId: string, indicatorId: string) {
  const [row] = await db
    .select(linkWithIndicator)
    .from(projectIndicators)
    .innerJoin(indicators, indicatorOfLink)
    .where(and(ofProject(orgId, projectId), eq(projectIndicators.indicatorId, indicatorId)));
  return row;
}

/** Whether the indicator is linked to the project (no join: forms and reports only need to know). */
export async function isLinked(
  db: Db,
  orgId: string,
  projectId: string,
  indicatorId: string,
): Promise<boolean> {
  const [row] = await db
    .select({ indicatorId: projectIndicators.indicatorId })
    .from(projectIndicators)
    .where(and(ofProject(orgId, projectId), eq(projectIndicators.indicatorId, indicatorId)))
    .limit(1);
  return row !== undefined;
}

export async function insertLink(
  db: Db,
  orgId: string,
  projectId: string,
  indicatorId: string,
  values: LinkValues,
): Promise<void> {
  await db.insert(projectIndicators).values({ orgId, projectId, indicatorId, ...values });
}

export async function updateLink(
  db: Db,
  orgId: string,
  projectId: string,
  indicatorId: string,
  values: LinkValues,
): Promise<boolean> {
  const rows = await db
    .update(projectIndicators)
    .set(values)
    .where(and(ofProject(orgId, projectId), eq(projectIndicators.indicatorId, indicatorId)))
    .returning({ indicatorId: projectIndicators.indicatorId });
  return rows.length > 0;
}

export async function deleteLink(db: Db, orgId: string, projectId: string, indicatorId: string) {
  await db
    .delete(projectIndicators)
    .where(and(ofProject(orgId, projectId), eq(projectIndicators.indicatorId, indicatorId)));
}

/**
 * Every indicator linked to the projects, with the link's target and baseline and the indicator's result
 * node: what a report and an IATI activity show of a project's indicators.
 */
export function linkedIndicators(db: Db, orgId: string, projectIds: string[]) {
  return db
    .select({
      projectId: projectIndicators.projectId,
      id: indicators.id,
      name: indicators.name,
      code: indicators.code,
      unit: indicators.unit,
      aggregationMethod: indicators.aggregationMethod,
      isFormula: indicators.isFormula,
      formula: indicators.formula,
      target: projectIndicators.target,
      baseline: projectIndicators.baseline,
      baselineYear: projectIndicators.baselineYear,
      nodeId: resultNodes.id,
      nodeLevel: resultNodes.level,
      nodeTitle: resultNodes.title,
    })
    .from(projectIndicators)
    .innerJoin(indicators, indicatorOfLink)
    .leftJoin(
      resultNodes,
      and(eq(resultNodes.orgId, indicators.orgId), eq(resultNodes.id, indicators.resultNodeId)),
    )
    .where(and(eq(projectIndicators.orgId, orgId), inArray(projectIndicators.projectId, projectIds)));
}
