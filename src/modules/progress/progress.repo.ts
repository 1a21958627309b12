/**
 * A read model (docs/architecture.md, "Module order"): progress scores indicators from their submitted and approved
 * indicator reports, reading both modules' tables in set-based queries; it writes no table.
 */
import { eq, sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client.js';
import { isNumericOverflow } from '../../db/errors.js';
import { indicatorReports } from '../indicator-reports/indicator-reports.tables.js';
import type { IndicatorFilter } from '../indicators/index.js';
import { indicators, projectIndicators } from '../indicators/indicators.tables.js';
import { visibleTo, type ProjectVisibility } from '../projects/index.js';
import type { CountedSummary, ScoredIndicator } from './progress.js';

export interface LinkToScore {
  target: number | null;
  indicatorId: string;
  programId: string;
  projectId: string;
  projectName: string;
}

/**
 * Project-indicator links with their project's name and program, of the projects within `visibility`.
 * The indicators themselves are read once (orgIndicators), not once per link. Plain SQL, as
 * countedSummaries.
 */
export async function linksToScore(
  db: Db,
  orgId: string,
  filter: IndicatorFilter,
  visibility: ProjectVisibility,
): Promise<LinkToScore[]> {
  // Unaliased: the visibility condition names the project_indicators table itself.
  const scope = visibleTo(orgId, visibility, projectIndicators.projectId);
  const result = await db.execute(sql`
    SELECT project_indicators.target, project_indicators.indicator_id AS "indicatorId",
      projects.program_id AS "programId", projects.id AS "projectId", projects.name AS "projectName"
    FROM project_indicators
    JOIN projects ON projects.org_id = project_indicators.org_id AND projects.id = project_indicators.project_id
    WHERE project_indicators.org_id = ${orgId}
      ${filter.projectId ? sql`AND project_indicators.project_id = ${filter.projectId}` : sql``}
      ${
        filter.resultNodeId
          ? sql`AND project_indicators.indicator_id IN (
              SELECT id FROM indicators WHERE org_id = ${orgId} AND result_node_id = ${filter.resultNodeId})`
          : sql``
      }
      ${scope ? sql`AND ${scope}` : sql``}`);
  return rowsOf<LinkToScore>(result);
}

/** Every indicator of the organization, whole (the scored entries show them; formulas use them by code). */
export function orgIndicators(db: Db, orgId: string) {
  return db.select().from(indicators).where(eq(indicators.orgId, orgId));
}

/** Sums in double precision, as JavaScript would. PostgreSQL raises an error (22003) on overflow. */
const floatSum = (column: SQL) => sql`coalesce(sum(${column}), 0)`;
/** Sums each double's shortest exact decimal in numeric, as text: slower, never overflows. */
const exactSum = (column: SQL) => sql`coalesce(sum((${column})::text::numeric), 0)::text`;
/** The value of the latest period (by start date) where `column` is set, when `needed` holds. */
const latestOf = (column: SQL, needed: SQL) =>
  sql`(max(ARRAY[reporting_periods.start_date - DATE '2000-01-01', ${column}]) FILTER (WHERE ${column} IS NOT NULL AND ${needed}))[2]`;

/**
 * The submitted and approved values of the organization's projects (one, those within `visibility`),
 * summarized per project and indicator by the database (scoring.ts PeriodSummary): the org view reads one
 * row per pair instead of one per period (GET dashboard-summary on 100,000 reports: 440 -> 190 ms).
 * `latest` is read only for indicators aggregated by it and `latestTarget` only for those not summed (the
 * only ones that use them); elsewhere they are null. Sums are doubles added in the database's order, so
 * they may differ from a report's in the last bits, which scoring's noise removal drops. A sum that
 * overflows a double makes PostgreSQL raise an error: then the sums are taken again exactly in numeric.
 * Plain SQL, not the query builder: mapping thousands of rows through it cost more than the query.
 */
export async function countedSummaries(
  db: Db,
  orgId: string,
  orgWide: ScoredIndicator[],
  projectId: string | undefined,
  visibility: ProjectVisibility,
): Promise<CountedSummary[]> {
  // By id rather than by joining the indicators: the join cost a tenth of the query.
  const ofIndicators = (ids: string[]) =>
    ids.length === 0
      ? sql`false`
      : sql`indicator_reports.indicator_id IN (${sql.join(
          ids.map((id) => sql`${id}`),
          sql`, `,
        )})`;
  const method = (indicator: ScoredIndicator) => indicator.aggregationMethod ?? 'latest';
  const latestIds = orgWide.filter((i) => !i.isFormula && method(i) === 'latest').map((i) => i.id);
  const targetedIds = orgWide.filter((i) => !i.isFormula && method(i) !== 'sum').map((i) => i.id);
  const value = sql`indicator_reports.value`;
  const target = sql`indicator_reports.target`;
  // Unaliased: the visibility condition names the indicator_reports table itself.
  const scope = visibleTo(orgId, visibility, indicatorReports.projectId);
  const read = (sum: typeof floatSum) =>
    db.execute(sql`
      SELECT indicator_reports.project_id AS "projectId", indicator_reports.indicator_id AS "indicatorId",
        count(${value})::int AS count, ${sum(value)} AS sum, ${sum(sql`abs(${value})`)} AS "absSum",
        min(${value}) AS min, max(${value}) AS max, ${latestOf(value, ofIndicators(latestIds))} AS latest,
        count(${target})::int AS "targetCount", ${sum(target)} AS "targetSum",
        ${sum(sql`abs(${target})`)} AS "targetAbsSum", ${latestOf(target, ofIndicators(targetedIds))} AS "latestTarget"
      FROM indicator_reports
      JOIN reporting_periods ON reporting_periods.org_id = indicator_reports.org_id
        AND reporting_periods.id = indicator_reports.reporting_period_id
      WHERE indicator_reports.org_id = ${orgId} AND indicator_reports.status IN ('submitted', 'approved')
        ${projectId ? sql`AND indicator_reports.project_id = ${projectId}` : sql``}
        ${scope ? sql`AND ${scope}` : sql``}
      GROUP BY indicator_reports.project_id, indicator_reports.indicator_id`);
  const result = await read(floatSum).catch((err: unknown) => {
    if (!isNumericOverflow(err)) throw err;
    return read(exactSum);
  });
  // An exact sum too large for a double reads as Infinity.
  return rowsOf<CountedSummary>(result).map((row) => ({
    ...row,
    sum: Number(row.sum),
    absSum: Number(row.absSum),
    targetSum: Number(row.targetSum),
    targetAbsSum: Number(row.targetAbsSum),
  }));
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
