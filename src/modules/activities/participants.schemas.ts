import { Type } from '@sinclair/typebox';
import { PageQuery } from '../../http/schemas/pagination.js';
import { AuditEntry } from '../privacy/index.js';
import {
  Body,
  DateOnly,
  Nullable,
  NullableString,
  Paragraphs,
  SINGLE_LINE,
  Text,
  Timestamp,
  Uuid,
} from '../../http/schemas/schemas.js';
import { AGE_BANDS, MAX_AGE, SEXES, type AgeBand, type Sex } from '../../lib/demographics.js';

/** Most people registered in one request (DECISIONS.md section 9). */
export const MAX_BATCH = 500;

const SexSchema = () => Type.Unsafe<Sex>({ type: 'string', enum: [...SEXES] });

const fields = {
  firstName: Text(100),
  lastName: Text(100),
  sex: SexSchema(),
  dateOfBirth: NullableString({
    format: 'date',
    description: `Not in the future and at most ${MAX_AGE} years ago; null when unknown (age band "unknown")`,
  }),
  phone: NullableString({ maxLength: 40, ...SINGLE_LINE }),
  nationalId: NullableString({
    maxLength: 64,
    ...SINGLE_LINE,
    description: 'Unique in the organization; registering a new person with a known one reuses that person',
  }),
  village: Text(200),
  district: Text(200),
};
const registration = {
  role: Type.Optional(Text(50)),
  attended: Type.Optional(Type.Boolean()),
};

const AgeBandSchema = () =>
  Type.Unsafe<AgeBand>({
    type: 'string',
    description:
      "From the age today, among the organization's age bands (`ageBands` of the organization; by " +
      `default ${AGE_BANDS.join(', ')}); kept as it was at erasure, whatever the bands later`,
    examples: ['18-35'],
  });

const PERSONAL = 'null for viewers and once erased';

export const HouseholdMember = Type.Object(
  {
    id: Uuid(),
    participantId: Uuid(),
    name: Nullable(Type.String({ description: PERSONAL })),
    relationship: Type.String(),
    sex: SexSchema(),
    age: Nullable(Type.Integer({ description: PERSONAL })),
    ageBand: AgeBandSchema(),
    createdAt: Timestamp(),
  },
  {
    title: 'HouseholdMember',
    description: 'Someone living with a participant. Name and age are personal data (viewers: null).',
  },
);

export const Participant = Type.Object(
  {
    id: Uuid(),
    orgId: Uuid(),
    firstName: Nullable(Type.String({ description: PERSONAL })),
    lastName: Nullable(Type.String({ description: PERSONAL })),
    sex: SexSchema(),
    dateOfBirth: Nullable(DateOnly(PERSONAL)),
    age: Nullable(
      Type.Integer({ description: `Completed years today (UTC), from dateOfBirth; ${PERSONAL}` }),
    ),
    ageBand: AgeBandSchema(),
    phone: Nullable(Type.String({ description: `Stored encrypted; ${PERSONAL}` })),
    nationalId: Nullable(Type.String({ description: `Stored encrypted; ${PERSONAL}` })),
    village: Type.String(),
    district: Type.String(),
    householdMembers: Type.Array(HouseholdMember, { description: 'Oldest first (for viewers by id)' }),
    erasedAt: Nullable(Timestamp({ description: 'When the personal data was erased; null before' })),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  {
    title: 'Participant',
    description:
      'A person the organization works with. Personal fields (first and last name, date of birth, age, ' +
      'phone, national id; household names and ages) are null for viewers and once erased; ageBand is ' +
      'given to everyone.',
  },
);

export const ActivityParticipant = Type.Object(
  {
    id: Uuid(),
    activityId: Uuid(),
    participantId: Uuid(),
    role: Type.String(),
    attended: Type.Boolean({ description: 'Confirmed attendance' }),
    registeredAt: Timestamp(),
    participant: Participant,
  },
  { title: 'ActivityParticipant', description: "A participant's registration in an activity" },
);

/**
 * One item of a registration: an existing participant by id, or a new one's fields. JSON Schema's
 * if/else rather than a union, so a bad item gets one message per problem, each with its index.
 */
export const RegistrationItem = Type.Object(
  {
    participantId: Type.Optional(Uuid('An existing participant of the organization')),
    firstName: Type.Optional(fields.firstName),
    lastName: Type.Optional(fields.lastName),
    sex: Type.Optional(fields.sex),
    dateOfBirth: Type.Optional(fields.dateOfBirth),
    phone: Type.Optional(fields.phone),
    nationalId: Type.Optional(fields.nationalId),
    village: Type.Optional(fields.village),
    district: Type.Optional(fields.district),
    ...registration,
  },
  {
    title: 'RegistrationItem',
    additionalProperties: false,
    if: { required: ['participantId'] },
    else: { required: ['firstName', 'lastName', 'sex', 'village', 'district'] },
  },
);

export const RegisterParticipantsBody = Body(
  {
    participants: Type.Array(RegistrationItem, { minItems: 1, maxItems: MAX_BATCH }),
  },
  { title: 'ParticipantRegistration' },
);

export const UpdateRegistrationBody = Body(
  { role: Type.Optional(Text(50)), attended: Type.Optional(Type.Boolean()) },
  { title: 'ActivityParticipantUpdate' },
);

export const UpdateParticipantBody = Body(
  {
    firstName: Type.Optional(fields.firstName),
    lastName: Type.Optional(fields.lastName),
    sex: Type.Optional(fields.sex),
    dateOfBirth: Type.Optional(fields.dateOfBirth),
    phone: Type.Optional(fields.phone),
    nationalId: Type.Optional(fields.nationalId),
    village: Type.Optional(fields.village),
    district: Type.Optional(fields.district),
  },
  { title: 'ParticipantUpdate' },
);

export const CreateHouseholdMemberBody = Body(
  {
    name: Text(200),
    relationship: Text(100),
    sex: SexSchema(),
    age: Type.Integer({ minimum: 0, maximum: MAX_AGE, description: `Completed years, 0 to ${MAX_AGE}` }),
  },
  { title: 'HouseholdMemberCreate' },
);

export const ParticipantExport = Type.Object(
  {
    exportedAt: Timestamp(),
    participant: Type.Omit(Participant, ['householdMembers'], { title: 'ExportedParticipant' }),
    householdMembers: Type.Array(HouseholdMember),
    registrations: Type.Array(
      Type.Object({
        activityId: Uuid(),
        activityTitle: Type.String(),
        projectId: Uuid(),
        startDate: DateOnly(),
        endDate: DateOnly(),
        role: Type.String(),
        attended: Type.Boolean(),
        registeredAt: Timestamp(),
      }),
      { description: 'Oldest activity first' },
    ),
    accessLog: Type.Array(
      Type.Object({
        at: Timestamp(),
        actorRole: Nullable(Type.String({ description: 'null when the service itself acted' })),
        action: AuditEntry.properties.action,
        route: Type.String(),
        subjectIds: Type.Array(Uuid(), { description: "The person's own ids (theirs, their household's)" }),
      }),
      {
        description:
          'Who (by role) read, exported or erased their data, and when, newest first: the audit entries ' +
          "about them, without other people's ids, staff ids and addresses, request ids or filters",
      },
    ),
  },
  {
    title: 'ParticipantExport',
    description: 'Everything the organization holds about one person (GDPR art. 15)',
  },
);

export const ErasureBody = Body(
  {
    reason: Paragraphs(1000, 'Why the data is erased (a request of the person, ...); kept in the audit log'),
  },
  { title: 'ParticipantErasure' },
);

export const ParticipantQuery = Type.Object({
  ...PageQuery,
  search: Type.Optional(
    Type.String({
      maxLength: 100,
      ...SINGLE_LINE,
      description: 'Words to find in first name, last name, village or district (any case, each word)',
    }),
  ),
});

export const RegistrationQuery = Type.Object({
  ...PageQuery,
  attended: Type.Optional(Type.Boolean({ description: 'Only registrations with this attendance' })),
});

export interface ParticipantFields {
  firstName: string;
  lastName: string;
  sex: Sex;
  dateOfBirth?: string | null;
  phone?: string | null;
  nationalId?: string | null;
  village: string;
  district: string;
}

export type RegistrationItemInput = Partial<ParticipantFields> & {
  participantId?: string;
  role?: string;
  attended?: boolean;
};

export interface HouseholdMemberInput {
  name: string;
  relationship: string;
  sex: Sex;
  age: number;
}
