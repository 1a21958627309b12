import { singleWrite, transaction, type Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import { badRequest, notFound } from '../../errors/catalogue.js';
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
import type { PeriodTargetResult, PeriodTargets } from './period-targets.js';

type LinkView = NonNullable<Awaited<ReturnType<typeof findLink>>> & { projectId: string };

const FORMULA_TARGETS = 'periodTargets cannot be set for a formula indicator: it has no indicator reports';

/** Indicators a project tracks, each with the project's target and baseline. */
export class ProjectIndicatorService {
  constructor(
    private readonly db: Db,
    private readonly periodTargets: PeriodTargets,
  ) {}

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

  async update(
    member: Member,
    projectId: string,
    indicatorId: string,
    input: LinkValues & { periodTargets?: Record<string, number | null> },
  ): Promise<LinkView & { periodTargets?: PeriodTargetResult[] }> {
    const { periodTargets, ...values } = input;
    if (periodTargets !== undefined)
      return this.updateWithTargets(member, projectId, indicatorId, values, periodTargets);
    await requireProject(this.db, member, projectId);
    if (Object.keys(values).length > 0) {
      if (!(await updateLink(this.db, member.orgId, projectId, indicatorId, values))) {
        throw notFound('Project indicator');
      }
    }
    return this.get(member, projectId, indicatorId);
  }

  /** The link's values and its periods' targets in one transaction: all or nothing. */
  private async updateWithTargets(
    member: Member,
    projectId: string,
    indicatorId: string,
    values: LinkValues,
    targets: Record<string, number | null>,
  ) {
    await requireProject(this.db, member, projectId);
    const periodTargets = await transaction(this.db, async (tx) => {
      const link = await findLink(tx, member.orgId, projectId, indicatorId);
      if (!link) throw notFound('Project indicator');
      if (link.indicator.isFormula && Object.keys(targets).length > 0) {
        throw badRequest({ path: '/periodTargets', rule: 'invalid', message: FORMULA_TARGETS });
      }
      if (Object.keys(values).length > 0) await updateLink(tx, member.orgId, projectId, indicatorId, values);
      return this.periodTargets(tx, member, { projectId, indicatorId }, targets);
    }).catch(
      refusedWrite({
        taken: 'Another request created an indicator report for one of these periods meanwhile; try again',
        // The link was removed meanwhile.
        gone: () => notFound('Project indicator'),
      }),
    );
    return { ...(await this.get(member, projectId, indicatorId)), periodTargets };
  }

  async unlink(member: Member, projectId: string, indicatorId: string): Promise<void> {
    await requireProject(this.db, member, projectId);
    await transaction(this.db, async (tx) => {
      if (!(await findLink(tx, member.orgId, projectId, indicatorId))) throw notFound('Project indicator');
      // Indicator reports and forms on this link refuse through their foreign keys.
      await deleteLink(tx, member.orgId, projectId, indicatorId);
    }).catch(refusedDelete('Project indicator'));
  }

  private async get(member: Member, projectId: string, indicatorId: string): Promise<LinkView> {
    const link = await findLink(this.db, member.orgId, projectId, indicatorId);
    if (!link) throw notFound('Project indicator');
    return { ...link, projectId };
  }
}
