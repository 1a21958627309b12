/**
 * Progress of an indicator in a project (SPEC "Progress score", DECISIONS 8): the included periods' values
 * aggregated by the indicator's method, against a cumulative target, as a percent and a band. Kept pure so that
 * reports, the dashboard and `GET /orgs/:orgId/indicators?status=` score exactly alike.
 *
 * Arithmetic results (sums, averages, percents, gaps) are rid of binary noise before anyone sees them, so
 * `0.1 + 0.2` is 0.3 and a percent that is 89.95 in decimal bands as 90.0, not 89.9.
 */

export const AGGREGATION_METHODS = ['sum', 'average', 'latest', 'min', 'max'] as const;
export type AggregationMethod = (typeof AGGREGATION_METHODS)[number];

export const PROGRESS_STATUSES = ['on_track', 'at_risk', 'off_track', 'no_target', 'no_data'] as const;
export type ProgressStatus = (typeof PROGRESS_STATUSES)[number];

/**
 * One included period's report of an indicator in a project. Periods are ordered by `periodStart` whatever the
 * input order; periods starting on the same day keep their input order, so the later one in the input is "latest".
 */
export interface PeriodValue {
  periodStart: string /* YYYY-MM-DD, orders periods */;
  value: number | null;
  target: number | null;
}

export interface Progress {
  /** Aggregated actual. */
  value: number | null;
  /** Cumulative target. */
  target: number | null;
  /** value / target * 100, rounded to one decimal; null when no value or no usable target. */
  progressPct: number | null;
  status: ProgressStatus;
  /** target - value; null when either is null (still computed for `no_target` with a 0 target). */
  gap: number | null;
}

/**
 * Digits kept when removing binary noise: doubles hold about 16 significant digits, so rounding a result to 12
 * significant digits of its operands' magnitude drops the noise of a sum of many terms and keeps real decimals
 * (a value of 1,234,567,890.12 still has its cents).
 */
const SIGNIFICANT_DIGITS = 12;

/**
 * Rounds half away from zero at `decimals` places, working on the number's shortest decimal form so that a decimal
 * tie is a tie: 1.005 to two places gives 1.01, where `Math.round(1.005 * 100) / 100` gives 1. Never returns -0.
 * Exported for tests; roundDecimals gives the same answers faster.
 */
export function roundDecimalsByDigits(x: number, decimals: number): number {
  if (x === 0 || !Number.isFinite(x)) return x + 0;
  const [digits = '', exponent = ''] = Math.abs(x).toExponential().split('e');
  const shifted = Number(`${digits}e${Number(exponent) + decimals}`);
  // At this size a double has no digits past `decimals` left to round.
  if (shifted >= Number.MAX_SAFE_INTEGER) return x;
  const rounded = Number(`${Math.round(shifted)}e${-decimals}`);
  return rounded === 0 ? 0 : Math.sign(x) * rounded;
}

/** 10^0 .. 10^22, parsed so each is exact. */
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, d) => Number(`1e${d}`));

/**
 * roundDecimalsByDigits without the string work where the answer cannot differ (scoring rounds every
 * percent and sum, thousands per dashboard). Whole numbers have nothing to round. Otherwise |x| * 10^d
 * in doubles is within |x| * 10^d * 2^-52 of the shortest decimal's exact shift (one rounding of x, one
 * of the product), so when its fraction is farther than that from one half, rounding it rounds the
 * decimal the same way; dividing the integer by 10^d (both exact below 2^53 and 10^22) is then
 * correctly rounded, as parsing `${n}e-${d}` is. Ties and near-ties take the exact path.
 */
export function roundDecimals(x: number, decimals: number): number {
  if (x === 0 || !Number.isFinite(x) || (Number.isInteger(x) && decimals >= 0)) return x + 0;
  const power = POWERS_OF_TEN[decimals];
  if (power !== undefined) {
    const scaled = Math.abs(x) * power;
    if (scaled < 1e15 && Math.abs(scaled - Math.floor(scaled) - 0.5) > scaled * 1e-15) {
      const rounded = Math.round(scaled) / power;
      return rounded === 0 ? 0 : Math.sign(x) * rounded;
    }
  }
  return roundDecimalsByDigits(x, decimals);
}

/**
 * Rounds `x` to SIGNIFICANT_DIGITS digits of `scale`, the magnitude of the operands `x` was computed from, but never
 * above the units: sums of whole numbers are exact in doubles (below 2^53), so whole counts stay exact.
 */
export function denoise(x: number, scale: number): number {
  if (scale === 0 || !Number.isFinite(scale)) return x + 0;
  return roundDecimals(x, Math.max(0, SIGNIFICANT_DIGITS - 1 - Math.floor(Math.log10(Math.abs(scale)))));
}

/** A computed number (a formula's result) rid of binary noise at its own magnitude: 7.000000000000001 is 7. */
export const withoutNoise = (x: number): number => denoise(x, x);

/**
 * What aggregating and targeting need of a list of periods: counts, plain and absolute sums (the absolute
 * sum gives the scale for removing noise), extremes, and the latest value and target. Built from periods
 * by `summarize`, or by the database for many (project, indicator) pairs at once (progress.repo.ts): one
 * scoring either way.
 */
export interface PeriodSummary {
  /** Periods with a value. */
  count: number;
  sum: number;
  absSum: number;
  min: number | null;
  max: number | null;
  /** The value of the latest period that has one. */
  latest: number | null;
  /** Periods with a target. */
  targetCount: number;
  targetSum: number;
  targetAbsSum: number;
  /** The target of the latest period that has one. */
  latestTarget: number | null;
}

const byPeriodStart = (a: PeriodValue, b: PeriodValue) =>
  a.periodStart < b.periodStart ? -1 : a.periodStart > b.periodStart ? 1 : 0;

/** Oldest first; `sort` is stable, so same-day periods keep their input order. Sorted input is not copied. */
function inPeriodOrder(periods: PeriodValue[]): PeriodValue[] {
  for (let i = 1; i < periods.length; i++) {
    if (byPeriodStart(periods[i - 1]!, periods[i]!) > 0) return [...periods].sort(byPeriodStart);
  }
  return periods;
}

export function summarize(periods: PeriodValue[]): PeriodSummary {
  const summary: PeriodSummary = {
    count: 0,
    sum: 0,
    absSum: 0,
    min: null,
    max: null,
    latest: null,
    targetCount: 0,
    targetSum: 0,
    targetAbsSum: 0,
    latestTarget: null,
  };
  for (const { value, target } of inPeriodOrder(periods)) {
    if (value !== null) {
      summary.count += 1;
      summary.sum += value;
      summary.absSum += Math.abs(value);
      summary.min = summary.min === null ? value : Math.min(summary.min, value);
      summary.max = summary.max === null ? value : Math.max(summary.max, value);
      summary.latest = value;
    }
    if (target !== null) {
      summary.targetCount += 1;
      summary.targetSum += target;
      summary.targetAbsSum += Math.abs(target);
      summary.latestTarget = target;
    }
  }
  return summary;
}

/**
 * A sum past the largest double (about 1.8e308) has no number to show, in JSON or anywhere: it counts as
 * no value (or no target).
 */
const finiteOrNull = (x: number): number | null => (Number.isFinite(x) ? x : null);

/**
 * The periods' non-null values aggregated by method; null when there is none. `latest` = value of the period
 * with the latest periodStart among those that have a value (a period without one does not hide the last
 * known value).
 */
export function aggregateSummary(method: AggregationMethod, summary: PeriodSummary): number | null {
  if (summary.count === 0) return null;
  switch (method) {
    case 'sum':
      return finiteOrNull(denoise(summary.sum, summary.absSum));
    case 'average':
      return finiteOrNull(denoise(summary.sum / summary.count, summary.absSum / summary.count));
    case 'latest':
      return summary.latest;
    case 'min':
      return summary.min;
    case 'max':
      return summary.max;
  }
}

/**
 * DECISIONS 8: sum → sum of the periods' non-null targets; other methods → the target of the latest period
 * that has one; when no period has a target → linkTarget. For `sum`, periods without a target add nothing,
 * so a partly targeted range is scored against the targets that were set.
 */
export function targetOfSummary(
  method: AggregationMethod,
  summary: PeriodSummary,
  linkTarget: number | null,
): number | null {
  if (summary.targetCount === 0) return linkTarget;
  return method === 'sum'
    ? finiteOrNull(denoise(summary.targetSum, summary.targetAbsSum))
    : summary.latestTarget;
}

/** Aggregates the periods' values by method (see aggregateSummary). */
export const aggregate = (method: AggregationMethod, periods: PeriodValue[]): number | null =>
  aggregateSummary(method, summarize(periods));

/** The cumulative target of the periods (see targetOfSummary). */
export const cumulativeTarget = (
  method: AggregationMethod,
  periods: PeriodValue[],
  linkTarget: number | null,
): number | null => targetOfSummary(method, summarize(periods), linkTarget);

/** On the rounded percent, so the percent shown and the band always agree. */
function bandOf(progressPct: number): ProgressStatus {
  if (progressPct >= 90) return 'on_track';
  if (progressPct >= 70) return 'at_risk';
  return 'off_track';
}

/**
 * Percent and band for an actual against a target. no_data when value is null (takes precedence); no_target when
 * target is null or 0, or so near 0 that the percent overflows. Bands on the rounded percent: on_track >= 90,
 * at_risk >= 70, else off_track. A value of 0 against a target is 0% off_track. Negative values or targets are
 * computed plainly: -5 of -10 is 50%, 5 of -10 is -50% (off_track). `gap` is rid of float noise relative to the
 * larger of target and value, so 0.3 - (0.1 + 0.2) is 0.
 */
export function progressOf(value: number | null, target: number | null): Progress {
  const gap =
    value === null || target === null
      ? null
      : finiteOrNull(denoise(target - value, Math.max(Math.abs(target), Math.abs(value))));
  if (value === null) return { value, target, progressPct: null, status: 'no_data', gap };
  const progressPct = percentOf(value, target);
  if (progressPct === null) return { value, target, progressPct: null, status: 'no_target', gap };
  return { value, target, progressPct, status: bandOf(progressPct), gap };
}

/**
 * `part / whole * 100` rounded to one decimal (half away from zero, on the decimal value); null when the
 * whole is null or 0, or so near 0 that the percent overflows. Progress and budget burn rates use it.
 */
export function percentOf(part: number, whole: number | null): number | null {
  const percent = whole === null || whole === 0 ? NaN : (part / whole) * 100;
  return Number.isFinite(percent) ? roundDecimals(denoise(percent, percent), 1) : null;
}

/** aggregate + cumulativeTarget + progressOf. */
export function scoreIndicator(
  method: AggregationMethod,
  periods: PeriodValue[],
  linkTarget: number | null,
): Progress {
  return progressOf(aggregate(method, periods), cumulativeTarget(method, periods, linkTarget));
}

/**
 * The target to date of an assembled report: the included periods' own targets (oldest first) combined
 * as the indicator's values are (sum → sum, average → average, latest → the latest period's, min, max).
 * Null when there is no period, or when any period has no target: a partial sum would overstate progress.
 * Unlike the cumulative target, it never falls back to the project link's target.
 */
export function targetToDate(
  method: AggregationMethod,
  periods: { periodStart: string; target: number | null }[],
): number | null {
  if (periods.length === 0 || periods.some((period) => period.target === null)) return null;
  return aggregate(
    method,
    periods.map((period) => ({ periodStart: period.periodStart, value: period.target, target: null })),
  );
}
