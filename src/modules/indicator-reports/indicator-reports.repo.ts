import { and, asc, count, eq, inArray, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { byCode } from '../indicators/index.js';
import { indicators } from '../indicators/indicators.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import { indicatorReports, type IndicatorReportStatus } from './indicator-reports.tables.js';
import { EDITABLE } from './report-workflow.js';

export type IndicatorReportRow = typeof indicatorReports.$inferSelect;
export type IndicatorReportChanges = Partial<
  Omit<IndicatorReportRow, 'id' | 'orgId' | 'projectId' | 'indicatorId' | 'reportingPeriodId' | 'createdAt'>
>;

export interface IndicatorReportFilter {
  periodId?: string;
  status?: IndicatorReportStatus;
  indicatorId?: string;
  /** true: only reports with flags; false: only those without. */
  flagged?: boolean;
}

/** Which report of an indicator: one per project, indicator and reporting period. */
export interface IndicatorReportKey {
  projectId: string;
  indicatorId: string;
  reportingPeriodId: string;
}

function filtered(orgId: string, projectId: string, filter: IndicatorReportFilter): SQL | undefined {
  return and(
    eq(indicatorReports.orgId, orgId),
    eq(indicatorReports.projectId, projectId),
    filter.periodId ? eq(indicatorReports.reportingPeriodId, filter.periodId) : undefined,
    filter.status ? eq(indicatorReports.status, filter.status) : undefined,
    filter.indicatorId ? eq(indicatorReports.indicatorId, filter.indicatorId) : undefined,
    filter.flagged === undefined
      ? undefined
      : filter.flagged
        ? sql`${indicatorReports.flags} <> '[]'::jsonb`
        : sql`${indicatorReports.flags} = '[]'::jsonb`,
  );
}

export async function countIndicatorReports(
  db: Db,
  orgId: string,
  projectId: string,
  filter: IndicatorReportFilter,
) {
  const [row] = await db
    .select({ total: count() })
    .from(indicatorReports)
    .where(filtered(orgId, projectId, filter));
  return row?.total ?? 0;
}

/**
 * By period (earliest first), then indicator code, then id. The one read of other modules' tables
 * here: a read-only join for the order, which a set-based page needs.
 */
export function listIndicatorReports(
  db: Db,
  orgId: string,
  projectId: string,
  filter: IndicatorReportFilter,
  window: Window,
) {
  return inWindow(
    db
      .select({ report: indicatorReports })
      .from(indicatorReports)
      .innerJoin(
        reportingPeriods,
        and(
          eq(reportingPeriods.orgId, indicatorReports.orgId),
          eq(reportingPeriods.id, indicatorReports.reportingPeriodId),
        ),
      )
      .innerJoin(
        indicators,
        and(eq(indicators.orgId, indicatorReports.orgId), eq(indicators.id, indicatorReports.indicatorId)),
      )
      .where(filtered(orgId, projectId, filter))
      .orderBy(asc(reportingPeriods.startDate), byCode, asc(indicatorReports.id))
      .$dynamic(),
    window,
  );
}

/** With `lock`, the row stays locked until the transaction ends: one state change at a time. */
export async function findIndicatorReport(
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

export async function insertIndicatorReport(
  db: Db,
  orgId: string,
  values: Omit<typeof indicatorReports.$inferInsert, 'id' | 'orgId' | 'createdAt' | 'updatedAt'>,
): Promise<IndicatorReportRow> {
  const [row] = await db
    .insert(indicatorReports)
    .values({ ...values, orgId })
    .returning();
  return row!;
}

/** Applies the changes only while the report is in one of `from`; undefined when it is not (anymore). */
export async function updateIndicatorReport(
  db: Db,
  orgId: string,
  id: string,
  from: readonly IndicatorReportStatus[],
  changes: IndicatorReportChanges,
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
export async function lockIndicatorReportFor(
  db: Db,
  orgId: string,
  key: IndicatorReportKey,
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

/** The largest value counting may reach: just under the largest double (about 1.7977e308). */
const MAX_COUNTED_VALUE = 1.79e308;
const countable = (n: number) => Math.abs(n) <= MAX_COUNTED_VALUE;

/**
 * A jsonb of numbers with `cells` added key by key (a missing key counts 0), read from the row the
 * statement updates: under its row lock, concurrent counts add up.
 */
function addedTo(column: AnyColumn, cells: Record<string, number>) {
  const pairs = Object.entries(cells).map(
    ([key, add]) => sql`${key}::text, coalesce((${column} ->> ${key}::text)::float8, 0) + ${add}::float8`,
  );
  return sql<Record<string, number>>`${column} || jsonb_build_object(${sql.join(pairs, sql`, `)})`;
}

/** Why a count was refused by the report: under review, or a sum float8 cannot hold. */
export interface CountRefusal {
  refused: 'report_submitted' | 'report_approved' | 'value_out_of_range';
}

/** A report before and after a change; `before` null when the change created it. */
export interface ReportChange {
  before: IndicatorReportRow | null;
  after: IndicatorReportRow;
}

/**
 * Adds a counted submission's `amount` to the report of an indicator for a project and period, creating
 * it as a draft when there is none. The report stays row-locked until the transaction ends, so
 * concurrent additions take turns and never lose one, and a recount waits for them. A report that is
 * submitted or approved is left alone (it counts the refusal in `refusedSinceSubmitted`), and so is a
 * sum past MAX_COUNTED_VALUE (float8 would overflow): the refusal. `cells` (a form filling
 * disaggregations) are added to `disaggregatedValues` and its counted part in the same statement.
 */
export async function countIntoReport(
  db: Db,
  orgId: string,
  key: IndicatorReportKey,
  amount: number,
  cells: Record<string, number> = {},
): Promise<ReportChange | CountRefusal> {
  // Two rounds at most: when the insert loses to another submission creating the report, the second
  // round finds that report (the insert waited for its transaction to commit).
  for (let round = 0; round < 2; round++) {
    const before = await lockIndicatorReportFor(db, orgId, key);
    if (!before) {
      const [after] = await db
        .insert(indicatorReports)
        .values({
          orgId,
          ...key,
          value: amount,
          countedValue: amount,
          countedSubmissions: 1,
          disaggregatedValues: cells,
          countedDisaggregatedValues: cells,
        })
        .onConflictDoNothing()
        .returning();
      if (after) return { before: null, after };
      continue;
    }
    if (!EDITABLE.includes(before.status)) {
      // Under the row lock: concurrent refusals each add one.
      await db
        .update(indicatorReports)
        .set({ refusedSinceSubmitted: sql`${indicatorReports.refusedSinceSubmitted} + 1` })
        .where(and(eq(indicatorReports.orgId, orgId), eq(indicatorReports.id, before.id)));
      return { refused: before.status === 'approved' ? 'report_approved' : 'report_submitted' };
    }
    const value = (before.value ?? 0) + amount;
    const countedValue = before.countedValue + amount;
    if (!countable(value) || !countable(countedValue)) return { refused: 'value_out_of_range' };
    // Written as additions, though the row is locked and the sums known: the statement says what a count
    // does (the benchmark's floor replays it as it is, many times over).
    const [after] = await db
      .update(indicatorReports)
      .set({
        value: sql`coalesce(${indicatorReports.value}, 0) + ${amount}::float8`,
        countedValue: sql`${indicatorReports.countedValue} + ${amount}::float8`,
        countedSubmissions: sql`${indicatorReports.countedSubmissions} + 1`,
        ...(Object.keys(cells).length > 0 && {
          disaggregatedValues: addedTo(indicatorReports.disaggregatedValues, cells),
          countedDisaggregatedValues: addedTo(indicatorReports.countedDisaggregatedValues, cells),
        }),
      })
      .where(and(eq(indicatorReports.orgId, orgId), eq(indicatorReports.id, before.id)))
      .returning();
    return { before, after: after! };
  }
  throw new Error('The indicator report to count into could neither be found nor created');
}
