import { once, type EventEmitter } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import type ExcelJS from 'exceljs';

/** The most characters a spreadsheet cell holds. */
export const CELL_MAX_CHARS = 32_767;

/** What a workbook being streamed offers its writer, one sheet after another. */
export interface WorkbookStream {
  /**
   * A new sheet. Sheets are zipped one after another: write a sheet's rows and commit it before adding
   * the next, or the next one's rows wait in memory until the zip reaches it.
   */
  addSheet(name: string, options?: Partial<ExcelJS.AddWorksheetOptions>): ExcelJS.Worksheet;
  /**
   * Resolves once the zip has taken the rows committed to `sheet` so far: await it between batches of
   * rows, and the rows in memory are one batch at most however slowly the client reads. Rejects once
   * the client has gone.
   */
  settle(sheet: ExcelJS.Worksheet): Promise<void>;
}

/**
 * The zip's input for a sheet: exceljs 4 writes a sheet's rows into its own stream, which archiver reads
 * through a PassThrough of readable-stream 2 (it has `_writableState`, not `writableNeedDrain`).
 */
interface ZipInput extends EventEmitter {
  _writableState: { needDrain: boolean };
}

/** The zip's side of a sheet's stream: where rows wait until the zip takes them. */
function zipInputOf(sheet: ExcelJS.Worksheet): ZipInput {
  const pipes = (sheet as unknown as { stream?: { pipes?: ZipInput[] } }).stream?.pipes;
  const input = pipes?.[0];
  // Without it the memory bound would be lost silently: refuse instead (a test writes rows nobody
  // reads and checks that they wait).
  if (typeof input?._writableState?.needDrain !== 'boolean') {
    throw new Error('exceljs: a streamed sheet without its zip input (an unexpected exceljs version)');
  }
  return input;
}

/**
 * An .xlsx written by exceljs's streaming writer (no shared strings: nothing kept per string) as it is
 * read: `write` adds the sheets and their rows; the workbook's bytes come out of the returned stream as
 * they are zipped. exceljs does not wait for the zip (its sheet streams ignore back-pressure), so
 * `settle` waits for the zip's input to drain: memory holds a batch of rows, not the workbook. A failure
 * in `write` ends the stream with that error (the answer is cut short); a client that leaves stops
 * `write` at its next `settle`. exceljs is loaded on first use.
 */
export async function streamWorkbook(
  write: (book: WorkbookStream) => Promise<void>,
  options: { creator?: string; created?: Date } = {},
): Promise<Readable> {
  const { default: Excel } = await import('exceljs');
  const output = new PassThrough();
  const gone = new AbortController();
  output.once('close', () => gone.abort());
  const workbook = new Excel.stream.xlsx.WorkbookWriter({
    stream: output,
    useStyles: true,
    useSharedStrings: false,
  });
  workbook.creator = options.creator ?? 'MEL';
  workbook.created = options.created ?? new Date();
  const book: WorkbookStream = {
    addSheet: (name, sheetOptions) => workbook.addWorksheet(name, sheetOptions),
    async settle(sheet) {
      if (gone.signal.aborted) throw new Error('The client went away');
      const input = zipInputOf(sheet);
      if (input._writableState.needDrain) await once(input, 'drain', { signal: gone.signal });
    },
  };
  void (async () => {
    try {
      await write(book);
      await workbook.commit();
    } catch (err) {
      output.destroy(err as Error);
    }
  })();
  return output;
}

/** A sheet name Excel accepts: none of `[]:*?/\`, 31 characters at most, unique in the workbook whatever the case. */
export function sheetName(wanted: string, taken: Set<string>): string {
  const base = wanted.replace(/[[\]:*?/\\]/g, '_').slice(0, 31) || 'Sheet';
  let name = base;
  for (let n = 2; taken.has(name.toLowerCase()); n++) {
    const suffix = ` (${n})`;
    name = base.slice(0, 31 - suffix.length) + suffix;
  }
  taken.add(name.toLowerCase());
  return name;
}
