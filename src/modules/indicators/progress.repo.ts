import { and, eq, inArray, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { indicatorReports } from '../indicator-reports/indicator-reports.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import { projects } from '../projects/projects.tables.js';
import type { IndicatorFilter } from './indicators.repo.js';
import { indicators, projectIndicators } from './indicators.tables.js';

/** Project-indicator links with their indicator and project name; `scope` limits the projects. */
export function linksToScore(db: Db, orgId: string, filter: IndicatorFilter, scope: SQL | undefined) {
  return db
    .select({
      target: projectIndicators.target,
      programId: projects.programId,
      project: { id: projects.id, name: projects.name },
      indicator: indicators,
    })
    .from(projectIndicators)
    .innerJoin(indicators, eq(indicators.id, projectIndicators.indicatorId))
    .innerJoin(projects, eq(projects.id, projectIndicators.projectId))
    .where(
      and(
        eq(projectIndicators.orgId, orgId),
        filter.projectId ? eq(projectIndicators.projectId, filter.projectId) : undefined,
        filter.resultNodeId ? eq(indicators.resultNodeId, filter.resultNodeId) : undefined,
        scope,
      ),
    );
}

/** Submitted and approved values of the organization's projects (one, those of `scope`, or all). */
export function countedReports(db: Db, orgId: string, projectId: string | undefined, scope: SQL | undefined) {
  return db
    .select({
      projectId: indicatorReports.projectId,
      indicatorId: indicatorReports.indicatorId,
      value: indicatorReports.value,
      target: indicatorReports.target,
      periodStart: reportingPeriods.startDate,
    })
    .from(indicatorReports)
    .innerJoin(reportingPeriods, eq(reportingPeriods.id, indicatorReports.reportingPeriodId))
    .where(
      and(
        eq(indicatorReports.orgId, orgId),
        inArray(indicatorReports.status, ['submitted', 'approved']),
        projectId ? eq(indicatorReports.projectId, projectId) : undefined,
        scope,
      ),
    );
}

/** What formulas need of every indicator: code, method and formula. */
export function formulaBasics(db: Db, orgId: string) {
  return db
    .select({
      id: indicators.id,
      code: indicators.code,
      aggregationMethod: indicators.aggregationMethod,
      isFormula: indicators.isFormula,
      formula: indicators.formula,
    })
    .from(indicators)
    .where(eq(indicators.orgId, orgId));
}
