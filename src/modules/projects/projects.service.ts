import type { FastifyBaseLogger } from 'fastify';
import { transaction, type Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import { badRequest, duplicate, invalidTransition, notFound } from '../../errors/catalogue.js';
import { refusedWrite } from '../../errors/refusals.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { lockProgramForShare, programExists } from '../programs/index.js';
import { ensureProjectAccess } from './project-scope.js';
import { visibilityOf } from './visibility.js';
import {
  countProjects,
  deleteProject,
  findProject,
  insertProject,
  listProjects,
  lockProject,
  projectCodeTaken,
  updateProject,
} from './projects.repo.js';
import {
  removeStoredFiles,
  storedFileKeysUnder,
  type FileStorage,
  type StoredFileKeys,
} from '../../storage/file-storage.js';
import { dateOrderProblem } from '../../lib/dates.js';
import { centsProblems } from '../../lib/money.js';
import { canMove, type Transitions } from '../../lib/transitions.js';
import type { ProjectInput, ProjectStatus } from './projects.schemas.js';

const CODE_TAKEN = 'A project with this code already exists';

/** DECISIONS.md section 6; staying in the same status is not a transition and is allowed. */
const TRANSITIONS: Transitions<ProjectStatus> = {
  draft: ['active'],
  active: ['suspended', 'completed'],
  suspended: ['active', 'completed'],
  completed: ['active'],
};

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export class ProjectService {
  constructor(
    private readonly db: Db,
    private readonly storage: FileStorage,
    private readonly log: FastifyBaseLogger,
    private readonly storedFileKeys: readonly StoredFileKeys[],
  ) {}

  async list(member: Member, programId: string, query: PageRequest) {
    if (!(await programExists(this.db, member.orgId, programId))) throw notFound('Program');
    const visibility = visibilityOf(member);
    return paginate(query, {
      count: () => countProjects(this.db, member.orgId, programId, visibility),
      list: (window) => listProjects(this.db, member.orgId, programId, visibility, window),
    });
  }

  async get(member: Member, id: string) {
    const project = await findProject(this.db, member.orgId, id);
    if (!project) throw notFound('Project');
    await ensureProjectAccess(this.db, member, id);
    return project;
  }

  async create(
    member: Member,
    programId: string,
    input: ProjectInput & {
      name: string;
      code: string;
      startDate: string;
      endDate: string;
      currency: string;
    },
  ) {
    checkFields(input, input);
    const code = input.code.trim();
    return transaction(this.db, async (tx) => {
      if (!(await lockProgramForShare(tx, member.orgId, programId))) throw notFound('Program');
      if (await projectCodeTaken(tx, member.orgId, code)) throw duplicate(CODE_TAKEN);
      return insertProject(tx, member.orgId, programId, {
        name: input.name.trim(),
        code,
        startDate: input.startDate,
        endDate: input.endDate,
        currency: input.currency,
        budget: input.budget ?? 0,
        description: input.description ?? null,
        location: input.location ?? null,
        lead: input.lead ?? null,
        status: input.status ?? 'draft',
      }).catch(translateConstraint);
    });
  }

  async update(member: Member, id: string, input: ProjectInput) {
    const found = await findProject(this.db, member.orgId, id);
    if (!found) throw notFound('Project');
    return transaction(this.db, async (tx) => {
      // The program first, as a program delete does, so the two never wait on each other in a circle.
      if (!(await lockProgramForShare(tx, member.orgId, found.programId))) throw notFound('Project');
      const current = await lockProject(tx, member.orgId, id);
      if (!current) throw notFound('Project');
      checkFields(
        { startDate: input.startDate ?? current.startDate, endDate: input.endDate ?? current.endDate },
        input,
      );
      if (input.status !== undefined && !canMove(TRANSITIONS, current.status, input.status)) {
        throw invalidTransition(`Cannot change project status from ${current.status} to ${input.status}`);
      }
      const code = input.code?.trim();
      if (code !== undefined && (await projectCodeTaken(tx, member.orgId, code, id)))
        throw duplicate(CODE_TAKEN);
      const updated = await updateProject(tx, member.orgId, id, {
        ...(input.name !== undefined && { name: input.name.trim() }),
        ...(code !== undefined && { code }),
        ...(input.startDate !== undefined && { startDate: input.startDate }),
        ...(input.endDate !== undefined && { endDate: input.endDate }),
        ...(input.currency !== undefined && { currency: input.currency }),
        ...(input.budget !== undefined && { budget: input.budget }),
        ...(input.description !== undefined && { description: input.description }),
        ...(input.location !== undefined && { location: input.location }),
        ...(input.lead !== undefined && { lead: input.lead }),
        ...(input.status !== undefined && { status: input.status }),
      }).catch(translateConstraint);
      if (!updated) throw notFound('Project');
      return updated;
    });
  }

  /** Everything under the project goes with it; its attachment and submission files are removed after the commit. */
  async remove(member: Member, id: string): Promise<void> {
    const keys = await transaction(this.db, async (tx) => {
      // The row lock holds back uploads (their foreign-key check) until the delete, so no file is missed.
      if (!(await lockProject(tx, member.orgId, id))) throw notFound('Project');
      const keys = await storedFileKeysUnder(tx, this.storedFileKeys, member.orgId, { projectId: id });
      await deleteProject(tx, member.orgId, id);
      return keys;
    });
    await removeStoredFiles(this.storage, keys, this.log);
  }
}

/** The rules a schema cannot say: date order, a real currency, a budget in cents. */
function checkFields(
  range: { startDate: string; endDate: string },
  sent: { startDate?: string; endDate?: string; currency?: string; budget?: number },
): void {
  const problems = [dateOrderProblem(range, sent), ...centsProblems({ budget: sent.budget })].filter(
    (problem): problem is string => problem !== null,
  );
  if (sent.currency !== undefined && !CURRENCIES.has(sent.currency)) {
    problems.push('currency must be an ISO 4217 currency code');
  }
  if (problems.length > 0) throw badRequest(...problems);
}

/** A race lost between the service's checks and the write. */
const translateConstraint = refusedWrite({ taken: CODE_TAKEN, gone: () => notFound('Program') });
