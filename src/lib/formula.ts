import jsep from 'jsep';
import { INDICATOR_CODE } from './patterns.js';

/**
 * Indicator formulas (DECISIONS.md section 7): numbers, indicator codes, `+ - * /`, parentheses and unary minus.
 * jsep parses a much larger JavaScript subset, so its tree is converted into this one and everything else is
 * refused; jsep's global configuration is left untouched.
 */
export type FormulaNode =
  | { kind: 'number'; value: number }
  | { kind: 'code'; code: string } // as written in the formula
  | { kind: 'negate'; operand: FormulaNode }
  | { kind: 'binary'; operator: '+' | '-' | '*' | '/'; left: FormulaNode; right: FormulaNode };

export interface ParsedFormula {
  ast: FormulaNode;
  /** Codes the formula uses, de-duplicated case-insensitively (first spelling kept), in order of appearance. */
  codes: string[];
}

/** A formula the service refuses; `message` is shown to the client as a 400 message, e.g. `formula: operator % is not allowed`. */
export class FormulaError extends Error {
  override name = 'FormulaError';
}

export const MAX_FORMULA_LENGTH = 1000;

const CODE_PATTERN = new RegExp(INDICATOR_CODE.pattern);

/** Everything a formula can be written with; jsep would also read `$`, non-ASCII letters and odd spaces as code characters. */
const ALLOWED_CHARACTER = /[A-Za-z0-9_.+\-*/() \t\r\n]/;

/**
 * Operators jsep knows, longest first, to name the one the client wrote. Checked on the characters because jsep
 * silently drops some input (`a,` parses as `a`).
 */
const FORBIDDEN_OPERATORS = [
  '===', '!==', '>>>', '&&', '||', '??', '?.', '==', '!=', '<=', '>=', '<<', '>>', '=>',
  '%', '&', '|', '^', '!', '~', '<', '>', '=',
]; // prettier-ignore

function characterProblem(text: string): string | null {
  let index = 0;
  for (const character of text) {
    if (!ALLOWED_CHARACTER.test(character)) {
      if (`"'\``.includes(character)) return 'formula: strings are not allowed';
      if ('[]'.includes(character)) return 'formula: square brackets are not allowed';
      if (',;'.includes(character))
        return `formula: "${character}" is not allowed: a formula is one expression`;
      const operator = FORBIDDEN_OPERATORS.find((candidate) => text.startsWith(candidate, index));
      if (operator !== undefined) return `formula: operator ${operator} is not allowed`;
      if (character === '?') return 'formula: conditional expressions (a ? b : c) are not allowed';
      const codePoint = character.codePointAt(0) ?? 0;
      return codePoint > 0x20 && codePoint < 0x7f
        ? `formula: character "${character}" is not allowed`
        : `formula: character U+${codePoint.toString(16).toUpperCase().padStart(4, '0')} is not allowed`;
    }
    index += character.length;
  }
  return null;
}

const shorten = (text: string): string => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

/** The source-like text of a jsep node, for messages only. */
function describe(expression: jsep.Expression): string {
  const node = expression as jsep.CoreExpression;
  switch (node.type) {
    case 'Identifier':
      return node.name;
    case 'Literal':
      return node.raw;
    case 'ThisExpression':
      return 'this';
    case 'MemberExpression':
      return node.computed
        ? `${describe(node.object)}[${describe(node.property)}]`
        : `${describe(node.object)}.${describe(node.property)}`;
    case 'UnaryExpression':
      return `${node.operator}${describe(node.argument)}`;
    case 'BinaryExpression':
      return `${describe(node.left)} ${node.operator} ${describe(node.right)}`;
    case 'CallExpression':
    case 'Compound':
    case 'SequenceExpression':
    case 'ConditionalExpression':
    case 'ArrayExpression':
      return '(…)';
  }
}

function missingOperator(terms: jsep.Expression[]): FormulaError {
  const [first, second] = terms;
  if (first === undefined || second === undefined)
    return new FormulaError('formula: empty parentheses are not allowed');
  return new FormulaError(
    `formula: an operator is missing between "${shorten(describe(first))}" and "${shorten(describe(second))}"`,
  );
}

function toFormulaNode(expression: jsep.Expression, codes: Map<string, string>): FormulaNode {
  const node = expression as jsep.CoreExpression;
  const code = (name: string): FormulaNode => {
    if (!CODE_PATTERN.test(name))
      throw new FormulaError(`formula: "${shorten(name)}" is not a valid indicator code`);
    const key = name.toLowerCase();
    if (!codes.has(key)) codes.set(key, name);
    return { kind: 'code', code: name };
  };
  switch (node.type) {
    case 'Literal':
      if (typeof node.value === 'number') {
        if (!Number.isFinite(node.value))
          throw new FormulaError(`formula: number ${shorten(node.raw)} is too large`);
        return { kind: 'number', value: node.value };
      }
      // jsep reads true, false and null as literals; the code pattern allows them, so they stay codes.
      if (typeof node.value === 'boolean' || node.value === null) return code(node.raw);
      throw new FormulaError('formula: strings are not allowed');
    case 'Identifier':
      return code(node.name);
    case 'ThisExpression':
      return code(jsep.this_str);
    case 'UnaryExpression':
      if (node.operator === '-') return { kind: 'negate', operand: toFormulaNode(node.argument, codes) };
      if (node.operator === '+') throw new FormulaError('formula: unary + is not allowed');
      throw new FormulaError(`formula: operator ${node.operator} is not allowed`);
    case 'BinaryExpression': {
      const operator = node.operator;
      if (operator !== '+' && operator !== '-' && operator !== '*' && operator !== '/') {
        throw new FormulaError(`formula: operator ${operator} is not allowed`);
      }
      const left = toFormulaNode(node.left, codes);
      return { kind: 'binary', operator, left, right: toFormulaNode(node.right, codes) };
    }
    case 'CallExpression':
      throw new FormulaError('formula: function calls are not allowed');
    case 'MemberExpression':
      throw new FormulaError(
        `formula: "${shorten(describe(node))}" is not allowed (indicator codes contain only letters, digits and _)`,
      );
    case 'Compound':
      throw missingOperator(node.body);
    case 'SequenceExpression':
      throw missingOperator(node.expressions);
    case 'ConditionalExpression':
      throw new FormulaError('formula: conditional expressions (a ? b : c) are not allowed');
    case 'ArrayExpression':
      throw new FormulaError('formula: square brackets are not allowed');
    default:
      throw new FormulaError(`formula: ${String(expression.type)} is not allowed`);
  }
}

/**
 * Parses and checks a formula; throws FormulaError with the one message for the client.
 * Within MAX_FORMULA_LENGTH the deepest trees (500 nested parentheses, 999 minus signs) parse well inside the
 * default stack; a stack overflow is still turned into a FormulaError rather than escaping as a RangeError.
 */
export function parseFormula(text: string): ParsedFormula {
  if (text.length > MAX_FORMULA_LENGTH) {
    throw new FormulaError(`formula must be at most ${MAX_FORMULA_LENGTH} characters`);
  }
  if (text.trim() === '') throw new FormulaError('formula should not be empty');
  const problem = characterProblem(text);
  if (problem !== null) throw new FormulaError(problem);
  try {
    let tree: jsep.Expression;
    try {
      tree = jsep(text);
    } catch (error) {
      if (error instanceof RangeError || !(error instanceof Error)) throw error;
      const { description, index } = error as Error & { description?: unknown; index?: unknown };
      throw new FormulaError(
        description === 'missing unaryOp argument'
          ? `formula: expected a number, code or ( at character ${String(index)}`
          : `formula: ${error.message}`,
      );
    }
    const codes = new Map<string, string>();
    const ast = toFormulaNode(tree, codes);
    return { ast, codes: [...codes.values()] };
  } catch (error) {
    if (error instanceof RangeError) throw new FormulaError('formula is nested too deeply');
    throw error;
  }
}

function evaluate(node: FormulaNode, valueOf: (code: string) => number | null | undefined): number | null {
  switch (node.kind) {
    case 'number':
      return node.value;
    case 'code': {
      const value = valueOf(node.code);
      return typeof value === 'number' && Number.isFinite(value) ? value : null;
    }
    case 'negate': {
      const operand = evaluate(node.operand, valueOf);
      return operand === null ? null : -operand;
    }
    case 'binary': {
      const left = evaluate(node.left, valueOf);
      if (left === null) return null;
      const right = evaluate(node.right, valueOf);
      if (right === null) return null;
      if (node.operator === '/' && right === 0) return null;
      const result =
        node.operator === '+'
          ? left + right
          : node.operator === '-'
            ? left - right
            : node.operator === '*'
              ? left * right
              : left / right;
      // An overflow in between would otherwise come back finite (1 / Infinity is 0).
      return Number.isFinite(result) ? result : null;
    }
  }
}

/** null when an input is missing (valueOf returns null/undefined), on division by zero, or a non-finite result. */
export function evaluateFormula(
  ast: FormulaNode,
  valueOf: (code: string) => number | null | undefined,
): number | null {
  const result = evaluate(ast, valueOf);
  // -0 would otherwise leak out of `-a` with a = 0; it prints as 0 in JSON but compares oddly.
  return result === null || !Number.isFinite(result) ? null : result + 0;
}
