import { stringify } from 'csv-stringify/sync';
import { inertCsvText } from '../forms/index.js';
import type { IndicatorEntry } from './report-snapshot.js';

export const INDICATOR_CSV_COLUMNS = ['code', 'indicator', 'unit', 'breakdown', 'category', 'value'];

type Row = [string, string, string, string, string, number | null];

/**
 * An assembled report's indicator values, one row per number: the indicator's value (breakdown and
 * category empty), each category of disaggregatedValues (breakdown: the crossed disaggregation it belongs
 * to when a cross names it, else empty), then per cross its cells (`female|15-24`) and its margins
 * (`female`), breakdown the cross's name.
 */
export function indicatorsCsv(indicators: readonly IndicatorEntry[]): string {
  const rows: Row[] = [];
  for (const entry of indicators) {
    const row = (breakdown: string, category: string, value: number | null): Row => [
      entry.code,
      entry.indicatorName,
      entry.unit,
      breakdown,
      category,
      value,
    ];
    const crosses = entry.crossTabulations ?? [];
    const cells = new Set(crosses.flatMap((cross) => cross.cells.map((cell) => cell.key)));
    const dimensionOf = new Map(
      crosses.flatMap((cross) =>
        cross.dimensions.flatMap((d) => d.categories.map((c) => [c.category, d.name])),
      ),
    );
    rows.push(row('', '', entry.value));
    // By key: a snapshot read back from jsonb has its keys in jsonb's order (shortest first).
    const byKey = Object.entries(entry.disaggregatedValues).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [key, value] of byKey) {
      if (!cells.has(key)) rows.push(row(dimensionOf.get(key) ?? '', key, value));
    }
    for (const cross of crosses) {
      for (const cell of cross.cells) rows.push(row(cross.name, cell.key, cell.value));
      for (const d of cross.dimensions) {
        for (const margin of d.categories) rows.push(row(cross.name, margin.category, margin.value));
      }
    }
  }
  const guarded = rows.map((r) => r.map((v) => (typeof v === 'string' ? inertCsvText(v) : v)));
  return stringify([INDICATOR_CSV_COLUMNS, ...guarded], { quoted_string: true });
}
