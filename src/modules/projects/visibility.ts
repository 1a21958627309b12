import { sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Member } from '../../http/access.js';
import { projectMembers } from './projects.tables.js';

/**
 * Which projects a list shows (DECISIONS.md section 5): every project of the organization, or, for
 * a reporter, only the projects assigned to them. Services pass this to repos; repos turn it into SQL.
 */
export interface ProjectVisibility {
  /** Only the projects this user is assigned to. */
  assignedTo?: string;
}

export const visibilityOf = (member: Member): ProjectVisibility =>
  member.role === 'reporter' ? { assignedTo: member.userId } : {};

/** The condition on a project-id column that keeps the visible projects (undefined: no limit). */
export function visibleTo(
  orgId: string,
  visibility: ProjectVisibility,
  projectIdColumn: AnyColumn,
): SQL | undefined {
  if (visibility.assignedTo === undefined) return undefined;
  return sql`${projectIdColumn} IN (SELECT ${projectMembers.projectId} FROM ${projectMembers}
    WHERE ${projectMembers.orgId} = ${orgId} AND ${projectMembers.userId} = ${visibility.assignedTo})`;
}
