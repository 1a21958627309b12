import { and, asc, count, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { byCode } from '../indicators/indicators.repo.js';
import { inWindow, type Window } from '../../db/window.js';
import { users } from '../auth/auth.tables.js';
import { disaggregations, indicators, projectIndicators } from '../indicators/indicators.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import { projects } from '../projects/projects.tables.js';
import { EDITABLE, indicatorReports, type IndicatorReportStatus } from './indicator-reports.tables.js';

export type IndicatorReportRow = typeof indicatorReports.$inferSelect;
export type ReportChanges = Partial<
  Omit<IndicatorReportRow, 'id' | 'orgId' | 'projectId' | 'indicatorId' | 'reportingPeriodId' | 'createdAt'>
>;

export interface ReportFilter {
  periodId?: string;
  status?: IndicatorReportStatus;
  indicatorId?: string;
}

function filtered(orgId: string, projectId: string, filter: ReportFilter): SQL | undefined {
  return and(
    eq(indicatorReports.orgId, orgId),
    eq(indicatorReports.projectId, projectId),
    filter.periodId ? eq(indicatorReports.reportingPeriodId, filter.periodId) : undefined,
    filter.status ? eq(indicatorReports.status, filter.status) : undefined,
    filter.indicatorId ? eq(indicatorReports.indicatorId, filter.indicatorId) : undefined,
  );
}

export async function countReports(db: Db, orgId: string, projectId: string, filter: ReportFilter) {
  const [row] = await db
    .select({ total: count() })
    .from(indicatorReports)
    .where(filtered(orgId, projectId, filter));
  return row?.total ?? 0;
}

/** By period (earliest first), then indicator code, then id. */
export function listReports(db: Db, orgId: string, projectId: string, filter: ReportFilter, window: Window) {
  return inWindow(
    db
      .select({ report: indicatorReports })
      .from(indicatorReports)
      .innerJoin(reportingPeriods, eq(reportingPeriods.id, indicatorReports.reportingPeriodId))
      .innerJoin(indicators, eq(indicators.id, indicatorReports.indicatorId))
      .where(filtered(orgId, projectId, filter))
      .orderBy(asc(reportingPeriods.startDate), byCode, asc(indicatorReports.id))
      .$dynamic(),
    window,
  );
}

/** With `lock`, the row stays locked until the transaction ends: one state change at a time. */
export async function findReport(
  db: Db,
  orgId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<IndicatorReportRow | undefined> {
  const query = db
    .select()
    .from(indicatorReports)
    .where(and(eq(indicatorReports.orgId, orgId), eq(indicatorReports.id, id)));
  const [row] = options.lock ? await query.for('update') : await query;
  return row;
}

/**
 * The period, share-locked: locking it (which takes its row for update) waits until this transaction
 * has written, so no report slips into a period as it is being locked.
 */
export async function sharePeriod(db: Db, orgId: string, id: string) {
  const [row] = await db
    .select({
      id: reportingPeriods.id,
      projectId: reportingPeriods.projectId,
      label: reportingPeriods.label,
      startDate: reportingPeriods.startDate,
      endDate: reportingPeriods.endDate,
      isLocked: reportingPeriods.isLocked,
    })
    .from(reportingPeriods)
    .where(and(eq(reportingPeriods.orgId, orgId), eq(reportingPeriods.id, id)))
    .for('share');
  return row;
}

/** The indicator, share-locked so its disaggregations hold still while a report is checked against them. */
export async function shareIndicator(db: Db, orgId: string, id: string) {
  const [row] = await db
    .select({
      id: indicators.id,
      name: indicators.name,
      code: indicators.code,
      isFormula: indicators.isFormula,
    })
    .from(indicators)
    .where(and(eq(indicators.orgId, orgId), eq(indicators.id, id)))
    .for('share');
  return row;
}

export function dimensionsOf(db: Db, indicatorId: string) {
  return db
    .select({ name: disaggregations.name, categories: disaggregations.categories })
    .from(disaggregations)
    .where(eq(disaggregations.indicatorId, indicatorId))
    .orderBy(asc(disaggregations.createdAt), asc(disaggregations.id));
}

export async function isLinked(db: Db, projectId: string, indicatorId: string): Promise<boolean> {
  const [row] = await db
    .select({ indicatorId: projectIndicators.indicatorId })
    .from(projectIndicators)
    .where(and(eq(projectIndicators.projectId, projectId), eq(projectIndicators.indicatorId, indicatorId)));
  return row !== undefined;
}

export async function insertReport(
  db: Db,
  values: Omit<typeof indicatorReports.$inferInsert, 'id' | 'createdAt' | 'updatedAt'>,
): Promise<IndicatorReportRow> {
  const [row] = await db.insert(indicatorReports).values(values).returning();
  return row!;
}

/** Applies the changes only while the report is in one of `from`; undefined when it is not (anymore). */
export async function updateReport(
  db: Db,
  orgId: string,
  id: string,
  from: readonly IndicatorReportStatus[],
  changes: ReportChanges,
): Promise<IndicatorReportRow | undefined> {
  const [row] = await db
    .update(indicatorReports)
    .set(changes)
    .where(
      and(
        eq(indicatorReports.orgId, orgId),
        eq(indicatorReports.id, id),
        inArray(indicatorReports.status, [...from]),
      ),
    )
    .returning();
  return row;
}

/** The report of an indicator for a project and period, row-locked until the transaction ends. */
export async function lockReportFor(
  db: Db,
  orgId: string,
  key: { projectId: string; indicatorId: string; reportingPeriodId: string },
): Promise<IndicatorReportRow | undefined> {
  const [row] = await db
    .select()
    .from(indicatorReports)
    .where(
      and(
        eq(indicatorReports.orgId, orgId),
        eq(indicatorReports.projectId, key.projectId),
        eq(indicatorReports.indicatorId, key.indicatorId),
        eq(indicatorReports.reportingPeriodId, key.reportingPeriodId),
      ),
    )
    .for('update');
  return row;
}

/** Names for feed entries and emails. */
export async function reportContext(db: Db, report: IndicatorReportRow) {
  const [row] = await db
    .select({
      indicatorName: indicators.name,
      indicatorCode: indicators.code,
      projectName: projects.name,
      periodLabel: reportingPeriods.label,
    })
    .from(indicatorReports)
    .innerJoin(indicators, eq(indicators.id, indicatorReports.indicatorId))
    .innerJoin(projects, eq(projects.id, indicatorReports.projectId))
    .innerJoin(reportingPeriods, eq(reportingPeriods.id, indicatorReports.reportingPeriodId))
    .where(eq(indicatorReports.id, report.id));
  return row!;
}

export async function findUserName(db: Db, id: string) {
  const [row] = await db
    .select({ email: users.email, firstName: users.firstName, lastName: users.lastName })
    .from(users)
    .where(eq(users.id, id));
  return row;
}

/** Whether any report matches: of an indicator, of an indicator in a project, or of a period. */
export async function indicatorReportsExist(
  db: Db,
  where: { indicatorId?: string; projectId?: string; reportingPeriodId?: string },
): Promise<boolean> {
  const [row] = await db
    .select({ id: indicatorReports.id })
    .from(indicatorReports)
    .where(
      and(
        where.indicatorId ? eq(indicatorReports.indicatorId, where.indicatorId) : undefined,
        where.projectId ? eq(indicatorReports.projectId, where.projectId) : undefined,
        where.reportingPeriodId ? eq(indicatorReports.reportingPeriodId, where.reportingPeriodId) : undefined,
      ),
    )
    .limit(1);
  return row !== undefined;
}

/** The largest value counting may reach: just under the largest double (about 1.7977e308). */
const MAX_COUNTED_VALUE = '1.79e308';

/**
 * Adds `amount` to the report of an indicator for a project and period in one atomic statement,
 * creating it as a draft when there is none, so concurrent additions never lose one. A report that is
 * submitted or approved is left alone, and so is a sum past MAX_COUNTED_VALUE: false.
 */
export async function addToReport(
  db: Db,
  key: { orgId: string; projectId: string; indicatorId: string; reportingPeriodId: string },
  amount: number,
): Promise<boolean> {
  const rows = await db
    .insert(indicatorReports)
    .values({ ...key, value: amount })
    .onConflictDoUpdate({
      target: [indicatorReports.projectId, indicatorReports.indicatorId, indicatorReports.reportingPeriodId],
      set: { value: sql`coalesce(indicator_reports.value, 0) + excluded.value`, updatedAt: sql`now()` },
      // A sum past the largest double would fail the statement (and the submission with it): the
      // submission is then stored uncounted. Compared in numeric, which cannot overflow; 1.79e308 leaves
      // room for float8's rounding of the sum.
      setWhere: and(
        inArray(indicatorReports.status, [...EDITABLE]),
        sql`abs(coalesce(${indicatorReports.value}, 0)::numeric + excluded.value::numeric) <= ${MAX_COUNTED_VALUE}::numeric`,
      ),
    })
    .returning({ id: indicatorReports.id });
  return rows.length > 0;
}
