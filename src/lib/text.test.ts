import { expect, it } from 'vitest';
import { compareText, CONTROL_PROBLEM, optionalText, textProblem } from './text.js';

it('stores optional text trimmed, blank as null, and leaves unsent text undefined', () => {
  expect(optionalText('  Kisumu ')).toBe('Kisumu');
  expect(optionalText('   ')).toBeNull();
  expect(optionalText(null)).toBeNull();
  expect(optionalText(undefined)).toBeUndefined();
});

it('orders text by code unit with missing values last', () => {
  const values = ['b', null, 'B', 'a', undefined, 'a'];
  expect([...values].sort(compareText)).toEqual(['B', 'a', 'a', 'b', null, undefined]);
});

it('names the control characters a line of text or several lines refuse; NUL keeps its own message', () => {
  expect(textProblem('Hope Relief ✓', 'one')).toBeNull();
  for (const text of ['a\nb', 'a\r', '\tb', 'a\u0007', 'a\u001b[31m', 'a\u007f', 'a\u0085', 'a\u009f']) {
    expect([text, textProblem(text, 'one')]).toEqual([text, CONTROL_PROBLEM.one]);
  }
  expect(textProblem('Line 1\r\n\tLine 2\n', 'several')).toBeNull();
  for (const text of ['a\u0001', 'a\u000b', 'a\u000c', 'a\u001b', 'a\u0085']) {
    expect([text, textProblem(text, 'several')]).toEqual([text, CONTROL_PROBLEM.several]);
  }
  expect(textProblem('a\u0000\n', 'one')).toBe('must not contain NUL characters');
  // Line and paragraph separators are not controls (category Zl, Zp).
  expect(textProblem('a\u2028b\u2029', 'one')).toBeNull();
});
