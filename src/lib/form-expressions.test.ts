import { describe, expect, it } from 'vitest';
import {
  ExpressionError,
  evaluate,
  parseExpression,
  references,
  usesSelf,
  type ExpressionContext,
} from './form-expressions.js';
import { patternMatches, patternProblem } from './form-regex.js';

const context = (answers: Record<string, unknown>, self?: unknown): ExpressionContext => ({
  value: (name) => answers[name],
  self,
  today: () => '2026-11-28',
  matches: patternMatches,
});
const run = (text: string, answers: Record<string, unknown> = {}, self?: unknown) =>
  evaluate(parseExpression(text), context(answers, self));
const refusal = (text: string) => {
  try {
    parseExpression(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ExpressionError);
    return (error as Error).message;
  }
  throw new Error(`${text} parsed`);
};

describe('form expressions', () => {
  it('parse with XPath precedence into a tree', () => {
    expect(parseExpression('1 + 2 * 3')).toEqual({
      kind: 'binary',
      operator: '+',
      left: { kind: 'number', value: 1 },
      right: {
        kind: 'binary',
        operator: '*',
        left: { kind: 'number', value: 2 },
        right: { kind: 'number', value: 3 },
      },
    });
    expect(run('1 + 2 * 3')).toBe(7);
    expect(run('(1 + 2) * 3')).toBe(9);
    expect(run('7 div 2')).toBe(3.5);
    expect(run('7 mod 3')).toBe(1);
    expect(run('-2 - -3')).toBe(1);
    expect(run('1 = 1 or 1 = 2 and 1 = 3')).toBe(true);
    expect(run('(1 = 1 or 1 = 2) and 1 = 3')).toBe(false);
  });

  it('compare answers as XLSForm does: numbers, texts, dates, unanswered', () => {
    expect(run('${age} >= 18', { age: 18 })).toBe(true);
    expect(run('${age} >= 18', { age: 17 })).toBe(false);
    expect(run('${age} >= 18', {})).toBe(false);
    expect(run("${source} = 'well'", { source: 'well' })).toBe(true);
    expect(run("${source} != 'well'", {})).toBe(true);
    expect(run('${consent} = true()', { consent: true })).toBe(true);
    expect(run('${visit} < today()', { visit: '2026-11-27' })).toBe(true);
    expect(run("${visit} > '2026-12-01'", { visit: '2026-11-27' })).toBe(false);
    expect(run('${age} + 1', { age: '4' })).toBe(5);
  });

  it('know selected(), count-selected(), count(), sum(), string-length(), regex(), not(), if()', () => {
    const answers = { crops: ['maize', 'beans'], members: [{ age: 3 }, { age: 40 }], name: 'Amina' };
    expect(run("selected(${crops}, 'beans')", answers)).toBe(true);
    expect(run("selected(${crops}, 'rice')", answers)).toBe(false);
    expect(run('count-selected(${crops})', answers)).toBe(2);
    expect(run('count(${members})', answers)).toBe(2);
    expect(run('count(${members})', {})).toBe(0);
    expect(run('sum(${ages})', { ages: [3, 40] })).toBe(43);
    expect(run('string-length(.) <= 5', {}, 'Amina')).toBe(true);
    expect(run('string-length(.)', {}, 'مرحبا')).toBe(5);
    expect(run("regex(., '^[0-9]{10}$')", {}, '0712345678')).toBe(true);
    expect(run("regex(., '^[0-9]{10}$')", {}, '071234567')).toBe(false);
    expect(run('not(${age} > 5)', { age: 3 })).toBe(true);
    expect(run("if(${age} < 5, 'child', 'adult')", { age: 3 })).toBe('child');
    expect(run("concat(${name}, ' ', 'K')", answers)).toBe('Amina K');
    expect(run('round(2 div 3, 2)')).toBe(0.67);
  });

  it('list the fields referred to and whether . is used', () => {
    const tree = parseExpression('${a} > 1 and (${b} = . or ${a} < 9)');
    expect(references(tree)).toEqual(['a', 'b']);
    expect(usesSelf(tree)).toBe(true);
    expect(usesSelf(parseExpression('${a}'))).toBe(false);
  });

  it('refuse what is not an expression, saying where', () => {
    expect(refusal('')).toBe('the expression is empty');
    expect(refusal('${a} >')).toBe('the expression ends too early');
    expect(refusal('${a} > 1 )')).toBe('unexpected ")" at character 10');
    expect(refusal('age > 1')).toBe('"age" at character 1 is not a value: refer to a field as ${age}');
    expect(refusal('eval(1)')).toBe('eval() is not a function expressions may use');
    expect(refusal('constructor(1)')).toBe('constructor() is not a function expressions may use');
    expect(refusal('not(1, 2)')).toBe('not() takes 1 argument, not 2');
    expect(refusal("selected('a', 'b')")).toBe("selected()'s first argument must be a ${field}");
    expect(refusal("'open")).toBe('a string is not closed at character 1');
    expect(refusal('${a} ; 1')).toBe('";" is not part of an expression at character 6');
    expect(refusal('${} = 1')).toBe('a reference is ${name}, the name of a field, at character 1');
    expect(refusal('${a} and')).toBe('the expression ends too early');
    expect(refusal(`${'('.repeat(60)}1${')'.repeat(60)}`)).toBe('the expression nests deeper than 40');
    expect(refusal(`${'-'.repeat(60)}1`)).toBe('the expression nests deeper than 40');
  });

  it('run regex() in linear time, and name what RE2 refuses', () => {
    // A backtracking engine takes 2^2000 steps here: the test would never end.
    expect(patternMatches('(a|a)*b', 'a'.repeat(2000))).toBe(false);
    expect(patternProblem('^[0-9]{10}$')).toBeNull();
    expect(patternProblem('(a')).toBe('missing closing ): `(a`');
    expect(patternProblem('(a)\\1')).toBe('invalid escape sequence: `\\1`');
  });
});
