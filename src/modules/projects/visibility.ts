import { and, eq, inArray, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import { projectMembers } from './projects.tables.js';

/**
 * Which projects a list shows (DECISIONS.md section 5): every project of the organization, or, for
 * a reporter, only the projects assigned to them. Services pass this to repos; repos turn it into SQL.
 */
export interface ProjectVisibility {
  /** Only the projects this user is assigned to. */
  assignedTo?: string;
  /** Only these projects: a reporter's assignments read beforehand, on the primary (`assignedVisibility`). */
  projectIds?: readonly string[];
}

export const visibilityOf = (member: Member): ProjectVisibility =>
  member.role === 'reporter' ? { assignedTo: member.userId } : {};

/**
 * The member's visibility with a reporter's assignments read now from `db`, for reads that run elsewhere:
 * on the read replica, an assignment removed a moment ago would still count until replayed.
 */
export async function assignedVisibility(db: Db, member: Member): Promise<ProjectVisibility> {
  if (member.role !== 'reporter') return {};
  const rows = await db
    .select({ projectId: projectMembers.projectId })
    .from(projectMembers)
    .where(and(eq(projectMembers.orgId, member.orgId), eq(projectMembers.userId, member.userId)));
  return { projectIds: rows.map((row) => row.projectId) };
}

/** The condition on a project-id column that keeps the visible projects (undefined: no limit). */
export function visibleTo(
  orgId: string,
  visibility: ProjectVisibility,
  projectIdColumn: AnyColumn,
): SQL | undefined {
  if (visibility.projectIds !== undefined) {
    return visibility.projectIds.length === 0
      ? sql`false`
      : inArray(projectIdColumn, [...visibility.projectIds]);
  }
  if (visibility.assignedTo === undefined) return undefined;
  return sql`${projectIdColumn} IN (SELECT ${projectMembers.projectId} FROM ${projectMembers}
    WHERE ${projectMembers.orgId} = ${orgId} AND ${projectMembers.userId} = ${visibility.assignedTo})`;
}
