import { and, asc, count, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { donors } from './donors.tables.js';

export type DonorRow = typeof donors.$inferSelect;
export type DonorValues = Omit<typeof donors.$inferInsert, 'id' | 'orgId' | 'createdAt' | 'updatedAt'>;

// Case-insensitive first so "acme" sits next to "Acme"; the byte order of the name and the id break ties
// the same way whatever the database's collation.
export const donorsByName = [
  sql`lower(${donors.name}) collate "C"`,
  sql`${donors.name} collate "C"`,
  asc(donors.id),
];

export async function countDonors(db: Db, orgId: string): Promise<number> {
  const [row] = await db.select({ total: count() }).from(donors).where(eq(donors.orgId, orgId));
  return row?.total ?? 0;
}

export function listDonors(db: Db, orgId: string, window: Window): Promise<DonorRow[]> {
  return inWindow(
    db
      .select()
      .from(donors)
      .where(eq(donors.orgId, orgId))
      .orderBy(...donorsByName)
      .$dynamic(),
    window,
  );
}

export async function findDonor(db: Db, orgId: string, id: string): Promise<DonorRow | undefined> {
  const [row] = await db
    .select()
    .from(donors)
    .where(and(eq(donors.orgId, orgId), eq(donors.id, id)))
    .limit(1);
  return row;
}

/** The donors of this organization among `ids` (unknown and foreign ids are left out), sorted by name. */
export async function findDonorsByIds(
  db: Db,
  orgId: string,
  ids: readonly string[],
): Promise<{ id: string; name: string; code: string }[]> {
  if (ids.length === 0) return [];
  return db
    .select({ id: donors.id, name: donors.name, code: donors.code })
    .from(donors)
    .where(and(eq(donors.orgId, orgId), inArray(donors.id, [...new Set(ids)])))
    .orderBy(...donorsByName);
}

export async function donorCodeTaken(
  db: Db,
  orgId: string,
  code: string,
  exceptId?: string,
): Promise<boolean> {
  const [row] = await db
    .select({ id: donors.id })
    .from(donors)
    .where(
      and(
        eq(donors.orgId, orgId),
        sql`lower(${donors.code}) = lower(${code})`,
        exceptId ? ne(donors.id, exceptId) : undefined,
      ),
    )
    .limit(1);
  return row !== undefined;
}

export async function insertDonor(db: Db, orgId: string, values: DonorValues): Promise<DonorRow> {
  const [row] = await db
    .insert(donors)
    .values({ ...values, orgId })
    .returning();
  if (!row) throw new Error('insert returned no donor');
  return row;
}

export async function updateDonor(
  db: Db,
  orgId: string,
  id: string,
  changes: Partial<DonorValues>,
): Promise<DonorRow | undefined> {
  const [row] = await db
    .update(donors)
    .set(changes)
    .where(and(eq(donors.orgId, orgId), eq(donors.id, id)))
    .returning();
  return row;
}

/** false when there was no such donor; its program links go with it (foreign key cascade). */
export async function deleteDonor(db: Db, orgId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(donors)
    .where(and(eq(donors.orgId, orgId), eq(donors.id, id)))
    .returning({ id: donors.id });
  return rows.length > 0;
}
