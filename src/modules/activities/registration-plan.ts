import type { Db } from '../../db/client.js';
import { duplicate } from '../../errors/catalogue.js';
import type { Member } from '../../http/pipeline/access.js';
import { newId } from '../../lib/ids.js';
import type { Keyring } from '../../lib/sealed-values.js';
import { recordFeedEventBy } from '../feed/index.js';
import { visibilityOf } from '../projects/index.js';
import { queueWebhookEvent } from '../webhooks/index.js';
import type { participants } from './activities.tables.js';
import { nationalIdIndexes, sealedContact } from './participant-sealing.js';
import {
  existingParticipantIds,
  insertParticipants,
  participantsByNationalIdIndex,
} from './participants.repo.js';
import { MAX_BATCH, type ParticipantFields, type RegistrationItemInput } from './participants.schemas.js';
import { participantValues } from './participants.service.js';
import { insertRegistrations } from './registrations.repo.js';

/**
 * Registering people in an activity, in two steps whatever the number of items (a batch of 500, an
 * import of 10,000): what each item comes to, read in a bounded number of statements and writing
 * nothing (a dry run stops there), then the writes. The batch route and the spreadsheet import share
 * these rules; the batch refuses as a whole what the import refuses row by row.
 */

export const NATIONAL_ID_ELSEWHERE =
  'A participant with this national id is registered in a project you are not assigned to';

export type NewParticipant = ReturnType<typeof participantValues>;

/** What one item comes to, before anything is written. */
export type Planned =
  /** A participant the organization has: by `participantId`, or the holder of the item's nationalId. */
  | { kind: 'existing'; id: string; by: 'participantId' | 'nationalId' }
  /** A new person (the first item with their nationalId, or any item without one). */
  | { kind: 'new'; person: NewParticipant }
  /** The new person of the earlier item `as`, whose nationalId this item repeats. */
  | { kind: 'same'; as: number }
  /** A participantId the caller cannot reach (none such, or out of a reporter's projects). */
  | { kind: 'unknown' }
  /** The nationalId of someone out of the caller's reach (a reporter's): named to nobody. */
  | { kind: 'elsewhere' };

/** The participants holding these national ids (by blind index, both keys during a rotation). */
async function holders(
  tx: Db,
  keyring: Keyring,
  member: Member,
  nationalIds: Iterable<string>,
): Promise<Map<string, { id: string; inScope: boolean }>> {
  const indexesOf = new Map<string, string[]>();
  for (const nationalId of nationalIds) {
    if (!indexesOf.has(nationalId))
      indexesOf.set(nationalId, nationalIdIndexes(keyring, member.orgId, nationalId));
  }
  const found = await participantsByNationalIdIndex(
    tx,
    member.orgId,
    [...indexesOf.values()].flat(),
    visibilityOf(member),
  );
  const byNationalId = new Map<string, { id: string; inScope: boolean }>();
  for (const [nationalId, indexes] of indexesOf) {
    const holder = indexes.map((index) => found.get(index)).find(Boolean);
    if (holder) byNationalId.set(nationalId, holder);
  }
  return byNationalId;
}

/**
 * What each item comes to: items name an existing participant or a new one; a new one whose nationalId
 * the organization knows is that person, and a later item repeating a new person's nationalId is that
 * same new person. Reads only.
 */
export async function planRegistrations(
  tx: Db,
  keyring: Keyring,
  member: Member,
  items: readonly RegistrationItemInput[],
): Promise<Planned[]> {
  const given = [...new Set(items.flatMap((item) => (item.participantId ? [item.participantId] : [])))];
  const reached = await existingParticipantIds(tx, member.orgId, given, visibilityOf(member));
  const people = items.map((item) =>
    item.participantId ? null : participantValues(item as ParticipantFields),
  );
  const known = await holders(
    tx,
    keyring,
    member,
    people.flatMap((person) => (person?.nationalId ? [person.nationalId] : [])),
  );
  const firstNew = new Map<string, number>();
  return items.map((item, i): Planned => {
    const person = people[i];
    if (!person) {
      return reached.has(item.participantId!)
        ? { kind: 'existing', id: item.participantId!, by: 'participantId' }
        : { kind: 'unknown' };
    }
    if (!person.nationalId) return { kind: 'new', person };
    const holder = known.get(person.nationalId);
    if (holder) {
      return holder.inScope ? { kind: 'existing', id: holder.id, by: 'nationalId' } : { kind: 'elsewhere' };
    }
    const first = firstNew.get(person.nationalId);
    if (first !== undefined) return { kind: 'same', as: first };
    firstNew.set(person.nationalId, i);
    return { kind: 'new', person };
  });
}

export interface Applied {
  /** The participant of each item; null for an item planned `unknown` or `elsewhere` (left out). */
  ids: (string | null)[];
  /** The participants this call inserted. */
  created: Set<string>;
  /** The participants registered in the activity by this call (the others were already). */
  registered: string[];
}

/**
 * Writes what `plans` say, in the caller's transaction: the new people (sealed), then a registration
 * per person, the first item for a person deciding role and attendance (someone already registered
 * keeps their registration). Items planned `unknown` or `elsewhere` are left out. A nationalId another
 * request has just taken is that request's person, if in the caller's reach (else 409, naming nobody).
 * One feed entry; the webhook event names ids only, MAX_BATCH a delivery.
 */
export async function applyRegistrations(
  tx: Db,
  keyring: Keyring,
  webhooksQueued: () => void,
  member: Member,
  activity: { id: string; projectId: string; title: string },
  items: readonly RegistrationItemInput[],
  plans: readonly Planned[],
): Promise<Applied> {
  const { orgId } = member;
  const ids: (string | null)[] = [];
  const rows: (typeof participants.$inferInsert & { id: string; clearNationalId: string | null })[] = [];
  plans.forEach((plan) => {
    if (plan.kind === 'existing') return void ids.push(plan.id);
    if (plan.kind === 'same') return void ids.push(ids[plan.as]!);
    if (plan.kind !== 'new') return void ids.push(null);
    const { person } = plan;
    const id = newId();
    rows.push({
      id,
      orgId,
      ...person,
      ...sealedContact(keyring, orgId, { phone: person.phone, nationalId: person.nationalId }),
      clearNationalId: person.nationalId,
    });
    ids.push(id);
  });

  const created = await insertParticipants(
    tx,
    orgId,
    rows.map(({ clearNationalId: _, orgId: __, ...row }) => row),
  );
  const lost = rows.filter((row) => !created.has(row.id));
  if (lost.length > 0) {
    const taken = await holders(
      tx,
      keyring,
      member,
      lost.map((row) => row.clearNationalId!),
    );
    if ([...taken.values()].some((holder) => !holder.inScope)) throw duplicate(NATIONAL_ID_ELSEWHERE);
    const replaced = new Map(lost.map((row) => [row.id, taken.get(row.clearNationalId!)!.id]));
    ids.forEach((id, i) => {
      if (id && replaced.has(id)) ids[i] = replaced.get(id)!;
    });
  }

  const first = new Map<string, RegistrationItemInput>();
  ids.forEach((id, i) => id && !first.has(id) && first.set(id, items[i]!));
  const registered = await insertRegistrations(
    tx,
    orgId,
    [...first].map(([participantId, item]) => ({
      activityId: activity.id,
      participantId,
      role: item.role?.trim() ?? 'attendee',
      attended: item.attended ?? false,
    })),
  );
  if (registered.length > 0) {
    const people = registered.length === 1 ? '1 participant' : `${registered.length} participants`;
    await recordFeedEventBy(tx, member, (actor) => ({
      type: 'participant.registered',
      projectId: activity.projectId,
      subject: { type: 'activity', id: activity.id, label: activity.title },
      summary: `${actor} registered ${people} in ${activity.title}`,
    }));
    // Ids only: who they are never leaves in a webhook.
    for (let i = 0; i < registered.length; i += MAX_BATCH) {
      await queueWebhookEvent(
        tx,
        {
          orgId,
          type: 'participant.registered',
          data: {
            activityId: activity.id,
            projectId: activity.projectId,
            participantIds: registered.slice(i, i + MAX_BATCH),
          },
        },
        webhooksQueued,
      );
    }
  }
  return { ids, created, registered };
}
