import { and, asc, count, eq, ilike, inArray, or, sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { visibleTo, type ProjectVisibility } from '../projects/index.js';
import { HOUSEHOLD_PERSONAL_FIELDS, nulled, PARTICIPANT_PERSONAL_FIELDS } from '../../lib/personal-data.js';
import { compareText } from '../../lib/text.js';
import { activities, activityParticipants, householdMembers, participants } from './activities.tables.js';

export type ParticipantRow = typeof participants.$inferSelect;

/**
 * Most rows or ids one statement carries: an import's 10,000 people go in slices, so no statement
 * nears PostgreSQL's 65,535 parameters (a participant row has 12) nor grows with the file.
 */
export const STATEMENT_ROWS = 1000;

/**
 * Values as one PostgreSQL array literal (`{"a","b",NULL}`), sent as one text parameter and cast by the
 * statement (`::text[]`): a slice of rows is then one parameter a column, however many rows it has.
 */
export const arrayLiteral = (values: readonly (string | null)[]) =>
  `{${values.map((value) => (value === null ? 'NULL' : `"${value.replace(/["\\]/g, '\\$&')}"`)).join(',')}}`;

/** `items` in consecutive slices of at most STATEMENT_ROWS, in their order. */
export function inSlices<T>(items: readonly T[]): T[][] {
  const slices: T[][] = [];
  for (let i = 0; i < items.length; i += STATEMENT_ROWS) slices.push(items.slice(i, i + STATEMENT_ROWS));
  return slices;
}
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
export async function findParticipant(
  db: Db,
  orgId: string,
  id: string,
  visibility: ProjectVisibility,
  lock = false,
) {
  const scope = reachable(orgId, visibility);
  const query = db
    .select({ participant: participants, visible: scope ? sql<boolean>`${scope}` : sql<boolean>`true` })
    .from(participants)
    .where(and(eq(participants.orgId, orgId), eq(participants.id, id)));
  const [row] = await (lock ? query.for('update', { of: participants }) : query);
  return row;
}

/**
 * Erases a participant's personal fields and their household members' (values set to null, not
 * flagged), keeping each person's age band as it is today. Sex, village, district and registrations stay.
 */
export async function eraseParticipant(
  db: Db,
  orgId: string,
  id: string,
  ageBand: string,
  householdBands: Map<string, string>,
) {
  for (const [memberId, band] of householdBands) {
    await db
      .update(householdMembers)
      .set({ ...nulled(HOUSEHOLD_PERSONAL_FIELDS), ageBand: band })
      .where(and(eq(householdMembers.orgId, orgId), eq(householdMembers.id, memberId)));
  }
  const [row] = await db
    .update(participants)
    .set({
      ...nulled(PARTICIPANT_PERSONAL_FIELDS),
      nationalIdIndex: null,
      ageBand,
      erasedAt: new Date(),
      updatedAt: new Date(),
    })
    .where(and(eq(participants.orgId, orgId), eq(participants.id, id)))
    .returning();
  return row!;
}

/** Escapes LIKE's wildcards so a search for `50%` finds the text `50%`. */
const literal = (word: string) => word.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Every word must appear, in any case, in the village, the district or, for those who may see names, one
 * of the names: a viewer cannot learn whether a named person is a participant by searching for them.
 */
function matching(
  orgId: string,
  search: string | undefined,
  visibility: ProjectVisibility,
  personal: boolean,
): SQL | undefined {
  // At most 50 words: the search is 100 characters at most.
  const words = (search ?? '').trim().split(/\s+/).filter(Boolean);
  return and(
    eq(participants.orgId, orgId),
    reachable(orgId, visibility),
    ...words.map((word) => {
      const pattern = `%${literal(word)}%`;
      return or(
        personal ? ilike(participants.firstName, pattern) : undefined,
        personal ? ilike(participants.lastName, pattern) : undefined,
        ilike(participants.village, pattern),
        ilike(participants.district, pattern),
      );
    }),
  );
}

/** By last name, first name, then id; for viewers by id alone, so that the order tells no name. */
export const participantOrder = (personal: boolean) =>
  personal
    ? [asc(participants.lastName), asc(participants.firstName), asc(participants.id)]
    : [asc(participants.id)];

export interface ParticipantSearch {
  search?: string;
  /** Whether the caller may see names (seesPersonalData): names are searched and sorted only then. */
  personal: boolean;
}

export async function countParticipants(
  db: Db,
  orgId: string,
  query: ParticipantSearch,
  visibility: ProjectVisibility,
) {
  const [row] = await db
    .select({ total: count() })
    .from(participants)
    .where(matching(orgId, query.search, visibility, query.personal));
  return row?.total ?? 0;
}

export function listParticipants(
  db: Db,
  orgId: string,
  query: ParticipantSearch,
  visibility: ProjectVisibility,
  window: Window,
) {
  return inWindow(
    db
      .select()
      .from(participants)
      .where(matching(orgId, query.search, visibility, query.personal))
      .orderBy(...participantOrder(query.personal))
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

/**
 * The household members of these participants in one query: oldest first, or for those who may not see
 * ages (`personal` false) by id, so that the order tells nothing of them either.
 */
export async function householdsOf(db: Db, orgId: string, participantIds: string[], personal = true) {
  const households = new Map<string, HouseholdMemberRow[]>();
  if (participantIds.length === 0) return households;
  const rows = await db
    .select()
    .from(householdMembers)
    .where(and(eq(householdMembers.orgId, orgId), inArray(householdMembers.participantId, participantIds)))
    .orderBy(
      asc(householdMembers.participantId),
      ...(personal ? [sql`${householdMembers.age} DESC`] : []),
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
  const found = new Set<string>();
  for (const slice of inSlices(ids)) {
    const rows = await db
      .select({ id: participants.id })
      .from(participants)
      .where(
        and(eq(participants.orgId, orgId), inArray(participants.id, slice), reachable(orgId, visibility)),
      );
    for (const row of rows) found.add(row.id);
  }
  return found;
}

/**
 * Participant by blind index, for the ones of these national-id indexes the organization knows;
 * `inScope` says whether that participant is within `visibility`. During a key rotation a person may
 * still be stored under the previous key's index: callers pass both.
 */
export async function participantsByNationalIdIndex(
  db: Db,
  orgId: string,
  indexes: string[],
  visibility: ProjectVisibility,
): Promise<Map<string, { id: string; inScope: boolean }>> {
  const found = new Map<string, { id: string; inScope: boolean }>();
  const scope = reachable(orgId, visibility);
  for (const slice of inSlices(indexes)) {
    const rows = await db
      .select({
        id: participants.id,
        nationalIdIndex: participants.nationalIdIndex,
        inScope: scope ? sql<boolean>`${scope}` : sql<boolean>`true`,
      })
      .from(participants)
      .where(and(eq(participants.orgId, orgId), inArray(participants.nationalIdIndex, slice)));
    for (const row of rows) found.set(row.nationalIdIndex!, { id: row.id, inScope: row.inScope });
  }
  return found;
}

/**
 * Inserts new participants, STATEMENT_ROWS a statement; one whose national id another request has just
 * taken is skipped. Returns the ids inserted.
 */
export async function insertParticipants(
  db: Db,
  orgId: string,
  rows: Omit<typeof participants.$inferInsert, 'orgId' | 'createdAt' | 'updatedAt'>[],
): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  // In national-id order: two batches sharing people then take their unique-index locks in the same
  // order, so one waits for the other instead of both deadlocking (the slices keep that order).
  const ordered = [...rows]
    .sort((a, b) => compareText(a.nationalIdIndex, b.nationalIdIndex))
    .map((row) => ({ ...row, orgId }));
  const inserted = new Set<string>();
  const column = (
    slice: typeof ordered,
    value: (row: (typeof ordered)[number]) => string | null | undefined,
  ) => arrayLiteral(slice.map((row) => value(row) ?? null));
  for (const slice of inSlices(ordered)) {
    // unnest: one parameter a column, the rows inserted in the order given.
    const result = await db.execute(sql`
      INSERT INTO ${participants} (id, org_id, first_name, last_name, sex, date_of_birth, phone,
        national_id, national_id_index, village, district)
      SELECT id, ${orgId}::uuid, first_name, last_name, sex::sex, date_of_birth::date, phone, national_id,
        national_id_index, village, district
      FROM unnest(
        ${column(slice, (row) => row.id)}::uuid[], ${column(slice, (row) => row.firstName)}::text[],
        ${column(slice, (row) => row.lastName)}::text[], ${column(slice, (row) => row.sex)}::text[],
        ${column(slice, (row) => row.dateOfBirth)}::text[], ${column(slice, (row) => row.phone)}::text[],
        ${column(slice, (row) => row.nationalId)}::text[], ${column(slice, (row) => row.nationalIdIndex)}::text[],
        ${column(slice, (row) => row.village)}::text[], ${column(slice, (row) => row.district)}::text[]
      ) AS given (id, first_name, last_name, sex, date_of_birth, phone, national_id, national_id_index,
        village, district)
      ON CONFLICT (org_id, national_id_index) WHERE national_id_index IS NOT NULL DO NOTHING
      RETURNING id`);
    for (const row of rowsOf<{ id: string }>(result)) inserted.add(row.id);
  }
  return inserted;
}
