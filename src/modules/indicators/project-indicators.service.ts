import { singleWrite, transaction, type Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import { notFound } from '../../errors/catalogue.js';
import { refusedDelete, refusedWrite } from '../../errors/refusals.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { requireProject } from '../projects/index.js';
import { findIndicator } from './indicators.repo.js';
import {
  countLinks,
  deleteLink,
  findLink,
  insertLink,
  listLinks,
  updateLink,
  type LinkValues,
} from './project-indicators.repo.js';

/** Indicators a project tracks, each with the project's target and baseline. */
export class ProjectIndicatorService {
  constructor(private readonly db: Db) {}

  async list(member: Member, projectId: string, query: PageRequest) {
    await requireProject(this.db, member, projectId);
    return paginate(query, {
      count: () => countLinks(this.db, member.orgId, projectId),
      list: (window) => listLinks(this.db, member.orgId, projectId, window),
    });
  }

  async link(member: Member, projectId: string, input: LinkValues & { indicatorId: string }) {
    await requireProject(this.db, member, projectId);
    if (!(await findIndicator(this.db, member.orgId, input.indicatorId))) throw notFound('Indicator');
    const { indicatorId, ...values } = input;
    await singleWrite(this.db, (tx) => insertLink(tx, member.orgId, projectId, indicatorId, values)).catch(
      refusedWrite({
        taken: 'Indicator is already linked to the project',
        // The project or the indicator was deleted meanwhile.
        gone: () => notFound('Indicator'),
      }),
    );
    return this.get(member, projectId, indicatorId);
  }

  async update(member: Member, projectId: string, indicatorId: string, values: LinkValues) {
    await requireProject(this.db, member, projectId);
    if (Object.keys(values).length > 0) {
      if (!(await updateLink(this.db, member.orgId, projectId, indicatorId, values))) {
        throw notFound('Project indicator');
      }
    }
    return this.get(member, projectId, indicatorId);
  }

  async unlink(member: Member, projectId: string, indicatorId: string): Promise<void> {
    await requireProject(this.db, member, projectId);
    await transaction(this.db, async (tx) => {
      if (!(await findLink(tx, member.orgId, projectId, indicatorId))) throw notFound('Project indicator');
      // Indicator reports and forms on this link refuse through their foreign keys.
      await deleteLink(tx, member.orgId, projectId, indicatorId);
    }).catch(refusedDelete('Project indicator'));
  }

  private async get(member: Member, projectId: string, indicatorId: string) {
    const link = await findLink(this.db, member.orgId, projectId, indicatorId);
    if (!link) throw notFound('Project indicator');
    return { ...link, projectId };
  }
}
