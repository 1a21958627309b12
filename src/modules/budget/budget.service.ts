import { singleWrite, type Db } from '../../db/client.js';
import { optionalText } from '../../lib/text.js';
import type { Member } from '../../http/pipeline/access.js';
import { badRequest, notFound } from '../../errors/catalogue.js';
import { refusedWrite } from '../../errors/refusals.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { ensureProjectAccess, requireProject } from '../projects/index.js';
import { countLines, deleteLine, findLine, insertLine, listLines, updateLine } from './budget.repo.js';
import type { BudgetLineInput } from './budget.schemas.js';
import { centsProblems } from '../../lib/money.js';

/** Amounts are money in the project currency: cents at most (JSON Schema's multipleOf trips on floats). */
function checkAmounts(input: BudgetLineInput): void {
  const messages = centsProblems({ plannedAmount: input.plannedAmount, actualAmount: input.actualAmount });
  if (messages.length > 0) throw badRequest(...messages);
}

export class BudgetLineService {
  constructor(private readonly db: Db) {}

  async list(member: Member, projectId: string, query: PageRequest) {
    await requireProject(this.db, member, projectId);
    return paginate(query, {
      count: () => countLines(this.db, member.orgId, projectId),
      list: (window) => listLines(this.db, member.orgId, projectId, window),
    });
  }

  /** One line; a reporter reads only those of assigned projects (403), as the list. */
  async get(member: Member, id: string) {
    const line = await findLine(this.db, member.orgId, id);
    if (!line) throw notFound('Budget line');
    await ensureProjectAccess(this.db, member, line.projectId);
    return line;
  }

  async create(member: Member, projectId: string, input: BudgetLineInput & { category: string }) {
    checkAmounts(input);
    await requireProject(this.db, member, projectId);
    const id = await singleWrite(this.db, (tx) =>
      insertLine(tx, member.orgId, projectId, {
        category: input.category.trim(),
        description: optionalText(input.description) ?? null,
        plannedAmount: input.plannedAmount ?? 0,
        actualAmount: input.actualAmount ?? 0,
      }),
    ).catch(
      // The project was deleted between the check and the insert.
      refusedWrite({ gone: () => notFound('Project') }),
    );
    return this.get(member, id);
  }

  async update(member: Member, id: string, input: BudgetLineInput) {
    checkAmounts(input);
    const changes = {
      category: input.category?.trim(),
      description: optionalText(input.description),
      plannedAmount: input.plannedAmount,
      actualAmount: input.actualAmount,
    };
    const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    if (Object.keys(set).length === 0) return this.get(member, id);
    if (!(await updateLine(this.db, member.orgId, id, set))) throw notFound('Budget line');
    return this.get(member, id);
  }

  async remove(member: Member, id: string): Promise<void> {
    if (!(await deleteLine(this.db, member.orgId, id))) throw notFound('Budget line');
  }
}
