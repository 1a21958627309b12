import { badRequest } from '../../errors/catalogue.js';
import { STATUS_COLUMN } from '../../lib/spreadsheets/annotate.js';
import { cell, normalColumn, type Table, type TableRow } from '../../lib/spreadsheets/tables.js';

/**
 * The sheets and columns of a project's set-up workbook (docs/spreadsheets.md): which columns each sheet
 * must have, which it may have, and how a row's cells read. Column names are compared as the tables
 * read them (lower case, spaces and dashes as `_`): `Start date` is `start_date`.
 */

export const SETUP_SHEETS = ['results', 'indicators', 'periods', 'values'] as const;
export type SetupSheet = (typeof SETUP_SHEETS)[number];

/** Columns any sheet may carry and the import ignores: the annotated answer's, and notes. */
const IGNORED = new Set([STATUS_COLUMN, 'notes', 'comments']);

/** A per-period target column of the indicators sheet: `target Q1 2026` reads `target_q1_2026`. */
export const PERIOD_TARGET_PREFIX = 'target_';

export const COLUMNS: Record<SetupSheet, { required: string[]; optional: string[] }> = {
  results: { required: ['code', 'title', 'level'], optional: ['parent_code', 'description'] },
  indicators: {
    required: ['code', 'name', 'unit'],
    optional: [
      'aggregation',
      'result_code',
      'description',
      'data_source',
      'formula',
      'disaggregations',
      'baseline',
      'baseline_year',
      'target',
    ],
  },
  periods: { required: ['label', 'start_date', 'end_date'], optional: ['due_date'] },
  // Every other column of the values sheet is a category of the indicator's disaggregations.
  values: { required: ['indicator_code', 'period', 'value'], optional: ['narrative'] },
};

/** The workbook's set-up sheets by name (whatever their case); other sheets (instructions) are not read. */
export type SetupTables = Partial<Record<SetupSheet, Table>>;

/**
 * The set-up sheets of a workbook, their columns checked: a sheet without a required column, or with a
 * column it does not know, is a 400 naming the header cell; a workbook without any of them too.
 */
export function setupTables(tables: Table[]): { sheets: SetupTables; order: SetupSheet[] } {
  const sheets: SetupTables = {};
  const order: SetupSheet[] = [];
  const problems: string[] = [];
  for (const table of tables) {
    const name = table.name.toLowerCase() as SetupSheet;
    if (!SETUP_SHEETS.includes(name)) continue;
    if (sheets[name]) {
      problems.push(`${table.name}: the workbook has two sheets named ${name}`);
      continue;
    }
    sheets[name] = table;
    order.push(name);
    const { required, optional } = COLUMNS[name];
    for (const column of required) {
      if (!table.columns.includes(column))
        problems.push(`${table.name}!1:1: the column ${column} is required`);
    }
    if (name === 'values') continue;
    for (const column of table.columns) {
      const known =
        required.includes(column) ||
        optional.includes(column) ||
        IGNORED.has(column) ||
        (name === 'indicators' && column.startsWith(PERIOD_TARGET_PREFIX));
      if (!known) {
        problems.push(
          `${cell(table, 1, column)}: ${name} has no column ${column} (its columns: ${[...required, ...optional].join(', ')})`,
        );
      }
    }
  }
  if (order.length === 0) {
    problems.push(`the workbook has none of the sheets ${SETUP_SHEETS.join(', ')}`);
  }
  if (problems.length > 0) throw badRequest(...problems);
  return { sheets, order };
}

/** Whether a column of the sheet is ignored by every import (status, notes). */
export const ignoredColumn = (column: string): boolean => IGNORED.has(column);

/**
 * A row's cells as the import reads them: a column the sheet lacks is `undefined` (the field is left as
 * it is), a blank cell of a column it has is `null` (the field is cleared), else the text.
 */
export function cellOf(table: Table, row: TableRow, column: string): string | null | undefined {
  if (!table.columns.includes(column)) return undefined;
  return row.values[column] ?? null;
}

/** A number as a spreadsheet writes it (`1200`, `12.5`, `-3`, `1e3`); null when the text is not one. */
export function numberOf(text: string): number | null {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text.trim())) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

/** Codes and labels match whatever their case and surrounding spaces. */
export const matchKey = (text: string): string => text.trim().toLowerCase();

/** A period label as a per-period target column names it: `Q1 2026` is `q1_2026`. */
export const labelColumn = (label: string): string => normalColumn(label);

/** A disaggregation written in a cell: `Sex: female|male; Age: 0-17|18+`. */
export interface WrittenDisaggregation {
  name: string;
  categories: string[];
}

/** The disaggregations a cell writes, or the problem with it. */
export function disaggregationsOf(text: string): { list: WrittenDisaggregation[] } | { problem: string } {
  const list: WrittenDisaggregation[] = [];
  for (const part of text.split(';')) {
    if (part.trim() === '') continue;
    const colon = part.indexOf(':');
    const name = colon < 0 ? '' : part.slice(0, colon).trim();
    const categories =
      colon < 0
        ? []
        : part
            .slice(colon + 1)
            .split('|')
            .map((c) => c.trim());
    if (name === '' || categories.length === 0 || categories.some((c) => c === '')) {
      return {
        problem:
          `"${part.trim()}" is not a disaggregation: write each as Name: category|category, ` +
          'separated by ; (Sex: female|male; Age: 0-17|18+)',
      };
    }
    list.push({ name, categories });
  }
  return { list };
}
