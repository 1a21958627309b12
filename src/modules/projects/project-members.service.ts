import { singleWrite, type Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import { duplicate, notFound } from '../../errors/catalogue.js';
import { refusedWrite } from '../../errors/refusals.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { findMember } from '../orgs/index.js';
import {
  countAssignments,
  deleteAssignment,
  findAssignment,
  insertAssignment,
  listAssignments,
} from './project-members.repo.js';
import { requireProject } from './project-scope.js';

/** Who is assigned to a project; for reporters this is what they may see and write. */
export class ProjectMemberService {
  constructor(private readonly db: Db) {}

  private async project(member: Member, projectId: string): Promise<void> {
    await requireProject(this.db, member, projectId);
  }

  async list(member: Member, projectId: string, query: PageRequest) {
    await this.project(member, projectId);
    return paginate(query, {
      count: () => countAssignments(this.db, member.orgId, projectId),
      list: (window) => listAssignments(this.db, member.orgId, projectId, window),
    });
  }

  async assign(member: Member, projectId: string, userId: string) {
    await this.project(member, projectId);
    if (!(await findMember(this.db, member.orgId, userId))) throw notFound('Member');
    const inserted = await singleWrite(this.db, (tx) =>
      insertAssignment(tx, member.orgId, projectId, userId),
    ).catch(
      // The member (or the project) was removed between the check and the insert.
      refusedWrite({ gone: () => notFound('Member') }),
    );
    if (!inserted) {
      throw duplicate('This member is already assigned to the project');
    }
    const assignment = await findAssignment(this.db, member.orgId, projectId, userId);
    if (!assignment) throw notFound('Member');
    return assignment;
  }

  async unassign(member: Member, projectId: string, userId: string): Promise<void> {
    await this.project(member, projectId);
    if (!(await deleteAssignment(this.db, member.orgId, projectId, userId))) throw notFound('Assignment');
  }
}
