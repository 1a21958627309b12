import { and, asc, count, eq, gte, inArray, lte, ne, sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import { inWindow, type Window } from '../../db/window.js';
import type { Sex } from '../../lib/demographics.js';
import { compareText } from '../../lib/text.js';
import { activities, activityParticipants, participants } from './activities.tables.js';
import { arrayLiteral, inSlices, participantOrder } from './participants.repo.js';

export type RegistrationRow = typeof activityParticipants.$inferSelect;

export interface RegistrationFilter {
  attended?: boolean;
  participantIds?: string[];
  /** Whether the caller may see names: the list is then by last and first name, else by participant id. */
  personal?: boolean;
}

function filtered(orgId: string, activityId: string, filter: RegistrationFilter): SQL | undefined {
  return and(
    eq(activityParticipants.orgId, orgId),
    eq(activityParticipants.activityId, activityId),
    filter.attended === undefined ? undefined : eq(activityParticipants.attended, filter.attended),
    filter.participantIds ? inArray(activityParticipants.participantId, filter.participantIds) : undefined,
  );
}

export async function countRegistrations(
  db: Db,
  orgId: string,
  activityId: string,
  filter: RegistrationFilter,
) {
  const [row] = await db
    .select({ total: count() })
    .from(activityParticipants)
    .where(filtered(orgId, activityId, filter));
  return row?.total ?? 0;
}

/** Registrations with their participant, by last name, first name, then participant id. */
export function listRegistrations(
  db: Db,
  orgId: string,
  activityId: string,
  filter: RegistrationFilter,
  window: Window = { limit: null, offset: 0 },
) {
  return inWindow(
    db
      .select({ registration: activityParticipants, participant: participants })
      .from(activityParticipants)
      .innerJoin(
        participants,
        and(
          eq(participants.orgId, activityParticipants.orgId),
          eq(participants.id, activityParticipants.participantId),
        ),
      )
      .where(filtered(orgId, activityId, filter))
      .orderBy(...participantOrder(filter.personal ?? true))
      .$dynamic(),
    window,
  );
}

/**
 * Registers, STATEMENT_ROWS a statement; a participant already registered keeps the registration they
 * have. Returns the participants registered now.
 */
export async function insertRegistrations(
  db: Db,
  orgId: string,
  rows: Omit<typeof activityParticipants.$inferInsert, 'id' | 'orgId' | 'registeredAt'>[],
): Promise<string[]> {
  if (rows.length === 0) return [];
  // In participant order, for the reason given at insertParticipants.
  const ordered = [...rows]
    .sort((a, b) => compareText(a.participantId, b.participantId))
    .map((row) => ({ ...row, orgId }));
  const inserted: string[] = [];
  for (const slice of inSlices(ordered)) {
    const result = await db.execute(sql`
      INSERT INTO ${activityParticipants} (id, org_id, activity_id, participant_id, role, attended)
      SELECT id, ${orgId}::uuid, activity_id, participant_id, role, attended
      FROM unnest(
        ${arrayLiteral(slice.map(() => newId()))}::uuid[],
        ${arrayLiteral(slice.map((row) => row.activityId))}::uuid[],
        ${arrayLiteral(slice.map((row) => row.participantId))}::uuid[],
        ${arrayLiteral(slice.map((row) => row.role ?? 'attendee'))}::text[],
        ${arrayLiteral(slice.map((row) => String(row.attended ?? false)))}::boolean[]
      ) AS given (id, activity_id, participant_id, role, attended)
      ON CONFLICT (org_id, activity_id, participant_id) DO NOTHING
      RETURNING participant_id AS "participantId"`);
    inserted.push(...rowsOf<{ participantId: string }>(result).map((row) => row.participantId));
  }
  return inserted;
}

/** The ones of these participants registered in the activity already. */
export async function registeredAlready(
  db: Db,
  orgId: string,
  activityId: string,
  participantIds: string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  for (const slice of inSlices(participantIds)) {
    const rows = await db
      .select({ participantId: activityParticipants.participantId })
      .from(activityParticipants)
      .where(filtered(orgId, activityId, { participantIds: slice }));
    for (const row of rows) found.add(row.participantId);
  }
  return found;
}

export async function updateRegistration(
  db: Db,
  orgId: string,
  activityId: string,
  participantId: string,
  values: { role?: string; attended?: boolean },
): Promise<boolean> {
  const rows = await db
    .update(activityParticipants)
    .set(values)
    .where(
      and(
        eq(activityParticipants.orgId, orgId),
        eq(activityParticipants.activityId, activityId),
        eq(activityParticipants.participantId, participantId),
      ),
    )
    .returning({ id: activityParticipants.id });
  return rows.length > 0;
}

export async function deleteRegistration(
  db: Db,
  orgId: string,
  activityId: string,
  participantId: string,
): Promise<boolean> {
  const rows = await db
    .delete(activityParticipants)
    .where(
      and(
        eq(activityParticipants.orgId, orgId),
        eq(activityParticipants.activityId, activityId),
        eq(activityParticipants.participantId, participantId),
      ),
    )
    .returning({ id: activityParticipants.id });
  return rows.length > 0;
}

export interface ParticipantGroup {
  sex: Sex;
  /** Completed years at the period's end; null without a birth date or with one after it. */
  age: number | null;
  /** Without an age: the band kept at erasure, if any. */
  keptBand: string | null;
  people: number;
}

/**
 * Distinct people registered in the project's activities that overlap the period (cancelled ones
 * aside), counted by sex and by age at the period's end: one statement, whatever their number (at most
 * a group per sex and year of age).
 */
export function countParticipantGroups(
  db: Db,
  orgId: string,
  where: { projectId: string; startDate: string; endDate: string; attendedOnly: boolean },
): Promise<ParticipantGroup[]> {
  const end = sql`${where.endDate}::date`;
  const ageless = sql`${participants.dateOfBirth} IS NULL OR ${participants.dateOfBirth} > ${end}`;
  const age = sql<number | null>`CASE WHEN ${ageless} THEN NULL
    ELSE extract(year FROM age(${end}, ${participants.dateOfBirth}))::int END`;
  const keptBand = sql<string | null>`CASE WHEN ${ageless} THEN ${participants.ageBand} END`;
  const registered = db
    .select({ participantId: activityParticipants.participantId })
    .from(activityParticipants)
    .innerJoin(
      activities,
      and(
        eq(activities.orgId, activityParticipants.orgId),
        eq(activities.id, activityParticipants.activityId),
      ),
    )
    .where(
      and(
        eq(activities.orgId, orgId),
        eq(activities.projectId, where.projectId),
        lte(activities.startDate, where.endDate),
        gte(activities.endDate, where.startDate),
        ne(activities.status, 'cancelled'),
        where.attendedOnly ? eq(activityParticipants.attended, true) : undefined,
      ),
    );
  return (
    db
      .select({ sex: participants.sex, age, keptBand, people: sql<number>`count(*)::int` })
      .from(participants)
      .where(and(eq(participants.orgId, orgId), inArray(participants.id, registered)))
      // By position: the age's expression carries parameters, which GROUP BY cannot match by text.
      .groupBy(sql`1`, sql`2`, sql`3`)
  );
}

/** A participant's registrations with their activities, oldest activity first (the access export). */
export function registrationsOfParticipant(db: Db, orgId: string, participantId: string) {
  return db
    .select({
      activityId: activities.id,
      activityTitle: activities.title,
      projectId: activities.projectId,
      startDate: activities.startDate,
      endDate: activities.endDate,
      role: activityParticipants.role,
      attended: activityParticipants.attended,
      registeredAt: activityParticipants.registeredAt,
    })
    .from(activityParticipants)
    .innerJoin(
      activities,
      and(
        eq(activities.orgId, activityParticipants.orgId),
        eq(activities.id, activityParticipants.activityId),
      ),
    )
    .where(and(eq(activityParticipants.orgId, orgId), eq(activityParticipants.participantId, participantId)))
    .orderBy(asc(activities.startDate), asc(activities.id));
}
