import type { FastifyBaseLogger } from 'fastify';
import { transaction, type Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import { badRequest, hasDependents, invalidTransition, notFound } from '../../errors/catalogue.js';
import { refusedWrite } from '../../errors/refusals.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import {
  countProgramDonors,
  countPrograms,
  deleteProgram,
  findProgram,
  insertProgram,
  listDonorsOfPrograms,
  listProgramDonors,
  listPrograms,
  lockProgram,
  replaceProgramDonors,
  updateProgram,
  type ProgramRow,
} from './programs.repo.js';
import { findDonorsByIds } from '../donors/index.js';
import {
  removeStoredFiles,
  storedFileKeysUnder,
  type FileStorage,
  type StoredFileKeys,
} from '../../storage/file-storage.js';
import type { ProgramProjects } from './program-projects.js';
import { dateOrderProblem } from '../../lib/dates.js';
import { canMove, type Transitions } from '../../lib/transitions.js';
import type { ProgramInput, ProgramStatus } from './programs.schemas.js';

/** DECISIONS.md section 6; staying in the same status is not a transition and is allowed. */
const TRANSITIONS: Transitions<ProgramStatus> = {
  draft: ['active'],
  active: ['completed'],
  completed: ['active'],
};

export class ProgramService {
  constructor(
    private readonly db: Db,
    private readonly storage: FileStorage,
    private readonly log: FastifyBaseLogger,
    private readonly storedFileKeys: readonly StoredFileKeys[],
    private readonly projects: ProgramProjects,
  ) {}

  list(member: Member, query: PageRequest) {
    return paginate(query, {
      count: () => countPrograms(this.db, member.orgId),
      list: async (window) => {
        const rows = await listPrograms(this.db, member.orgId, window);
        const ids = rows.map((r) => r.id);
        const links = await listDonorsOfPrograms(this.db, member.orgId, ids);
        const projectCounts = await this.projects.count(this.db, member, ids);
        const byProgram = new Map<string, { id: string; name: string; code: string }[]>();
        for (const { programId, ...donor } of links) {
          byProgram.set(programId, [...(byProgram.get(programId) ?? []), donor]);
        }
        return rows.map((row) => ({
          ...row,
          projectCount: projectCounts.get(row.id) ?? 0,
          donors: byProgram.get(row.id) ?? [],
        }));
      },
    });
  }

  async get(member: Member, id: string) {
    const program = await findProgram(this.db, member.orgId, id);
    if (!program) throw notFound('Program');
    return this.detail(this.db, member, program);
  }

  async create(member: Member, input: ProgramInput & { name: string; startDate: string; endDate: string }) {
    checkDates(input, input);
    return transaction(this.db, async (tx) => {
      const program = await insertProgram(tx, member.orgId, {
        name: input.name.trim(),
        description: input.description ?? null,
        startDate: input.startDate,
        endDate: input.endDate,
        status: input.status ?? 'draft',
      });
      if (input.donorIds) await this.setDonors(tx, member.orgId, program.id, input.donorIds);
      return this.detail(tx, member, program);
    });
  }

  async update(member: Member, id: string, input: ProgramInput) {
    return transaction(this.db, async (tx) => {
      const current = await lockProgram(tx, member.orgId, id);
      if (!current) throw notFound('Program');
      checkDates(
        { startDate: input.startDate ?? current.startDate, endDate: input.endDate ?? current.endDate },
        input,
      );
      if (input.status !== undefined && !canMove(TRANSITIONS, current.status, input.status)) {
        throw invalidTransition(`Cannot change program status from ${current.status} to ${input.status}`);
      }
      if (input.donorIds) await this.setDonors(tx, member.orgId, id, input.donorIds);
      const updated = await updateProgram(tx, member.orgId, id, {
        ...(input.name !== undefined && { name: input.name.trim() }),
        ...(input.description !== undefined && { description: input.description }),
        ...(input.startDate !== undefined && { startDate: input.startDate }),
        ...(input.endDate !== undefined && { endDate: input.endDate }),
        ...(input.status !== undefined && { status: input.status }),
      });
      if (!updated) throw notFound('Program');
      return this.detail(tx, member, updated);
    });
  }

  /** The row lock makes a concurrent project activation either wait for the delete or refuse it. */
  /** Projects and everything under them go with the program; attachment and submission files after the commit. */
  async remove(member: Member, id: string): Promise<void> {
    const keys = await transaction(this.db, async (tx) => {
      if (!(await lockProgram(tx, member.orgId, id))) throw notFound('Program');
      const { anyActive } = await this.projects.lockForDelete(tx, member.orgId, id);
      if (anyActive) throw hasDependents('Program has active projects');
      const keys = await storedFileKeysUnder(tx, this.storedFileKeys, member.orgId, { programId: id });
      await deleteProgram(tx, member.orgId, id);
      return keys;
    });
    await removeStoredFiles(this.storage, keys, this.log);
  }

  async donors(member: Member, id: string, query: PageRequest) {
    if (!(await findProgram(this.db, member.orgId, id))) throw notFound('Program');
    return paginate(query, {
      count: () => countProgramDonors(this.db, member.orgId, id),
      list: (window) => listProgramDonors(this.db, member.orgId, id, window),
    });
  }

  private async setDonors(tx: Db, orgId: string, programId: string, donorIds: string[]): Promise<void> {
    const known = new Set((await findDonorsByIds(tx, orgId, donorIds)).map((donor) => donor.id));
    if (donorIds.some((donorId) => !known.has(donorId))) throw notFound('Donor');
    // A donor was deleted between the check and the insert.
    await replaceProgramDonors(tx, orgId, programId, donorIds).catch(
      refusedWrite({ gone: () => notFound('Donor') }),
    );
  }

  private async detail(db: Db, member: Member, program: ProgramRow) {
    // One after the other: inside a transaction both would share one connection anyway.
    const links = await listDonorsOfPrograms(db, member.orgId, [program.id]);
    const programProjects = await this.projects.list(db, member, program.id);
    return {
      ...program,
      donors: links.map(({ id, name, code }) => ({ id, name, code })),
      projects: programProjects,
    };
  }
}

function checkDates(
  range: { startDate: string; endDate: string },
  sent: { startDate?: string; endDate?: string },
) {
  const problem = dateOrderProblem(range, sent);
  if (problem) throw badRequest(problem);
}
