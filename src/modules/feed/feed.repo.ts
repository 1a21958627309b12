import { and, count, desc, eq, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { users } from '../auth/auth.tables.js';
import { feedEvents } from './feed.tables.js';

export type NewFeedEvent = Omit<typeof feedEvents.$inferInsert, 'id' | 'occurredAt'>;

export async function insertFeedEvent(db: Db, event: NewFeedEvent): Promise<void> {
  await db.insert(feedEvents).values(event);
}

/** `projectScope` limits project events to what the caller may see; org-wide events are always shown. */
function visible(orgId: string, projectScope: SQL | undefined) {
  return and(
    eq(feedEvents.orgId, orgId),
    projectScope ? or(isNull(feedEvents.projectId), projectScope) : undefined,
  );
}

export async function countFeedEvents(db: Db, orgId: string, projectScope: SQL | undefined): Promise<number> {
  const [row] = await db.select({ total: count() }).from(feedEvents).where(visible(orgId, projectScope));
  return row?.total ?? 0;
}

export function listFeedEvents(db: Db, orgId: string, projectScope: SQL | undefined, window: Window) {
  return inWindow(
    db
      .select({
        id: feedEvents.id,
        type: feedEvents.type,
        occurredAt: feedEvents.occurredAt,
        actorId: feedEvents.actorId,
        actorName: sql<string | null>`${users.firstName} || ' ' || ${users.lastName}`,
        projectId: feedEvents.projectId,
        subjectType: feedEvents.subjectType,
        subjectId: feedEvents.subjectId,
        subjectLabel: feedEvents.subjectLabel,
        summary: feedEvents.summary,
      })
      .from(feedEvents)
      .leftJoin(users, eq(users.id, feedEvents.actorId))
      .where(visible(orgId, projectScope))
      .orderBy(desc(feedEvents.occurredAt), desc(feedEvents.id))
      .$dynamic(),
    window,
  );
}
