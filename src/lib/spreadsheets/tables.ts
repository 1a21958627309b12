import type ExcelJS from 'exceljs';
import { checkZip, type ZipLimits } from './xlsx-zip.js';

/**
 * Spreadsheets read as tables of text: the imports' one reading of an uploaded .xlsx or .csv. The first
 * row of a sheet names its columns; each later row that holds anything is one record, its cells as
 * trimmed text keyed by the column's name (lower-cased, spaces and dashes as `_`). Numbers read back as
 * JavaScript writes them, dates as `YYYY-MM-DD`, formulas as their cached result. exceljs is loaded on
 * first use: a process that never reads a workbook never pays for it.
 */

/** The media type of an .xlsx workbook. */
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

export interface TableLimits extends ZipLimits {
  /** Rows of one sheet (the header row aside). */
  rows: number;
  columns: number;
  cellChars: number;
}

export interface TableRow {
  /** The row's number in the sheet as a spreadsheet shows it (the header is row 1). */
  row: number;
  /** The row's cells that hold text, by column name. */
  values: Record<string, string>;
}

export interface Table {
  /** The sheet's name as written (`data` for a CSV). */
  name: string;
  /** Column names as read, normalized; their letters are in `letters`. */
  columns: string[];
  /** The spreadsheet letter of each column, by name (`C`): `cell()` places a message by it. */
  letters: Record<string, string>;
  /** Each column's header as written (`First Name`), by name: a sheet written back keeps it. */
  titles: Record<string, string>;
  rows: TableRow[];
}

/** What went wrong reading a file: `tooLarge` past a bound (413), otherwise not a file we read (400/415). */
export class TableError extends Error {
  constructor(
    message: string,
    readonly tooLarge = false,
  ) {
    super(message);
  }
}

/** A column's letters from its number (1 = A, 27 = AA). */
export function columnLetter(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** `indicators!C12`: where a message about a cell points; the sheet alone (`!`-less) when no column. */
export function cell(table: Pick<Table, 'name' | 'letters'>, row: number, column?: string): string {
  const letter = column === undefined ? undefined : table.letters[column];
  return letter ? `${table.name}!${letter}${row}` : `${table.name}!${row}:${row}`;
}

export const normalColumn = (text: string): string =>
  text
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

/** A cell's value as text (exceljs hands rich text, formulas, hyperlinks and dates as objects). */
export function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  // A number too large for a date, formatted as one, is an Invalid Date: read as no date.
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString().slice(0, 10);
  if (typeof value === 'object') {
    if ('richText' in value) return value.richText.map((run) => run.text).join('');
    if ('formula' in value || 'sharedFormula' in value) {
      return cellText((value as { result?: ExcelJS.CellValue }).result);
    }
    if ('error' in value) return '';
    if ('text' in value) return cellText(value.text);
  }
  return '';
}

/** Reads the header row and the records of rows already split into cells (1-based column numbers). */
function tableOf(
  name: string,
  rows: Iterable<{ row: number; cells: Iterable<[number, string]> }>,
  limits: TableLimits,
): Table {
  const columns: string[] = [];
  const byNumber = new Map<number, string>();
  const letters: Record<string, string> = {};
  const titles: Record<string, string> = {};
  const records: TableRow[] = [];
  let header = true;
  for (const { row, cells } of rows) {
    if (header) {
      for (const [column, text] of cells) {
        const key = normalColumn(text);
        if (key === '') continue;
        if (column > limits.columns)
          throw new TableError(`${name}: more than ${limits.columns} columns`, true);
        if (key in letters)
          throw new TableError(`${name}!${columnLetter(column)}1: the column ${key} is given twice`);
        byNumber.set(column, key);
        letters[key] = columnLetter(column);
        titles[key] = text.trim();
        columns.push(key);
      }
      header = false;
      continue;
    }
    const values = Object.create(null) as Record<string, string>;
    let any = false;
    for (const [column, raw] of cells) {
      const text = raw.trim();
      if (text === '') continue;
      const key = byNumber.get(column);
      if (key === undefined) {
        throw new TableError(`${name}!${columnLetter(column)}${row}: a value in a column without a header`);
      }
      if (text.length > limits.cellChars) {
        throw new TableError(
          `${name}!${columnLetter(column)}${row}: more than ${limits.cellChars} characters`,
          true,
        );
      }
      values[key] = text;
      any = true;
    }
    if (!any) continue;
    if (records.length === limits.rows) throw new TableError(`${name}: more than ${limits.rows} rows`, true);
    records.push({ row, values });
  }
  return { name, columns, letters, titles, rows: records };
}

/**
 * Every worksheet of an .xlsx, in the workbook's order. The zip is checked against the limits before
 * exceljs inflates it (xlsx-zip.ts); a file exceljs cannot read is a TableError.
 */
export async function readWorkbook(bytes: Buffer, limits: TableLimits): Promise<Table[]> {
  const zip = checkZip(bytes, limits);
  if (!zip.ok) throw new TableError(zip.reason, zip.tooLarge);
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch {
    throw new TableError('not an .xlsx workbook that can be read');
  }
  return workbook.worksheets.map((sheet) => {
    if (sheet.columnCount > limits.columns) {
      throw new TableError(`${sheet.name}: more than ${limits.columns} columns`, true);
    }
    const rows: { row: number; cells: [number, string][] }[] = [];
    sheet.eachRow((row, number) => {
      const cells: [number, string][] = [];
      row.eachCell((c, column) => cells.push([column, cellText(c.value)]));
      rows.push({ row: number, cells });
    });
    return tableOf(sheet.name.trim(), rows, limits);
  });
}

/**
 * A CSV file as one table named `name` (UTF-8, a byte-order mark dropped; comma, semicolon or tab as
 * the first line uses them; quotes as RFC 4180). Malformed quoting is a TableError naming the line.
 */
export async function readCsv(bytes: Buffer, limits: TableLimits, name = 'data'): Promise<Table> {
  const { parse } = await import('csv-parse/sync');
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  const delimiter = [',', ';', '\t'].reduce((best, d) =>
    firstLine.split(d).length > firstLine.split(best).length ? d : best,
  );
  // Each record with its row as a spreadsheet numbers it; rows with nothing in them (the `,,,` lines
  // spreadsheets write) are dropped as they are read, and count against no limit.
  const records: { row: number; cells: [number, string][] }[] = [];
  let row = 0;
  try {
    parse(text, {
      delimiter,
      relax_column_count: true,
      skip_empty_lines: false,
      max_record_size: limits.cellChars * limits.columns,
      on_record: (record: string[]) => {
        row += 1;
        if (row > 1 && record.every((value) => value.trim() === '')) return null;
        // Past the rows allowed (and the header), the rest is read to its end, kept nowhere.
        if (records.length <= limits.rows + 1) {
          records.push({ row, cells: record.map((value, c) => [c + 1, value] as [number, string]) });
        }
        return null;
      },
    });
  } catch (err) {
    const line = (err as { lines?: number }).lines;
    throw new TableError(`${name}${line ? ` line ${line}` : ''}: not a CSV file that can be read`);
  }
  if (records.length > limits.rows + 1) throw new TableError(`${name}: more than ${limits.rows} rows`, true);
  return tableOf(name, records, limits);
}
