import { badRequest } from '../../errors/catalogue.js';
import { isCross, marginsOf, type Dimension } from '../../lib/crosses.js';
import { DEFAULT_AGE_BANDS, PARTICIPANT_DIMENSIONS, SEXES, UNKNOWN_AGE } from '../../lib/demographics.js';

export type { Dimension } from '../../lib/crosses.js';

export type DisaggregatedValues = Record<string, number>;

export interface ReportValues {
  value: number | null;
  disaggregatedValues: DisaggregatedValues;
}

/** Sums that differ only by floating-point noise (0.1 + 0.2) are the same total. */
export const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
export const clean = (n: number) => Number(n.toPrecision(15));
const sum = (values: number[]) => clean(values.reduce((total, v) => total + v, 0));

/**
 * The value and disaggregated values a report ends up with (DECISIONS.md section 7), from what the
 * request sent laid over what is stored. With disaggregations, keys must be their categories (a cross's:
 * its cells, `female|15-24`) and every disaggregation the request fills in must add up to the same total;
 * a cross's cells must also add up to each category of a crossed disaggregation sent beside them; without, the keys are free and add
 * up (participant categories excepted, see implicitDimensions). That total is the value; a `value` that differs is refused. A disaggregation left entirely empty
 * is simply not reported. `disaggregatedValues` null or `{}` clears them and keeps the value; `value`
 * null with disaggregated values means "their total".
 */
export function reportValues(
  dimensions: Dimension[],
  sent: { value?: number | null; disaggregatedValues?: DisaggregatedValues | null },
  stored: ReportValues = { value: null, disaggregatedValues: {} },
  orgBands: readonly string[] = DEFAULT_AGE_BANDS,
): ReportValues {
  const disaggregatedValues =
    sent.disaggregatedValues === undefined ? stored.disaggregatedValues : (sent.disaggregatedValues ?? {});
  // New disaggregated values bring their own total: the stored value is not held against them. Clearing
  // them keeps the value they added up to.
  const bringsTotal = sent.disaggregatedValues != null && Object.keys(sent.disaggregatedValues).length > 0;
  const value = sent.value !== undefined ? sent.value : bringsTotal ? null : stored.value;
  const keys = Object.keys(disaggregatedValues);
  if (keys.length === 0) return { value, disaggregatedValues };

  const total = totalOf(dimensions, disaggregatedValues, orgBands);
  // Values that are each finite can add up past the largest double.
  if (!Number.isFinite(total)) throw badRequest('disaggregatedValues must add up to a finite number');
  if (value !== null && !same(value, total)) {
    throw badRequest(`value must equal the total of disaggregatedValues (${total})`);
  }
  return { value: total, disaggregatedValues };
}

/**
 * Without disaggregations of its own an indicator takes free keys, which add up; but keys that are all
 * participant categories (a pre-fill's breakdown by sex and by age band) are those two dimensions, each
 * adding up to the total on its own.
 */
function implicitDimensions(values: DisaggregatedValues, orgBands: readonly string[]): Dimension[] {
  // An organization's own bands too (its pre-fills use them), and the contract's (pre-fills made before).
  const dimensions =
    orgBands === DEFAULT_AGE_BANDS
      ? PARTICIPANT_DIMENSIONS
      : [
          { name: 'sex', categories: [...SEXES] as string[] },
          { name: 'age band', categories: [...new Set([...DEFAULT_AGE_BANDS, ...orgBands, UNKNOWN_AGE])] },
        ];
  const known = new Set(dimensions.flatMap((d) => d.categories));
  return Object.keys(values).every((key) => known.has(key)) ? dimensions : [];
}

function totalOf(declared: Dimension[], values: DisaggregatedValues, orgBands: readonly string[]): number {
  const dimensions = declared.length > 0 ? declared : implicitDimensions(values, orgBands);
  if (dimensions.length === 0) return sum(Object.values(values));
  const known = new Set(dimensions.flatMap((d) => d.categories));
  const unknown = Object.keys(values).filter((key) => !known.has(key));
  if (unknown.length > 0) {
    throw badRequest(
      ...unknown.map(
        (key) => `disaggregatedValues.${key} is not a category of the indicator’s disaggregations`,
      ),
    );
  }
  const filled = (d: Dimension) => d.categories.some((category) => Object.hasOwn(values, category));
  // The first filled cross's margins of a crossed disaggregation not sent: the others must give the same.
  const derived = new Map<string, { cross: string; values: Record<string, number> }>();
  const disagreeing = dimensions
    .filter((d) => isCross(d) && filled(d))
    .flatMap((cross) => marginProblems(cross, dimensions, values, filled, derived));
  if (disagreeing.length > 0) throw badRequest(...disagreeing);
  const totals = dimensions.filter(filled).map((d) => ({
    name: d.name,
    total: sum(d.categories.map((category) => (Object.hasOwn(values, category) ? values[category]! : 0))),
  }));
  const first = totals[0]!.total;
  if (totals.some((t) => !same(t.total, first))) {
    const listed = totals.map((t) => `${t.name} ${t.total}`).join(', ');
    throw badRequest(`disaggregatedValues: every disaggregation must add up to the same total (${listed})`);
  }
  return first;
}

/**
 * A cross's cells against the one-dimensional values sent beside them: for each crossed disaggregation
 * the request fills in, the cells holding a category add up to that category's value (a missing cell
 * or category counts 0). A crossed disaggregation left empty is derived from the cells; two crosses
 * crossing it must then derive the same margins.
 */
function marginProblems(
  cross: Dimension,
  dimensions: Dimension[],
  values: DisaggregatedValues,
  filled: (d: Dimension) => boolean,
  derived: Map<string, { cross: string; values: Record<string, number> }>,
): string[] {
  return marginsOf(cross, dimensions, values).flatMap((margin) => {
    const crossed = dimensions.find((d) => d.name === margin.name);
    if (!crossed) return [];
    if (!filled(crossed)) {
      const first = derived.get(margin.name);
      if (!first) {
        derived.set(margin.name, { cross: cross.name, values: margin.values });
        return [];
      }
      return Object.entries(margin.values)
        .filter(([category, total]) => !same(total, first.values[category] ?? 0))
        .map(
          ([category, total]) =>
            `disaggregatedValues: the cells of "${cross.name}" with ${category} add up to ${total}, and ` +
            `the cells of "${first.cross}" with ${category} add up to ${first.values[category] ?? 0}`,
        );
    }
    return Object.entries(margin.values)
      .filter(([category, total]) => !same(total, values[category] ?? 0))
      .map(
        ([category, total]) =>
          `disaggregatedValues: the cells of "${cross.name}" with ${category} add up to ${total}, and ` +
          `disaggregatedValues.${category} is ${Object.hasOwn(values, category) ? values[category] : 'missing (0)'}`,
      );
  });
}
