import type { Db } from '../../db/client.js';
import type { Member } from '../../http/access.js';
import { findUserById } from '../auth/auth.repo.js';
import { paginate, type PageRequest } from '../../http/pagination.js';
import { projectScope } from '../projects/project-scope.js';
import { countFeedEvents, insertFeedEvent, listFeedEvents } from './feed.repo.js';
import { feedEvents } from './feed.tables.js';

export const FEED_EVENT_TYPES = [
  'indicator_report.submitted',
  'indicator_report.approved',
  'indicator_report.rejected',
  'report.published',
  'participant.registered',
  'reporting_period.locked',
  'reporting_period.unlocked',
  'member.invited',
  'member.joined',
] as const;
export type FeedEventType = (typeof FEED_EVENT_TYPES)[number];

export interface FeedEvent {
  orgId: string;
  type: FeedEventType;
  actorId: string | null;
  projectId?: string | null;
  subject: { type: string; id: string; label: string };
  summary: string;
}

/** How feed summaries name the member who acted. */
export async function actorName(db: Db, userId: string): Promise<string> {
  const actor = await findUserById(db, userId);
  return actor ? `${actor.firstName} ${actor.lastName}` : 'Someone';
}

/** Records an event inside the caller's transaction, so it exists exactly when the change does. */
export function recordFeedEvent(tx: Db, event: FeedEvent): Promise<void> {
  return insertFeedEvent(tx, {
    orgId: event.orgId,
    type: event.type,
    actorId: event.actorId,
    projectId: event.projectId ?? null,
    subjectType: event.subject.type,
    subjectId: event.subject.id,
    subjectLabel: event.subject.label,
    summary: event.summary,
  });
}

const UNPAGED_FEED_LENGTH = 50;

export function listFeed(db: Db, member: Member, query: PageRequest) {
  const scope = projectScope(member, feedEvents.projectId);
  return paginate(query, {
    unpagedLimit: UNPAGED_FEED_LENGTH,
    count: () => countFeedEvents(db, member.orgId, scope),
    list: async (window) =>
      (await listFeedEvents(db, member.orgId, scope, window)).map((row) => ({
        id: row.id,
        type: row.type,
        occurredAt: row.occurredAt,
        actor: row.actorId ? { id: row.actorId, name: row.actorName ?? '' } : null,
        projectId: row.projectId,
        subject: { type: row.subjectType, id: row.subjectId, label: row.subjectLabel },
        summary: row.summary,
      })),
  });
}
