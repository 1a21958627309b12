import type { Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import { ageBandOf, ageOn, todayUtc } from '../../lib/demographics.js';
import {
  HOUSEHOLD_PERSONAL_FIELDS,
  PARTICIPANT_PERSONAL_FIELDS,
  seesPersonalData,
  withoutFields,
} from '../../lib/personal-data.js';
import type { Keyring } from '../../lib/sealed-values.js';
import { ageBandsOf } from '../orgs/index.js';
import { recordPersonalRead, type AuditSource } from '../privacy/index.js';
import { openContact } from './participant-sealing.js';
import { householdsOf, type HouseholdMemberRow, type ParticipantRow } from './participants.repo.js';
import type { RegistrationRow } from './registrations.repo.js';

/**
 * A household member as every route returns one; `personal` false leaves out name and age. `bands`: the
 * organization's age bands (ageBandsOf).
 */
export function presentHouseholdMember(
  person: HouseholdMemberRow,
  personal: boolean,
  bands: readonly string[],
) {
  const view = {
    id: person.id,
    participantId: person.participantId,
    name: person.name,
    relationship: person.relationship,
    sex: person.sex,
    age: person.age,
    // Kept at erasure, when age is gone.
    ageBand: person.ageBand ?? ageBandOf(person.age, bands),
    createdAt: person.createdAt,
  };
  return personal ? view : withoutFields(view, [...HOUSEHOLD_PERSONAL_FIELDS]);
}

/**
 * A participant as every route returns one: with age, age band and household. Viewers get no personal
 * field (DECISIONS.md section 5), and they are not even opened for them; erased people have none left.
 */
function present(
  keyring: Keyring,
  personal: boolean,
  row: ParticipantRow,
  household: HouseholdMemberRow[],
  today: string,
  bands: readonly string[],
) {
  const age = ageOn(row.dateOfBirth, today);
  const view = {
    id: row.id,
    orgId: row.orgId,
    firstName: row.firstName,
    lastName: row.lastName,
    sex: row.sex,
    dateOfBirth: row.dateOfBirth,
    age,
    ageBand: row.ageBand ?? ageBandOf(age, bands),
    phone: personal ? openContact(keyring, row.phone) : null,
    nationalId: personal ? openContact(keyring, row.nationalId) : null,
    village: row.village,
    district: row.district,
    householdMembers: household.map((person) => presentHouseholdMember(person, personal, bands)),
    erasedAt: row.erasedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
  return personal ? view : withoutFields(view, [...PARTICIPANT_PERSONAL_FIELDS, 'age']);
}

export type ParticipantView = ReturnType<typeof present>;

/** A participant as a viewer reads them: what an answer keeps for an `Idempotency-Key` replay. */
export function withoutPersonalData(view: ParticipantView): ParticipantView {
  return {
    ...withoutFields(view, [...PARTICIPANT_PERSONAL_FIELDS, 'age']),
    householdMembers: view.householdMembers.map((person) =>
      withoutFields(person, [...HOUSEHOLD_PERSONAL_FIELDS]),
    ),
  };
}

/** Participants ready to send, their households loaded in one query. */
export async function viewParticipants(db: Db, keyring: Keyring, member: Member, rows: ParticipantRow[]) {
  const personal = seesPersonalData(member.role);
  const households = await householdsOf(db, member.orgId, [...new Set(rows.map((row) => row.id))], personal);
  const today = todayUtc();
  // Age bands are the organization's (skipped for nothing to show).
  const bands = rows.length > 0 ? await ageBandsOf(db, member.orgId) : [];
  return rows.map((row) => present(keyring, personal, row, households.get(row.id) ?? [], today, bands));
}

/** Registrations with their nested participant. */
export async function viewRegistrations(
  db: Db,
  keyring: Keyring,
  member: Member,
  rows: { registration: RegistrationRow; participant: ParticipantRow }[],
) {
  const people = await viewParticipants(
    db,
    keyring,
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

/**
 * Records that these participants were sent in clear (nothing for viewers, nor for erased people, who
 * have nothing left to read); their households go with them under the participant's id.
 */
export function recordParticipantsRead(
  db: Db,
  source: AuditSource,
  views: ParticipantView[],
  details?: Record<string, unknown>,
) {
  return recordPersonalRead(db, source, {
    subjectKind: 'participant',
    subjectIds: views.filter((view) => view.erasedAt === null).map((view) => view.id),
    ...(details ? { details } : {}),
  });
}
