import { singleWrite, transaction, type Db } from '../../db/client.js';
import { optionalText } from '../../lib/text.js';
import type { Member } from '../../http/pipeline/access.js';
import { badRequest, invalidTransition, notFound } from '../../errors/catalogue.js';
import { refusedWrite } from '../../errors/refusals.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { dateOrderProblem } from '../../lib/dates.js';
import { canMove, type Transitions } from '../../lib/transitions.js';
import { ensureProjectAccess, requireProject, findProject } from '../projects/index.js';
import { findNode } from '../results/index.js';
import {
  countActivities,
  deleteActivity,
  findActivity,
  insertActivity,
  listActivities,
  lockActivity,
  updateActivity,
} from './activities.repo.js';
import type { ActivityFilter, ActivityInput } from './activities.schemas.js';
import type { ActivityStatus } from './activities.tables.js';

/** DECISIONS.md section 6; staying in the same status is not a transition and is allowed. */
const TRANSITIONS: Transitions<ActivityStatus> = {
  planned: ['in_progress', 'completed', 'cancelled'],
  in_progress: ['completed', 'cancelled'],
  completed: [],
  cancelled: ['planned'],
};

export class ActivityService {
  constructor(private readonly db: Db) {}

  async list(member: Member, projectId: string, query: PageRequest & ActivityFilter) {
    await requireProject(this.db, member, projectId);
    const filter: ActivityFilter = { status: query.status, from: query.from, to: query.to };
    if (filter.from && filter.to && filter.to < filter.from) throw badRequest('to must not be before from');
    return paginate(query, {
      count: () => countActivities(this.db, member.orgId, projectId, filter),
      list: (window) => listActivities(this.db, member.orgId, projectId, filter, window),
    });
  }

  async get(member: Member, id: string) {
    const activity = await findActivity(this.db, member.orgId, id);
    if (!activity) throw notFound('Activity');
    await ensureProjectAccess(this.db, member, activity.projectId);
    return activity;
  }

  async create(
    member: Member,
    projectId: string,
    input: ActivityInput & { title: string; startDate: string; endDate: string },
  ) {
    await requireProject(this.db, member, projectId);
    const problem = dateOrderProblem({ startDate: input.startDate, endDate: input.endDate });
    if (problem) throw badRequest(problem);
    if (input.outputId) await this.checkOutput(member.orgId, projectId, input.outputId);
    const id = await singleWrite(this.db, (tx) =>
      insertActivity(tx, member.orgId, {
        projectId,
        outputId: input.outputId ?? null,
        title: input.title.trim(),
        description: optionalText(input.description) ?? null,
        startDate: input.startDate,
        endDate: input.endDate,
        location: optionalText(input.location) ?? null,
        facilitator: optionalText(input.facilitator) ?? null,
        status: input.status ?? 'planned',
      }),
    ).catch(translateConstraint);
    return this.get(member, id);
  }

  async update(member: Member, id: string, input: ActivityInput) {
    await transaction(this.db, async (tx) => {
      const current = await lockActivity(tx, member.orgId, id, 'update');
      if (!current) throw notFound('Activity');
      await ensureProjectAccess(tx, member, current.projectId);
      const problem = dateOrderProblem(
        { startDate: input.startDate ?? current.startDate, endDate: input.endDate ?? current.endDate },
        input,
      );
      if (problem) throw badRequest(problem);
      if (input.outputId) await this.checkOutput(member.orgId, current.projectId, input.outputId, tx);
      if (input.status !== undefined && !canMove(TRANSITIONS, current.status, input.status)) {
        throw invalidTransition(`Cannot change activity status from ${current.status} to ${input.status}`);
      }
      const changes = {
        title: input.title?.trim(),
        description: optionalText(input.description),
        outputId: input.outputId,
        startDate: input.startDate,
        endDate: input.endDate,
        location: optionalText(input.location),
        facilitator: optionalText(input.facilitator),
        status: input.status,
      };
      const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
      if (Object.keys(set).length > 0) {
        await updateActivity(tx, member.orgId, id, set).catch(translateConstraint);
      }
    });
    return this.get(member, id);
  }

  /** Its registrations go with it; the participants stay in the organization. */
  async remove(member: Member, id: string): Promise<void> {
    const activity = await findActivity(this.db, member.orgId, id);
    if (!activity) throw notFound('Activity');
    await ensureProjectAccess(this.db, member, activity.projectId);
    if (!(await deleteActivity(this.db, member.orgId, id))) throw notFound('Activity');
  }

  /** outputId names an output node of the project's program (DECISIONS.md section 9). */
  private async checkOutput(orgId: string, projectId: string, outputId: string, db = this.db) {
    const node = await findNode(db, orgId, outputId);
    if (!node) throw notFound('Result node');
    const project = await findProject(db, orgId, projectId);
    if (node.level !== 'output' || node.programId !== project?.programId) {
      throw badRequest("outputId must be an output of the project's program");
    }
  }
}

/** A race lost between the checks and the write: the project or (the refusals' table says) the output node went away. */
const translateConstraint = refusedWrite({ gone: () => notFound('Project') });
