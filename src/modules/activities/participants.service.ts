import type { Db } from '../../db/client.js';
import { optionalText } from '../../lib/text.js';
import type { Member } from '../../http/access.js';
import { badRequest, forbidden, notFound, pgErrorCode, refusedDuplicate } from '../../http/errors.js';
import { paginate, type PageRequest } from '../../http/pagination.js';
import { ageOn, MAX_AGE, todayUtc } from '../../lib/demographics.js';
import { viewParticipants } from './participant-view.js';
import {
  countParticipants,
  findParticipant,
  householdsOf,
  insertHouseholdMember,
  listParticipants,
  updateParticipant,
} from './participants.repo.js';
import { visibilityOf } from '../projects/visibility.js';
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

/** The stored form of a new participant's fields. */
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

export class ParticipantService {
  constructor(private readonly db: Db) {}

  async list(member: Member, query: PageRequest & { search?: string }) {
    const visibility = visibilityOf(member);
    return paginate(query, {
      count: () => countParticipants(this.db, member.orgId, query.search, visibility),
      list: async (window) =>
        viewParticipants(
          this.db,
          member,
          await listParticipants(this.db, member.orgId, query.search, visibility, window),
        ),
    });
  }

  async get(member: Member, id: string) {
    const [view] = await viewParticipants(this.db, member, [await this.visible(member, id)]);
    return view!;
  }

  async update(member: Member, id: string, input: Partial<ParticipantFields>) {
    const problem = birthDateProblem('dateOfBirth', input.dateOfBirth);
    if (problem) throw badRequest(problem);
    await this.visible(member, id);
    const changes = {
      firstName: input.firstName?.trim(),
      lastName: input.lastName?.trim(),
      sex: input.sex,
      dateOfBirth: input.dateOfBirth,
      phone: optionalText(input.phone),
      nationalId: optionalText(input.nationalId),
      village: input.village?.trim(),
      district: input.district?.trim(),
    };
    const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    if (Object.keys(set).length > 0) {
      const updated = await updateParticipant(this.db, member.orgId, id, set).catch(
        refusedDuplicate(NATIONAL_ID_TAKEN),
      );
      if (!updated) throw notFound('Participant');
    }
    return this.get(member, id);
  }

  async household(member: Member, id: string) {
    await this.visible(member, id);
    return (await householdsOf(this.db, member.orgId, [id])).get(id) ?? [];
  }

  async addHouseholdMember(member: Member, id: string, input: HouseholdMemberInput) {
    await this.visible(member, id);
    return insertHouseholdMember(this.db, member.orgId, {
      participantId: id,
      name: input.name.trim(),
      relationship: input.relationship.trim(),
      sex: input.sex,
      age: input.age,
    }).catch((err: unknown) => {
      // The participant was deleted with their organization in between.
      throw pgErrorCode(err).code === '23503' ? notFound('Participant') : err;
    });
  }

  /** The participant: 404 outside the org, 403 for a reporter who shares no project with them. */
  private async visible(member: Member, id: string) {
    const found = await findParticipant(this.db, member.orgId, id, visibilityOf(member));
    if (!found) throw notFound('Participant');
    if (!found.visible) throw forbidden();
    return found.participant;
  }
}
