import { and, asc, eq, inArray, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { disaggregations, indicators, projectIndicators } from '../indicators/indicators.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import { projectMembers, projects } from '../projects/projects.tables.js';
import type { IndicatorReportRow } from './indicator-reports.repo.js';
import { indicatorReportHistory, indicatorReports, type ReportChanges } from './indicator-reports.tables.js';
import { EDITABLE } from './report-workflow.js';

/**
 * The set-based reads and writes of a bulk import of values (bulk-values.ts): a handful of statements
 * whatever the number of rows. Lists of ids and codes are the distinct ones of the import (a few projects,
 * a few hundred indicators); the report keys and the writes travel as one jsonb parameter each, unpacked
 * by jsonb_to_recordset, so no statement runs past PostgreSQL's 65,535 parameters. The tables of projects,
 * indicators and periods are read here for joins, as the architecture allows; nothing of theirs is written.
 */

const lowered = (codes: readonly string[]) => codes.map((code) => code.toLowerCase());

/** Projects of the organization named by id or by code (any case). */
export function projectsNamed(db: Db, orgId: string, ids: readonly string[], codes: readonly string[]) {
  if (ids.length === 0 && codes.length === 0) return Promise.resolve([]);
  return db
    .select({ id: projects.id, code: projects.code, name: projects.name })
    .from(projects)
    .where(
      and(
        eq(projects.orgId, orgId),
        or(
          ids.length > 0 ? inArray(projects.id, [...ids]) : undefined,
          codes.length > 0 ? inArray(sql`lower(${projects.code})`, lowered(codes)) : undefined,
        ),
      ),
    );
}

/** The projects assigned to a user (a reporter writes only those). */
export async function assignedTo(db: Db, orgId: string, userId: string): Promise<Set<string>> {
  const rows = await db
    .select({ projectId: projectMembers.projectId })
    .from(projectMembers)
    .where(and(eq(projectMembers.orgId, orgId), eq(projectMembers.userId, userId)));
  return new Set(rows.map((row) => row.projectId));
}

/**
 * Indicators of the organization named by id or by code (codes are unique whatever their case), locked
 * FOR SHARE in id order as one report's creation locks its indicator: none becomes a formula meanwhile.
 */
export function indicatorsNamed(
  db: Db,
  orgId: string,
  ids: readonly string[],
  codes: readonly string[],
  lock: boolean,
) {
  if (ids.length === 0 && codes.length === 0) return Promise.resolve([]);
  const query = db
    .select({ id: indicators.id, code: indicators.code, isFormula: indicators.isFormula })
    .from(indicators)
    .where(
      and(
        eq(indicators.orgId, orgId),
        or(
          ids.length > 0 ? inArray(indicators.id, [...ids]) : undefined,
          codes.length > 0 ? inArray(sql`lower(${indicators.code})`, lowered(codes)) : undefined,
        ),
      ),
    )
    .orderBy(asc(indicators.id));
  return lock ? query.for('share') : query;
}

/** Which of the indicators each of the projects links, as `projectId indicatorId`. */
export async function linksAmong(
  db: Db,
  orgId: string,
  projectIds: readonly string[],
  indicatorIds: readonly string[],
): Promise<Set<string>> {
  if (projectIds.length === 0 || indicatorIds.length === 0) return new Set();
  const rows = await db
    .select({ projectId: projectIndicators.projectId, indicatorId: projectIndicators.indicatorId })
    .from(projectIndicators)
    .where(
      and(
        eq(projectIndicators.orgId, orgId),
        inArray(projectIndicators.projectId, [...projectIds]),
        inArray(projectIndicators.indicatorId, [...indicatorIds]),
      ),
    );
  return new Set(rows.map((row) => `${row.projectId} ${row.indicatorId}`));
}

/**
 * Every period of the projects, and the periods named by id wherever they are, locked FOR SHARE in id
 * order as one report's creation locks its period: none is locked or moved under the import.
 */
export function periodsAround(
  db: Db,
  orgId: string,
  projectIds: readonly string[],
  ids: readonly string[],
  lock: boolean,
) {
  if (projectIds.length === 0 && ids.length === 0) return Promise.resolve([]);
  const query = db
    .select({
      id: reportingPeriods.id,
      projectId: reportingPeriods.projectId,
      label: reportingPeriods.label,
      isLocked: reportingPeriods.isLocked,
    })
    .from(reportingPeriods)
    .where(
      and(
        eq(reportingPeriods.orgId, orgId),
        or(
          projectIds.length > 0 ? inArray(reportingPeriods.projectId, [...projectIds]) : undefined,
          ids.length > 0 ? inArray(reportingPeriods.id, [...ids]) : undefined,
        ),
      ),
    )
    .orderBy(asc(reportingPeriods.id));
  return lock ? query.for('share') : query;
}

/** The disaggregations of the indicators as dimensions, oldest first, by indicator. */
export async function dimensionsOfAll(db: Db, orgId: string, indicatorIds: readonly string[]) {
  const byIndicator = new Map<string, { name: string; categories: string[]; crosses: string[] | null }[]>();
  if (indicatorIds.length === 0) return byIndicator;
  const rows = await db
    .select({
      indicatorId: disaggregations.indicatorId,
      name: disaggregations.name,
      categories: disaggregations.categories,
      crosses: disaggregations.crosses,
    })
    .from(disaggregations)
    .where(and(eq(disaggregations.orgId, orgId), inArray(disaggregations.indicatorId, [...indicatorIds])))
    .orderBy(asc(disaggregations.createdAt), asc(disaggregations.id));
  for (const { indicatorId, ...dimension } of rows) {
    const list = byIndicator.get(indicatorId) ?? [];
    list.push(dimension);
    byIndicator.set(indicatorId, list);
  }
  return byIndicator;
}

export interface ReportKey {
  projectId: string;
  indicatorId: string;
  reportingPeriodId: string;
}

/** The reports of the keys that exist, locked FOR UPDATE in id order (as one edit locks its report). */
export function reportsOf(db: Db, orgId: string, keys: readonly ReportKey[], lock: boolean) {
  if (keys.length === 0) return Promise.resolve([] as IndicatorReportRow[]);
  const packed = JSON.stringify(keys.map((key) => [key.projectId, key.indicatorId, key.reportingPeriodId]));
  const query = db
    .select()
    .from(indicatorReports)
    .where(
      and(
        eq(indicatorReports.orgId, orgId),
        sql`(${indicatorReports.projectId}, ${indicatorReports.indicatorId}, ${indicatorReports.reportingPeriodId})
          IN (SELECT (k ->> 0)::uuid, (k ->> 1)::uuid, (k ->> 2)::uuid FROM jsonb_array_elements(${packed}::jsonb) AS k)`,
      ),
    )
    .orderBy(asc(indicatorReports.id));
  return lock ? query.for('update') : query;
}

/** What the import writes into one report: its value, disaggregated values and narrative. */
export interface WrittenValues {
  value: number | null;
  disaggregatedValues: Record<string, number>;
  narrative: string | null;
}

/** New draft reports, in one statement. */
export async function insertReports(
  db: Db,
  orgId: string,
  reports: readonly (ReportKey & WrittenValues & { id: string })[],
): Promise<void> {
  if (reports.length === 0) return;
  const packed = JSON.stringify(
    reports.map((r) => ({
      id: r.id,
      p: r.projectId,
      i: r.indicatorId,
      t: r.reportingPeriodId,
      v: r.value,
      d: r.disaggregatedValues,
      n: r.narrative,
    })),
  );
  await db.execute(sql`
    INSERT INTO indicator_reports
      (id, org_id, project_id, indicator_id, reporting_period_id, value, disaggregated_values, narrative)
    SELECT r.id, ${orgId}::uuid, r.p, r.i, r.t, r.v, r.d, r.n
    FROM jsonb_to_recordset(${packed}::jsonb) AS r(id uuid, p uuid, i uuid, t uuid, v float8, d jsonb, n text)`);
}

/**
 * New values of existing reports, in one statement, while they are still draft or rejected (they are
 * locked by reportsOf, so they are): answers how many were written.
 */
export async function updateReports(
  db: Db,
  orgId: string,
  reports: readonly (WrittenValues & { id: string })[],
): Promise<number> {
  if (reports.length === 0) return 0;
  const packed = JSON.stringify(
    reports.map((r) => ({ id: r.id, v: r.value, d: r.disaggregatedValues, n: r.narrative })),
  );
  const editable = sql.join(
    EDITABLE.map((status) => sql`${status}`),
    sql`, `,
  );
  const written = await db.execute(sql`
    UPDATE indicator_reports AS ir
    SET value = r.v, disaggregated_values = r.d, narrative = r.n, updated_at = now()
    FROM jsonb_to_recordset(${packed}::jsonb) AS r(id uuid, v float8, d jsonb, n text)
    WHERE ir.org_id = ${orgId}::uuid AND ir.id = r.id AND ir.status::text IN (${editable})
    RETURNING ir.id`);
  return rowCount(written);
}

const rowCount = (result: unknown) => {
  const {
    rows,
    affectedRows,
    rowCount: count,
  } = result as {
    rows?: unknown[];
    affectedRows?: number;
    rowCount?: number | null;
  };
  return rows?.length ?? affectedRows ?? count ?? 0;
};

/** History entries of the import, one per report it changed, in one statement, numbered in the order given. */
export async function insertHistory(
  db: Db,
  orgId: string,
  actorId: string,
  entries: readonly { reportId: string; changes: ReportChanges }[],
): Promise<void> {
  if (entries.length === 0) return;
  const packed = JSON.stringify(entries.map((e) => ({ r: e.reportId, c: e.changes })));
  // clock_timestamp(), as recordHistory writes it: the time of the write, not of the transaction's start.
  await db.execute(sql`
    INSERT INTO ${indicatorReportHistory} (org_id, indicator_report_id, kind, actor_id, changes, at)
    SELECT ${orgId}::uuid, e.r, 'imported', ${actorId}::uuid, e.c, clock_timestamp()
    FROM ROWS FROM (jsonb_to_recordset(${packed}::jsonb) AS (r uuid, c jsonb)) WITH ORDINALITY AS e(r, c, n)
    ORDER BY e.n`);
}
