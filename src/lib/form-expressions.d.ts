/** Types of form-expressions.js: the expressions of form fields, parsed and evaluated alike everywhere. */

export class ExpressionError extends Error {}

export type ExpressionNode =
  | { kind: 'number'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'ref'; name: string }
  | { kind: 'self' }
  | { kind: 'negate'; operand: ExpressionNode }
  | {
      kind: 'binary';
      operator: 'or' | 'and' | '=' | '!=' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | 'div' | 'mod';
      left: ExpressionNode;
      right: ExpressionNode;
    }
  | { kind: 'call'; name: string; args: ExpressionNode[] };

/** What an expression is evaluated against. */
export interface ExpressionContext {
  /** A field's answer by key: undefined when unanswered; a repeat's answer is its list of entries. */
  value(name: string): unknown;
  /** What `.` stands for: the answer a constraint checks. */
  self?: unknown;
  /** Today as YYYY-MM-DD. */
  today(): string;
  /** Whether `pattern` matches somewhere in `text` (regex()). */
  matches(pattern: string, text: string): boolean;
}

export const FUNCTIONS: Record<string, { args: [number, number]; field?: number[] }>;
export function parseExpression(text: string): ExpressionNode;
export function references(node: ExpressionNode): string[];
export function usesSelf(node: ExpressionNode): boolean;
export function callsOf(node: ExpressionNode, name: string): Extract<ExpressionNode, { kind: 'call' }>[];
export function evaluate(node: ExpressionNode, context: ExpressionContext): unknown;
export function toText(value: unknown): string;
export function toNumber(value: unknown): number;
export function toBoolean(value: unknown): boolean;
export function cachedParser(limit?: number): (text: string) => ExpressionNode;

/** The number a respondent typed (ASCII, Arabic-Indic or Persian digits; `.` or `٫`, `,` too with `comma`), or NaN. */
export function readNumber(text: unknown, options?: { comma?: boolean }): number;
