import { and, asc, count, eq, gte, lte, ne } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { reportingPeriods } from './periods.tables.js';

export type ReportingPeriodRow = typeof reportingPeriods.$inferSelect;
export type PeriodChanges = Partial<
  Pick<
    ReportingPeriodRow,
    'label' | 'startDate' | 'endDate' | 'dueDate' | 'isLocked' | 'lockedAt' | 'lockedBy'
  >
>;

/**
 * The project (read-only use of the projects table). With `lock`, its row stays locked until the
 * transaction ends: that serializes every overlap check and write of the project's periods.
 */
const ofProject = (orgId: string, projectId: string) =>
  and(eq(reportingPeriods.orgId, orgId), eq(reportingPeriods.projectId, projectId));

export async function countPeriods(db: Db, orgId: string, projectId: string): Promise<number> {
  const [row] = await db.select({ total: count() }).from(reportingPeriods).where(ofProject(orgId, projectId));
  return row?.total ?? 0;
}

export function listPeriods(db: Db, orgId: string, projectId: string, window: Window) {
  return inWindow(
    db
      .select()
      .from(reportingPeriods)
      .where(ofProject(orgId, projectId))
      .orderBy(asc(reportingPeriods.startDate), asc(reportingPeriods.id))
      .$dynamic(),
    window,
  );
}

export async function findPeriod(
  db: Db,
  orgId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<ReportingPeriodRow | undefined> {
  const query = db
    .select()
    .from(reportingPeriods)
    .where(and(eq(reportingPeriods.orgId, orgId), eq(reportingPeriods.id, id)));
  const [row] = options.lock ? await query.for('update') : await query;
  return row;
}

/** The first period of the project (by start date) sharing at least one day with [startDate, endDate]. */
export async function findOverlappingPeriod(
  db: Db,
  orgId: string,
  projectId: string,
  range: { startDate: string; endDate: string; exceptId?: string },
): Promise<{ id: string; label: string } | undefined> {
  const [row] = await db
    .select({ id: reportingPeriods.id, label: reportingPeriods.label })
    .from(reportingPeriods)
    .where(
      and(
        ofProject(orgId, projectId),
        lte(reportingPeriods.startDate, range.endDate),
        gte(reportingPeriods.endDate, range.startDate),
        range.exceptId ? ne(reportingPeriods.id, range.exceptId) : undefined,
      ),
    )
    .orderBy(asc(reportingPeriods.startDate), asc(reportingPeriods.id))
    .limit(1);
  return row;
}

export async function insertPeriod(
  db: Db,
  orgId: string,
  period: { projectId: string; label: string; startDate: string; endDate: string; dueDate: string | null },
): Promise<ReportingPeriodRow> {
  const [row] = await db
    .insert(reportingPeriods)
    .values({ orgId, ...period })
    .returning();
  return row!;
}

/** Every period of the project, by start date (a project has a few dozen at most). */
export function periodsOfProject(db: Db, orgId: string, projectId: string): Promise<ReportingPeriodRow[]> {
  return db
    .select()
    .from(reportingPeriods)
    .where(ofProject(orgId, projectId))
    .orderBy(asc(reportingPeriods.startDate), asc(reportingPeriods.id));
}

/** Several periods in one statement (none: no statement). */
export async function insertPeriods(
  db: Db,
  orgId: string,
  periods: { projectId: string; label: string; startDate: string; endDate: string; dueDate: string | null }[],
): Promise<ReportingPeriodRow[]> {
  if (periods.length === 0) return [];
  return db
    .insert(reportingPeriods)
    .values(periods.map((period) => ({ orgId, ...period })))
    .returning();
}

export async function updatePeriod(
  db: Db,
  orgId: string,
  id: string,
  changes: PeriodChanges,
): Promise<ReportingPeriodRow | undefined> {
  const [row] = await db
    .update(reportingPeriods)
    .set(changes)
    .where(and(eq(reportingPeriods.orgId, orgId), eq(reportingPeriods.id, id)))
    .returning();
  return row;
}

export async function deletePeriod(db: Db, orgId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(reportingPeriods)
    .where(and(eq(reportingPeriods.orgId, orgId), eq(reportingPeriods.id, id)))
    .returning({ id: reportingPeriods.id });
  return rows.length > 0;
}

/**
 * The period under a FOR SHARE row lock (a row lock, not a share link): locking the period, which takes
 * its row for update, waits until this transaction has written, so no report or counted submission
 * slips into a period as it is being locked.
 */
export async function lockPeriodForShare(db: Db, orgId: string, id: string) {
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

/**
 * The project's period holding the date (`YYYY-MM-DD`; periods of a project never overlap, so one at
 * most), locked FOR SHARE like lockPeriodForShare: it cannot be locked or moved under a count.
 */
export async function lockPeriodHoldingDate(db: Db, orgId: string, projectId: string, day: string) {
  const [row] = await db
    .select({ id: reportingPeriods.id })
    .from(reportingPeriods)
    .where(
      and(
        eq(reportingPeriods.orgId, orgId),
        eq(reportingPeriods.projectId, projectId),
        lte(reportingPeriods.startDate, day),
        gte(reportingPeriods.endDate, day),
      ),
    )
    .limit(1)
    .for('share');
  return row;
}
