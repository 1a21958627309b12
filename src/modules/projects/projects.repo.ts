import { and, asc, count, eq, ne, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { prepared } from '../../db/prepared.js';
import { inWindow, type Window } from '../../db/window.js';
import { programs } from '../programs/programs.tables.js';
import { projects } from './projects.tables.js';

export type ProjectRow = typeof projects.$inferSelect;
type ProjectValues = Partial<Omit<typeof projects.$inferInsert, 'id' | 'orgId' | 'programId' | 'createdAt'>>;

const inOrg = (orgId: string, id: string) => and(eq(projects.orgId, orgId), eq(projects.id, id));
const ofProgram = (orgId: string, programId: string, scope: SQL | undefined) =>
  and(eq(projects.orgId, orgId), eq(projects.programId, programId), scope);

/**
 * The program, locked against deletion until the transaction ends (a delete checks for active
 * projects after taking its own lock on the row).
 */
export async function shareLockProgram(db: Db, orgId: string, programId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: programs.id })
    .from(programs)
    .where(and(eq(programs.orgId, orgId), eq(programs.id, programId)))
    .limit(1)
    .for('share');
  return row !== undefined;
}

export async function programExists(db: Db, orgId: string, programId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: programs.id })
    .from(programs)
    .where(and(eq(programs.orgId, orgId), eq(programs.id, programId)))
    .limit(1);
  return row !== undefined;
}

export async function countProjects(
  db: Db,
  orgId: string,
  programId: string,
  scope: SQL | undefined,
): Promise<number> {
  const [row] = await db
    .select({ total: count() })
    .from(projects)
    .where(ofProgram(orgId, programId, scope));
  return row?.total ?? 0;
}

export function listProjects(
  db: Db,
  orgId: string,
  programId: string,
  scope: SQL | undefined,
  window: Window,
) {
  return inWindow(
    db
      .select()
      .from(projects)
      .where(ofProgram(orgId, programId, scope))
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

export async function findProject(db: Db, orgId: string, id: string): Promise<ProjectRow | undefined> {
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

/** Locks every project of a program until the transaction ends (a program delete holds back uploads). */
export async function lockProjectsOfProgram(db: Db, orgId: string, programId: string): Promise<void> {
  await db
    .select({ id: projects.id })
    .from(projects)
    .where(and(eq(projects.orgId, orgId), eq(projects.programId, programId)))
    .for('update');
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

export async function deleteProject(db: Db, orgId: string, id: string): Promise<boolean> {
  const rows = await db.delete(projects).where(inOrg(orgId, id)).returning({ id: projects.id });
  return rows.length > 0;
}
