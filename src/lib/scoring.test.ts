import { describe, expect, it } from 'vitest';
import {
  aggregate,
  AGGREGATION_METHODS,
  type AggregationMethod,
  cumulativeTarget,
  type PeriodValue,
  progressOf,
  PROGRESS_STATUSES,
  type Progress,
  roundDecimals,
  roundDecimalsByDigits,
  scoreIndicator,
} from './scoring.js';

const period = (periodStart: string, value: number | null, target: number | null = null): PeriodValue => ({
  periodStart,
  value,
  target,
});

/** Out of order on purpose; the last period by date has a target but no value. */
const quarters: PeriodValue[] = [
  period('2024-07-01', 4, 10),
  period('2024-01-01', 2, 8),
  period('2024-10-01', null, 12),
  period('2024-04-01', 9, null),
];

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, index) =>
    permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]),
  );
}

describe('constants', () => {
  it('lists the methods and statuses', () => {
    expect(AGGREGATION_METHODS).toEqual(['sum', 'average', 'latest', 'min', 'max']);
    expect(PROGRESS_STATUSES).toEqual(['on_track', 'at_risk', 'off_track', 'no_target', 'no_data']);
  });
});

describe('aggregate', () => {
  it.each<{ method: AggregationMethod; periods: PeriodValue[]; expected: number | null; why: string }>([
    { method: 'sum', periods: quarters, expected: 15, why: 'skips the null value' },
    { method: 'average', periods: quarters, expected: 5, why: 'over the periods that have a value' },
    { method: 'latest', periods: quarters, expected: 4, why: 'latest period with a value, by date' },
    { method: 'min', periods: quarters, expected: 2, why: 'smallest' },
    { method: 'max', periods: quarters, expected: 9, why: 'largest' },
    {
      method: 'average',
      periods: [period('2024-01-01', 1), period('2024-02-01', 2)],
      expected: 1.5,
      why: 'not floored',
    },
    {
      method: 'sum',
      periods: [period('2024-01-01', 0.1), period('2024-02-01', 0.2)],
      expected: 0.3,
      why: 'no float noise',
    },
    {
      method: 'sum',
      periods: [period('2024-01-01', 0.1), period('2024-02-01', 89.85)],
      expected: 89.95,
      why: 'no float noise (raw sum is 89.94999999999999)',
    },
    {
      method: 'average',
      periods: [period('2024-01-01', 0.3), period('2024-02-01', 0), period('2024-03-01', 0)],
      expected: 0.1,
      why: 'no float noise (0.3 / 3 is 0.09999999999999999)',
    },
    {
      method: 'average',
      periods: [period('2024-01-01', 0.1), period('2024-02-01', 0.1), period('2024-03-01', 0.1)],
      expected: 0.1,
      why: 'no float noise',
    },
    {
      method: 'sum',
      periods: [period('2024-01-01', 4_000_000_000_000_001), period('2024-02-01', 2)],
      expected: 4_000_000_000_000_003,
      why: 'whole numbers stay exact at any size',
    },
    {
      method: 'sum',
      periods: [period('2024-01-01', -1.5), period('2024-02-01', 1)],
      expected: -0.5,
      why: 'negatives',
    },
    {
      method: 'min',
      periods: [period('2024-01-01', 2), period('2024-02-01', -3)],
      expected: -3,
      why: 'negatives',
    },
    {
      method: 'max',
      periods: [period('2024-01-01', -2), period('2024-02-01', -3)],
      expected: -2,
      why: 'negatives',
    },
    {
      method: 'sum',
      periods: [period('2024-01-01', 0), period('2024-02-01', 0)],
      expected: 0,
      why: 'zero is data',
    },
    {
      method: 'latest',
      periods: [period('2024-01-01', 7), period('2024-01-01', 3), period('2023-12-01', 5)],
      expected: 3,
      why: 'same-day periods keep input order',
    },
  ])('$method → $expected ($why)', ({ method, periods, expected }) => {
    expect(aggregate(method, periods)).toBe(expected);
  });

  it.each(AGGREGATION_METHODS)('%s gives null without any value', (method) => {
    expect(aggregate(method, [])).toBeNull();
    expect(aggregate(method, [period('2024-01-01', null, 5), period('2024-02-01', null)])).toBeNull();
  });

  it('does not reorder the caller’s array', () => {
    const periods = [...quarters];
    aggregate('latest', periods);
    cumulativeTarget('latest', periods, null);
    expect(periods).toEqual(quarters);
  });
});

describe('cumulativeTarget', () => {
  it.each<{
    method: AggregationMethod;
    periods: PeriodValue[];
    link: number | null;
    expected: number | null;
    why: string;
  }>([
    {
      method: 'sum',
      periods: [period('2024-01-01', 1, 10), period('2024-02-01', 1, 20)],
      link: 999,
      expected: 30,
      why: 'all periods targeted',
    },
    {
      method: 'sum',
      periods: quarters,
      link: 999,
      expected: 30,
      why: 'partly targeted; a target without value counts',
    },
    {
      method: 'sum',
      periods: [period('2024-01-01', 1, 0.1), period('2024-02-01', 1, 0.2)],
      link: null,
      expected: 0.3,
      why: 'no float noise',
    },
    { method: 'latest', periods: quarters, link: 999, expected: 12, why: 'latest period with a target' },
    { method: 'average', periods: quarters, link: 999, expected: 12, why: 'latest period with a target' },
    { method: 'min', periods: quarters, link: 999, expected: 12, why: 'latest period with a target' },
    { method: 'max', periods: quarters, link: 999, expected: 12, why: 'latest period with a target' },
    {
      method: 'latest',
      periods: [period('2024-01-01', 1, 10), period('2024-02-01', 1, null)],
      link: 999,
      expected: 10,
      why: 'a later untargeted period does not hide it',
    },
    {
      method: 'max',
      periods: [period('2024-01-01', 1, 10), period('2024-02-01', 1, 0)],
      link: 999,
      expected: 0,
      why: 'a 0 target is a target, not a fallback to the link',
    },
    {
      method: 'sum',
      periods: [period('2024-01-01', 1), period('2024-02-01', 2)],
      link: 50,
      expected: 50,
      why: 'link',
    },
    { method: 'average', periods: [period('2024-01-01', 1)], link: 50, expected: 50, why: 'link' },
    { method: 'sum', periods: [], link: 50, expected: 50, why: 'no periods: link' },
    {
      method: 'sum',
      periods: [period('2024-01-01', 1)],
      link: null,
      expected: null,
      why: 'no target anywhere',
    },
    { method: 'latest', periods: [period('2024-01-01', 1)], link: 0, expected: 0, why: 'link 0 as is' },
  ])('$method with link $link → $expected ($why)', ({ method, periods, link, expected }) => {
    expect(cumulativeTarget(method, periods, link)).toBe(expected);
  });
});

describe('progressOf', () => {
  it.each<[number | null, number | null, number | null, Progress['status'], number | null]>([
    // value, target, progressPct, status, gap
    [90, 100, 90, 'on_track', 10],
    [100, 100, 100, 'on_track', 0],
    [150, 100, 150, 'on_track', -50],
    [89.95, 100, 90, 'on_track', 10.05],
    [17.99, 20, 90, 'on_track', 2.01],
    [89.94, 100, 89.9, 'at_risk', 10.06],
    [89.9, 100, 89.9, 'at_risk', 10.1],
    [70, 100, 70, 'at_risk', 30],
    [69.95, 100, 70, 'at_risk', 30.05],
    // Both are 69.94999999999999 in doubles; 69.95 exactly in decimal.
    [1259.1, 1800, 70, 'at_risk', 540.9],
    [9.793, 14, 70, 'at_risk', 4.207],
    [69.94, 100, 69.9, 'off_track', 30.06],
    [69.9, 100, 69.9, 'off_track', 30.1],
    [2, 3, 66.7, 'off_track', 1],
    [1.15, 100, 1.2, 'off_track', 98.85],
    [0.29, 0.16, 181.3, 'on_track', -0.13],
    [0, 100, 0, 'off_track', 100],
    [-0.05, 100, -0.1, 'off_track', 100.05],
    [-9, -10, 90, 'on_track', -1],
    [-5, -10, 50, 'off_track', -5],
    [5, -10, -50, 'off_track', -15],
    [0.3, 0.1 + 0.2, 100, 'on_track', 0],
    [1_000_000, 1_000_000.1, 100, 'on_track', 0.1],
    [123_456_789_012_345, 1, 12_345_678_901_234_500, 'on_track', -123_456_789_012_344],
    [null, 100, null, 'no_data', null],
    [null, 0, null, 'no_data', null],
    [null, null, null, 'no_data', null],
    [5, null, null, 'no_target', null],
    [5, 0, null, 'no_target', -5],
    [0, 0, null, 'no_target', 0],
    [1e308, 1e-10, null, 'no_target', -1e308],
  ])('%s of %s → %s %s, gap %s', (value, target, progressPct, status, gap) => {
    expect(progressOf(value, target)).toEqual({ value, target, progressPct, status, gap });
  });

  it('never reports -0', () => {
    expect(Object.is(progressOf(-0.04, 100).progressPct, 0)).toBe(true);
    expect(Object.is(progressOf(0, -5).progressPct, 0)).toBe(true);
    expect(Object.is(progressOf(0.1 + 0.2, 0.3).gap, 0)).toBe(true);
  });
});

describe('scoreIndicator', () => {
  it.each<{ method: AggregationMethod; periods: PeriodValue[]; link: number | null; expected: Progress }>([
    {
      method: 'sum',
      periods: quarters,
      link: 999,
      expected: { value: 15, target: 30, progressPct: 50, status: 'off_track', gap: 15 },
    },
    {
      method: 'latest',
      periods: quarters,
      link: 999,
      expected: { value: 4, target: 12, progressPct: 33.3, status: 'off_track', gap: 8 },
    },
    {
      method: 'average',
      periods: [period('2024-02-01', 80, 80), period('2024-01-01', 60, 100)],
      link: null,
      expected: { value: 70, target: 80, progressPct: 87.5, status: 'at_risk', gap: 10 },
    },
    {
      method: 'max',
      periods: [period('2024-01-01', 45), period('2024-02-01', 40)],
      link: 50,
      expected: { value: 45, target: 50, progressPct: 90, status: 'on_track', gap: 5 },
    },
    {
      method: 'sum',
      periods: [period('2024-01-01', 0.1), period('2024-02-01', 89.85)],
      link: 100,
      expected: { value: 89.95, target: 100, progressPct: 90, status: 'on_track', gap: 10.05 },
    },
    {
      method: 'min',
      periods: [period('2024-01-01', 0), period('2024-02-01', 10)],
      link: 10,
      expected: { value: 0, target: 10, progressPct: 0, status: 'off_track', gap: 10 },
    },
    {
      method: 'sum',
      periods: [],
      link: 100,
      expected: { value: null, target: 100, progressPct: null, status: 'no_data', gap: null },
    },
    {
      method: 'latest',
      periods: [period('2024-01-01', null, 20)],
      link: 100,
      expected: { value: null, target: 20, progressPct: null, status: 'no_data', gap: null },
    },
    {
      method: 'sum',
      periods: [period('2024-01-01', 5)],
      link: null,
      expected: { value: 5, target: null, progressPct: null, status: 'no_target', gap: null },
    },
    {
      method: 'sum',
      periods: [period('2024-01-01', 5)],
      link: 0,
      expected: { value: 5, target: 0, progressPct: null, status: 'no_target', gap: -5 },
    },
  ])('$method → $expected.status $expected.progressPct', ({ method, periods, link, expected }) => {
    expect(scoreIndicator(method, periods, link)).toEqual(expected);
  });

  it.each(AGGREGATION_METHODS)('%s does not depend on the order of the periods', (method) => {
    const expected = scoreIndicator(method, quarters, 999);
    for (const order of permutations(quarters)) {
      expect(scoreIndicator(method, order, 999)).toEqual(expected);
    }
  });
});

describe('roundDecimals', () => {
  it('rounds decimal ties half away from zero on the shortest decimal form', () => {
    expect(roundDecimals(1.005, 2)).toBe(1.01);
    expect(roundDecimals(-1.005, 2)).toBe(-1.01);
    expect(roundDecimals(2.675, 2)).toBe(2.68);
    expect(roundDecimals(89.95, 1)).toBe(90);
    expect(roundDecimals(0.5, 0)).toBe(1);
    expect(roundDecimals(-0.5, 0)).toBe(-1);
    expect(roundDecimals(0.30000000000000004, 11)).toBe(0.3);
    expect(Object.is(roundDecimals(-0.004, 2), 0)).toBe(true);
  });

  it('answers exactly as the digit-by-digit reference, ties and near-ties included', () => {
    // A fixed-seed generator (mulberry32): the same cases on every run.
    let state = 0x9e3779b9;
    const random = () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const mismatches: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      const decimals = Math.floor(random() * 16);
      const places = Math.floor(random() * 18);
      const magnitude = 10 ** (Math.floor(random() * 24) - 12);
      const kind = i % 4;
      // Short decimals (ties at `decimals` included), arbitrary doubles, sums with binary noise, near-ties.
      const x =
        kind === 0
          ? Number(
              (Math.floor(random() * 1e6) / 10 ** Math.min(places, 8) + 5 / 10 ** (decimals + 1)).toFixed(12),
            )
          : kind === 1
            ? (random() - 0.5) * magnitude
            : kind === 2
              ? Math.floor(random() * 1e4) / 10 + Math.floor(random() * 1e4) / 100
              : (Math.floor(random() * 1e7) + 0.5 + (random() - 0.5) * 1e-9) / 10 ** decimals;
      const expected = roundDecimalsByDigits(x, decimals);
      const actual = roundDecimals(x, decimals);
      if (!Object.is(actual, expected)) mismatches.push(`${x} at ${decimals}: ${actual} vs ${expected}`);
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
  });
});
