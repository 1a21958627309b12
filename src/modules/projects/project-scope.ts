import { and, eq, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { Member } from '../../http/access.js';
import { forbidden, notFound } from '../../http/errors.js';
import { projectExists } from './projects.repo.js';
import { projectMembers } from './projects.tables.js';

/**
 * The contract every project-data module uses for reporters (DECISIONS.md section 5): a reporter sees
 * and writes only the projects assigned to them; every other role sees every project of the org.
 *
 * `projectScope` gives a SQL condition on a project-id column to add to a list query (undefined: no
 * limit). `ensureProjectAccess` guards one project; call it after the project was found in the org,
 * so another org's id stays a 404 and an unassigned one is a 403.
 */
export function projectScope(member: Member, projectIdColumn: AnyColumn): SQL | undefined {
  if (member.role !== 'reporter') return undefined;
  return sql`${projectIdColumn} IN (SELECT ${projectMembers.projectId} FROM ${projectMembers}
    WHERE ${projectMembers.orgId} = ${member.orgId} AND ${projectMembers.userId} = ${member.userId})`;
}

export async function ensureProjectAccess(db: Db, member: Member, projectId: string): Promise<void> {
  if (member.role !== 'reporter') return;
  const [assigned] = await db
    .select({ projectId: projectMembers.projectId })
    .from(projectMembers)
    .where(
      and(
        eq(projectMembers.orgId, member.orgId),
        eq(projectMembers.userId, member.userId),
        eq(projectMembers.projectId, projectId),
      ),
    )
    .limit(1);
  if (!assigned) throw forbidden();
}

/** A project of the organization the member may work on: 404 when it is not in the org, then 403 as above. */
export async function requireProject(db: Db, member: Member, projectId: string): Promise<void> {
  if (!(await projectExists(db, member.orgId, projectId))) throw notFound('Project');
  await ensureProjectAccess(db, member, projectId);
}
