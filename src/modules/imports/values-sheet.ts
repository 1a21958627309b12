import type { Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import type { ImportRowResult } from '../../lib/spreadsheets/import-report.js';
import { cellKey, cellsOf, crossedBy, isCross } from '../../lib/crosses.js';
import { cell, normalColumn, type Table } from '../../lib/spreadsheets/tables.js';
import { importValueRows, readDecimal, type ValueRowInput } from '../indicator-reports/index.js';
import { dimensionsByCode } from './setup-import.repo.js';
import { ignoredColumn } from './setup-sheets.js';

/**
 * The `values` sheet of a set-up workbook: one indicator's value for one period of the project per row.
 * Its rows are read here and applied by the values engine of the indicator-reports module, in the
 * import's transaction.
 */

const OWN_COLUMNS = new Set(['indicator_code', 'period', 'value', 'narrative']);

/** A row of the values sheet, as written, with where each of its cells is. */
export interface ValueRow {
  sheet: string;
  row: number;
  indicatorCode: string | null;
  /** A period's label (or its id). */
  period: string | null;
  /** The total as written; null when blank (the categories then add up to it). */
  value: string | null;
  narrative: string | null;
  /**
   * The categories' cells, by column name as the sheet reads it (lower case, spaces and dashes as `_`:
   * the category `0-17` is the column `0_17`): match them to the indicator's categories the same way.
   */
  disaggregatedValues: Record<string, string>;
  /** The reference of a column's cell on this row (`values!C4`), or of the row (`values!4:4`). */
  cellOf(column?: string): string;
}

/** The rows of the values sheet, in order, each with its cells' references. */
export function valueRowsOf(table: Table): ValueRow[] {
  const categories = table.columns.filter((column) => !OWN_COLUMNS.has(column) && !ignoredColumn(column));
  return table.rows.map(({ row, values }) => ({
    sheet: table.name,
    row,
    indicatorCode: values.indicator_code ?? null,
    period: values.period ?? null,
    value: values.value ?? null,
    narrative: values.narrative ?? null,
    disaggregatedValues: Object.fromEntries(
      categories.filter((column) => values[column] !== undefined).map((column) => [column, values[column]!]),
    ),
    cellOf: (column?: string) => cell(table, row, column),
  }));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The categories of each indicator named, as the sheet's columns read them (`0-17` as `0_17`, a cross's
 * cell `female|15-24` as `female|15_24`) to the category or cell as stored.
 */
async function categoryColumns(tx: Db, orgId: string, codes: string[]) {
  const byCode = new Map<string, Map<string, string>>();
  for (const [code, dimensions] of await dimensionsByCode(tx, orgId, codes)) {
    const columns = new Map<string, string>();
    for (const dimension of dimensions) {
      const keys = isCross(dimension)
        ? cellsOf(crossedBy(dimension, dimensions)).map(cellKey)
        : dimension.categories;
      for (const key of keys) columns.set(normalColumn(key), key);
    }
    byCode.set(code, columns);
  }
  return byCode;
}

/**
 * Applies the values sheet's rows inside the import's transaction `tx` (rolled back after a dry run, or
 * when any row of the workbook is refused) through the values engine of the indicator-reports module,
 * with the rules of one value; the periods and indicators of the same workbook are already written in
 * `tx`. A category column that is not one of the row's indicator refuses the row, naming the cell.
 */
export async function importValuesSheet(
  tx: Db,
  member: Member,
  projectId: string,
  rows: ValueRow[],
  dryRun: boolean,
): Promise<ImportRowResult[]> {
  const codes = [...new Set(rows.map((row) => row.indicatorCode).filter((code) => code !== null))];
  const categories = await categoryColumns(tx, member.orgId, codes);
  const inputs = rows.map((row): ValueRowInput => {
    const problems: NonNullable<ValueRowInput['problems']> = [];
    const input: ValueRowInput = {
      sheet: row.sheet,
      row: row.row,
      rowCell: row.cellOf(),
      cells: {
        indicatorCode: row.cellOf('indicator_code'),
        value: row.cellOf('value'),
        narrative: row.cellOf('narrative'),
      },
      projectId,
      problems,
    };
    if (row.indicatorCode !== null) input.indicatorCode = row.indicatorCode;
    if (row.period !== null) {
      const field = UUID.test(row.period) ? 'periodId' : 'periodLabel';
      input[field] = row.period;
      input.cells[field] = row.cellOf('period');
    }
    if (row.value !== null) {
      const value = readDecimal(row.value);
      if (value === null) problems.push({ field: 'value', message: `value "${row.value}" is not a number` });
      else input.value = value;
    }
    if (row.narrative !== null) input.narrative = row.narrative;
    const own = categories.get(row.indicatorCode?.toLowerCase() ?? '');
    const cells: Record<string, number> = {};
    for (const [column, text] of Object.entries(row.disaggregatedValues)) {
      input.cells.disaggregatedValues ??= row.cellOf(column);
      const key = own?.get(column);
      const amount = readDecimal(text);
      if (own && key === undefined) {
        problems.push({
          field: 'disaggregatedValues',
          message: `${row.cellOf(column)}: ${column} is not a category of ${row.indicatorCode}`,
        });
      } else if (amount === null) {
        problems.push({
          field: 'disaggregatedValues',
          message: `${row.cellOf(column)}: "${text}" is not a number`,
        });
      } else cells[key ?? column] = amount;
    }
    if (Object.keys(cells).length > 0) input.disaggregatedValues = cells;
    return input;
  });
  return importValueRows(tx, member, inputs, { dryRun, atomic: true });
}
