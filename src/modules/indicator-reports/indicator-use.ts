import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { IndicatorDependents } from '../indicators/indicator-dependents.js';
import { indicatorReports } from './indicator-reports.tables.js';

/** The indicator-reports module's answers to what indicators ask of their reports (wired in `buildApp`). */
export const indicatorReportUse: Pick<IndicatorDependents, 'hasReports' | 'holdCategories'> = {
  async hasReports(db, orgId, indicatorId) {
    const [row] = await db
      .select({ id: indicatorReports.id })
      .from(indicatorReports)
      .where(and(eq(indicatorReports.orgId, orgId), eq(indicatorReports.indicatorId, indicatorId)))
      .limit(1);
    return row !== undefined;
  },

  async holdCategories(db, orgId, indicatorId, categories) {
    const keys = sql.join(
      categories.map((category) => sql`${category}`),
      sql`, `,
    );
    const [row] = await db
      .select({ id: indicatorReports.id })
      .from(indicatorReports)
      .where(
        and(
          eq(indicatorReports.orgId, orgId),
          eq(indicatorReports.indicatorId, indicatorId),
          sql`jsonb_exists_any(${indicatorReports.disaggregatedValues}, ARRAY[${keys}]::text[])`,
        ),
      )
      .limit(1);
    return row !== undefined;
  },
};

/** Whether the period holds an indicator report (the periods module asks before a delete). */
export async function reportsInPeriod(db: Db, orgId: string, reportingPeriodId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: indicatorReports.id })
    .from(indicatorReports)
    .where(and(eq(indicatorReports.orgId, orgId), eq(indicatorReports.reportingPeriodId, reportingPeriodId)))
    .limit(1);
  return row !== undefined;
}
