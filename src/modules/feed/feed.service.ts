import type { Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import { findUserById } from '../auth/index.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { visibilityOf } from '../projects/index.js';
import { countFeedEvents, insertFeedEvent, listFeedEvents } from './feed.repo.js';

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
  /** A run of the deadline reminder job that emailed someone: about the organization, by no one. */
  'reminders.sent',
  /** A form submission stored but not counted into its indicator report (its form counts into one). */
  'form_submission.not_counted',
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
async function actorName(db: Db, userId: string): Promise<string> {
  const actor = await findUserById(db, userId);
  return actor ? `${actor.firstName} ${actor.lastName}` : 'Someone';
}

/** Records an event inside the caller's transaction, so it exists exactly when the change does. */
export function recordFeedEvent(tx: Db, event: FeedEvent): Promise<void> {
  return insertFeedEvent(tx, event.orgId, {
    type: event.type,
    actorId: event.actorId,
    projectId: event.projectId ?? null,
    subjectType: event.subject.type,
    subjectId: event.subject.id,
    subjectLabel: event.subject.label,
    summary: event.summary,
  });
}

/** An event as its recorder describes it, once the name of the member who acted is known. */
export type EventByActor = Omit<FeedEvent, 'orgId' | 'actorId'>;

/**
 * Records an event by a member of the organization (the actor), its summary naming them as
 * `describe` writes it. Returns the name, for what goes out with the event (an email).
 */
export async function recordFeedEventBy(
  tx: Db,
  actor: { orgId: string; userId: string },
  describe: (actorName: string) => EventByActor,
): Promise<string> {
  const name = await actorName(tx, actor.userId);
  await recordFeedEvent(tx, { ...describe(name), orgId: actor.orgId, actorId: actor.userId });
  return name;
}

const UNPAGED_FEED_LENGTH = 50;

export function listFeed(db: Db, member: Member, query: PageRequest) {
  const visibility = visibilityOf(member);
  return paginate(query, {
    unpagedLimit: UNPAGED_FEED_LENGTH,
    count: () => countFeedEvents(db, member.orgId, visibility),
    list: async (window) =>
      (await listFeedEvents(db, member.orgId, visibility, window)).map((row) => ({
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
