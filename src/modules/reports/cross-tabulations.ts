import { aggregate, type AggregationMethod } from '../../lib/scoring.js';
import { cellKey, cellsOf, crossedBy, isCross, marginsOf, type Dimension } from '../../lib/crosses.js';
import type { CrossTabulation } from './report-snapshot.js';

/** One included value of an indicator: its period's start orders it for `latest`. */
interface PeriodValues {
  periodStart: string;
  disaggregatedValues: Record<string, number>;
}

/**
 * The crosses of an indicator as tables over the included periods. Each cell is aggregated like any
 * other key of disaggregatedValues (summed for `sum`); the margins and the total are derived from each
 * period's cells, then aggregated the same way, so for `sum` they are the sums of the cells. A period
 * that leaves the cross empty adds nothing to it. Derived at assembly, never stored with the values.
 */
export function crossTabulationsOf(
  method: AggregationMethod,
  dimensions: readonly Dimension[],
  values: readonly PeriodValues[],
): CrossTabulation[] {
  return dimensions.filter(isCross).map((cross) => {
    const crossed = crossedBy(cross, dimensions);
    const filled = values.filter((v) =>
      cross.categories.some((c) => Object.hasOwn(v.disaggregatedValues, c)),
    );
    const over = (valueOf: (v: PeriodValues) => number | null) =>
      aggregate(
        method,
        filled.map((v) => ({ periodStart: v.periodStart, value: valueOf(v), target: null })),
      );
    const margins = filled.map((v) => marginsOf(cross, dimensions, v.disaggregatedValues));
    const totalOf = (v: PeriodValues) =>
      cross.categories.reduce((sum, c) => sum + (v.disaggregatedValues[c] ?? 0), 0);
    return {
      name: cross.name,
      crosses: crossed.map((d) => d.name),
      dimensions: crossed.map((d, position) => ({
        name: d.name,
        categories: d.categories.map((category) => ({
          category,
          value: over((v) => margins[filled.indexOf(v)]![position]!.values[category] ?? 0),
        })),
      })),
      cells: cellsOf(crossed).map((categories) => {
        const key = cellKey(categories);
        return { key, categories, value: over((v) => v.disaggregatedValues[key] ?? null) };
      }),
      total: over((v) => Number(totalOf(v).toPrecision(15))),
    };
  });
}
