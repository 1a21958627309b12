import { asReturned, queueWebhookEvent } from '../webhooks/index.js';
import { transaction, type Db } from '../../db/client.js';
import { ADMINS, type Member } from '../../http/pipeline/access.js';
import { dateOrderProblem } from '../../lib/dates.js';
import {
  PERIOD_LOCKED,
  badRequest,
  conflict,
  forbidden,
  hasDependents,
  notFound,
  periodLocked,
} from '../../errors/catalogue.js';
import { refusedDelete } from '../../errors/refusals.js';
import type { SubmissionsInPeriod } from './period-dependents.js';
import { ReportingPeriod } from './periods.schemas.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { recordFeedEventBy } from '../feed/index.js';
import { ensureProjectAccess, requireProject, findProject } from '../projects/index.js';
import {
  countPeriods,
  deletePeriod,
  findOverlappingPeriod,
  findPeriod,
  insertPeriod,
  listPeriods,
  updatePeriod,
  type PeriodChanges,
  type ReportingPeriodRow,
} from './periods.repo.js';

export { PERIOD_LOCKED };
const END_BEFORE_START = 'endDate must not be before startDate';

export interface NewPeriod {
  label: string;
  startDate: string;
  endDate: string;
  dueDate?: string | null;
}

export interface PeriodUpdate {
  label?: string;
  startDate?: string;
  endDate?: string;
  dueDate?: string | null;
  isLocked?: boolean;
}

/** Reporting periods of a project: never overlapping, lockable (DECISIONS.md sections 5 and 9). */
export class ReportingPeriodService {
  constructor(
    private readonly db: Db,
    private readonly submissionsIn: readonly SubmissionsInPeriod[],
    /** Wakes the webhook worker; queueWebhookEvent calls it once a delivery it queued has committed. */
    private readonly webhooksQueued: () => void,
  ) {}

  async list(member: Member, projectId: string, query: PageRequest) {
    await requireProject(this.db, member, projectId);
    return paginate(query, {
      count: () => countPeriods(this.db, member.orgId, projectId),
      list: (window) => listPeriods(this.db, member.orgId, projectId, window),
    });
  }

  /** One period; a reporter reads only those of assigned projects (403), as the list. */
  async get(member: Member, id: string): Promise<ReportingPeriodRow> {
    const period = await findPeriod(this.db, member.orgId, id);
    if (!period) throw notFound('Reporting period');
    await ensureProjectAccess(this.db, member, period.projectId);
    return period;
  }

  async create(member: Member, projectId: string, input: NewPeriod): Promise<ReportingPeriodRow> {
    if (input.endDate < input.startDate) throw badRequest(END_BEFORE_START);
    return transaction(this.db, async (tx) => {
      // The project row lock makes the overlap check and the insert one step for concurrent writers.
      if (!(await findProject(tx, member.orgId, projectId, { lock: true }))) throw notFound('Project');
      await ensureProjectAccess(tx, member, projectId);
      await ensureNoOverlap(tx, member.orgId, projectId, input);
      return insertPeriod(tx, member.orgId, {
        projectId,
        label: input.label.trim(),
        startDate: input.startDate,
        endDate: input.endDate,
        dueDate: input.dueDate ?? null,
      });
    });
  }

  /**
   * Edits, locks and unlocks. Unlocking is its own request: on a locked period any field besides
   * `isLocked` is refused with 409, even next to `isLocked: false`. Repeating the current lock state
   * changes nothing and records no event.
   */
  async update(member: Member, id: string, input: PeriodUpdate): Promise<ReportingPeriodRow> {
    return transaction(this.db, async (tx) => {
      const found = await findPeriod(tx, member.orgId, id);
      if (!found) throw notFound('Reporting period');
      // Project first, then the period: the order a project deletion takes, so the two cannot deadlock.
      const project = await findProject(tx, member.orgId, found.projectId, { lock: true });
      const period = await findPeriod(tx, member.orgId, id, { lock: true });
      if (!project || !period) throw notFound('Reporting period');

      const { isLocked, ...sent } = input;
      const edits = sent.label === undefined ? sent : { ...sent, label: sent.label.trim() };
      const unlocking = isLocked === false && period.isLocked;
      if (unlocking && !ADMINS.includes(member.role)) throw forbidden({ allowedRoles: ADMINS });
      if (period.isLocked && Object.keys(edits).length > 0) throw periodLocked(409);

      if (unlocking) {
        const row = await updatePeriod(tx, member.orgId, id, {
          isLocked: false,
          lockedAt: null,
          lockedBy: null,
        });
        await recordLockEvent(tx, member, row ?? period, project.name, 'unlocked', this.webhooksQueued);
        return row ?? period;
      }
      if (period.isLocked) return period;

      const startDate = edits.startDate ?? period.startDate;
      const endDate = edits.endDate ?? period.endDate;
      const problem = dateOrderProblem({ startDate, endDate }, edits);
      if (problem) throw badRequest(problem);
      if (edits.startDate !== undefined || edits.endDate !== undefined) {
        await ensureNoOverlap(tx, member.orgId, period.projectId, { startDate, endDate, exceptId: id });
      }

      const changes: PeriodChanges =
        isLocked === true
          ? { ...edits, isLocked: true, lockedAt: new Date(), lockedBy: member.userId }
          : edits;
      if (Object.keys(changes).length === 0) return period;
      const row = (await updatePeriod(tx, member.orgId, id, changes)) ?? period;
      if (isLocked === true)
        await recordLockEvent(tx, member, row, project.name, 'locked', this.webhooksQueued);
      return row;
    });
  }

  async remove(member: Member, id: string): Promise<void> {
    await transaction(this.db, async (tx) => {
      const period = await findPeriod(tx, member.orgId, id, { lock: true });
      if (!period) throw notFound('Reporting period');
      if (period.isLocked) throw periodLocked(409);
      // SPEC.md: a period with submissions (indicator reports, counted form submissions) or used by a
      // form cannot be deleted: their foreign keys refuse, and src/errors/refusals.ts says why. Reports and
      // counted submissions share-lock the period as they are written, so the answer below holds.
      for (const holds of this.submissionsIn) {
        if (await holds(tx, member.orgId, id)) throw hasDependents('Reporting period has submissions');
      }
      await deletePeriod(tx, member.orgId, id);
    }).catch(refusedDelete('Reporting period'));
  }
}

async function ensureNoOverlap(
  tx: Db,
  orgId: string,
  projectId: string,
  range: { startDate: string; endDate: string; exceptId?: string },
): Promise<void> {
  const overlap = await findOverlappingPeriod(tx, orgId, projectId, range);
  if (overlap) throw conflict(`Reporting period overlaps ${overlap.label}`, 'overlap');
}

async function recordLockEvent(
  tx: Db,
  member: Member,
  period: ReportingPeriodRow,
  projectName: string,
  action: 'locked' | 'unlocked',
  webhooksQueued: () => void,
): Promise<void> {
  await recordFeedEventBy(tx, member, (actor) => ({
    type: action === 'locked' ? 'reporting_period.locked' : 'reporting_period.unlocked',
    projectId: period.projectId,
    subject: { type: 'reporting_period', id: period.id, label: period.label },
    summary: `${actor} ${action} reporting period ${period.label} of ${projectName}`,
  }));
  await queueWebhookEvent(
    tx,
    {
      orgId: member.orgId,
      type: action === 'locked' ? 'period.locked' : 'period.unlocked',
      data: asReturned(ReportingPeriod, period),
    },
    webhooksQueued,
  );
}
