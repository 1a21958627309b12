import { and, count, desc, eq, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { users } from '../auth/auth.tables.js';
import { visibleTo, type ProjectVisibility } from '../projects/index.js';
import { feedEvents } from './feed.tables.js';

export type NewFeedEvent = Omit<typeof feedEvents.$inferInsert, 'id' | 'orgId' | 'occurredAt'>;

export async function insertFeedEvent(db: Db, orgId: string, event: NewFeedEvent): Promise<void> {
  await db.insert(feedEvents).values({ ...event, orgId });
}

/** Project events only of the projects within `visibility`; org-wide events are always shown. */
function visible(orgId: string, visibility: ProjectVisibility) {
  const projects = visibleTo(orgId, visibility, feedEvents.projectId);
  return and(eq(feedEvents.orgId, orgId), projects ? or(isNull(feedEvents.projectId), projects) : undefined);
}

export async function countFeedEvents(db: Db, orgId: string, visibility: ProjectVisibility): Promise<number> {
  const [row] = await db.select({ total: count() }).from(feedEvents).where(visible(orgId, visibility));
  return row?.total ?? 0;
}

export function listFeedEvents(db: Db, orgId: string, visibility: ProjectVisibility, window: Window) {
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
      .where(visible(orgId, visibility))
      .orderBy(desc(feedEvents.occurredAt), desc(feedEvents.id))
      .$dynamic(),
    window,
  );
}
