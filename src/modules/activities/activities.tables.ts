import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  date,
  foreignKey,
  index,
  integer,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, rowId, timestamptz, updatedAt } from '../../db/columns.js';
import { MAX_AGE, SEXES } from '../../lib/demographics.js';
import { organizations } from '../orgs/orgs.tables.js';
import { projects } from '../projects/projects.tables.js';
import { resultNodes } from '../results/results.tables.js';

export const ACTIVITY_STATUSES = ['planned', 'in_progress', 'completed', 'cancelled'] as const;
export type ActivityStatus = (typeof ACTIVITY_STATUSES)[number];
export const activityStatus = pgEnum('activity_status', ACTIVITY_STATUSES);

export const sex = pgEnum('sex', SEXES);

/** What a project does on the ground: a training, a distribution, a meeting. */
export const activities = pgTable(
  'activities',
  {
    id: rowId(),
    orgId: uuid('org_id').notNull(),
    projectId: uuid('project_id').notNull(),
    // A deleted result node leaves its activities in place, unattached (DECISIONS.md section 6).
    outputId: uuid('output_id'),
    title: text('title').notNull(),
    description: text('description'),
    startDate: date('start_date', { mode: 'string' }).notNull(),
    endDate: date('end_date', { mode: 'string' }).notNull(),
    location: text('location'),
    facilitator: text('facilitator'),
    status: activityStatus('status').notNull().default('planned'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    foreignKey({ columns: [t.orgId, t.projectId], foreignColumns: [projects.orgId, projects.id] }).onDelete(
      'cascade',
    ),
    primaryKey({ name: 'activities_pkey', columns: [t.orgId, t.id] }),
    // Migration 0021 narrows the action to SET NULL (output_id): org_id stays.
    foreignKey({
      name: 'activities_output_id_result_nodes_id_fk',
      columns: [t.orgId, t.outputId],
      foreignColumns: [resultNodes.orgId, resultNodes.id],
    }).onDelete('set null'),
    index('activities_org_id_project_id_start_date_idx').on(t.orgId, t.projectId, t.startDate),
    index('activities_output_id_idx').on(t.outputId),
  ],
);

/** People an organization works with; one person can take part in many activities of many projects. */
export const participants = pgTable(
  'participants',
  {
    id: rowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    // Personal fields (src/lib/personal-data.ts): null once erased.
    firstName: text('first_name'),
    lastName: text('last_name'),
    sex: sex('sex').notNull(),
    dateOfBirth: date('date_of_birth', { mode: 'string' }),
    /** Sealed (src/lib/sealed-values.ts): never in clear in the database. */
    phone: text('phone'),
    /** Sealed like phone. */
    nationalId: text('national_id'),
    /** The blind index of the national id under the current key: de-duplication compares these. */
    nationalIdIndex: text('national_id_index'),
    village: text('village').notNull(),
    district: text('district').notNull(),
    /** Set by erasure, with the age band the person had then; both null before. */
    erasedAt: timestamptz('erased_at'),
    ageBand: text('age_band'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'participants_pkey', columns: [t.orgId, t.id] }),
    // A national id names one person of the organization; registering it again reuses that person.
    uniqueIndex('participants_org_id_national_id_index_key')
      .on(t.orgId, t.nationalIdIndex)
      .where(sql`${t.nationalIdIndex} IS NOT NULL`),
    index('participants_org_id_name_idx').on(t.orgId, t.lastName, t.firstName),
    check(
      'participants_erased_check',
      sql`${t.erasedAt} IS NULL OR (${t.firstName} IS NULL AND ${t.lastName} IS NULL AND ${t.dateOfBirth} IS NULL AND ${t.phone} IS NULL AND ${t.nationalId} IS NULL AND ${t.nationalIdIndex} IS NULL)`,
    ),
    check(
      'participants_names_check',
      sql`${t.erasedAt} IS NOT NULL OR (${t.firstName} IS NOT NULL AND ${t.lastName} IS NOT NULL)`,
    ),
  ],
);

/** A participant's registration in an activity. */
export const activityParticipants = pgTable(
  'activity_participants',
  {
    id: rowId(),
    orgId: uuid('org_id').notNull(),
    activityId: uuid('activity_id').notNull(),
    participantId: uuid('participant_id').notNull(),
    role: text('role').notNull().default('attendee'),
    attended: boolean('attended').notNull().default(false),
    registeredAt: timestamptz('registered_at').notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      columns: [t.orgId, t.activityId],
      foreignColumns: [activities.orgId, activities.id],
    }).onDelete('cascade'),
    foreignKey({
      columns: [t.orgId, t.participantId],
      foreignColumns: [participants.orgId, participants.id],
    }).onDelete('cascade'),
    primaryKey({ name: 'activity_participants_pkey', columns: [t.orgId, t.id] }),
    unique('activity_participants_org_id_activity_id_participant_id_key').on(
      t.orgId,
      t.activityId,
      t.participantId,
    ),
    index('activity_participants_participant_id_idx').on(t.participantId),
  ],
);

/** The people living with a participant, for household-level indicators. */
export const householdMembers = pgTable(
  'household_members',
  {
    id: rowId(),
    orgId: uuid('org_id').notNull(),
    participantId: uuid('participant_id').notNull(),
    // Personal fields: null once the participant is erased, ageBand then kept instead of age.
    name: text('name'),
    relationship: text('relationship').notNull(),
    sex: sex('sex').notNull(),
    age: integer('age'),
    ageBand: text('age_band'),
    createdAt: createdAt(),
  },
  (t) => [
    foreignKey({
      columns: [t.orgId, t.participantId],
      foreignColumns: [participants.orgId, participants.id],
    }).onDelete('cascade'),
    primaryKey({ name: 'household_members_pkey', columns: [t.orgId, t.id] }),
    index('household_members_participant_id_idx').on(t.participantId),
    check('household_members_age_check', sql`${t.age} BETWEEN 0 AND ${sql.raw(String(MAX_AGE))}`),
  ],
);
