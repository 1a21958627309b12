/**
 * Completeness and timeliness, read in set-based queries (docs/data-quality.md, "Completeness and
 * timeliness"). An expected value is one indicator linked to a project, not a formula, for one of the
 * project's reporting periods; what was reported of it is read from its indicator report, if any.
 */
import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client.js';
import { projects } from '../projects/projects.tables.js';
import { visibleTo, type ProjectVisibility } from '../projects/index.js';

/** Which projects and periods count. */
export interface QualityScope {
  visibility: ProjectVisibility;
  programId?: string;
  /** Periods overlapping from..to (either end open). */
  from?: string;
  to?: string;
  /** Only periods whose due date (or, without one, end date) is before this day: the dashboard's. */
  dueBefore?: string;
}

/** The counts every rate is made of, as the database sums them. */
export interface QualityCounts {
  expected: number;
  entered: number;
  reported: number;
  onTime: number;
  approved: number;
  flagged: number;
  openFlags: number;
}

export interface PeriodQualityRow extends QualityCounts {
  projectId: string;
  periodId: string;
  label: string;
  startDate: string;
  endDate: string;
  dueDate: string | null;
}

export interface IndicatorQualityRow {
  indicatorId: string;
  code: string;
  name: string;
  expected: number;
  flaggedReports: number;
  openFlags: number;
}

export interface ProgramQualityRow extends QualityCounts {
  /** Null: the whole organization. */
  programId: string | null;
}

/** The projects in scope. Unaliased `projects`: the visibility condition names the table itself. */
function projectsInScope(orgId: string, scope: QualityScope): SQL {
  const visible = visibleTo(orgId, scope.visibility, projects.id);
  return sql`
    SELECT projects.id, projects.name, projects.program_id FROM projects
    WHERE projects.org_id = ${orgId}
      ${visible ? sql`AND ${visible}` : sql``}
      ${scope.programId ? sql`AND projects.program_id = ${scope.programId}` : sql``}`;
}

/** The condition keeping the periods in scope, on the reporting_periods alias `p`. */
function periodRange(scope: QualityScope): SQL {
  return sql`
    ${scope.from ? sql`AND p.end_date >= ${scope.from}::date` : sql``}
    ${scope.to ? sql`AND p.start_date <= ${scope.to}::date` : sql``}
    ${scope.dueBefore ? sql`AND coalesce(p.due_date, p.end_date) < ${scope.dueBefore}::date` : sql``}`;
}

/**
 * The periods in scope, each with its counts: expected (the project's linked indicators that are not
 * formulas) and, from the read model `period_report_counts` (kept by the database as reports change:
 * indicator-reports.tables.ts), of its reports entered (a value, any status), reported (submitted or
 * approved), on time (first submitted on or before the due date, UTC; always, without a due date),
 * approved, flagged (any status), and the flags of reports not yet approved. Summing the reports here
 * instead took 150-250 ms at 100,000 reports (1,000 projects), most of the answer's time.
 */
function periodsWithCounts(orgId: string, scope: QualityScope): SQL {
  return sql`
    WITH scope_projects AS MATERIALIZED (${projectsInScope(orgId, scope)}),
    links AS (
      SELECT pi.project_id, count(*)::int AS expected
      FROM project_indicators pi
      JOIN scope_projects sp ON sp.id = pi.project_id
      JOIN indicators i ON i.org_id = pi.org_id AND i.id = pi.indicator_id AND NOT i.is_formula
      WHERE pi.org_id = ${orgId}
      GROUP BY pi.project_id
    ),
    periods AS (
      SELECT p.id, p.project_id, sp.program_id, p.label, p.start_date, p.end_date, p.due_date,
        coalesce(links.expected, 0) AS expected,
        coalesce(c.entered, 0) AS entered, coalesce(c.reported, 0) AS reported,
        coalesce(c.on_time, 0) AS on_time, coalesce(c.approved, 0) AS approved,
        coalesce(c.flagged, 0) AS flagged, coalesce(c.open_flags, 0) AS open_flags
      FROM reporting_periods p
      JOIN scope_projects sp ON sp.id = p.project_id
      LEFT JOIN links ON links.project_id = p.project_id
      LEFT JOIN period_report_counts c ON c.org_id = p.org_id AND c.reporting_period_id = p.id
      WHERE p.org_id = ${orgId} ${periodRange(scope)}
    )`;
}

/** The projects in scope by name (then id). */
export async function scopedProjects(
  db: Db,
  orgId: string,
  scope: QualityScope,
): Promise<{ id: string; name: string; programId: string }[]> {
  const result = await db.execute(sql`
    SELECT id, name, program_id AS "programId" FROM (${projectsInScope(orgId, scope)}) projects
    ORDER BY name, id`);
  return rowsOf(result);
}

/** Every period in scope with its counts, unordered (the caller groups them by project). */
export async function periodQuality(db: Db, orgId: string, scope: QualityScope): Promise<PeriodQualityRow[]> {
  const result = await db.execute(sql`
    ${periodsWithCounts(orgId, scope)}
    SELECT project_id AS "projectId", id AS "periodId", label, start_date::text AS "startDate",
      end_date::text AS "endDate", due_date::text AS "dueDate", expected, entered, reported,
      on_time AS "onTime", approved, flagged, open_flags AS "openFlags"
    FROM periods`);
  return rowsOf<PeriodQualityRow>(result);
}

/**
 * Per indicator expected in scope (linked to a project with a period in scope, not a formula): how
 * many values it expects, how many of its reports carry flags and its open flags (on reports not yet
 * approved), most open flags first, then by code.
 */
export async function indicatorQuality(
  db: Db,
  orgId: string,
  scope: QualityScope,
): Promise<IndicatorQualityRow[]> {
  const result = await db.execute(sql`
    WITH scope_projects AS MATERIALIZED (${projectsInScope(orgId, scope)}),
    scope_periods AS (
      SELECT p.project_id, count(*)::int AS periods
      FROM reporting_periods p
      JOIN scope_projects sp ON sp.id = p.project_id
      WHERE p.org_id = ${orgId} ${periodRange(scope)}
      GROUP BY p.project_id
    ),
    expected AS (
      SELECT pi.indicator_id, sum(sc.periods)::int AS expected
      FROM project_indicators pi
      JOIN scope_periods sc ON sc.project_id = pi.project_id
      WHERE pi.org_id = ${orgId}
      GROUP BY pi.indicator_id
    ),
    flagged AS (
      SELECT r.indicator_id, count(*)::int AS reports,
        coalesce(sum(jsonb_array_length(r.flags)) FILTER (WHERE r.status <> 'approved'), 0)::int AS open_flags
      FROM indicator_reports r
      JOIN reporting_periods p ON p.org_id = r.org_id AND p.id = r.reporting_period_id
      JOIN scope_projects sp ON sp.id = r.project_id
      WHERE r.org_id = ${orgId} AND r.flags <> '[]'::jsonb ${periodRange(scope)}
      GROUP BY r.indicator_id
    )
    SELECT i.id AS "indicatorId", i.code, i.name, e.expected,
      coalesce(f.reports, 0) AS "flaggedReports", coalesce(f.open_flags, 0) AS "openFlags"
    FROM expected e
    JOIN indicators i ON i.org_id = ${orgId} AND i.id = e.indicator_id AND NOT i.is_formula
    LEFT JOIN flagged f ON f.indicator_id = e.indicator_id
    ORDER BY "openFlags" DESC, i.code, i.id`);
  return rowsOf<IndicatorQualityRow>(result);
}

/** The counts summed for the whole scope (programId null) and per program, in one pass. */
export async function programQuality(
  db: Db,
  orgId: string,
  scope: QualityScope,
): Promise<ProgramQualityRow[]> {
  const result = await db.execute(sql`
    ${periodsWithCounts(orgId, scope)}
    SELECT CASE WHEN grouping(program_id) = 0 THEN program_id END AS "programId",
      coalesce(sum(expected), 0)::int AS expected, coalesce(sum(entered), 0)::int AS entered,
      coalesce(sum(reported), 0)::int AS reported, coalesce(sum(on_time), 0)::int AS "onTime",
      coalesce(sum(approved), 0)::int AS approved, coalesce(sum(flagged), 0)::int AS flagged,
      coalesce(sum(open_flags), 0)::int AS "openFlags"
    FROM periods
    GROUP BY GROUPING SETS ((), (program_id))`);
  return rowsOf<ProgramQualityRow>(result);
}
