import { describe, expect, it } from 'vitest';
import { ageBandOf, ageBandProblems, ageOn, ageRangeOf, todayUtc } from './demographics.js';

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

describe('age bands', () => {
  it('finds the band of an age among the contract’s or an organization’s', () => {
    expect([17, 18, 35, 36, 59, 60, null].map((age) => ageBandOf(age))).toEqual([
      '0-17',
      '18-35',
      '18-35',
      '36-59',
      '36-59',
      '60+',
      'unknown',
    ]);
    const own = ['0-4', '5-17', '18-59', '60+'];
    expect([0, 4, 5, 59, 60, 130, null].map((age) => ageBandOf(age, own))).toEqual([
      '0-4',
      '0-4',
      '5-17',
      '18-59',
      '60+',
      '60+',
      'unknown',
    ]);
  });

  it('reads a-b and a+ labels only', () => {
    expect(ageRangeOf('18-35')).toEqual({ label: '18-35', from: 18, to: 35 });
    expect(ageRangeOf('60+')).toEqual({ label: '60+', from: 60, to: Infinity });
    for (const label of ['35-18', 'unknown', '18 - 35', '-5', '1000+', 'adults'])
      expect(ageRangeOf(label)).toBeNull();
  });

  it('accepts bands from 0 to an open end with nothing left out, unknown optionally last', () => {
    for (const bands of [
      ['0+'],
      ['0-17', '18+'],
      ['0-4', '5-17', '18-59', '60+', 'unknown'],
      ['0-0', '1+'],
    ]) {
      expect(ageBandProblems(bands)).toEqual([]);
    }
    expect(ageBandProblems(['1-17', '18-20', '30-40'])).toEqual([
      'ageBands must start at 0',
      'ageBands leave out ages 21-29, between 18-20 and 30-40',
      'the last band must be open-ended, like 60+',
    ]);
  });
});
