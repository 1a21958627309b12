import type { Static } from '@sinclair/typebox';
import { transaction, type Db } from '../../db/client.js';
import { badRequest, notFound } from '../../errors/catalogue.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { cellKey, cellsOf, crossedBy, isCross } from '../../lib/crosses.js';
import { FormulaError } from '../../lib/formula.js';
import { parseRuleExpression, type RuleExpression } from '../../lib/rule-expressions.js';
import { dimensionsOf, findIndicatorsByCodes } from '../indicators/index.js';
import {
  countRules,
  deleteRule,
  findRule,
  insertRule,
  listRules,
  projectsAmong,
  replaceInputs,
  updateRule,
  type RuleInput,
  type RuleRow,
  type RuleValues,
} from './rules.repo.js';
import type { CreateValidationRuleBody, UpdateValidationRuleBody } from './rules.schemas.js';

type CreateInput = Static<typeof CreateValidationRuleBody>;
type UpdateInput = Static<typeof UpdateValidationRuleBody>;

/** What a rule's owner does when one of its rules goes: its flags on reports are taken off. */
export type RuleRemoved = (tx: Db, orgId: string, ruleId: string) => Promise<void>;
/** What it does when a rule is written or changed: the rule is checked over the values already saved. */
export type RuleWritten = (tx: Db, orgId: string, ruleId: string) => Promise<void>;

/** The indicator reports' side of the rules (the module above this one). */
export interface RuleReports {
  removed: RuleRemoved;
  written: RuleWritten;
}

const parsed = (text: string, field: 'left' | 'right'): RuleExpression => {
  try {
    return parseRuleExpression(text, field);
  } catch (err) {
    if (err instanceof FormulaError) throw badRequest(err.message);
    throw err;
  }
};

/**
 * The indicators a rule reads, checked: each code an indicator of the organization that is not a formula,
 * each cell a category of one of its disaggregations or a cell of one of its crosses.
 */
async function inputsOf(db: Db, orgId: string, sides: Record<'left' | 'right', RuleExpression>) {
  const codes = [
    ...new Map([...sides.left.codes, ...sides.right.codes].map((c) => [c.toLowerCase(), c])).values(),
  ];
  if (codes.length === 0) throw badRequest('left and right name no indicator: a rule reads at least one');
  const found = new Map(
    (await findIndicatorsByCodes(db, orgId, codes)).map((row) => [row.code.toLowerCase(), row]),
  );
  const problems: string[] = [];
  const inputs: RuleInput[] = [];
  for (const [side, expression] of Object.entries(sides)) {
    for (const code of expression.codes) {
      const indicator = found.get(code.toLowerCase());
      if (!indicator) problems.push(`${side}: ${code} is not an indicator of the organization`);
      else if (indicator.isFormula) {
        problems.push(`${side}: ${code} is a formula indicator: write the indicators its formula reads`);
      } else if (!inputs.some((input) => input.indicatorId === indicator.id)) {
        inputs.push({ indicatorId: indicator.id, code });
      }
    }
    for (const cell of expression.cells) {
      const indicator = found.get(cell.code.toLowerCase());
      if (!indicator || indicator.isFormula) continue;
      const dimensions = await dimensionsOf(db, orgId, indicator.id);
      const keys = dimensions.flatMap((d) =>
        isCross(d) ? cellsOf(crossedBy(d, dimensions)).map(cellKey) : d.categories,
      );
      if (!keys.some((key) => key.toLowerCase() === cell.key.toLowerCase())) {
        problems.push(`${side}: ${cell.code} has no category or cell ${cell.key}`);
      }
    }
  }
  if (problems.length > 0) throw badRequest(...new Set(problems));
  return inputs;
}

async function checkProjects(db: Db, orgId: string, ids: string[] | null | undefined) {
  if (!ids) return;
  const known = await projectsAmong(db, orgId, ids);
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw badRequest(...unknown.map((id) => `projectIds: ${id} is not a project of the organization`));
  }
}

/** An organization's validation rules (docs/data-quality.md): written here, checked as values are. */
export class RuleService {
  constructor(
    private readonly db: Db,
    private readonly reports: RuleReports,
  ) {}

  list(orgId: string, query: PageRequest) {
    return paginate(query, {
      count: () => countRules(this.db, orgId),
      list: (window) => listRules(this.db, orgId, window),
    });
  }

  async get(orgId: string, id: string): Promise<RuleRow> {
    const rule = await findRule(this.db, orgId, id);
    if (!rule) throw notFound('Validation rule');
    return rule;
  }

  create(orgId: string, input: CreateInput): Promise<RuleRow> {
    const sides = { left: parsed(input.left, 'left'), right: parsed(input.right, 'right') };
    return transaction(this.db, async (tx) => {
      const inputs = await inputsOf(tx, orgId, sides);
      await checkProjects(tx, orgId, input.projectIds);
      const rule = await insertRule(tx, orgId, {
        name: input.name.trim(),
        left: input.left.trim(),
        operator: input.operator,
        right: input.right.trim(),
        importance: input.importance,
        instruction: input.instruction?.trim() || null,
        projectIds: input.projectIds ?? null,
      });
      await replaceInputs(tx, orgId, rule.id, inputs);
      await this.reports.written(tx, orgId, rule.id);
      return rule;
    });
  }

  update(orgId: string, id: string, input: UpdateInput): Promise<RuleRow> {
    return transaction(this.db, async (tx) => {
      const current = await findRule(tx, orgId, id);
      if (!current) throw notFound('Validation rule');
      const changes: Partial<RuleValues> = {};
      if (input.name !== undefined) changes.name = input.name.trim();
      if (input.left !== undefined) changes.left = input.left.trim();
      if (input.right !== undefined) changes.right = input.right.trim();
      if (input.operator !== undefined) changes.operator = input.operator;
      if (input.importance !== undefined) changes.importance = input.importance;
      if (input.instruction !== undefined) changes.instruction = input.instruction?.trim() || null;
      if (input.projectIds !== undefined) changes.projectIds = input.projectIds;
      if (Object.keys(changes).length === 0) return current;
      if (changes.left !== undefined || changes.right !== undefined) {
        const sides = {
          left: parsed(changes.left ?? current.left, 'left'),
          right: parsed(changes.right ?? current.right, 'right'),
        };
        await replaceInputs(tx, orgId, id, await inputsOf(tx, orgId, sides));
      }
      await checkProjects(tx, orgId, changes.projectIds);
      const updated = await updateRule(tx, orgId, id, changes);
      if (!updated) throw notFound('Validation rule');
      // A rule that now reads or compares differently: its verdicts so far (and the justifications given
      // for them) were the old rule's, and go. A new name, instruction or importance keeps them, and
      // their justifications; either way the rule is checked again over the values.
      const meaning = ['left', 'right', 'operator', 'projectIds'] as const;
      if (meaning.some((field) => changes[field] !== undefined)) await this.reports.removed(tx, orgId, id);
      await this.reports.written(tx, orgId, id);
      return updated;
    });
  }

  remove(orgId: string, id: string): Promise<void> {
    return transaction(this.db, async (tx) => {
      await this.reports.removed(tx, orgId, id);
      if (!(await deleteRule(tx, orgId, id))) throw notFound('Validation rule');
    });
  }
}
