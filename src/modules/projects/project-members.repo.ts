import { and, asc, count, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { users } from '../auth/auth.tables.js';
import { orgMembers } from '../orgs/orgs.tables.js';
import { projectMembers } from './projects.tables.js';

const assignmentColumns = {
  userId: projectMembers.userId,
  email: users.email,
  firstName: users.firstName,
  lastName: users.lastName,
  role: orgMembers.role,
  assignedAt: projectMembers.assignedAt,
};

const ofProject = (orgId: string, projectId: string) =>
  and(eq(projectMembers.orgId, orgId), eq(projectMembers.projectId, projectId));

function assignmentQuery(db: Db) {
  return db
    .select(assignmentColumns)
    .from(projectMembers)
    .innerJoin(
      orgMembers,
      and(eq(orgMembers.orgId, projectMembers.orgId), eq(orgMembers.userId, projectMembers.userId)),
    )
    .innerJoin(users, eq(users.id, projectMembers.userId));
}

export async function countAssignments(db: Db, orgId: string, projectId: string): Promise<number> {
  const [row] = await db.select({ total: count() }).from(projectMembers).where(ofProject(orgId, projectId));
  return row?.total ?? 0;
}

export function listAssignments(db: Db, orgId: string, projectId: string, window: Window) {
  return inWindow(
    assignmentQuery(db)
      .where(ofProject(orgId, projectId))
      .orderBy(asc(projectMembers.assignedAt), asc(projectMembers.userId))
      .$dynamic(),
    window,
  );
}

export async function findAssignment(db: Db, orgId: string, projectId: string, userId: string) {
  const [row] = await assignmentQuery(db)
    .where(and(ofProject(orgId, projectId), eq(projectMembers.userId, userId)))
    .limit(1);
  return row;
}

/** The projects of the organization the user is assigned to (a keyed reporter's replay checks them). */
export async function assignedProjectIds(db: Db, orgId: string, userId: string): Promise<string[]> {
  const rows = await db
    .select({ projectId: projectMembers.projectId })
    .from(projectMembers)
    .where(and(eq(projectMembers.orgId, orgId), eq(projectMembers.userId, userId)));
  return rows.map((row) => row.projectId);
}

/** Whether the user is assigned to the project (one indexed lookup, for the reporter scope). */
export async function isAssigned(db: Db, orgId: string, projectId: string, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ projectId: projectMembers.projectId })
    .from(projectMembers)
    .where(and(ofProject(orgId, projectId), eq(projectMembers.userId, userId)))
    .limit(1);
  return row !== undefined;
}

/** false when the user is already assigned. */
export async function insertAssignment(
  db: Db,
  orgId: string,
  projectId: string,
  userId: string,
): Promise<boolean> {
  const rows = await db
    .insert(projectMembers)
    .values({ orgId, projectId, userId })
    .onConflictDoNothing()
    .returning({ userId: projectMembers.userId });
  return rows.length > 0;
}

export async function deleteAssignment(
  db: Db,
  orgId: string,
  projectId: string,
  userId: string,
): Promise<boolean> {
  const rows = await db
    .delete(projectMembers)
    .where(and(ofProject(orgId, projectId), eq(projectMembers.userId, userId)))
    .returning({ userId: projectMembers.userId });
  return rows.length > 0;
}
