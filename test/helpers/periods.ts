import type { Db } from '../../src/db/client.js';
import { reportingPeriods } from '../../src/modules/periods/periods.tables.js';

export type PeriodRow = typeof reportingPeriods.$inferSelect;

/** A reporting period row inserted directly (no overlap check); unlocked unless told otherwise. */
export async function createPeriod(
  db: Db,
  orgId: string,
  projectId: string,
  overrides: Partial<Omit<typeof reportingPeriods.$inferInsert, 'orgId' | 'projectId'>> = {},
): Promise<PeriodRow> {
  const [row] = await db
    .insert(reportingPeriods)
    .values({
      orgId,
      projectId,
      label: 'Q1 2026',
      startDate: '2026-01-01',
      endDate: '2026-03-31',
      ...overrides,
    })
    .returning();
  return row!;
}

/** The period as the API returns it. */
export const periodJson = (row: PeriodRow) => ({
  id: row.id,
  orgId: row.orgId,
  projectId: row.projectId,
  label: row.label,
  startDate: row.startDate,
  endDate: row.endDate,
  dueDate: row.dueDate,
  isLocked: row.isLocked,
  lockedAt: row.lockedAt ? row.lockedAt.toISOString() : null,
  lockedBy: row.lockedBy,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});
