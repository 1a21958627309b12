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
 */
function roundDecimals(x: number, decimals: number): number {
  if (x === 0 || !Number.isFinite(x)) return x + 0;
  const [digits = '', exponent = ''] = Math.abs(x).toExponential().split('e');
  const shifted = Number(`${digits}e${Number(exponent) + decimals}`);
  // At this size a double has no digits past `decimals` left to round.
  if (shifted >= Number.MAX_SAFE_INTEGER) return x;
  const rounded = Number(`${Math.round(shifted)}e${-decimals}`);
  return rounded === 0 ? 0 : Math.sign(x) * rounded;
}

/**
 * Rounds `x` to SIGNIFICANT_DIGITS digits of `scale`, the magnitude of the operands `x` was computed from, but never
 * above the units: sums of whole numbers are exact in doubles (below 2^53), so whole counts stay exact.
 */
function denoise(x: number, scale: number): number {
  if (scale === 0 || !Number.isFinite(scale)) return x + 0;
  return roundDecimals(x, Math.max(0, SIGNIFICANT_DIGITS - 1 - Math.floor(Math.log10(Math.abs(scale)))));
}

/** A computed number (a formula's result) rid of binary noise at its own magnitude: 7.000000000000001 is 7. */
export const withoutNoise = (x: number): number => denoise(x, x);

const absoluteSum = (numbers: number[]): number => numbers.reduce((total, n) => total + Math.abs(n), 0);

function sumOf(numbers: number[]): number {
  return denoise(
    numbers.reduce((total, n) => total + n, 0),
    absoluteSum(numbers),
  );
}

/** Oldest first; `sort` is stable, so same-day periods keep their input order. */
function inPeriodOrder(periods: PeriodValue[]): PeriodValue[] {
  return [...periods].sort((a, b) =>
    a.periodStart < b.periodStart ? -1 : a.periodStart > b.periodStart ? 1 : 0,
  );
}

/**
 * Aggregates the periods' non-null values by method; null when there is none. `latest` = value of the period with
 * the latest periodStart among those that have a value (a period without one does not hide the last known value).
 */
export function aggregate(method: AggregationMethod, periods: PeriodValue[]): number | null {
  const values = inPeriodOrder(periods).flatMap((period) => (period.value === null ? [] : [period.value]));
  const last = values.at(-1);
  if (last === undefined) return null;
  switch (method) {
    case 'sum':
      return sumOf(values);
    case 'average':
      return denoise(
        values.reduce((total, n) => total + n, 0) / values.length,
        absoluteSum(values) / values.length,
      );
    case 'latest':
      return last;
    case 'min':
      return values.reduce((least, n) => Math.min(least, n));
    case 'max':
      return values.reduce((most, n) => Math.max(most, n));
  }
}

/**
 * DECISIONS 8: sum → sum of the periods' non-null targets; other methods → the target of the latest period that
 * has one; when no period has a target → linkTarget. For `sum`, periods without a target add nothing, so a partly
 * targeted range is scored against the targets that were set.
 */
export function cumulativeTarget(
  method: AggregationMethod,
  periods: PeriodValue[],
  linkTarget: number | null,
): number | null {
  const targets = inPeriodOrder(periods).flatMap((period) => (period.target === null ? [] : [period.target]));
  const last = targets.at(-1);
  if (last === undefined) return linkTarget;
  return method === 'sum' ? sumOf(targets) : last;
}

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
      : denoise(target - value, Math.max(Math.abs(target), Math.abs(value)));
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
