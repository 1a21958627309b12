import { ageRangeOf, SEXES, UNKNOWN_AGE } from '../../lib/demographics.js';
import { html, type Html } from './html.js';
import { named, type IndicatorEntry, type Speech } from './report-speech.js';

/** One disaggregation of an indicator as a small table: its name over each category's value. */
interface Breakdown {
  name: string;
  rows: { category: string; label: string; value: number | null }[];
}

type CrossTabulation = NonNullable<IndicatorEntry['crossTabulations']>[number];

const isSex = (key: string) => (SEXES as readonly string[]).includes(key);
const isAgeBand = (key: string) => key === UNKNOWN_AGE || ageRangeOf(key) !== null;
// Stored values come back in the database's order of keys (jsonb puts shorter keys first).
const bySex = (a: string, b: string) =>
  (SEXES as readonly string[]).indexOf(a) - (SEXES as readonly string[]).indexOf(b);
const startOf = (band: string) => ageRangeOf(band)?.from ?? Infinity;
const byAge = (a: string, b: string) => startOf(a) - startOf(b);
const byText = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });

/**
 * Values under no disaggregation the report names (an indicator without its own, a report assembled
 * before they were named): a pre-fill's participant categories as sex and age band, each adding up to
 * the value on its own, else one table of them all.
 */
function unnamed(s: Speech, keys: string[], values: Record<string, number>): Breakdown[] {
  if (keys.length === 0) return [];
  const row = (category: string, label = category) => ({ category, label, value: values[category] ?? null });
  if (!keys.every((key) => isSex(key) || isAgeBand(key)))
    return [{ name: s.t('breakdown.other'), rows: keys.sort(byText).map((key) => row(key)) }];
  const sexes = keys
    .filter(isSex)
    .sort(bySex)
    .map((key) => row(key, named(s.t, 'sex', key)));
  const ages = keys
    .filter(isAgeBand)
    .sort(byAge)
    .map((key) => row(key, key === UNKNOWN_AGE ? s.t('breakdown.unknownAge') : key));
  return [
    { name: s.t('breakdown.sex'), rows: sexes },
    { name: s.t('breakdown.ageBand'), rows: ages },
  ].filter((breakdown) => breakdown.rows.length > 0);
}

/**
 * The entry's disaggregated values as named tables: one per disaggregation with a value, but not one a
 * filled cross crosses (the grid's margins give it over every period, where its own keys may hold only
 * the periods that sent them); a cross's cells stay in its grid.
 */
function breakdownsOf(s: Speech, entry: IndicatorEntry): Breakdown[] {
  const values = entry.disaggregatedValues;
  const crosses = entry.crossTabulations ?? [];
  const cells = new Set(crosses.flatMap((cross) => cross.cells.map((cell) => cell.key)));
  const gridded = new Set(crosses.filter((cross) => cross.total !== null).flatMap((cross) => cross.crosses));
  const declared = entry.disaggregations ?? [];
  const shown = declared
    .filter((d) => !gridded.has(d.name) && d.categories.some((c) => Object.hasOwn(values, c)))
    .map((d) => ({
      name: d.name,
      rows: d.categories.map((category) => ({ category, label: category, value: values[category] ?? null })),
    }));
  const declaredKeys = new Set(declared.flatMap((d) => d.categories));
  const rest = Object.keys(values).filter((key) => !cells.has(key) && !declaredKeys.has(key));
  return [...shown, ...unnamed(s, rest, values)];
}

function breakdownTable(s: Speech, breakdown: Breakdown): Html {
  return html`<table class="breakdown" data-breakdown="${breakdown.name}">
    <thead>
      <tr>
        <th scope="col" dir="auto">${breakdown.name}</th>
        <th scope="col" class="num">${s.t('column.value')}</th>
      </tr>
    </thead>
    <tbody>
      ${breakdown.rows.map(
        (row) =>
          html`<tr>
            <th scope="row" dir="auto">${row.label}</th>
            <td class="num" data-category="${row.category}">${s.number(row.value)}</td>
          </tr> `,
      )}
    </tbody>
  </table>`;
}

/**
 * A cross as a grid: the first crossed disaggregation's categories down, every combination of the
 * others across, the margins in the last column and row, the total in the corner. A grid wider than
 * the card scrolls inside it, never the page.
 */
function crossGrid(s: Speech, cross: CrossTabulation): Html {
  const { t, number } = s;
  const [rows, ...rest] = cross.dimensions;
  const byKey = new Map(cross.cells.map((cell) => [cell.key, cell]));
  const columns = cross.cells
    .filter((cell) => cell.categories[0] === rows?.categories[0]?.category)
    .map((cell) => cell.categories.slice(1));
  const columnTotal = (column: string[]) =>
    rest.length === 1
      ? (rest[0]!.categories.find((c) => c.category === column[0])?.value ?? null)
      : cross.cells
          .filter((cell) => cell.categories.slice(1).join('|') === column.join('|') && cell.value !== null)
          .reduce<number | null>((sum, cell) => (sum ?? 0) + cell.value!, null);
  return html`<div class="scroll" tabindex="0" role="region" aria-label="${cross.name}">
    <table class="cross" data-cross="${cross.name}">
      <caption dir="auto">${cross.name}</caption>
      <thead>
        <tr>
          <th scope="col" dir="auto">${cross.crosses[0]} \\ ${cross.crosses.slice(1).join(' · ')}</th>
          ${columns.map((column) => html`<th scope="col" class="num" dir="auto">${column.join(' · ')}</th>`)}
          <th scope="col" class="num">${t('total')}</th>
        </tr>
      </thead>
      <tbody>
        ${(rows?.categories ?? []).map(
          (row) =>
            html`<tr>
              <th scope="row" dir="auto">${row.category}</th>
              ${columns.map(
                (column) =>
                  html`<td class="num" data-cell="${[row.category, ...column].join('|')}">
                    ${number(byKey.get([row.category, ...column].join('|'))?.value ?? null)}
                  </td>`,
              )}
              <td class="num">${number(row.value)}</td>
            </tr> `,
        )}
        <tr>
          <th scope="row">${t('total')}</th>
          ${columns.map((column) => html`<td class="num">${number(columnTotal(column))}</td>`)}
          <td class="num" data-cross-total>${number(cross.total)}</td>
        </tr>
      </tbody>
    </table>
  </div>`;
}

/** An indicator's disaggregation tables and cross grids, or nothing when it has none. */
export function breakdownSection(s: Speech, entry: IndicatorEntry): Html | null {
  const tables = breakdownsOf(s, entry).map((breakdown) => breakdownTable(s, breakdown));
  const grids = (entry.crossTabulations ?? []).map((cross) => crossGrid(s, cross));
  if (tables.length === 0 && grids.length === 0) return null;
  return html`<div class="breakdowns">${tables}${grids}</div>`;
}
