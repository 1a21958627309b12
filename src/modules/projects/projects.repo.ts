import { and, asc, count, eq, inArray, ne, sql } from 'drizzle-orm';
import { checkReferencesAtCommit, type Db } from '../../db/client.js';
import { prepared } from '../../db/prepared.js';
import { inWindow, type Window } from '../../db/window.js';
import { projects } from './projects.tables.js';
import { visibleTo, type ProjectVisibility } from './visibility.js';

export type ProjectRow = typeof projects.$inferSelect;
type ProjectValues = Partial<Omit<typeof projects.$inferInsert, 'id' | 'orgId' | 'programId' | 'createdAt'>>;

const inOrg = (orgId: string, id: string) => and(eq(projects.orgId, orgId), eq(projects.id, id));
const ofProgram = (orgId: string, programId: string, visibility: ProjectVisibility) =>
  and(
    eq(projects.orgId, orgId),
    eq(projects.programId, programId),
    visibleTo(orgId, visibility, projects.id),
  );

export async function countProjects(
  db: Db,
  orgId: string,
  programId: string,
  visibility: ProjectVisibility,
): Promise<number> {
  const [row] = await db
    .select({ total: count() })
    .from(projects)
    .where(ofProgram(orgId, programId, visibility));
  return row?.total ?? 0;
}

export function listProjects(
  db: Db,
  orgId: string,
  programId: string,
  visibility: ProjectVisibility,
  window: Window,
) {
  return inWindow(
    db
      .select()
      .from(projects)
      .where(ofProgram(orgId, programId, visibility))
      .orderBy(asc(projects.name), asc(projects.id))
      .$dynamic(),
    window,
  );
}

/** For modules that hang data under a project: does it exist in this organization? */
export async function projectExists(db: Db, orgId: string, projectId: string): Promise<boolean> {
  const [row] = await db.select({ id: projects.id }).from(projects).where(inOrg(orgId, projectId)).limit(1);
  return row !== undefined;
}

/**
 * The project. With `lock`, its row stays locked until the transaction ends: that serializes the
 * writes that check something across the project (the overlap of its reporting periods).
 */
export async function findProject(
  db: Db,
  orgId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<ProjectRow | undefined> {
  if (options.lock) {
    // NO KEY UPDATE serializes those writes without blocking inserts that reference the project.
    const [row] = await db.select().from(projects).where(inOrg(orgId, id)).limit(1).for('no key update');
    return row;
  }
  const [row] = await projectQuery(db).execute({ orgId, id });
  return row;
}

/** Most project routes read the project first. */
const projectQuery = prepared((db) =>
  db
    .select()
    .from(projects)
    .where(and(eq(projects.orgId, sql.placeholder('orgId')), eq(projects.id, sql.placeholder('id'))))
    .limit(1)
    .prepare('project_by_id'),
);

/**
 * Locks the program's projects until the transaction ends (a program delete holds back uploads);
 * true when one of them is active.
 */
export async function lockProjectsOfProgram(db: Db, orgId: string, programId: string): Promise<boolean> {
  const rows = await db
    .select({ status: projects.status })
    .from(projects)
    .where(ofProgram(orgId, programId, {}))
    .for('update');
  return rows.some((row) => row.status === 'active');
}

/** The projects of a program, by name; `reporter`: only the projects assigned to that user. */
export function listProjectsOfProgram(db: Db, orgId: string, programId: string, filter: ProjectVisibility) {
  return db
    .select({ id: projects.id, name: projects.name, status: projects.status })
    .from(projects)
    .where(ofProgram(orgId, programId, filter))
    .orderBy(asc(projects.name), asc(projects.id));
}

/** How many projects each of these programs holds; `reporter`: only those assigned to that user. */
export async function countProjectsOfPrograms(
  db: Db,
  orgId: string,
  programIds: string[],
  filter: ProjectVisibility,
): Promise<Map<string, number>> {
  if (programIds.length === 0) return new Map();
  const rows = await db
    .select({ programId: projects.programId, projectCount: count() })
    .from(projects)
    .where(
      and(
        eq(projects.orgId, orgId),
        inArray(projects.programId, programIds),
        visibleTo(orgId, filter, projects.id),
      ),
    )
    .groupBy(projects.programId);
  return new Map(rows.map((row) => [row.programId, row.projectCount]));
}

export async function lockProject(db: Db, orgId: string, id: string): Promise<ProjectRow | undefined> {
  const [row] = await db.select().from(projects).where(inOrg(orgId, id)).limit(1).for('update');
  return row;
}

export async function projectCodeTaken(db: Db, orgId: string, code: string, exceptId?: string) {
  const [row] = await db
    .select({ id: projects.id })
    .from(projects)
    .where(
      and(
        eq(projects.orgId, orgId),
        eq(projects.code, code),
        exceptId ? ne(projects.id, exceptId) : undefined,
      ),
    )
    .limit(1);
  return row !== undefined;
}

export async function insertProject(
  db: Db,
  orgId: string,
  programId: string,
  values: ProjectValues &
    Pick<typeof projects.$inferInsert, 'name' | 'code' | 'startDate' | 'endDate' | 'currency'>,
): Promise<ProjectRow> {
  const [row] = await db
    .insert(projects)
    .values({ ...values, orgId, programId })
    .returning();
  return row!;
}

export async function updateProject(
  db: Db,
  orgId: string,
  id: string,
  values: ProjectValues,
): Promise<ProjectRow | undefined> {
  const [row] = await db
    .update(projects)
    .set({ ...values, updatedAt: new Date() })
    .where(inOrg(orgId, id))
    .returning();
  return row;
}

/** In a transaction: what the cascades remove is checked at commit (checkReferencesAtCommit). */
export async function deleteProject(db: Db, orgId: string, id: string): Promise<boolean> {
  await checkReferencesAtCommit(db);
  const rows = await db.delete(projects).where(inOrg(orgId, id)).returning({ id: projects.id });
  return rows.length > 0;
}
