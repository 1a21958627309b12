import type { Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import type { ImportRowResult } from '../../lib/spreadsheets/import-report.js';
import { cell, type Table } from '../../lib/spreadsheets/tables.js';
import { ignoredColumn } from './setup-sheets.js';

/**
 * The `values` sheet of a set-up workbook: one indicator's value for one period of the project per row.
 * Its rows are read here and applied by the values engine of the indicator-reports module, which
 * `buildApp` hands in (`ValuesImport`), in the import's transaction.
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

/**
 * Applies the values sheet's rows inside the import's transaction `tx` (rolled back after a dry run, or
 * when any row of the workbook is refused), answering one result per row. The periods and indicators of
 * the same workbook are already written in `tx`.
 */
export type ValuesImport = (
  tx: Db,
  member: Member,
  projectId: string,
  rows: ValueRow[],
  dryRun: boolean,
) => Promise<ImportRowResult[]>;

export const VALUES_NOT_READ = 'the values sheet is not read yet';

/** Until the values engine is handed in: every row refused, saying so. */
export const valuesNotRead: ValuesImport = async (_tx, _member, _projectId, rows) =>
  rows.map((row) => ({
    sheet: row.sheet,
    row: row.row,
    cell: row.cellOf(),
    action: 'refused',
    messages: [VALUES_NOT_READ],
  }));
