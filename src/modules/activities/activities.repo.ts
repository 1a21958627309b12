import { and, count, desc, eq, gte, lte, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import type { ActivityFilter } from './activities.schemas.js';
import { activities } from './activities.tables.js';

export type ActivityRow = typeof activities.$inferSelect;
export type ActivityValues = Partial<
  Omit<ActivityRow, 'id' | 'orgId' | 'projectId' | 'createdAt' | 'updatedAt'>
>;

/**
 * Registrations of the row's activity. Written out: Drizzle leaves columns unqualified in the select
 * list of a one-table query, where `"id"` would name the subquery's own column.
 */
const registrations = (
  attendedOnly: boolean,
) => sql<number>`(SELECT count(*)::int FROM activity_participants ap
  WHERE ap.org_id = "activities"."org_id" AND ap.activity_id = "activities"."id"${attendedOnly ? sql` AND ap.attended` : sql``})`;

/** An activity with its registration counts (two index look-ups per row). */
const activityColumns = {
  id: activities.id,
  orgId: activities.orgId,
  projectId: activities.projectId,
  outputId: activities.outputId,
  title: activities.title,
  description: activities.description,
  startDate: activities.startDate,
  endDate: activities.endDate,
  location: activities.location,
  facilitator: activities.facilitator,
  status: activities.status,
  participantCount: registrations(false),
  attendedCount: registrations(true),
  createdAt: activities.createdAt,
  updatedAt: activities.updatedAt,
};

function filtered(orgId: string, projectId: string, filter: ActivityFilter): SQL | undefined {
  return and(
    eq(activities.orgId, orgId),
    eq(activities.projectId, projectId),
    filter.status ? eq(activities.status, filter.status) : undefined,
    filter.from ? gte(activities.endDate, filter.from) : undefined,
    filter.to ? lte(activities.startDate, filter.to) : undefined,
  );
}

export async function countActivities(db: Db, orgId: string, projectId: string, filter: ActivityFilter) {
  const [row] = await db
    .select({ total: count() })
    .from(activities)
    .where(filtered(orgId, projectId, filter));
  return row?.total ?? 0;
}

/** Newest first: latest start date, then latest created (ids are time-ordered). */
export function listActivities(
  db: Db,
  orgId: string,
  projectId: string,
  filter: ActivityFilter,
  window: Window,
) {
  return inWindow(
    db
      .select(activityColumns)
      .from(activities)
      .where(filtered(orgId, projectId, filter))
      .orderBy(desc(activities.startDate), desc(activities.id))
      .$dynamic(),
    window,
  );
}

export async function findActivity(db: Db, orgId: string, id: string) {
  const [row] = await db
    .select(activityColumns)
    .from(activities)
    .where(and(eq(activities.orgId, orgId), eq(activities.id, id)));
  return row;
}

/**
 * The activity row, locked until the transaction ends: `update` for a change of the activity itself,
 * `share` while registrations are written, so the activity cannot be deleted under them.
 */
export async function lockActivity(db: Db, orgId: string, id: string, mode: 'update' | 'share') {
  const [row] = await db
    .select()
    .from(activities)
    .where(and(eq(activities.orgId, orgId), eq(activities.id, id)))
    .for(mode);
  return row;
}

export async function insertActivity(
  db: Db,
  orgId: string,
  values: Omit<typeof activities.$inferInsert, 'id' | 'orgId' | 'createdAt' | 'updatedAt'>,
): Promise<string> {
  const [row] = await db
    .insert(activities)
    .values({ ...values, orgId })
    .returning({ id: activities.id });
  return row!.id;
}

export async function updateActivity(db: Db, orgId: string, id: string, values: ActivityValues) {
  await db
    .update(activities)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(activities.orgId, orgId), eq(activities.id, id)));
}

export async function deleteActivity(db: Db, orgId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(activities)
    .where(and(eq(activities.orgId, orgId), eq(activities.id, id)))
    .returning({ id: activities.id });
  return rows.length > 0;
}
