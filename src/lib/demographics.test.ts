import { describe, expect, it } from 'vitest';
import { ageOn, todayUtc } from './demographics.js';

describe('ageOn', () => {
  it.each([
    ['2000-06-15', '2026-06-14', 25],
    ['2000-06-15', '2026-06-15', 26],
    ['2000-06-15', '2026-12-31', 26],
    ['2008-12-31', '2026-12-31', 18],
    ['2009-01-01', '2026-12-31', 17],
    ['2026-03-01', '2026-03-01', 0],
    // Born on 29 February: a year older on 1 March in other years.
    ['2004-02-29', '2026-02-28', 21],
    ['2004-02-29', '2026-03-01', 22],
    ['2004-02-29', '2028-02-29', 24],
  ])('born %s is %i on %s', (born, on, age) => {
    expect(ageOn(born, on)).toBe(age);
  });

  it('has no age without a birth date or before birth', () => {
    expect(ageOn(null, '2026-01-01')).toBeNull();
    expect(ageOn('2026-01-02', '2026-01-01')).toBeNull();
  });
});

describe('todayUtc', () => {
  it('is the UTC calendar date', () => {
    expect(todayUtc(new Date('2026-11-24T23:30:00-05:00'))).toBe('2026-11-25');
  });
});
