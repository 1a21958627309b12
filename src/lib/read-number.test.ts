import { describe, expect, it } from 'vitest';
import { readNumber } from './form-expressions.js';

describe('readNumber: a number as a respondent types it', () => {
  it('reads ASCII, Arabic-Indic and Persian digits', () => {
    expect(readNumber('25')).toBe(25);
    expect(readNumber('٢٥')).toBe(25);
    expect(readNumber('۲۵')).toBe(25);
    expect(readNumber('٠٫٥')).toBe(0.5);
    expect(readNumber('۳٫۷۵')).toBe(3.75);
    expect(readNumber('1٠')).toBe(10);
  });

  it('takes a leading minus, spaces around and the direction marks of right-to-left keyboards', () => {
    expect(readNumber(' -3 ')).toBe(-3);
    expect(readNumber('−4.5')).toBe(-4.5);
    expect(readNumber('\u200F٤٢\u200F')).toBe(42);
    expect(readNumber('\u061C-٧')).toBe(-7);
    expect(readNumber('.5')).toBe(0.5);
    expect(readNumber('5.')).toBe(5);
  });

  it('reads `,` as the decimal separator only when the language writes it so', () => {
    expect(readNumber('2,5', { comma: true })).toBe(2.5);
    expect(readNumber('٢,٥', { comma: true })).toBe(2.5);
    expect(readNumber('2,5')).toBeNaN();
    // Never a misread thousands separator: 1,500 is not a number rather than 1.5 or 1500.
    expect(readNumber('1,500')).toBeNaN();
    expect(readNumber('1,500.25', { comma: true })).toBeNaN();
    expect(readNumber('1 500')).toBeNaN();
  });

  it('is NaN for what is not one number', () => {
    for (const text of ['', '   ', 'abc', '1e3', '--1', '1.2.3', '٫', '-', 'Infinity', '0x10', '12abc'])
      expect(readNumber(text), text).toBeNaN();
    expect(readNumber(undefined)).toBeNaN();
    expect(readNumber(null)).toBeNaN();
    expect(readNumber(7)).toBe(7);
    expect(readNumber(Number.POSITIVE_INFINITY)).toBeNaN();
  });

  it('is NaN for a number too large to be finite', () => {
    expect(readNumber('9'.repeat(400))).toBeNaN();
  });
});
