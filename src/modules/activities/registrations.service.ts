import { queueWebhookEvent } from '../webhooks/index.js';
import { transaction, type Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import { badRequest, duplicate, notFound } from '../../errors/catalogue.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { newId } from '../../lib/ids.js';
import { recordFeedEventBy } from '../feed/index.js';
import { ensureProjectAccess, visibilityOf } from '../projects/index.js';
import { findActivity, lockActivity } from './activities.repo.js';
import { viewRegistrations } from './participant-view.js';
import { seesPersonalData } from '../../lib/personal-data.js';
import type { Keyring } from '../../lib/sealed-values.js';
import type { participants } from './activities.tables.js';
import { nationalIdIndexes, sealedContact } from './participant-sealing.js';
import {
  existingParticipantIds,
  insertParticipants,
  participantsByNationalIdIndex,
} from './participants.repo.js';
import type { ParticipantFields, RegistrationItemInput } from './participants.schemas.js';
import { birthDateProblem, participantValues } from './participants.service.js';
import {
  countRegistrations,
  deleteRegistration,
  insertRegistrations,
  listRegistrations,
  updateRegistration,
  type RegistrationFilter,
} from './registrations.repo.js';

export const NATIONAL_ID_ELSEWHERE =
  'A participant with this national id is registered in a project you are not assigned to';

const NEW_PARTICIPANT_FIELDS = [
  'firstName',
  'lastName',
  'sex',
  'dateOfBirth',
  'phone',
  'nationalId',
  'village',
  'district',
] as const;

/**
 * What the schema cannot say about a batch, each message naming the item by its index. It reads the
 * body defensively, so the route can add these to the schema's own messages and list every bad item.
 */
export function registrationProblems(items: unknown): string[] {
  if (!Array.isArray(items)) return [];
  return items.flatMap((item: unknown, index) => {
    if (item === null || typeof item !== 'object') return [];
    const fields = item as Record<string, unknown>;
    const at = `participants.${index}`;
    if (fields.participantId !== undefined) {
      const extra = NEW_PARTICIPANT_FIELDS.filter((field) => fields[field] !== undefined);
      return extra.length > 0
        ? [
            `${at} gives participantId and ${extra.join(', ')}: send an existing participant's id or a new participant's fields, not both`,
          ]
        : [];
    }
    const { dateOfBirth } = fields;
    if (typeof dateOfBirth !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(dateOfBirth)) return [];
    const problem = birthDateProblem(`${at}.dateOfBirth`, dateOfBirth);
    return problem ? [problem] : [];
  });
}

/** Registrations of participants in activities (DECISIONS.md section 9). */
export class RegistrationService {
  constructor(
    private readonly db: Db,
    private readonly keyring: Keyring,
    /** Wakes the webhook worker; queueWebhookEvent calls it once a delivery it queued has committed. */
    private readonly webhooksQueued: () => void,
  ) {}

  async list(member: Member, activityId: string, query: PageRequest & { attended?: boolean }) {
    await this.activity(member, activityId);
    const filter: RegistrationFilter = { attended: query.attended, personal: seesPersonalData(member.role) };
    return paginate(query, {
      count: () => countRegistrations(this.db, member.orgId, activityId, filter),
      list: async (window) =>
        viewRegistrations(
          this.db,
          this.keyring,
          member,
          await listRegistrations(this.db, member.orgId, activityId, filter, window),
        ),
    });
  }

  /**
   * All or nothing, in a fixed number of statements whatever the batch size. Items name an existing
   * participant or a new one; a new one whose nationalId the organization knows is that person. A person
   * already registered keeps their registration (registering twice changes nothing); within the batch
   * the first item for a person decides role and attendance. Returns the batch's registrations in order.
   * A reporter reaches only people of their projects (DECISIONS.md section 5): another participantId is
   * 404, another person's nationalId 409; checked in this transaction, the conflict path included.
   */
  async register(member: Member, activityId: string, items: RegistrationItemInput[]) {
    const problems = registrationProblems(items);
    if (problems.length > 0) throw badRequest(...problems);
    return transaction(this.db, async (tx) => {
      const activity = await lockActivity(tx, member.orgId, activityId, 'share');
      if (!activity) throw notFound('Activity');
      await ensureProjectAccess(tx, member, activity.projectId);

      const ids = await this.resolveParticipants(tx, member, items);
      const first = new Map<string, RegistrationItemInput>();
      ids.forEach((id, i) => first.has(id) || first.set(id, items[i]!));
      const registered = await insertRegistrations(
        tx,
        member.orgId,
        [...first].map(([participantId, item]) => ({
          activityId,
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
        await queueWebhookEvent(
          tx,
          {
            orgId: member.orgId,
            type: 'participant.registered',
            data: { activityId: activity.id, projectId: activity.projectId, participantIds: registered },
          },
          this.webhooksQueued,
        );
      }
      const order = [...first.keys()];
      const rows = await listRegistrations(tx, member.orgId, activityId, { participantIds: order });
      const position = new Map(order.map((id, i) => [id, i]));
      rows.sort((a, b) => position.get(a.participant.id)! - position.get(b.participant.id)!);
      return viewRegistrations(tx, this.keyring, member, rows);
    });
  }

  /** The participant id of each item: given, found by nationalId, or of a participant inserted now. */
  private async resolveParticipants(
    tx: Db,
    member: Member,
    items: RegistrationItemInput[],
  ): Promise<string[]> {
    const { orgId } = member;
    const visibility = visibilityOf(member);
    const given = [...new Set(items.flatMap((item) => (item.participantId ? [item.participantId] : [])))];
    if ((await existingParticipantIds(tx, orgId, given, visibility)).size < given.length) {
      throw notFound('Participant');
    }

    const newcomers = items.map((item) =>
      item.participantId ? null : participantValues(item as ParticipantFields),
    );
    // National ids are compared by blind index: under the current key, and during a rotation the previous.
    const indexesOf = new Map<string, string[]>();
    for (const person of newcomers) {
      if (person?.nationalId && !indexesOf.has(person.nationalId)) {
        indexesOf.set(person.nationalId, nationalIdIndexes(this.keyring, orgId, person.nationalId));
      }
    }
    const known = async (nationalIds: string[]) => {
      const found = reachable(
        await participantsByNationalIdIndex(
          tx,
          orgId,
          nationalIds.flatMap((nationalId) => indexesOf.get(nationalId)!),
          visibility,
        ),
      );
      const byNationalId = new Map<string, string>();
      for (const nationalId of nationalIds) {
        const id = indexesOf
          .get(nationalId)!
          .map((index) => found.get(index))
          .find(Boolean);
        if (id) byNationalId.set(nationalId, id);
      }
      return byNationalId;
    };
    const byNationalId = await known([...indexesOf.keys()]);

    const ids: string[] = [];
    const rows: (typeof participants.$inferInsert & { id: string; clearNationalId: string | null })[] = [];
    newcomers.forEach((values, i) => {
      if (!values) return void ids.push(items[i]!.participantId!);
      const found = values.nationalId ? byNationalId.get(values.nationalId) : undefined;
      if (found) return void ids.push(found);
      const id = newId();
      rows.push({
        id,
        orgId,
        ...values,
        ...sealedContact(this.keyring, orgId, { phone: values.phone, nationalId: values.nationalId }),
        clearNationalId: values.nationalId,
      });
      // A later item of the batch with the same nationalId is this same new person.
      if (values.nationalId) byNationalId.set(values.nationalId, id);
      ids.push(id);
    });

    const inserted = await insertParticipants(
      tx,
      orgId,
      rows.map(({ clearNationalId: _, orgId: __, ...row }) => row),
    );
    const lost = rows.filter((row) => !inserted.has(row.id));
    if (lost.length === 0) return ids;
    // Another request registered these national ids first: they are that request's people, if in reach.
    const taken = await known(lost.map((row) => row.clearNationalId!));
    const replaced = new Map(lost.map((row) => [row.id, taken.get(row.clearNationalId!)!]));
    return ids.map((id) => replaced.get(id) ?? id);
  }

  async update(
    member: Member,
    activityId: string,
    participantId: string,
    input: { role?: string; attended?: boolean },
  ) {
    await this.activity(member, activityId);
    const changes = { role: input.role?.trim(), attended: input.attended };
    const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    if (
      Object.keys(set).length > 0 &&
      !(await updateRegistration(this.db, member.orgId, activityId, participantId, set))
    ) {
      throw notFound('Participant');
    }
    const [row] = await listRegistrations(this.db, member.orgId, activityId, {
      participantIds: [participantId],
    });
    if (!row) throw notFound('Participant');
    const [view] = await viewRegistrations(this.db, this.keyring, member, [row]);
    return view!;
  }

  async remove(member: Member, activityId: string, participantId: string): Promise<void> {
    await this.activity(member, activityId);
    if (!(await deleteRegistration(this.db, member.orgId, activityId, participantId))) {
      throw notFound('Participant');
    }
  }

  private async activity(member: Member, activityId: string) {
    const activity = await findActivity(this.db, member.orgId, activityId);
    if (!activity) throw notFound('Activity');
    await ensureProjectAccess(this.db, member, activity.projectId);
    return activity;
  }
}

/** nationalId → participant id; a person out of the caller's reach is a 409 that names nobody. */
function reachable(found: Map<string, { id: string; inScope: boolean }>): Map<string, string> {
  if ([...found.values()].some((person) => !person.inScope)) throw duplicate(NATIONAL_ID_ELSEWHERE);
  return new Map([...found].map(([nationalId, person]) => [nationalId, person.id]));
}
