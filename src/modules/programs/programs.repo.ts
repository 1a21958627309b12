import { and, asc, count, desc, eq, inArray, notInArray } from 'drizzle-orm';
import { checkReferencesAtCommit, type Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { donorsByName } from '../donors/index.js';
import { donors } from '../donors/donors.tables.js';
import { programDonors, programs } from './programs.tables.js';

export type ProgramRow = typeof programs.$inferSelect;
type ProgramValues = Partial<Omit<typeof programs.$inferInsert, 'id' | 'orgId' | 'createdAt'>>;

const inOrg = (orgId: string, id: string) => and(eq(programs.orgId, orgId), eq(programs.id, id));

export async function countPrograms(db: Db, orgId: string): Promise<number> {
  const [row] = await db.select({ total: count() }).from(programs).where(eq(programs.orgId, orgId));
  return row?.total ?? 0;
}

/** Newest first, ties by id. */
export function listPrograms(db: Db, orgId: string, window: Window) {
  return inWindow(
    db
      .select()
      .from(programs)
      .where(eq(programs.orgId, orgId))
      .orderBy(desc(programs.createdAt), asc(programs.id))
      .$dynamic(),
    window,
  );
}

/** One query for the donors of many programs, each program's sorted by name then id. */
export async function listDonorsOfPrograms(db: Db, orgId: string, programIds: string[]) {
  if (programIds.length === 0) return [];
  return db
    .select({ programId: programDonors.programId, id: donors.id, name: donors.name, code: donors.code })
    .from(programDonors)
    .innerJoin(donors, and(eq(donors.orgId, programDonors.orgId), eq(donors.id, programDonors.donorId)))
    .where(and(eq(programDonors.orgId, orgId), inArray(programDonors.programId, programIds)))
    .orderBy(...donorsByName);
}

export async function findProgram(db: Db, orgId: string, id: string): Promise<ProgramRow | undefined> {
  const [row] = await db.select().from(programs).where(inOrg(orgId, id)).limit(1);
  return row;
}

/** For modules that hang data under a program: does it exist in this organization? */
export async function programExists(db: Db, orgId: string, programId: string): Promise<boolean> {
  const [row] = await db.select({ id: programs.id }).from(programs).where(inOrg(orgId, programId)).limit(1);
  return row !== undefined;
}

/** Locks the program row until the transaction ends (updates, deletes, donor replacement). */
export async function lockProgram(db: Db, orgId: string, id: string): Promise<ProgramRow | undefined> {
  const [row] = await db.select().from(programs).where(inOrg(orgId, id)).limit(1).for('update');
  return row;
}

export async function insertProgram(
  db: Db,
  orgId: string,
  values: ProgramValues & Pick<typeof programs.$inferInsert, 'name' | 'startDate' | 'endDate'>,
): Promise<ProgramRow> {
  const [row] = await db
    .insert(programs)
    .values({ ...values, orgId })
    .returning();
  return row!;
}

export async function updateProgram(
  db: Db,
  orgId: string,
  id: string,
  values: ProgramValues,
): Promise<ProgramRow | undefined> {
  const [row] = await db
    .update(programs)
    .set({ ...values, updatedAt: new Date() })
    .where(inOrg(orgId, id))
    .returning();
  return row;
}

/** In a transaction: what the cascades remove is checked at commit (checkReferencesAtCommit). */
export async function deleteProgram(db: Db, orgId: string, id: string): Promise<boolean> {
  await checkReferencesAtCommit(db);
  const rows = await db.delete(programs).where(inOrg(orgId, id)).returning({ id: programs.id });
  return rows.length > 0;
}

/** The program's donor set becomes exactly `donorIds`. */
export async function replaceProgramDonors(
  db: Db,
  orgId: string,
  programId: string,
  donorIds: string[],
): Promise<void> {
  await db
    .delete(programDonors)
    .where(
      and(
        eq(programDonors.orgId, orgId),
        eq(programDonors.programId, programId),
        donorIds.length > 0 ? notInArray(programDonors.donorId, donorIds) : undefined,
      ),
    );
  if (donorIds.length > 0) {
    await db
      .insert(programDonors)
      .values(donorIds.map((donorId) => ({ orgId, programId, donorId })))
      .onConflictDoNothing();
  }
}

const donorColumns = {
  id: donors.id,
  orgId: donors.orgId,
  name: donors.name,
  code: donors.code,
  type: donors.type,
  country: donors.country,
  website: donors.website,
  contactName: donors.contactName,
  contactEmail: donors.contactEmail,
  notes: donors.notes,
  createdAt: donors.createdAt,
  updatedAt: donors.updatedAt,
};

const ofProgram = (orgId: string, programId: string) =>
  and(eq(programDonors.orgId, orgId), eq(programDonors.programId, programId));

export async function countProgramDonors(db: Db, orgId: string, programId: string): Promise<number> {
  const [row] = await db.select({ total: count() }).from(programDonors).where(ofProgram(orgId, programId));
  return row?.total ?? 0;
}

export function listProgramDonors(db: Db, orgId: string, programId: string, window: Window) {
  return inWindow(
    db
      .select(donorColumns)
      .from(programDonors)
      .innerJoin(donors, and(eq(donors.orgId, programDonors.orgId), eq(donors.id, programDonors.donorId)))
      .where(ofProgram(orgId, programId))
      .orderBy(...donorsByName)
      .$dynamic(),
    window,
  );
}

/**
 * The program under a FOR SHARE row lock until the transaction ends: held against deletion while a
 * project is written into it (a delete checks for active projects after taking its own lock).
 */
export async function lockProgramForShare(db: Db, orgId: string, programId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: programs.id })
    .from(programs)
    .where(inOrg(orgId, programId))
    .limit(1)
    .for('share');
  return row !== undefined;
}
