import { describe, expect, it } from 'vitest';
import {
  CONSTANT_HISTORY_TOLERANCE,
  DEFAULT_CHECKS,
  DEFAULT_THRESHOLDS,
  findOutlier,
  HISTORY_LENGTH,
  isShortHistory,
  MIN_HISTORY,
  OUTLIER_METHODS,
  readable,
  readableScore,
  usesHistory,
} from './outliers.js';

/** Eight quarters, most recent first: median 1,180 (1,100 and 1,260), MAD 179 ((178 + 180) / 2). */
const quarters = [1500, 900, 1260, 1002, 1400, 1100, 1358, 1000];
/** Mean 10, sample standard deviation 2 (squares 16 over 4). */
const even = [8, 12, 8, 12, 10];
const constant = (value: number, count = 8) => Array.from({ length: count }, () => value);

describe('constants', () => {
  it('names the methods, defaults and history lengths', () => {
    expect(OUTLIER_METHODS).toEqual(['modified_z', 'z', 'min_max', 'off']);
    expect(DEFAULT_CHECKS).toEqual({ method: 'modified_z' });
    expect(DEFAULT_THRESHOLDS).toEqual({ modified_z: 3.5, z: 3 });
    expect([MIN_HISTORY, HISTORY_LENGTH, CONSTANT_HISTORY_TOLERANCE]).toEqual([4, 12, 0.5]);
  });

  it('says which checks read history, and when a project’s history is too short', () => {
    expect([null, { method: 'modified_z' }, { method: 'z' }].map((c) => usesHistory(c as never))).toEqual([
      true,
      true,
      true,
    ]);
    expect(usesHistory({ method: 'min_max', max: 5 })).toBe(false);
    expect(usesHistory({ method: 'off' })).toBe(false);
    expect([0, 3, 4, 12].map(isShortHistory)).toEqual([true, true, false, false]);
  });
});

describe('modified z (the default)', () => {
  it('flags a value far above the median, with the numbers', () => {
    expect(findOutlier(12000, quarters, null)).toEqual({
      method: 'modified_z',
      message: '12,000 is 10x the median of the last 8 periods (1,180); modified z = 41',
      numbers: {
        value: 12000,
        historyCount: 8,
        threshold: 3.5,
        median: 1180,
        mad: 179,
        meanAbsoluteDeviation: null,
        modifiedZ: 40.77,
      },
    });
    expect(findOutlier(12000, quarters, { method: 'modified_z' })).toEqual(
      findOutlier(12000, quarters, null),
    );
  });

  it('flags a value far below the median as a share of it', () => {
    expect(findOutlier(100, quarters, null)).toMatchObject({
      message: '100 is 8.5% of the median of the last 8 periods (1,180); modified z = −4.1',
      numbers: { modifiedZ: -4.07 },
    });
  });

  it('says only the direction when the value or the median is not positive', () => {
    expect(findOutlier(-3, quarters, null)?.message).toBe(
      '−3 is below the median of the last 8 periods (1,180); modified z = −4.5',
    );
    expect(findOutlier(0, quarters, null)?.message).toBe(
      '0 is below the median of the last 8 periods (1,180); modified z = −4.4',
    );
    const losses = [-10, -12, -11, -9, -10, -13];
    expect(findOutlier(-30, losses, null)).toMatchObject({
      message: '−30 is below the median of the last 6 periods (−10.5); modified z = −13',
      numbers: { median: -10.5, mad: 1, modifiedZ: -13.15 },
    });
    expect(findOutlier(50, losses, null)?.message).toBe(
      '50 is above the median of the last 6 periods (−10.5); modified z = 41',
    );
  });

  it('leaves values within the threshold alone', () => {
    // 0.6745 × 820 / 179 = 3.09
    expect(findOutlier(2000, quarters, null)).toBeNull();
    expect(findOutlier(1180, quarters, null)).toBeNull();
  });

  it('takes the indicator’s threshold', () => {
    expect(findOutlier(2000, quarters, { method: 'modified_z', threshold: 3 })?.message).toBe(
      '2,000 is 1.7x the median of the last 8 periods (1,180); modified z = 3.1',
    );
    expect(findOutlier(12000, quarters, { method: 'modified_z', threshold: 50 })).toBeNull();
    expect(findOutlier(12000, quarters, { method: 'modified_z', threshold: 40 })?.numbers).toMatchObject({
      threshold: 40,
      modifiedZ: 40.77,
    });
  });

  it('uses the mean absolute deviation when the MAD is 0', () => {
    const mostlyHundred = [150, ...constant(100, 7)];
    // (150 − 100) / (1.253314 × 6.25) = 6.38
    expect(findOutlier(150, mostlyHundred, null)).toEqual({
      method: 'modified_z',
      message: '150 is 1.5x the median of the last 8 periods (100); modified z = 6.4',
      numbers: {
        value: 150,
        historyCount: 8,
        threshold: 3.5,
        median: 100,
        mad: 0,
        meanAbsoluteDeviation: 6.25,
        modifiedZ: 6.38,
      },
    });
    expect(findOutlier(120, mostlyHundred, null)).toBeNull();
  });

  it('with no spread at all, flags a value more than half the constant away from it', () => {
    const hundreds = constant(100);
    expect(findOutlier(150, hundreds, null)).toBeNull();
    expect(findOutlier(50, hundreds, null)).toBeNull();
    expect(findOutlier(151, hundreds, null)).toEqual({
      method: 'modified_z',
      message: '151 is 1.5x the value of each of the last 8 periods (100)',
      numbers: {
        value: 151,
        historyCount: 8,
        threshold: 3.5,
        median: 100,
        mad: 0,
        meanAbsoluteDeviation: 0,
        modifiedZ: null,
      },
    });
    expect(findOutlier(40, hundreds, null)?.message).toBe(
      '40 is 40% of the value of each of the last 8 periods (100)',
    );
    expect(findOutlier(-1, hundreds, null)?.message).toBe(
      '−1 is below the value of each of the last 8 periods (100)',
    );
  });

  it('after a run of zeros, flags any other value', () => {
    const zeros = constant(0);
    expect(findOutlier(0, zeros, null)).toBeNull();
    expect(findOutlier(3, zeros, null)?.message).toBe(
      '3 is above the value of each of the last 8 periods (0)',
    );
    expect(findOutlier(-3, zeros, null)?.message).toBe(
      '−3 is below the value of each of the last 8 periods (0)',
    );
  });
});

describe('z', () => {
  it('flags a value beyond the threshold, with the numbers', () => {
    const history = [7548, ...constant(236, 7)];
    expect(findOutlier(12000, history, { method: 'z' })).toEqual({
      method: 'z',
      message: '12,000 is 4.2 standard deviations from the mean of the last 8 periods (1,150)',
      numbers: {
        value: 12000,
        historyCount: 8,
        threshold: 3,
        mean: 1150,
        standardDeviation: 2585.18239202,
        z: 4.2,
      },
    });
  });

  it('uses the sample standard deviation and a strict threshold', () => {
    expect(findOutlier(16, even, { method: 'z' })).toBeNull();
    expect(findOutlier(4, even, { method: 'z' })).toBeNull();
    expect(findOutlier(16.5, even, { method: 'z' })).toEqual({
      method: 'z',
      message: '16.5 is 3.3 standard deviations from the mean of the last 5 periods (10)',
      numbers: { value: 16.5, historyCount: 5, threshold: 3, mean: 10, standardDeviation: 2, z: 3.25 },
    });
    expect(findOutlier(3, even, { method: 'z' })).toMatchObject({
      message: '3 is 3.5 standard deviations from the mean of the last 5 periods (10)',
      numbers: { z: -3.5 },
    });
  });

  it('takes the indicator’s threshold', () => {
    expect(findOutlier(20, even, { method: 'z', threshold: 5 })).toBeNull();
    expect(findOutlier(20.2, even, { method: 'z', threshold: 5 })?.message).toBe(
      '20.2 is 5.1 standard deviations from the mean of the last 5 periods (10)',
    );
    expect(findOutlier(13, even, { method: 'z', threshold: 1 })?.numbers).toMatchObject({
      z: 1.5,
      threshold: 1,
    });
  });

  it('with no spread at all, uses the constant rule', () => {
    expect(findOutlier(151, constant(100, 4), { method: 'z' })).toEqual({
      method: 'z',
      message: '151 is 1.5x the value of each of the last 4 periods (100)',
      numbers: { value: 151, historyCount: 4, threshold: 3, mean: 100, standardDeviation: 0, z: null },
    });
    expect(findOutlier(150, constant(100, 4), { method: 'z' })).toBeNull();
  });

  it('rounds away binary noise in the mean and the standard deviation', () => {
    expect(findOutlier(10, [0.1, 0.2, 0.3, 0.2], { method: 'z' })?.numbers).toMatchObject({
      mean: 0.2,
      standardDeviation: 0.0816496580928,
    });
  });
});

describe('short and long histories', () => {
  it('judges nothing on fewer than MIN_HISTORY values', () => {
    expect(findOutlier(12000, [1000, 1100, 1200], null)).toBeNull();
    expect(findOutlier(12000, [1000, 1100, 1200], { method: 'z' })).toBeNull();
    expect(findOutlier(12000, [], null)).toBeNull();
    expect(findOutlier(12000, [1000, 1100, 1200, 1300], null)?.message).toBe(
      '12,000 is 10x the median of the last 4 periods (1,150); modified z = 73',
    );
  });

  it('reads only the most recent HISTORY_LENGTH values, and skips values that are not finite', () => {
    const recent = constant(100, HISTORY_LENGTH);
    expect(findOutlier(151, [...recent, 1e9, 5], null)?.numbers).toMatchObject({ historyCount: 12 });
    expect(findOutlier(151, [Number.NaN, 100, Infinity, 100, 100, 100], null)?.numbers).toMatchObject({
      historyCount: 4,
    });
  });

  it('names the other projects when their values were the history', () => {
    expect(findOutlier(12000, quarters, null, 'other_projects')?.message).toBe(
      '12,000 is 10x the median of 8 values of this indicator in other projects (1,180); modified z = 41',
    );
    expect(findOutlier(12000, quarters, { method: 'z' }, 'other_projects')?.message).toBe(
      '12,000 is 49 standard deviations from the mean of 8 values of this indicator in other projects (1,190)',
    );
    expect(findOutlier(3, constant(0, 5), null, 'other_projects')?.message).toBe(
      '3 is above the value of each of 5 values of this indicator in other projects (0)',
    );
  });

  it('judges no value that is not finite', () => {
    expect(findOutlier(Number.NaN, quarters, null)).toBeNull();
    expect(findOutlier(Infinity, quarters, { method: 'min_max', max: 5 })).toBeNull();
  });
});

describe('min_max', () => {
  const bounds = { method: 'min_max', min: 0, max: 5000 } as const;

  it('flags a value above the maximum or below the minimum, with no history', () => {
    expect(findOutlier(12000, [], bounds)).toEqual({
      method: 'min_max',
      message: '12,000 is above the maximum set for this indicator (5,000)',
      numbers: { value: 12000, min: 0, max: 5000 },
    });
    expect(findOutlier(-3, [], bounds)).toEqual({
      method: 'min_max',
      message: '−3 is below the minimum set for this indicator (0)',
      numbers: { value: -3, min: 0, max: 5000 },
    });
  });

  it('keeps the bounds themselves, and ignores history', () => {
    expect([0, 5000, 2500].map((v) => findOutlier(v, quarters, bounds))).toEqual([null, null, null]);
  });

  it('checks the one bound that is set', () => {
    expect(findOutlier(-1000, [], { method: 'min_max', max: 100 })).toBeNull();
    expect(findOutlier(100.5, [], { method: 'min_max', max: 100 })).toMatchObject({
      message: '100.5 is above the maximum set for this indicator (100)',
      numbers: { min: null, max: 100 },
    });
    expect(findOutlier(1e9, [], { method: 'min_max', min: -2.5 })).toBeNull();
    expect(findOutlier(-2.75, [], { method: 'min_max', min: -2.5 })?.message).toBe(
      '−2.75 is below the minimum set for this indicator (−2.5)',
    );
  });
});

describe('off', () => {
  it('flags nothing', () => {
    expect(findOutlier(12000, quarters, { method: 'off' })).toBeNull();
    expect(findOutlier(3, constant(0), { method: 'off' })).toBeNull();
  });
});

describe('numbers as people read them', () => {
  it('groups thousands, keeps at most 2 decimals (2 significant digits below 1) and a true minus', () => {
    const cases: [number, string][] = [
      [12000, '12,000'],
      [1180, '1,180'],
      [999, '999'],
      [-3, '−3'],
      [0, '0'],
      [-0, '0'],
      [1234.567, '1,234.57'],
      [1000000.125, '1,000,000.13'],
      [2.5, '2.5'],
      [0.0042, '0.0042'],
      [0.12345, '0.12'],
      [-0.5, '−0.5'],
      [0.000000123, '0.00000012'],
      [1e21, '1,000,000,000,000,000,000,000'],
      [1.5e22, '15,000,000,000,000,000,000,000'],
    ];
    expect(cases.map(([x]) => readable(x))).toEqual(cases.map(([, text]) => text));
  });

  it('gives scores and ratios 2 significant digits, whole from 10 up', () => {
    const cases: [number, string][] = [
      [40.77, '41'],
      [4.197, '4.2'],
      [10.17, '10'],
      [9.96, '10'],
      [145.83, '146'],
      [0.0847, '0.085'],
      [-5.93, '−5.9'],
      [3, '3'],
    ];
    expect(cases.map(([x]) => readableScore(x))).toEqual(cases.map(([, text]) => text));
  });
});
