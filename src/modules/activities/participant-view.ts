import type { Db } from '../../db/client.js';
import type { Member } from '../../http/access.js';
import { ageOn, todayUtc } from '../../lib/demographics.js';
import { householdsOf, type HouseholdMemberRow, type ParticipantRow } from './participants.repo.js';
import type { RegistrationRow } from './registrations.repo.js';

/** A participant as every route returns one: with age and household, contact details hidden from viewers. */
function present(member: Member, row: ParticipantRow, household: HouseholdMemberRow[], today: string) {
  const hidden = member.role === 'viewer';
  return {
    id: row.id,
    orgId: row.orgId,
    firstName: row.firstName,
    lastName: row.lastName,
    sex: row.sex,
    dateOfBirth: row.dateOfBirth,
    age: ageOn(row.dateOfBirth, today),
    phone: hidden ? null : row.phone,
    nationalId: hidden ? null : row.nationalId,
    village: row.village,
    district: row.district,
    householdMembers: household.map((person) => ({
      id: person.id,
      participantId: person.participantId,
      name: person.name,
      relationship: person.relationship,
      sex: person.sex,
      age: person.age,
      createdAt: person.createdAt,
    })),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export type ParticipantView = ReturnType<typeof present>;

/** Participants ready to send, their households loaded in one query. */
export async function viewParticipants(db: Db, member: Member, rows: ParticipantRow[]) {
  const households = await householdsOf(db, member.orgId, [...new Set(rows.map((row) => row.id))]);
  const today = todayUtc();
  return rows.map((row) => present(member, row, households.get(row.id) ?? [], today));
}

/** Registrations with their nested participant. */
export async function viewRegistrations(
  db: Db,
  member: Member,
  rows: { registration: RegistrationRow; participant: ParticipantRow }[],
) {
  const people = await viewParticipants(
    db,
    member,
    rows.map((row) => row.participant),
  );
  return rows.map(({ registration }, i) => ({
    id: registration.id,
    activityId: registration.activityId,
    participantId: registration.participantId,
    role: registration.role,
    attended: registration.attended,
    registeredAt: registration.registeredAt,
    participant: people[i]!,
  }));
}
