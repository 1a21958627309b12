import type ExcelJS from 'exceljs';
import type { ImportRowResult } from './import-report.js';
import { CELL_MAX_CHARS } from './streamed-workbook.js';
import { normalColumn, type Table } from './tables.js';

/**
 * An import's answer as the file that was sent (`?format=xlsx`): the uploaded sheets as they were, with a
 * `status` column on each sheet that has reported rows. Its cell says what the row does (`create`,
 * `unchanged`, `refused: unit must not be empty`); a refused row's status cell, and the cell a message
 * names, are filled red, the named cell with the messages as its note. The officer fixes the file they
 * know and sends it again: the imports ignore the `status` column, and a second annotation reuses it.
 * exceljs is loaded on first use.
 */

/** What was uploaded: the workbook's bytes (already checked by readWorkbook), or a CSV read as a table. */
export type AnnotateSource = { xlsx: Buffer } | { csv: Table };

export const STATUS_COLUMN = 'status';

const REFUSED_FILL: ExcelJS.Fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFF8D7DA' } };
const HEADER_FONT: Partial<ExcelJS.Font> = { bold: true };

/** The status cell's text: the action, then the messages. */
export function statusText(result: Pick<ImportRowResult, 'action' | 'messages'>): string {
  return result.messages.length === 0 ? result.action : `${result.action}: ${result.messages.join('; ')}`;
}

/** Text cut to what a cell holds (Excel repairs a file with more), the cut said. */
const fit = (text: string) =>
  text.length <= CELL_MAX_CHARS ? text : `${text.slice(0, CELL_MAX_CHARS - 1)}…`;

/** `C12` of `indicators!C12`, when the reference names one cell of `sheet`. */
function cellAddress(reference: string, sheet: string): string | undefined {
  const at = reference.lastIndexOf('!');
  if (at < 0 || reference.slice(0, at) !== sheet) return undefined;
  const address = reference.slice(at + 1);
  return /^[A-Z]{1,3}[1-9]\d*$/.test(address) ? address : undefined;
}

/** Every reported row of each sheet, by sheet name then row (several results of one row are joined). */
function bySheet(rows: readonly ImportRowResult[]): Map<string, Map<number, ImportRowResult[]>> {
  const sheets = new Map<string, Map<number, ImportRowResult[]>>();
  for (const result of rows) {
    const sheet = sheets.get(result.sheet) ?? new Map<number, ImportRowResult[]>();
    sheets.set(result.sheet, sheet);
    sheet.set(result.row, [...(sheet.get(result.row) ?? []), result]);
  }
  return sheets;
}

function annotateSheet(sheet: ExcelJS.Worksheet, reported: Map<number, ImportRowResult[]>): void {
  const header = sheet.getRow(1);
  let statusColumn = 0;
  header.eachCell((c, column) => {
    if (typeof c.value === 'string' && normalColumn(c.value) === STATUS_COLUMN) statusColumn = column;
  });
  if (statusColumn === 0) {
    statusColumn = Math.max(sheet.columnCount, header.cellCount) + 1;
    const title = header.getCell(statusColumn);
    title.value = STATUS_COLUMN;
    title.font = HEADER_FONT;
  } else {
    // A file annotated before: its old statuses go, so that no row keeps a verdict it no longer has.
    for (let row = 2; row <= sheet.rowCount; row++) {
      const old = sheet.getRow(row).getCell(statusColumn);
      old.value = null;
      old.style = {};
    }
  }
  sheet.getColumn(statusColumn).width = 60;
  for (const [row, results] of reported) {
    const status = sheet.getRow(row).getCell(statusColumn);
    status.value = fit(results.map(statusText).join(' | '));
    status.alignment = { wrapText: true, vertical: 'top' };
    const refused = results.filter((result) => result.action === 'refused');
    if (refused.length === 0) continue;
    status.fill = REFUSED_FILL;
    for (const result of refused) {
      const address = cellAddress(result.cell, sheet.name.trim());
      if (!address) continue;
      const named = sheet.getCell(address);
      named.fill = REFUSED_FILL;
      named.note = fit(result.messages.join('\n'));
    }
  }
}

/** The annotated workbook, as .xlsx bytes. */
export async function annotatedWorkbook(
  source: AnnotateSource,
  rows: readonly ImportRowResult[],
): Promise<Buffer> {
  const { default: Excel } = await import('exceljs');
  const workbook = new Excel.Workbook();
  if ('xlsx' in source) {
    await workbook.xlsx.load(source.xlsx as unknown as ArrayBuffer);
  } else {
    const { csv } = source;
    const sheet = workbook.addWorksheet(csv.name);
    for (const column of csv.columns) {
      sheet.getRow(1).getCell(csv.letters[column]!).value = csv.titles[column] ?? column;
    }
    for (const { row, values } of csv.rows) {
      const line = sheet.getRow(row);
      for (const [column, text] of Object.entries(values)) line.getCell(csv.letters[column]!).value = text;
    }
  }
  const reported = bySheet(rows);
  for (const sheet of workbook.worksheets) {
    const results = reported.get(sheet.name.trim());
    if (results) annotateSheet(sheet, results);
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
