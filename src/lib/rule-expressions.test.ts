import { describe, expect, it } from 'vitest';
import { FormulaError } from './formula.js';
import { evaluateRuleExpression, holds, parseRuleExpression, RULE_OPERATORS } from './rule-expressions.js';

const inputs = {
  valueOf: (code: string) => ({ trained: 120, registered: 100, members: 50 })[code.toLowerCase()] ?? null,
  cellOf: (code: string, key: string) =>
    code.toLowerCase() === 'members'
      ? ({ female: 31, 'female|15-24': 12 } as Record<string, number>)[key]
      : null,
};

const refusal = (text: string) => {
  try {
    parseRuleExpression(text, 'left');
  } catch (err) {
    expect(err).toBeInstanceOf(FormulaError);
    return (err as Error).message;
  }
  throw new Error(`${text} was read`);
};

describe('rule expressions', () => {
  it('reads codes and cells, any character in a category but ]', () => {
    const expression = parseRuleExpression(
      'MEMBERS[female] + Members[ female|15-24 ] - 0.6 * members',
      'right',
    );
    expect(expression.codes).toEqual(['MEMBERS']);
    expect(expression.cells.map(({ code, key }) => [code, key])).toEqual([
      ['MEMBERS', 'female'],
      ['Members', 'female|15-24'],
    ]);
    expect(evaluateRuleExpression(expression, inputs)).toBeCloseTo(31 + 12 - 30);
    const both = parseRuleExpression('TRAINED / REGISTERED', 'left');
    expect(both.codes).toEqual(['TRAINED', 'REGISTERED']);
    expect(evaluateRuleExpression(both, inputs)).toBe(1.2);
  });

  it('is not checked when an input is missing', () => {
    expect(evaluateRuleExpression(parseRuleExpression('UNKNOWN + 1', 'left'), inputs)).toBeNull();
    expect(evaluateRuleExpression(parseRuleExpression('MEMBERS[male]', 'left'), inputs)).toBeNull();
  });

  it('refuses what the formula grammar refuses, naming the side and the cell as written', () => {
    expect(refusal('')).toBe('left should not be empty');
    expect(refusal('A % 2')).toBe('left: operator % is not allowed');
    expect(refusal('MEMBERS[female] MEMBERS')).toBe(
      'left: an operator is missing between "MEMBERS[female]" and "MEMBERS"',
    );
    expect(refusal('MEMBERS[]')).toBe('left: MEMBERS[] names no category');
    expect(refusal('rule_cell_0_ + X[f]')).toBe('left: "rule_cell_0_" is not a valid indicator code');
    expect(refusal('MEMBERS[female')).toBe('left: square brackets are not allowed');
  });

  it('compares with each operator, equal within a millionth', () => {
    const cases: [number, number, boolean[]][] = [
      [1, 2, [false, true, true, true, false, false]],
      [2, 2, [true, false, false, true, false, true]],
      [0.1 + 0.2, 0.3, [true, false, false, true, false, true]],
      [3, 2, [false, true, false, false, true, true]],
    ];
    for (const [left, right, expected] of cases) {
      expect(RULE_OPERATORS.map((operator) => holds(left, operator, right))).toEqual(expected);
    }
  });
});
