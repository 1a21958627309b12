import { evaluateFormula, FormulaError, parseFormula, type FormulaNode } from './formula.js';

/**
 * One side of a validation rule: an indicator formula (numbers, codes, `+ - * /`, parentheses) in which a
 * code may also name one cell of its disaggregated values, `CODE[female]` or a cross's `CODE[female|15-24]`.
 * Category names hold any character but `]`, so the cells are cut out before the formula grammar reads
 * the rest; they stand in it as names of their own.
 */
export interface RuleExpression {
  ast: FormulaNode;
  /** The indicator codes used, each once (any case), in order of appearance, cells' codes included. */
  codes: string[];
  /** The cells used: the code and the category (or cross cell) as written. */
  cells: { name: string; code: string; key: string }[];
}

export const RULE_OPERATORS = ['==', '!=', '<', '<=', '>', '>='] as const;
export type RuleOperator = (typeof RULE_OPERATORS)[number];

const CELL = /([A-Za-z_][A-Za-z0-9_]{0,63})\s*\[([^\]]*)\]/g;
const stand = (index: number) => `rule_cell_${index}_`;

/** Parses one side of a rule; throws FormulaError with the message for `field` (`left: …`). */
export function parseRuleExpression(text: string, field: string): RuleExpression {
  // The cells' stand-ins are names no code may take.
  const taken = /\brule_cell_\w*/i.exec(text);
  if (taken) throw new FormulaError(`${field}: "${taken[0]}" is not a valid indicator code`);
  const cells: RuleExpression['cells'] = [];
  const replaced = text.replace(CELL, (_match, code: string, key: string) => {
    const trimmed = key.trim();
    if (trimmed === '') throw new FormulaError(`${field}: ${code}[] names no category`);
    const name = stand(cells.length);
    cells.push({ name, code, key: trimmed });
    return name;
  });
  let parsed;
  try {
    parsed = parseFormula(replaced);
  } catch (err) {
    if (!(err instanceof FormulaError)) throw err;
    let message = err.message.replace(/^formula/, field);
    for (const cell of cells) message = message.split(cell.name).join(`${cell.code}[${cell.key}]`);
    throw new FormulaError(message);
  }
  const codes = new Map<string, string>();
  for (const code of parsed.codes) {
    const name = cells.find((cell) => cell.name === code)?.code ?? code;
    if (!codes.has(name.toLowerCase())) codes.set(name.toLowerCase(), name);
  }
  return { ast: parsed.ast, codes: [...codes.values()], cells };
}

/** What a rule reads of one project and period: an indicator's value, and one of its cells. */
export interface RuleInputs {
  valueOf(code: string): number | null | undefined;
  cellOf(code: string, key: string): number | null | undefined;
}

/** The side's number, or null when an input is missing (the rule is then not checked). */
export function evaluateRuleExpression(expression: RuleExpression, inputs: RuleInputs): number | null {
  const byName = new Map(expression.cells.map((cell) => [cell.name, cell]));
  return evaluateFormula(expression.ast, (name) => {
    const cell = byName.get(name);
    return cell ? inputs.cellOf(cell.code, cell.key) : inputs.valueOf(name);
  });
}

/** `left operator right`, equal within a millionth of their size (what adding decimals leaves over). */
export function holds(left: number, operator: RuleOperator, right: number): boolean {
  const equal = Math.abs(left - right) <= 1e-9 * Math.max(1, Math.abs(left), Math.abs(right));
  switch (operator) {
    case '==':
      return equal;
    case '!=':
      return !equal;
    case '<':
      return left < right && !equal;
    case '<=':
      return left < right || equal;
    case '>':
      return left > right && !equal;
    case '>=':
      return left > right || equal;
  }
}
