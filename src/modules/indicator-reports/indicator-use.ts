import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { IndicatorDependents } from '../indicators/index.js';
import { indicatorReports } from './indicator-reports.tables.js';

/** Whether an indicator report of the organization meets every condition. */
async function reportExists(db: Db, orgId: string, ...conditions: SQL[]): Promise<boolean> {
  const [row] = await db
    .select({ id: indicatorReports.id })
    .from(indicatorReports)
    .where(and(eq(indicatorReports.orgId, orgId), ...conditions))
    .limit(1);
  return row !== undefined;
}

/** The indicator-reports module's answers to what indicators ask of their reports (wired in `buildApp`). */
export const indicatorReportUse: Pick<IndicatorDependents, 'hasReports' | 'holdCategories'> = {
  hasReports: (db, orgId, indicatorId) =>
    reportExists(db, orgId, eq(indicatorReports.indicatorId, indicatorId)),

  holdCategories(db, orgId, indicatorId, categories) {
    const keys = sql.join(
      categories.map((category) => sql`${category}`),
      sql`, `,
    );
    return reportExists(
      db,
      orgId,
      eq(indicatorReports.indicatorId, indicatorId),
      sql`jsonb_exists_any(${indicatorReports.disaggregatedValues}, ARRAY[${keys}]::text[])`,
    );
  },
};

/** Whether the period holds an indicator report (the periods module asks before a delete). */
export const reportsInPeriod = (db: Db, orgId: string, reportingPeriodId: string): Promise<boolean> =>
  reportExists(db, orgId, eq(indicatorReports.reportingPeriodId, reportingPeriodId));

/** The reports of one reporting period of a project (one per indicator at most): what its page lists. */
export const indicatorReportsOfPeriod = (
  db: Db,
  orgId: string,
  projectId: string,
  reportingPeriodId: string,
) =>
  db
    .select({
      id: indicatorReports.id,
      indicatorId: indicatorReports.indicatorId,
      status: indicatorReports.status,
      value: indicatorReports.value,
    })
    .from(indicatorReports)
    .where(
      and(
        eq(indicatorReports.orgId, orgId),
        eq(indicatorReports.projectId, projectId),
        eq(indicatorReports.reportingPeriodId, reportingPeriodId),
      ),
    );
