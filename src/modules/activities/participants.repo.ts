import { and, asc, count, eq, ilike, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { visibleTo, type ProjectVisibility } from '../projects/visibility.js';
import { compareText } from '../../lib/text.js';
import { activities, activityParticipants, householdMembers, participants } from './activities.tables.js';

export type ParticipantRow = typeof participants.$inferSelect;
export type HouseholdMemberRow = typeof householdMembers.$inferSelect;

/**
 * The participants within `visibility`: everyone of the org, or, for a reporter, only people registered
 * in an activity of a project assigned to them (DECISIONS.md section 5). undefined: no limit.
 */
function reachable(orgId: string, visibility: ProjectVisibility): SQL | undefined {
  const projects = visibleTo(orgId, visibility, activities.projectId);
  if (!projects) return undefined;
  return sql`EXISTS (SELECT 1 FROM ${activityParticipants}
    INNER JOIN ${activities} ON ${activities.orgId} = ${activityParticipants.orgId}
      AND ${activities.id} = ${activityParticipants.activityId}
    WHERE ${activityParticipants.orgId} = ${orgId}
      AND ${activityParticipants.participantId} = ${participants.id} AND ${projects})`;
}

/** The participant, and whether it is within `visibility` (found but not visible: 403, not 404). */
export async function findParticipant(db: Db, orgId: string, id: string, visibility: ProjectVisibility) {
  const scope = reachable(orgId, visibility);
  const [row] = await db
    .select({ participant: participants, visible: scope ? sql<boolean>`${scope}` : sql<boolean>`true` })
    .from(participants)
    .where(and(eq(participants.orgId, orgId), eq(participants.id, id)));
  return row;
}

/** Escapes LIKE's wildcards so a search for `50%` finds the text `50%`. */
const literal = (word: string) => word.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Every word must appear in one of the names, the village or the district, in any case. */
function matching(orgId: string, search: string | undefined, visibility: ProjectVisibility): SQL | undefined {
  // At most 50 words: the search is 100 characters at most.
  const words = (search ?? '').trim().split(/\s+/).filter(Boolean);
  return and(
    eq(participants.orgId, orgId),
    reachable(orgId, visibility),
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

export async function countParticipants(
  db: Db,
  orgId: string,
  search: string | undefined,
  visibility: ProjectVisibility,
) {
  const [row] = await db
    .select({ total: count() })
    .from(participants)
    .where(matching(orgId, search, visibility));
  return row?.total ?? 0;
}

/** By last name, first name, then id. */
export function listParticipants(
  db: Db,
  orgId: string,
  search: string | undefined,
  visibility: ProjectVisibility,
  window: Window,
) {
  return inWindow(
    db
      .select()
      .from(participants)
      .where(matching(orgId, search, visibility))
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
  orgId: string,
  values: Omit<typeof householdMembers.$inferInsert, 'id' | 'orgId' | 'createdAt'>,
): Promise<HouseholdMemberRow> {
  const [row] = await db
    .insert(householdMembers)
    .values({ ...values, orgId })
    .returning();
  return row!;
}

/** The ones of these ids that name a participant of the organization within `visibility`. */
export async function existingParticipantIds(
  db: Db,
  orgId: string,
  ids: string[],
  visibility: ProjectVisibility,
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: participants.id })
    .from(participants)
    .where(and(eq(participants.orgId, orgId), inArray(participants.id, ids), reachable(orgId, visibility)));
  return new Set(rows.map((row) => row.id));
}

/**
 * nationalId → participant, for the ones of these national ids the organization knows; `inScope` says
 * whether that participant is within `visibility`.
 */
export async function participantsByNationalId(
  db: Db,
  orgId: string,
  nationalIds: string[],
  visibility: ProjectVisibility,
): Promise<Map<string, { id: string; inScope: boolean }>> {
  if (nationalIds.length === 0) return new Map();
  const scope = reachable(orgId, visibility);
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
  orgId: string,
  rows: Omit<typeof participants.$inferInsert, 'orgId' | 'createdAt' | 'updatedAt'>[],
): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  // In national-id order: two batches sharing people then take their unique-index locks in the same
  // order, so one waits for the other instead of both deadlocking.
  const ordered = [...rows]
    .sort((a, b) => compareText(a.nationalId, b.nationalId))
    .map((row) => ({ ...row, orgId }));
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
