import { describe, expect, it } from 'vitest';
import {
  evaluateFormula,
  FormulaError,
  type FormulaNode,
  MAX_FORMULA_LENGTH,
  parseFormula,
} from './formula.js';

const values: Record<string, number> = { a: 10, b: 4, c: 2, zero: 0, big: 1e200 };
const lookup = (code: string): number | undefined => (Object.hasOwn(values, code) ? values[code] : undefined);
const run = (text: string): number | null => evaluateFormula(parseFormula(text).ast, lookup);

const refusal = (text: string): string => {
  try {
    parseFormula(text);
  } catch (error) {
    expect(error).toBeInstanceOf(FormulaError);
    return (error as FormulaError).message;
  }
  throw new Error(`parseFormula accepted ${JSON.stringify(text)}`);
};

describe('parseFormula', () => {
  it('builds our own tree', () => {
    const ast: FormulaNode = {
      kind: 'binary',
      operator: '/',
      left: { kind: 'negate', operand: { kind: 'code', code: 'Reached' } },
      right: {
        kind: 'binary',
        operator: '+',
        left: { kind: 'number', value: 2.5 },
        right: { kind: 'code', code: 'target_1' },
      },
    };
    expect(parseFormula('-Reached / (2.5 + target_1)')).toEqual({ ast, codes: ['Reached', 'target_1'] });
  });

  it.each([
    { text: '42', codes: [] },
    { text: 'a', codes: ['a'] },
    { text: 'b + a * B - A', codes: ['b', 'a'] },
    { text: '(x1 / _y) * 100', codes: ['x1', '_y'] },
    { text: ' \t\n girls_enrolled\r\n/ boys_enrolled ', codes: ['girls_enrolled', 'boys_enrolled'] },
    { text: 'X'.repeat(64), codes: ['X'.repeat(64)] },
    // jsep reads these as literals or `this`; the code pattern allows them, so they are codes like any other.
    { text: 'true + False + null + this', codes: ['true', 'False', 'null', 'this'] },
    {
      text: 'constructor + __proto__ + prototype + toString + hasOwnProperty',
      codes: ['constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty'],
    },
    {
      text: 'new + typeof + undefined + NaN + Infinity',
      codes: ['new', 'typeof', 'undefined', 'NaN', 'Infinity'],
    },
  ])('$text uses $codes', ({ text, codes }) => {
    expect(parseFormula(text).codes).toEqual(codes);
  });

  it.each([
    { text: '1e3', value: 1000 },
    { text: '1.5e-2', value: 0.015 },
    { text: '.5', value: 0.5 },
    { text: '1.', value: 1 },
    { text: '007', value: 7 },
    { text: '1e-400', value: 0 },
  ])('reads the number $text as $value', ({ text, value }) => {
    expect(parseFormula(text).ast).toEqual({ kind: 'number', value });
  });
});

describe('evaluateFormula', () => {
  it.each([
    { text: '2 + 3 * 4', result: 14 },
    { text: '(2 + 3) * 4', result: 20 },
    { text: 'a - b - c', result: 4 },
    { text: 'a / b / c', result: 1.25 },
    { text: 'a - b * c / 4', result: 8 },
    { text: 'a / b * 100', result: 250 },
    { text: '-a', result: -10 },
    { text: '--a', result: 10 },
    { text: '- - -a', result: -10 },
    { text: '-a * -b', result: 40 },
    { text: 'a - -b', result: 14 },
    { text: '-(a + b) * c', result: -28 },
    { text: '-zero', result: 0 },
    { text: 'zero / a', result: 0 },
    { text: '0.1 + 0.2', result: 0.1 + 0.2 },
  ])('$text = $result', ({ text, result }) => {
    expect(run(text)).toBe(result);
  });

  it.each([
    { text: 'a / zero', why: 'division by zero' },
    { text: 'a / (b - 4)', why: 'division by a zero result' },
    { text: 'a / -zero', why: 'division by -0' },
    { text: 'a + missing', why: 'a missing input' },
    { text: 'zero * missing', why: 'a missing input whatever the other side' },
    { text: 'big * big', why: 'an overflow' },
    { text: '1 / (big * big)', why: 'an overflow in between' },
  ])('$text is null: $why', ({ text }) => {
    expect(run(text)).toBeNull();
  });

  it('treats null, undefined and non-finite inputs as missing', () => {
    const ast = parseFormula('a + 1').ast;
    expect(evaluateFormula(ast, () => null)).toBeNull();
    expect(evaluateFormula(ast, () => undefined)).toBeNull();
    expect(evaluateFormula(ast, () => Number.NaN)).toBeNull();
    expect(evaluateFormula(ast, () => Number.POSITIVE_INFINITY)).toBeNull();
    expect(evaluateFormula(ast, () => 0)).toBe(1);
  });

  it('asks valueOf for codes as written, never reading object properties', () => {
    const asked: string[] = [];
    const result = evaluateFormula(
      parseFormula('constructor + __proto__ * toString - Constructor').ast,
      (code) => {
        asked.push(code);
        return code.length;
      },
    );
    expect(result).toBe(11 + 9 * 8 - 11);
    expect(asked).toEqual(['constructor', '__proto__', 'toString', 'Constructor']);
  });
});

describe('refused formulas', () => {
  it.each([
    { text: '', message: 'formula should not be empty' },
    { text: ' \t\n ', message: 'formula should not be empty' },
    { text: 'f(x)', message: 'formula: function calls are not allowed' },
    { text: 'sum()', message: 'formula: function calls are not allowed' },
    { text: '(a)(b)', message: 'formula: function calls are not allowed' },
    {
      text: 'foo.bar',
      message: 'formula: "foo.bar" is not allowed (indicator codes contain only letters, digits and _)',
    },
    {
      text: 'a . b . c',
      message: 'formula: "a.b.c" is not allowed (indicator codes contain only letters, digits and _)',
    },
    {
      text: 'constructor.constructor',
      message:
        'formula: "constructor.constructor" is not allowed (indicator codes contain only letters, digits and _)',
    },
    { text: 'a[0]', message: 'formula: square brackets are not allowed' },
    { text: '[1, 2]', message: 'formula: square brackets are not allowed' },
    { text: '"a"', message: 'formula: strings are not allowed' },
    { text: "'a' + 1", message: 'formula: strings are not allowed' },
    { text: '`a`', message: 'formula: strings are not allowed' },
    { text: 'a ? b : c', message: 'formula: conditional expressions (a ? b : c) are not allowed' },
    { text: 'a; b', message: 'formula: ";" is not allowed: a formula is one expression' },
    { text: 'a, b', message: 'formula: "," is not allowed: a formula is one expression' },
    { text: 'a,', message: 'formula: "," is not allowed: a formula is one expression' },
    { text: '(a, b)', message: 'formula: "," is not allowed: a formula is one expression' },
    { text: 'a b', message: 'formula: an operator is missing between "a" and "b"' },
    { text: '2 3', message: 'formula: an operator is missing between "2" and "3"' },
    { text: '(a + b c)', message: 'formula: an operator is missing between "a + b" and "c"' },
    { text: 'a * ()', message: 'formula: Expected expression after * at character 6' },
    { text: '()', message: 'formula: empty parentheses are not allowed' },
    { text: 'a % b', message: 'formula: operator % is not allowed' },
    { text: 'a ** b', message: 'formula: operator ** is not allowed' },
    { text: 'a && b', message: 'formula: operator && is not allowed' },
    { text: 'a || b', message: 'formula: operator || is not allowed' },
    { text: 'a ?? b', message: 'formula: operator ?? is not allowed' },
    { text: 'a?.b', message: 'formula: operator ?. is not allowed' },
    { text: 'a == b', message: 'formula: operator == is not allowed' },
    { text: 'a === b', message: 'formula: operator === is not allowed' },
    { text: 'a != b', message: 'formula: operator != is not allowed' },
    { text: 'a <= b', message: 'formula: operator <= is not allowed' },
    { text: 'a > b', message: 'formula: operator > is not allowed' },
    { text: 'a >>> 1', message: 'formula: operator >>> is not allowed' },
    { text: 'a & b', message: 'formula: operator & is not allowed' },
    { text: 'a ^ b', message: 'formula: operator ^ is not allowed' },
    { text: 'a = 1', message: 'formula: operator = is not allowed' },
    { text: 'a => 1', message: 'formula: operator => is not allowed' },
    { text: '!a', message: 'formula: operator ! is not allowed' },
    { text: '~a', message: 'formula: operator ~ is not allowed' },
    { text: '+a', message: 'formula: unary + is not allowed' },
    { text: 'a * +b', message: 'formula: unary + is not allowed' },
    { text: '$a', message: 'formula: character "$" is not allowed' },
    { text: 'a # b', message: 'formula: character "#" is not allowed' },
    { text: '{}', message: 'formula: character "{" is not allowed' },
    { text: 'taux_réussite', message: 'formula: character U+00E9 is not allowed' },
    { text: 'a\u00a0b', message: 'formula: character U+00A0 is not allowed' },
    { text: 'a\u2028b', message: 'formula: character U+2028 is not allowed' },
    { text: 'a\u0000', message: 'formula: character U+0000 is not allowed' },
    { text: 'a + 😀', message: 'formula: character U+1F600 is not allowed' },
    { text: 'X'.repeat(65), message: `formula: "${'X'.repeat(40)}…" is not a valid indicator code` },
    { text: '1e400', message: 'formula: number 1e400 is too large' },
    { text: '2x', message: 'formula: Variable names cannot start with a number (2x) at character 1' },
    { text: '0x10', message: 'formula: Variable names cannot start with a number (0x) at character 1' },
    { text: '1..2', message: 'formula: Unexpected period at character 2' },
    { text: '1e', message: 'formula: Expected exponent (1e) at character 2' },
    { text: 'a +', message: 'formula: Expected expression after + at character 3' },
    { text: '-', message: 'formula: expected a number, code or ( at character 1' },
    { text: '(a', message: 'formula: Unclosed ( at character 2' },
    { text: 'a)', message: 'formula: Unexpected ")" at character 1' },
  ])('$text: $message', ({ text, message }) => {
    expect(refusal(text)).toBe(message);
  });
});

describe('hostile input', () => {
  it('refuses input over the length limit before parsing it', () => {
    expect(refusal('a'.repeat(MAX_FORMULA_LENGTH + 1))).toBe('formula must be at most 1000 characters');
    const started = performance.now();
    expect(refusal('('.repeat(5_000_000))).toBe('formula must be at most 1000 characters');
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('accepts a formula of exactly the maximum length', () => {
    const text = `${'a+'.repeat(499)}10`;
    expect(text).toHaveLength(MAX_FORMULA_LENGTH);
    expect(run(text)).toBe(5000);
  });

  // The deepest trees the length limit allows; jsep and the walkers are recursive.
  it.each([
    { shape: '499 nested parentheses', text: `${'('.repeat(499)}a${')'.repeat(499)}`, result: 10 },
    { shape: '999 minus signs', text: `${'-'.repeat(999)}a`, result: -10 },
    { shape: '333 negated groups', text: `${'-('.repeat(333)}a${')'.repeat(333)}`, result: -10 },
    { shape: '249 right-nested products', text: `${'c*('.repeat(249)}0${')'.repeat(249)}`, result: 0 },
    { shape: '333 parenthesised minus signs', text: `${'(-'.repeat(333)}a${')'.repeat(333)}`, result: -10 },
  ])('$shape parse and evaluate', ({ text, result }) => {
    expect(text.length).toBeLessThanOrEqual(MAX_FORMULA_LENGTH);
    expect(run(text)).toBe(result);
  });

  it('refuses unbalanced deep nesting with a FormulaError', () => {
    expect(refusal('('.repeat(MAX_FORMULA_LENGTH))).toBe('formula: Unclosed ( at character 1000');
    expect(refusal('-'.repeat(MAX_FORMULA_LENGTH))).toBe(
      'formula: expected a number, code or ( at character 1000',
    );
  });
});
