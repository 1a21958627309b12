import type { Static } from '@sinclair/typebox';
import { transaction, type Db } from '../../db/client.js';
import type { ProgressStatus } from '../../lib/scoring.js';
import type { IndicatorDependents } from './indicator-dependents.js';
import type { Member } from '../../http/pipeline/access.js';
import { badRequest, duplicate, hasDependents, notFound } from '../../errors/catalogue.js';
import { refusedDelete, refusedDuplicate } from '../../errors/refusals.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { FormulaError, parseFormula } from '../../lib/formula.js';
import { requireProject } from '../projects/index.js';
import {
  countIndicators,
  deleteIndicator,
  findIndicator,
  findIndicatorsByCodes,
  formulaEdges,
  formulasUsing,
  indicatorCodeTaken,
  insertIndicator,
  listIndicators,
  lockIndicatorsOf,
  replaceFormulaInputs,
  resultNodeExists,
  updateIndicator,
  type IndicatorFilter,
  type IndicatorRow,
  type IndicatorValues,
} from './indicators.repo.js';
import type { CreateIndicatorBody, UpdateIndicatorBody } from './indicators.schemas.js';
import { checkedQualityChecks } from './quality-checks.js';

type CreateInput = Static<typeof CreateIndicatorBody>;
type UpdateInput = Static<typeof UpdateIndicatorBody>;

const CODE_TAKEN = 'An indicator with this code already exists';

const blankToNull = (text: string | null | undefined) =>
  text === undefined ? undefined : text?.trim() ? text.trim() : null;

/** What the indicator becomes: the stored state with the request applied, checked as a whole. */
interface Definition {
  code: string;
  isFormula: boolean;
  formula: string | null;
  aggregationMethod: IndicatorRow['aggregationMethod'];
}

function nextDefinition(current: Definition | undefined, input: UpdateInput): Definition {
  const formulaSent = input.formula !== undefined && input.formula !== null && input.formula.trim() !== '';
  // Sending a formula makes a formula indicator unless isFormula says otherwise.
  const isFormula = input.isFormula ?? (formulaSent ? true : (current?.isFormula ?? false));
  const messages: string[] = [];
  if (!isFormula && formulaSent) messages.push('formula is only allowed when isFormula is true');
  const formula = isFormula
    ? input.formula === undefined
      ? (current?.formula ?? null)
      : (blankToNull(input.formula) ?? null)
    : null;
  if (isFormula && formula === null) messages.push('formula is required when isFormula is true');
  const aggregationMethod = input.aggregationMethod ?? current?.aggregationMethod ?? null;
  if (!isFormula && aggregationMethod === null) messages.push('aggregationMethod is required');
  if (messages.length > 0) throw badRequest(...messages);
  return { code: input.code?.trim() ?? current!.code, isFormula, formula, aggregationMethod };
}

function parsed(formula: string) {
  try {
    return parseFormula(formula);
  } catch (err) {
    if (err instanceof FormulaError) throw badRequest(err.message);
    throw err;
  }
}

/** Indicator definitions of an organization (DECISIONS.md section 7). */
export class IndicatorService {
  constructor(
    private readonly db: Db,
    private readonly dependents: IndicatorDependents,
  ) {}

  async list(member: Member, query: PageRequest & IndicatorFilter) {
    const filter: IndicatorFilter = { resultNodeId: query.resultNodeId, projectId: query.projectId };
    await this.checkFilter(member, filter);
    return paginate(query, {
      count: () => countIndicators(this.db, member.orgId, filter),
      list: (window) => listIndicators(this.db, member.orgId, filter, window),
    });
  }

  /** Filters name things of this organization: an unknown one is a 404, an unassigned project a 403. */
  async checkFilter(member: Member, filter: IndicatorFilter): Promise<void> {
    if (filter.projectId) await requireProject(this.db, member, filter.projectId);
    if (filter.resultNodeId && !(await resultNodeExists(this.db, member.orgId, filter.resultNodeId))) {
      throw notFound('Result node');
    }
  }

  /** Indicator+project pairs whose progress is in the band (the progress read model answers). */
  async inBand(member: Member, query: IndicatorFilter, status: ProgressStatus) {
    const filter: IndicatorFilter = { projectId: query.projectId, resultNodeId: query.resultNodeId };
    await this.checkFilter(member, filter);
    return this.dependents.inBand(this.db, member, filter, status);
  }

  async get(member: Member, id: string): Promise<IndicatorRow> {
    const indicator = await findIndicator(this.db, member.orgId, id);
    if (!indicator) throw notFound('Indicator');
    return indicator;
  }

  create(member: Member, input: CreateInput): Promise<IndicatorRow> {
    const definition = nextDefinition(undefined, input);
    const formula = definition.formula === null ? null : parsed(definition.formula);
    const qualityChecks = checkedQualityChecks(input.qualityChecks ?? null);
    return transaction(this.db, async (tx) => {
      await lockIndicatorsOf(tx, member.orgId);
      if (await indicatorCodeTaken(tx, member.orgId, definition.code)) throw duplicate(CODE_TAKEN);
      await this.checkResultNode(tx, member.orgId, input.resultNodeId);
      const inputIds = formula ? await resolveInputs(tx, member.orgId, definition.code, formula.codes) : [];
      const row = await insertIndicator(tx, member.orgId, {
        name: input.name.trim(),
        code: definition.code,
        unit: input.unit.trim(),
        aggregationMethod: definition.aggregationMethod,
        description: blankToNull(input.description) ?? null,
        dataSource: blankToNull(input.dataSource) ?? null,
        resultNodeId: input.resultNodeId ?? null,
        isFormula: definition.isFormula,
        formula: definition.formula,
        qualityChecks,
      });
      await replaceFormulaInputs(tx, member.orgId, row.id, inputIds);
      return row;
    }).catch(refusedDuplicate(CODE_TAKEN)); // the unique index on (org, lower(code)) settles a lost race
  }

  update(member: Member, id: string, input: UpdateInput): Promise<IndicatorRow> {
    const qualityChecks =
      input.qualityChecks === undefined ? undefined : checkedQualityChecks(input.qualityChecks);
    return transaction(this.db, async (tx) => {
      await lockIndicatorsOf(tx, member.orgId);
      const current = await findIndicator(tx, member.orgId, id);
      if (!current) throw notFound('Indicator');
      const next = nextDefinition(current, input);

      if (next.code.toLowerCase() !== current.code.toLowerCase()) {
        if (await indicatorCodeTaken(tx, member.orgId, next.code, id)) throw duplicate(CODE_TAKEN);
        const users = await formulasUsing(tx, member.orgId, id);
        if (users.length > 0) {
          throw hasDependents(
            `Indicator code is used in the formula of ${users.map((u) => u.code).join(', ')}`,
          );
        }
      }
      if (next.isFormula && !current.isFormula && (await this.dependents.hasReports(tx, member.orgId, id))) {
        throw hasDependents('Indicator has indicator reports; a formula indicator cannot have any');
      }
      await this.checkResultNode(tx, member.orgId, input.resultNodeId);
      if (next.formula !== current.formula || next.isFormula !== current.isFormula) {
        const inputIds = next.formula
          ? await resolveInputs(tx, member.orgId, next.code, parsed(next.formula).codes, id)
          : [];
        await replaceFormulaInputs(tx, member.orgId, id, inputIds);
      }

      const changes: Partial<IndicatorValues> = {
        name: input.name?.trim(),
        code: input.code === undefined ? undefined : next.code,
        unit: input.unit?.trim(),
        aggregationMethod: next.aggregationMethod,
        description: blankToNull(input.description),
        dataSource: blankToNull(input.dataSource),
        resultNodeId: input.resultNodeId,
        isFormula: next.isFormula,
        formula: next.formula,
        qualityChecks,
      };
      const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
      return (await updateIndicator(tx, member.orgId, id, set)) ?? current;
    }).catch(refusedDuplicate(CODE_TAKEN)); // the unique index on (org, lower(code)) settles a lost race
  }

  async remove(member: Member, id: string): Promise<void> {
    await transaction(this.db, async (tx) => {
      await lockIndicatorsOf(tx, member.orgId);
      if (!(await findIndicator(tx, member.orgId, id))) throw notFound('Indicator');
      // Reports first, as the contract's message has always said; forms then refuse by foreign key.
      if (await this.dependents.hasReports(tx, member.orgId, id))
        throw hasDependents('Indicator has indicator reports');
      const users = await formulasUsing(tx, member.orgId, id);
      if (users.length > 0) {
        throw hasDependents(`Indicator is used in the formula of ${users.map((u) => u.code).join(', ')}`);
      }
      // Indicator reports and forms of its project links refuse through their foreign keys.
      await deleteIndicator(tx, member.orgId, id);
    }).catch(refusedDelete('Indicator'));
  }

  private async checkResultNode(db: Db, orgId: string, resultNodeId: string | null | undefined) {
    if (resultNodeId && !(await resultNodeExists(db, orgId, resultNodeId))) throw notFound('Result node');
  }
}

/**
 * The ids of the indicators a formula uses. Unknown codes and the indicator itself are 400s; so is a
 * formula whose inputs lead back, through their own formulas, to the indicator being edited.
 */
async function resolveInputs(
  db: Db,
  orgId: string,
  ownCode: string,
  codes: string[],
  ownId?: string,
): Promise<string[]> {
  if (codes.some((code) => code.toLowerCase() === ownCode.toLowerCase())) {
    throw badRequest('formula must not use the indicator’s own code');
  }
  const found = await findIndicatorsByCodes(db, orgId, codes);
  const idByCode = new Map(found.map((row) => [row.code.toLowerCase(), row.id]));
  const unknown = codes.filter((code) => !idByCode.has(code.toLowerCase()));
  if (unknown.length > 0)
    throw badRequest(...unknown.map((code) => `formula uses unknown indicator code ${code}`));
  const inputIds = codes.map((code) => idByCode.get(code.toLowerCase())!);
  if (ownId) {
    const through = await cycleThrough(db, orgId, ownId, inputIds);
    if (through) throw badRequest(`formula creates a cycle: ${through} depends on this indicator`);
  }
  return inputIds;
}

/** The code of the first input whose formula reaches `ownId`, if any. */
async function cycleThrough(
  db: Db,
  orgId: string,
  ownId: string,
  inputIds: string[],
): Promise<string | null> {
  const inputsOf = new Map<string, string[]>();
  for (const edge of await formulaEdges(db, orgId)) {
    // The indicator's current formula is being replaced: its own edges do not count.
    if (edge.indicatorId === ownId) continue;
    inputsOf.set(edge.indicatorId, [...(inputsOf.get(edge.indicatorId) ?? []), edge.inputId]);
  }
  for (const start of inputIds) {
    const seen = new Set<string>();
    const stack = [start];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (next === ownId) {
        return (await findIndicator(db, orgId, start))?.code ?? start;
      }
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(inputsOf.get(next) ?? []));
    }
  }
  return null;
}
