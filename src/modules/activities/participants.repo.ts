import { and, asc, count, eq, ilike, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import type { Member } from '../../http/access.js';
import { projectScope } from '../projects/project-scope.js';
import { compareText } from '../../lib/text.js';
import { activities, activityParticipants, householdMembers, participants } from './activities.tables.js';

export type ParticipantRow = typeof participants.$inferSelect;
export type HouseholdMemberRow = typeof householdMembers.$inferSelect;

/**
 * Who a member may see: everyone of the org, but a reporter only people registered in an activity of
 * a project assigned to them (DECISIONS.md section 5). undefined: no limit.
 */
export function participantScope(member: Member): SQL | undefined {
  const projects = projectScope(member, activities.projectId);
  if (!projects) return undefined;
  return sql`EXISTS (SELECT 1 FROM ${activityParticipants}
    INNER JOIN ${activities} ON ${activities.orgId} = ${activityParticipants.orgId}
      AND ${activities.id} = ${activityParticipants.activityId}
    WHERE ${activityParticipants.participantId} = ${participants.id} AND ${projects})`;
}

export async function findParticipant(db: Db, orgId: string, id: string, scope?: SQL) {
  const [row] = await db
    .select({ participant: participants, visible: scope ? sql<boolean>`${scope}` : sql<boolean>`true` })
    .from(participants)
    .where(and(eq(participants.orgId, orgId), eq(participants.id, id)));
  return row;
}

/** Escapes LIKE's wildcards so a search for `50%` finds the text `50%`. */
const literal = (word: string) => word.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Every word must appear in one of the names, the village or the district, in any case. */
function matching(orgId: string, search: string | undefined, scope: SQL | undefined): SQL | undefined {
  // At most 50 words: the search is 100 characters at most.
  const words = (search ?? '').trim().split(/\s+/).filter(Boolean);
  return and(
    eq(participants.orgId, orgId),
    scope,
    ...words.map((word) => {
      const pattern = `%${literal(word)}%`;
      return or(
        ilike(participants.firstName, pattern),
        ilike(participants.lastName, pattern),
        ilike(participants.village, pattern),
        ilike(participants.district, pattern),
      );
    }),
  );
}

export async function countParticipants(db: Db, orgId: string, search: string | undefined, scope?: SQL) {
  const [row] = await db
    .select({ total: count() })
    .from(participants)
    .where(matching(orgId, search, scope));
  return row?.total ?? 0;
}

/** By last name, first name, then id. */
export function listParticipants(
  db: Db,
  orgId: string,
  search: string | undefined,
  scope: SQL | undefined,
  window: Window,
) {
  return inWindow(
    db
      .select()
      .from(participants)
      .where(matching(orgId, search, scope))
      .orderBy(asc(participants.lastName), asc(participants.firstName), asc(participants.id))
      .$dynamic(),
    window,
  );
}

export async function updateParticipant(
  db: Db,
  orgId: string,
  id: string,
  values: Partial<Omit<ParticipantRow, 'id' | 'orgId' | 'createdAt' | 'updatedAt'>>,
) {
  const [row] = await db
    .update(participants)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(participants.orgId, orgId), eq(participants.id, id)))
    .returning();
  return row;
}

/** The household members of these participants, oldest first, in one query. */
export async function householdsOf(db: Db, orgId: string, participantIds: string[]) {
  const households = new Map<string, HouseholdMemberRow[]>();
  if (participantIds.length === 0) return households;
  const rows = await db
    .select()
    .from(householdMembers)
    .where(and(eq(householdMembers.orgId, orgId), inArray(householdMembers.participantId, participantIds)))
    .orderBy(
      asc(householdMembers.participantId),
      sql`${householdMembers.age} DESC`,
      asc(householdMembers.id),
    );
  for (const row of rows) {
    const members = households.get(row.participantId) ?? [];
    members.push(row);
    households.set(row.participantId, members);
  }
  return households;
}

export async function insertHouseholdMember(
  db: Db,
  values: Omit<typeof householdMembers.$inferInsert, 'id' | 'createdAt'>,
): Promise<HouseholdMemberRow> {
  const [row] = await db.insert(householdMembers).values(values).returning();
  return row!;
}

/** The ones of these ids that name a participant of the organization within `scope`. */
export async function existingParticipantIds(
  db: Db,
  orgId: string,
  ids: string[],
  scope?: SQL,
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: participants.id })
    .from(participants)
    .where(and(eq(participants.orgId, orgId), inArray(participants.id, ids), scope));
  return new Set(rows.map((row) => row.id));
}

/**
 * nationalId → participant, for the ones of these national ids the organization knows; `inScope` says
 * whether `scope` (see participantScope) reaches that participant.
 */
export async function participantsByNationalId(
  db: Db,
  orgId: string,
  nationalIds: string[],
  scope?: SQL,
): Promise<Map<string, { id: string; inScope: boolean }>> {
  if (nationalIds.length === 0) return new Map();
  const rows = await db
    .select({
      id: participants.id,
      nationalId: participants.nationalId,
      inScope: scope ? sql<boolean>`${scope}` : sql<boolean>`true`,
    })
    .from(participants)
    .where(and(eq(participants.orgId, orgId), inArray(participants.nationalId, nationalIds)));
  return new Map(rows.map((row) => [row.nationalId!, { id: row.id, inScope: row.inScope }]));
}

/**
 * Inserts new participants in one statement; one whose national id another request has just taken is
 * skipped. Returns the ids inserted.
 */
export async function insertParticipants(
  db: Db,
  rows: Omit<typeof participants.$inferInsert, 'createdAt' | 'updatedAt'>[],
): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  // In national-id order: two batches sharing people then take their unique-index locks in the same
  // order, so one waits for the other instead of both deadlocking.
  const ordered = [...rows].sort((a, b) => compareText(a.nationalId, b.nationalId));
  const inserted = await db
    .insert(participants)
    .values(ordered)
    .onConflictDoNothing({
      target: [participants.orgId, participants.nationalId],
      where: sql`${participants.nationalId} IS NOT NULL`,
    })
    .returning({ id: participants.id });
  return new Set(inserted.map((row) => row.id));
}
