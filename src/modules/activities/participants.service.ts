import { transaction, type Db } from '../../db/client.js';
import { ageBandOf } from '../../lib/demographics.js';
import { PARTICIPANT_PERSONAL_FIELDS, seesPersonalData } from '../../lib/personal-data.js';
import type { Keyring } from '../../lib/sealed-values.js';
import {
  ALREADY_ERASED,
  listAuditEntries,
  type AuditEntryRow,
  recordAudit,
  type AuditSource,
} from '../privacy/index.js';
import { nationalIdIndexes, sealedContact } from './participant-sealing.js';
import { registrationsOfParticipant } from './registrations.repo.js';
import { optionalText } from '../../lib/text.js';
import type { Member } from '../../http/pipeline/access.js';
import { badRequest, conflict, duplicate, forbidden, notFound } from '../../errors/catalogue.js';
import { refusedDuplicate, refusedWrite } from '../../errors/refusals.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { ageOn, MAX_AGE, todayUtc } from '../../lib/demographics.js';
import { presentHouseholdMember, viewParticipants } from './participant-view.js';
import {
  countParticipants,
  eraseParticipant,
  findParticipant,
  householdsOf,
  insertHouseholdMember,
  listParticipants,
  participantsByNationalIdIndex,
  updateParticipant,
} from './participants.repo.js';
import { ageBandsOf } from '../orgs/index.js';
import { visibilityOf } from '../projects/index.js';
import type { HouseholdMemberInput, ParticipantFields } from './participants.schemas.js';

export const NATIONAL_ID_TAKEN = 'A participant with this nationalId already exists';

/** A date of birth a person can have: not in the future, at most MAX_AGE years ago. */
export function birthDateProblem(field: string, dateOfBirth: string | null | undefined): string | null {
  if (!dateOfBirth) return null;
  const today = todayUtc();
  if (dateOfBirth > today) return `${field} must not be in the future`;
  if (ageOn(dateOfBirth, today)! > MAX_AGE) return `${field} must be at most ${MAX_AGE} years ago`;
  return null;
}

/** A new participant's fields as given, trimmed; phone and national id still in clear. */
export const participantValues = (fields: ParticipantFields) => ({
  firstName: fields.firstName.trim(),
  lastName: fields.lastName.trim(),
  sex: fields.sex,
  dateOfBirth: fields.dateOfBirth ?? null,
  phone: optionalText(fields.phone) ?? null,
  nationalId: optionalText(fields.nationalId) ?? null,
  village: fields.village.trim(),
  district: fields.district.trim(),
});

/**
 * The audit entries about a person as the person may read them: when, by which role, what was done,
 * through which route, about them. Other people's ids, the staff's addresses and ids, request ids and
 * the filters used are not theirs to read.
 */
function accessLogOf(entries: AuditEntryRow[], own: string[]) {
  const theirs = new Set(own);
  return entries.map((entry) => ({
    at: entry.at,
    actorRole: entry.actorRole,
    action: entry.action,
    route: entry.route,
    subjectIds: entry.subjectIds.filter((subject) => theirs.has(subject)),
  }));
}

export class ParticipantService {
  constructor(
    private readonly db: Db,
    private readonly keyring: Keyring,
  ) {}

  async list(member: Member, query: PageRequest & { search?: string }) {
    const visibility = visibilityOf(member);
    const search = { search: query.search, personal: seesPersonalData(member.role) };
    return paginate(query, {
      count: () => countParticipants(this.db, member.orgId, search, visibility),
      list: async (window) =>
        viewParticipants(
          this.db,
          this.keyring,
          member,
          await listParticipants(this.db, member.orgId, search, visibility, window),
        ),
    });
  }

  async get(member: Member, id: string) {
    const [view] = await viewParticipants(this.db, this.keyring, member, [await this.visible(member, id)]);
    return view!;
  }

  async update(member: Member, id: string, input: Partial<ParticipantFields>) {
    const problem = birthDateProblem('dateOfBirth', input.dateOfBirth);
    if (problem) throw badRequest(problem);
    // The row locked: an erasure committing in between cannot be undone by this change.
    await transaction(this.db, (tx) => this.change(tx, member, id, input));
    return this.get(member, id);
  }

  private async change(tx: Db, member: Member, id: string, input: Partial<ParticipantFields>) {
    const found = await this.visible(member, id, tx);
    if (found.erasedAt && PARTICIPANT_PERSONAL_FIELDS.some((field) => input[field] !== undefined)) {
      throw conflict(
        'The personal data of this participant was erased; it cannot be given again',
        'personal_data_erased',
      );
    }
    const nationalId = optionalText(input.nationalId);
    if (nationalId && this.keyring.previous) {
      // During a key rotation a person may still be indexed under the previous key, which the unique
      // index cannot compare with the new one: asked here, as registration does.
      const holders = await participantsByNationalIdIndex(
        tx,
        member.orgId,
        nationalIdIndexes(this.keyring, member.orgId, nationalId),
        {},
      );
      if ([...holders.values()].some((holder) => holder.id !== id)) throw duplicate(NATIONAL_ID_TAKEN);
    }
    const changes = {
      firstName: input.firstName?.trim(),
      lastName: input.lastName?.trim(),
      sex: input.sex,
      dateOfBirth: input.dateOfBirth,
      ...sealedContact(this.keyring, member.orgId, {
        phone: optionalText(input.phone),
        nationalId: optionalText(input.nationalId),
      }),
      village: input.village?.trim(),
      district: input.district?.trim(),
    };
    const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    if (Object.keys(set).length > 0) {
      const updated = await updateParticipant(tx, member.orgId, id, set).catch(
        refusedDuplicate(NATIONAL_ID_TAKEN),
      );
      if (!updated) throw notFound('Participant');
    }
  }

  async household(member: Member, id: string) {
    await this.visible(member, id);
    const personal = seesPersonalData(member.role);
    const bands = await ageBandsOf(this.db, member.orgId);
    return ((await householdsOf(this.db, member.orgId, [id], personal)).get(id) ?? []).map((person) =>
      presentHouseholdMember(person, personal, bands),
    );
  }

  async addHouseholdMember(member: Member, id: string, input: HouseholdMemberInput) {
    // The participant locked: an erasure cannot commit between the check and the insert.
    const row = await transaction(this.db, async (tx) => {
      const found = await this.visible(member, id, tx);
      if (found.erasedAt)
        throw conflict('The personal data of this participant was erased', 'personal_data_erased');
      return insertHouseholdMember(tx, member.orgId, {
        participantId: id,
        name: input.name.trim(),
        relationship: input.relationship.trim(),
        sex: input.sex,
        age: input.age,
      });
    }).catch(
      // The participant was deleted with their organization in between.
      refusedWrite({ gone: () => notFound('Participant') }),
    );
    return presentHouseholdMember(row, true, await ageBandsOf(this.db, member.orgId));
  }

  /**
   * Erases the participant's personal data and their household's (GDPR art. 17), irreversibly, with an
   * audit entry, in one transaction; the row is locked, so of two concurrent erasures one is 409.
   */
  async erase(member: Member, source: AuditSource, id: string, reason: string) {
    return transaction(this.db, async (tx) => {
      const found = await findParticipant(tx, member.orgId, id, visibilityOf(member), true);
      if (!found) throw notFound('Participant');
      if (found.participant.erasedAt) throw conflict(ALREADY_ERASED.participant, 'personal_data_erased');
      const today = todayUtc();
      const household = (await householdsOf(tx, member.orgId, [id])).get(id) ?? [];
      // The band kept is the organization's at erasure; it stays if the bands change later.
      const bands = await ageBandsOf(tx, member.orgId);
      const row = await eraseParticipant(
        tx,
        member.orgId,
        id,
        ageBandOf(ageOn(found.participant.dateOfBirth, today), bands),
        new Map(household.map((person) => [person.id, person.ageBand ?? ageBandOf(person.age, bands)])),
      );
      await recordAudit(tx, source, {
        action: 'erase',
        subjectKind: 'participant',
        subjectIds: [id, ...household.map((person) => person.id)],
        count: 1,
        details: { reason: reason.trim(), householdMembers: household.length },
      });
      const [view] = await viewParticipants(tx, this.keyring, member, [row]);
      return view!;
    });
  }

  /**
   * Everything held about the person (GDPR art. 15): the record in clear, the household, the
   * registrations with their activities, and the audit entries about them, this export's own included.
   */
  async export(member: Member, source: AuditSource, id: string) {
    return transaction(this.db, async (tx) => {
      const found = await findParticipant(tx, member.orgId, id, visibilityOf(member));
      if (!found) throw notFound('Participant');
      const [participant] = await viewParticipants(tx, this.keyring, member, [found.participant]);
      await recordAudit(tx, source, {
        action: 'export',
        subjectKind: 'participant',
        subjectIds: [id, ...participant!.householdMembers.map((person) => person.id)],
        count: 1,
      });
      const { householdMembers, ...record } = participant!;
      return {
        exportedAt: new Date(),
        participant: record,
        householdMembers,
        registrations: await registrationsOfParticipant(tx, member.orgId, id),
        accessLog: accessLogOf(
          await listAuditEntries(tx, member.orgId, { subjectId: id }, { limit: null, offset: 0 }),
          [id, ...householdMembers.map((person) => person.id)],
        ),
      };
    });
  }

  /**
   * The participant: 404 outside the org, 403 for a reporter who shares no project with them. Inside a
   * transaction (`tx`) the row is locked until it ends.
   */
  private async visible(member: Member, id: string, tx?: Db) {
    const found = await findParticipant(tx ?? this.db, member.orgId, id, visibilityOf(member), !!tx);
    if (!found) throw notFound('Participant');
    if (!found.visible) throw forbidden({ reason: 'project_not_assigned' });
    return found.participant;
  }
}
