import { badRequest } from '../../errors/catalogue.js';
import { STATUS_COLUMN } from '../../lib/spreadsheets/annotate.js';
import { cell, readCsv, TableError, type Table } from '../../lib/spreadsheets/tables.js';
import { VALUE_FIELDS, type ValueField, type ValueRowInput } from './bulk-value-row.js';
import { MAX_VALUE_ROWS, type BulkValueRow } from './bulk-values.schemas.js';

/** The largest CSV or JSON body of values: 5,000 rows of a few hundred bytes, narratives aside. */
export const BULK_BODY_BYTES = 8 * 1024 * 1024;

const CSV_LIMITS = {
  rows: MAX_VALUE_ROWS,
  columns: 50,
  cellChars: 20_000,
  // A CSV is no zip: these bound nothing here.
  entries: 0,
  unzippedBytes: 0,
  sheetRows: 0,
  sheetCells: 0,
};

/** A CSV column by its normalized name: the JSON field's name lower-cased, with or without `_`. */
const FIELD_OF_COLUMN = new Map<string, ValueField>(
  VALUE_FIELDS.flatMap((field) => [
    [field.toLowerCase(), field],
    [field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`), field],
  ]),
);

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A number cell: digits with a point for decimals (`1250.5`); null with the problem otherwise. */
export function readDecimal(text: string): number | null {
  if (!NUMBER.test(text)) return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/** A disaggregatedValues cell: a JSON object of category → number (`{"female": 12, "male": 8}`). */
function cellsIn(text: string): Record<string, number> | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'disaggregatedValues must be a JSON object of category and number ({"female": 12, "male": 8})';
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return 'disaggregatedValues must be a JSON object of category and number ({"female": 12, "male": 8})';
  }
  const entries = Object.entries(parsed);
  if (entries.length > 500) return 'disaggregatedValues must not have more than 500 categories';
  for (const [key, value] of entries) {
    if (key.length < 1 || key.length > 100)
      return 'disaggregatedValues categories must be 1 to 100 characters';
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      return `disaggregatedValues.${key} must be a number`;
    }
  }
  return parsed as Record<string, number>;
}

/**
 * The rows of a CSV body of values: its header names the columns as the JSON rows name their fields
 * (`projectCode`, `project_code`, `Project code`: any case, spaces or dashes as `_`); an empty cell is a
 * field not sent. Cells that cannot be read (a value that is not a number) refuse their row, naming the
 * cell; an unknown or repeated column, malformed quoting, or more than 5,000 rows refuse the whole body.
 * A `status` column (of a file checked before with `format=xlsx`) is not read. The table is returned
 * beside the rows, for that checked file.
 */
export async function readValuesCsv(text: string): Promise<{ table: Table; rows: ValueRowInput[] }> {
  let table: Table;
  try {
    table = await readCsv(Buffer.from(text, 'utf8'), CSV_LIMITS, 'data');
  } catch (err) {
    if (err instanceof TableError) throw badRequest(err.message);
    throw err;
  }
  const unknown = table.columns.filter((column) => !FIELD_OF_COLUMN.has(column) && column !== STATUS_COLUMN);
  if (unknown.length > 0) {
    throw badRequest(
      ...unknown.map(
        (column) =>
          `${cell(table, 1, column)}: unknown column ${column} (the columns are ${VALUE_FIELDS.join(', ')})`,
      ),
    );
  }
  const twice = VALUE_FIELDS.filter(
    (field) => table.columns.filter((column) => FIELD_OF_COLUMN.get(column) === field).length > 1,
  );
  if (twice.length > 0)
    throw badRequest(...twice.map((field) => `data!1:1: the column ${field} is given twice`));

  const rows = table.rows.map(({ row, values }) => {
    const input: ValueRowInput = {
      sheet: table.name,
      row,
      rowCell: cell(table, row),
      cells: {},
      problems: [],
    };
    for (const [column, text] of Object.entries(values)) {
      const field = FIELD_OF_COLUMN.get(column);
      if (field === undefined) continue; // the status column of a file checked before
      input.cells[field] = cell(table, row, column);
      if (field === 'value') {
        const n = readDecimal(text);
        if (n === null) {
          input.problems!.push({ field, message: `value "${text}" is not a number (a point for decimals)` });
        } else input.value = n;
      } else if (field === 'disaggregatedValues') {
        const cells = cellsIn(text);
        if (typeof cells === 'string') input.problems!.push({ field, message: cells });
        else input.disaggregatedValues = cells;
      } else {
        input[field] = text;
      }
    }
    return input;
  });
  return { table, rows };
}

/** The rows of a JSON body, each field placed by its JSON pointer (`/values/11/value`). */
export function valuesOfJson(rows: readonly BulkValueRow[]): ValueRowInput[] {
  return rows.map((row, index) => {
    const at = `/values/${index}`;
    const cells: Partial<Record<ValueField, string>> = {};
    for (const field of VALUE_FIELDS) if (row[field] !== undefined) cells[field] = `${at}/${field}`;
    return { ...row, sheet: 'values', row: index + 1, rowCell: at, cells };
  });
}
