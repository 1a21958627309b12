import type { Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import { forbidden, notFound } from '../../errors/catalogue.js';
import { isAssigned } from './project-members.repo.js';
import { projectExists } from './projects.repo.js';

/**
 * The contract every project-data module uses for reporters (DECISIONS.md section 5): a reporter sees
 * and writes only the projects assigned to them; every other role sees every project of the org.
 * Lists pass `visibilityOf(member)` (visibility.ts) to their repos; one project is guarded here.
 *
 * `ensureProjectAccess` guards one project; call it after the project was found in the org, so
 * another org's id stays a 404 and an unassigned one is a 403.
 */
export async function ensureProjectAccess(db: Db, member: Member, projectId: string): Promise<void> {
  if (member.role !== 'reporter') return;
  if (!(await isAssigned(db, member.orgId, projectId, member.userId))) {
    throw forbidden({ reason: 'project_not_assigned' });
  }
}

/** A project of the organization the member may work on: 404 when it is not in the org, then 403 as above. */
export async function requireProject(db: Db, member: Member, projectId: string): Promise<void> {
  if (!(await projectExists(db, member.orgId, projectId))) throw notFound('Project');
  await ensureProjectAccess(db, member, projectId);
}
