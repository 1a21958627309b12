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
  projectName: string;
  programId: string;
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

/**
 * The periods in scope, each with its project and how many values it expects (the project's linked
 * indicators that are not formulas). Unaliased `projects`: the visibility condition names the table.
 */
function periodsInScope(orgId: string, scope: QualityScope): SQL {
  const visible = visibleTo(orgId, scope.visibility, projects.id);
  return sql`
    SELECT rp.id, rp.project_id, projects.name AS project_name, projects.program_id, rp.label,
      rp.start_date, rp.end_date, rp.due_date, coalesce(links.expected, 0) AS expected
    FROM reporting_periods rp
    JOIN projects ON projects.org_id = rp.org_id AND projects.id = rp.project_id
    LEFT JOIN (
      SELECT pi.project_id, count(*)::int AS expected
      FROM project_indicators pi
      JOIN indicators i ON i.org_id = pi.org_id AND i.id = pi.indicator_id AND NOT i.is_formula
      WHERE pi.org_id = ${orgId}
      GROUP BY pi.project_id
    ) links ON links.project_id = rp.project_id
    WHERE rp.org_id = ${orgId}
      ${visible ? sql`AND ${visible}` : sql``}
      ${scope.programId ? sql`AND projects.program_id = ${scope.programId}` : sql``}
      ${scope.from ? sql`AND rp.end_date >= ${scope.from}::date` : sql``}
      ${scope.to ? sql`AND rp.start_date <= ${scope.to}::date` : sql``}
      ${scope.dueBefore ? sql`AND coalesce(rp.due_date, rp.end_date) < ${scope.dueBefore}::date` : sql``}`;
}

/**
 * What each period's reports count, by project and period: entered (a value, any status), reported
 * (submitted or approved), on time (first submitted on or before the due date, UTC; always, without a
 * due date), approved, flagged (any status), and the flags of reports not yet approved.
 */
const REPORT_COUNTS = sql`
  SELECT r.project_id, r.reporting_period_id,
    count(*) FILTER (WHERE r.value IS NOT NULL)::int AS entered,
    count(*) FILTER (WHERE r.status IN ('submitted', 'approved'))::int AS reported,
    count(*) FILTER (WHERE r.status IN ('submitted', 'approved')
      AND (sp.due_date IS NULL OR (r.first_submitted_at AT TIME ZONE 'UTC')::date <= sp.due_date))::int AS on_time,
    count(*) FILTER (WHERE r.status = 'approved')::int AS approved,
    count(*) FILTER (WHERE r.flags <> '[]'::jsonb)::int AS flagged,
    coalesce(sum(jsonb_array_length(r.flags)) FILTER (WHERE r.status <> 'approved'), 0)::int AS open_flags
  FROM indicator_reports r
  JOIN scoped sp ON sp.project_id = r.project_id AND sp.id = r.reporting_period_id`;

const COUNT_COLUMNS = sql`
  coalesce(c.entered, 0) AS entered, coalesce(c.reported, 0) AS reported,
  coalesce(c.on_time, 0) AS "onTime", coalesce(c.approved, 0) AS approved,
  coalesce(c.flagged, 0) AS flagged, coalesce(c.open_flags, 0) AS "openFlags"`;

/** Every period in scope with its counts, by project name, project, then period start. */
export async function periodQuality(db: Db, orgId: string, scope: QualityScope): Promise<PeriodQualityRow[]> {
  const result = await db.execute(sql`
    WITH scoped AS (${periodsInScope(orgId, scope)}),
    counts AS (${REPORT_COUNTS} WHERE r.org_id = ${orgId} GROUP BY r.project_id, r.reporting_period_id)
    SELECT sp.project_id AS "projectId", sp.project_name AS "projectName", sp.program_id AS "programId",
      sp.id AS "periodId", sp.label, sp.start_date::text AS "startDate", sp.end_date::text AS "endDate",
      sp.due_date::text AS "dueDate", sp.expected, ${COUNT_COLUMNS}
    FROM scoped sp
    LEFT JOIN counts c ON c.project_id = sp.project_id AND c.reporting_period_id = sp.id
    ORDER BY sp.project_name, sp.project_id, sp.start_date, sp.id`);
  return rowsOf<PeriodQualityRow>(result);
}

/**
 * Per indicator expected in scope (linked to a project in scope, not a formula): how many values it
 * expects, how many of its reports carry flags and its open flags (on reports not yet approved), most
 * open flags first, then by code.
 */
export async function indicatorQuality(
  db: Db,
  orgId: string,
  scope: QualityScope,
): Promise<IndicatorQualityRow[]> {
  const result = await db.execute(sql`
    WITH scoped AS (${periodsInScope(orgId, scope)}),
    expected AS (
      SELECT pi.indicator_id, count(*)::int AS expected
      FROM project_indicators pi
      JOIN scoped sp ON sp.project_id = pi.project_id
      WHERE pi.org_id = ${orgId}
      GROUP BY pi.indicator_id
    ),
    flagged AS (
      SELECT r.indicator_id, count(*)::int AS reports,
        coalesce(sum(jsonb_array_length(r.flags)) FILTER (WHERE r.status <> 'approved'), 0)::int AS open_flags
      FROM indicator_reports r
      JOIN scoped sp ON sp.project_id = r.project_id AND sp.id = r.reporting_period_id
      WHERE r.org_id = ${orgId} AND r.flags <> '[]'::jsonb
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
    WITH scoped AS (${periodsInScope(orgId, scope)}),
    counts AS (${REPORT_COUNTS} WHERE r.org_id = ${orgId} GROUP BY r.project_id, r.reporting_period_id)
    SELECT sp.program_id AS "programId", sum(sp.expected)::int AS expected,
      coalesce(sum(c.entered), 0)::int AS entered, coalesce(sum(c.reported), 0)::int AS reported,
      coalesce(sum(c.on_time), 0)::int AS "onTime", coalesce(sum(c.approved), 0)::int AS approved,
      coalesce(sum(c.flagged), 0)::int AS flagged, coalesce(sum(c.open_flags), 0)::int AS "openFlags"
    FROM scoped sp
    LEFT JOIN counts c ON c.project_id = sp.project_id AND c.reporting_period_id = sp.id
    GROUP BY GROUPING SETS ((), (sp.program_id))`);
  return rowsOf<ProgramQualityRow>(result);
}
