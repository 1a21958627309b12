/**
 * Whether a value saved for an indicator stands out from the indicator's history, and why, in words an
 * approver reads (docs: "Data quality"). Pure: the caller reads the history and stores the flag.
 *
 * The history is the indicator's other values, most recent first; the value being judged is not part of
 * it. A project with fewer than MIN_HISTORY values is judged against the indicator's values in the
 * organization's other projects instead (the caller reads those; `source` says which it passed).
 */
import { roundDecimals, withoutNoise } from './scoring.js';

export const OUTLIER_METHODS = ['modified_z', 'z', 'min_max', 'off'] as const;
export type OutlierMethod = (typeof OUTLIER_METHODS)[number];

/** How an indicator's values are checked; null on an indicator means DEFAULT_CHECKS. */
export interface QualityChecks {
  method: OutlierMethod;
  /** Only for `modified_z` and `z`: the score beyond which a value is an outlier. */
  threshold?: number;
  /** Only for `min_max`: the bounds, either or both. */
  min?: number;
  max?: number;
}

export const DEFAULT_THRESHOLDS = { modified_z: 3.5, z: 3 } as const;
export const DEFAULT_CHECKS: QualityChecks = { method: 'modified_z' };

/** The methods that judge a value by its history (the others by bounds, or not at all). */
export const HISTORY_METHODS: readonly OutlierMethod[] = ['modified_z', 'z'];

/** Fewer values than this and a score says nothing: no flag (a median and MAD of three is one value). */
export const MIN_HISTORY = 4;
/** The most values a score is computed from: a year of monthly reports, three of quarterly ones. */
export const HISTORY_LENGTH = 12;

/** The Iglewicz–Hoaglin constant: the MAD of a normal distribution is 0.6745 standard deviations. */
const MAD_SCALE = 0.6745;
/** When the MAD is 0: the mean absolute deviation of a normal distribution is 1/1.253314 standard deviations. */
const MEAN_AD_SCALE = 1.253314;
/**
 * A history with no spread at all (every value the same) gives no score: a value is then an outlier when it is
 * more than this share of that value away from it, so after a run of zeros any other value is one.
 */
export const CONSTANT_HISTORY_TOLERANCE = 0.5;

/** Where the history came from: the value's own project, or the organization's other projects. */
export type HistorySource = 'project' | 'other_projects';

export interface ScoredNumbers {
  value: number;
  historyCount: number;
  threshold: number;
}
export interface ModifiedZNumbers extends ScoredNumbers {
  median: number;
  mad: number;
  /** Only when the MAD is 0 and the mean absolute deviation (from the median) took its place. */
  meanAbsoluteDeviation: number | null;
  /** Rounded to 2 decimals; null when the history has no spread at all. */
  modifiedZ: number | null;
}
export interface ZNumbers extends ScoredNumbers {
  mean: number;
  standardDeviation: number;
  /** Rounded to 2 decimals; null when the history has no spread at all. */
  z: number | null;
}
export interface MinMaxNumbers {
  value: number;
  min: number | null;
  max: number | null;
}

export type Outlier =
  | { method: 'modified_z'; message: string; numbers: ModifiedZNumbers }
  | { method: 'z'; message: string; numbers: ZNumbers }
  | { method: 'min_max'; message: string; numbers: MinMaxNumbers };

/** Whether the checks compare with history at all (min_max and off need none to be read). */
export const usesHistory = (checks: QualityChecks | null): boolean =>
  HISTORY_METHODS.includes((checks ?? DEFAULT_CHECKS).method);

/** Whether a project's history is too short to judge by: then read the organization's other projects. */
export const isShortHistory = (count: number): boolean => count < MIN_HISTORY;

/**
 * The outlier a value is under the indicator's checks, or null: within them, `off`, or a history shorter
 * than MIN_HISTORY. `history` is most recent first; only its first HISTORY_LENGTH values count.
 */
export function findOutlier(
  value: number,
  history: readonly number[],
  checks: QualityChecks | null,
  source: HistorySource = 'project',
): Outlier | null {
  if (!Number.isFinite(value)) return null;
  const { method, threshold, min, max } = checks ?? DEFAULT_CHECKS;
  switch (method) {
    case 'off':
      return null;
    case 'min_max':
      return outsideBounds(value, min ?? null, max ?? null);
    case 'modified_z':
    case 'z': {
      const recent = history.filter(Number.isFinite).slice(0, HISTORY_LENGTH);
      if (isShortHistory(recent.length)) return null;
      const limit = threshold ?? DEFAULT_THRESHOLDS[method];
      const of = historyPhrase(recent.length, source);
      return method === 'z' ? zOutlier(value, recent, limit, of) : modifiedZOutlier(value, recent, limit, of);
    }
  }
}

function outsideBounds(value: number, min: number | null, max: number | null): Outlier | null {
  const numbers = { value, min, max };
  if (max !== null && value > max) {
    return {
      method: 'min_max',
      numbers,
      message: `${readable(value)} is above the maximum set for this indicator (${readable(max)})`,
    };
  }
  if (min !== null && value < min) {
    return {
      method: 'min_max',
      numbers,
      message: `${readable(value)} is below the minimum set for this indicator (${readable(min)})`,
    };
  }
  return null;
}

/** Iglewicz–Hoaglin: 0.6745 (x − median) / MAD; with a MAD of 0, (x − median) / (1.253314 × mean AD). */
function modifiedZOutlier(value: number, history: number[], threshold: number, of: string): Outlier | null {
  const center = median(history);
  const mad = median(history.map((x) => Math.abs(x - center)));
  const meanAd = mad === 0 ? mean(history.map((x) => Math.abs(x - center))) : null;
  const spread = mad !== 0 ? mad / MAD_SCALE : MEAN_AD_SCALE * meanAd!;
  const numbers = (modifiedZ: number | null): ModifiedZNumbers => ({
    value,
    historyCount: history.length,
    threshold,
    median: center,
    mad: withoutNoise(mad),
    meanAbsoluteDeviation: meanAd === null ? null : withoutNoise(meanAd),
    modifiedZ,
  });
  if (spread === 0) {
    if (!beyondConstant(value, center)) return null;
    return { method: 'modified_z', numbers: numbers(null), message: constantMessage(value, center, of) };
  }
  const score = (value - center) / spread;
  if (!(Math.abs(score) > threshold)) return null;
  const message = `${readable(value)} is ${relation(value, center)} the median of ${of} (${readable(center)}); modified z = ${readableScore(score)}`;
  return { method: 'modified_z', numbers: numbers(roundDecimals(score, 2)), message };
}

/** The classic z-score against the history's mean and sample standard deviation. */
function zOutlier(value: number, history: number[], threshold: number, of: string): Outlier | null {
  const center = mean(history);
  const deviation = Math.sqrt(history.reduce((sum, x) => sum + (x - center) ** 2, 0) / (history.length - 1));
  const numbers = (z: number | null): ZNumbers => ({
    value,
    historyCount: history.length,
    threshold,
    mean: withoutNoise(center),
    standardDeviation: withoutNoise(deviation),
    z,
  });
  if (deviation === 0) {
    if (!beyondConstant(value, center)) return null;
    return { method: 'z', numbers: numbers(null), message: constantMessage(value, center, of) };
  }
  const score = (value - center) / deviation;
  if (!(Math.abs(score) > threshold)) return null;
  const message = `${readable(value)} is ${readableScore(Math.abs(score))} standard deviations from the mean of ${of} (${readable(center)})`;
  return { method: 'z', numbers: numbers(roundDecimals(score, 2)), message };
}

const beyondConstant = (value: number, constant: number) =>
  Math.abs(value - constant) > CONSTANT_HISTORY_TOLERANCE * Math.abs(constant);

const constantMessage = (value: number, constant: number, of: string) =>
  `${readable(value)} is ${relation(value, constant)} the value of each of ${of} (${readable(constant)})`;

/** `10x`, `8.5% of` when both are positive; otherwise only the direction. */
function relation(value: number, reference: number): string {
  if (value > 0 && reference > 0) {
    const ratio = value / reference;
    return ratio >= 1 ? `${readableScore(ratio)}x` : `${readableScore(ratio * 100)}% of`;
  }
  return value > reference ? 'above' : 'below';
}

const historyPhrase = (count: number, source: HistorySource) =>
  source === 'project' ? `the last ${count} periods` : `${count} values of this indicator in other projects`;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? sorted[middle]!
    : withoutNoise((sorted[middle - 1]! + sorted[middle]!) / 2);
}

const mean = (values: readonly number[]) => values.reduce((sum, x) => sum + x, 0) / values.length;

/**
 * A value as people read it: thousands separators, at most 2 decimals (2 significant digits below 1, so a
 * rate of 0.0042 keeps its digits), a true minus sign. Not Intl: the first Intl formatter loads ICU's locale
 * data (about 7 MB resident, measured for the pages), which a process serving only the API never needs.
 */
export function readable(x: number): string {
  const size = Math.abs(x);
  const rounded = size < 1 && size > 0 ? Number(size.toPrecision(2)) : roundDecimals(size, 2);
  if (rounded === 0) return '0';
  const [whole = '', fraction] = numberText(rounded).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${x < 0 ? '−' : ''}${grouped}${fraction ? `.${fraction}` : ''}`;
}

/** A score or a ratio: 2 significant digits, whole from 10 up (4.2, 41, 130). */
export function readableScore(x: number): string {
  const size = Math.abs(x);
  return readable(Math.sign(x) * (size >= 10 ? Math.round(size) : Number(size.toPrecision(2))));
}

/** Plain decimal digits, never an exponent (String prints one from 1e21 up and below 1e-6). */
function numberText(x: number): string {
  const text = String(x);
  if (!text.includes('e')) return text;
  if (x < 1) return x.toFixed(1 - Math.floor(Math.log10(x)));
  const [mantissa = '', exponent = ''] = text.split('e');
  return mantissa.replace('.', '').padEnd(Number(exponent) + 1, '0');
}
