import { transaction, type Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import { badRequest, duplicate, notFound } from '../../errors/catalogue.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { ensureProjectAccess } from '../projects/index.js';
import { findActivity, lockActivity } from './activities.repo.js';
import { viewRegistrations } from './participant-view.js';
import { seesPersonalData } from '../../lib/personal-data.js';
import type { Keyring } from '../../lib/sealed-values.js';
import type { RegistrationItemInput } from './participants.schemas.js';
import { birthDateProblem } from './participants.service.js';
import { applyRegistrations, NATIONAL_ID_ELSEWHERE, planRegistrations } from './registration-plan.js';
import {
  countRegistrations,
  deleteRegistration,
  listRegistrations,
  updateRegistration,
  type RegistrationFilter,
} from './registrations.repo.js';

export { NATIONAL_ID_ELSEWHERE };

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

/** The new participant's fields an item also gives when it gives a participantId (none: []). */
export function fieldsBesideParticipantId(fields: Record<string, unknown>): string[] {
  if (fields.participantId === undefined) return [];
  return NEW_PARTICIPANT_FIELDS.filter((field) => fields[field] !== undefined);
}

/** The problem of a well-formed dateOfBirth (`field` names it in the message); null when none. */
export function itemBirthDateProblem(field: string, fields: Record<string, unknown>): string | null {
  if (fields.participantId !== undefined) return null;
  const { dateOfBirth } = fields;
  if (typeof dateOfBirth !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(dateOfBirth)) return null;
  return birthDateProblem(field, dateOfBirth);
}

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
    const extra = fieldsBesideParticipantId(fields);
    if (extra.length > 0) {
      return [
        `${at} gives participantId and ${extra.join(', ')}: send an existing participant's id or a new participant's fields, not both`,
      ];
    }
    const problem = itemBirthDateProblem(`${at}.dateOfBirth`, fields);
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

      const plans = await planRegistrations(tx, this.keyring, member, items);
      if (plans.some((plan) => plan.kind === 'unknown')) throw notFound('Participant');
      if (plans.some((plan) => plan.kind === 'elsewhere')) throw duplicate(NATIONAL_ID_ELSEWHERE);
      const { ids } = await applyRegistrations(
        tx,
        this.keyring,
        this.webhooksQueued,
        member,
        activity,
        items,
        plans,
      );
      const order = [...new Set(ids as string[])];
      const rows = await listRegistrations(tx, member.orgId, activityId, { participantIds: order });
      const position = new Map(order.map((id, i) => [id, i]));
      rows.sort((a, b) => position.get(a.participant.id)! - position.get(b.participant.id)!);
      return viewRegistrations(tx, this.keyring, member, rows);
    });
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
