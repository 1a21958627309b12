import type { Readable } from 'node:stream';
import type ExcelJS from 'exceljs';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import {
  CELL_MAX_CHARS,
  sheetName,
  streamWorkbook,
  type WorkbookStream,
} from '../../lib/spreadsheets/streamed-workbook.js';
import type { AuditSource } from '../privacy/index.js';
import { answerOf, choicesOf, topLevelFields, type FormField, type Location } from './form-fields.js';
import { localizeForm } from './form-languages.js';
import { columnsOf } from './submissions-csv.js';
import { openSubmissionsExport } from './submissions-export.js';
import {
  readableAnswers,
  readableLocation,
  submissionFileUrl,
  type PersonalAnswers,
} from './submission-view.js';
import {
  filesOf,
  submissionsAfter,
  type SubmissionFileRow,
  type SubmissionFilter,
  type SubmissionRow,
} from './submissions.repo.js';

/**
 * A form's submissions as an .xlsx workbook, streamed (GET .../forms/:id/submissions.xlsx): the CSV
 * export's rows (the same slices, the same personal-data decision and audit entry) with the answers as
 * a person reads them: choice labels, numbers, dates and booleans as spreadsheet values. One sheet of
 * submissions, then one per repeat field, each read in its own pass over the submissions: a zip writes
 * its entries one after another, so sheets written side by side would wait whole in memory.
 */

/** Submissions read per query, as the CSV export: memory stays flat whatever the form's size. */
const SLICE = 1000;

/** Where a pass starts after, and where the first pass ended: later passes stop there. */
interface Position {
  submittedAt: Date;
  id: string;
}

const after = (row: Position, position: Position) =>
  row.submittedAt.getTime() > position.submittedAt.getTime() ||
  (row.submittedAt.getTime() === position.submittedAt.getTime() && row.id > position.id);

/** A repeat field with the repeats around it, outermost first. */
interface RepeatSheet {
  repeat: FormField;
  outer: FormField[];
}

/** Every repeat of the form at any depth, in the form's order, each with the repeats it sits in. */
function repeatSheets(fields: FormField[], outer: FormField[] = []): RepeatSheet[] {
  return topLevelFields(fields).flatMap((field) =>
    field.type === 'repeat'
      ? [{ repeat: field, outer }, ...repeatSheets(field.fields ?? [], [...outer, field])]
      : [],
  );
}

const isEntry = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The entries of a repeat in one submission's answers, each with its 1-based number at every level. */
function entriesOf(
  answers: Record<string, unknown>,
  path: FormField[],
  numbers: number[] = [],
): { numbers: number[]; entry: Record<string, unknown> }[] {
  const [first, ...rest] = path;
  if (!first) return [{ numbers, entry: answers }];
  const entries = answerOf(answers, first.key);
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry, index) =>
    isEntry(entry) ? entriesOf(entry, rest, [...numbers, index + 1]) : [],
  );
}

const coordinates = (location: Location) => `${location.lat},${location.lng}`;
const DAY = /^\d{4}-\d\d-\d\d$/;
const text = (value: string) => (value.length > CELL_MAX_CHARS ? value.slice(0, CELL_MAX_CHARS) : value);

/** Choice labels by name, per choice field: made once per export. */
type Labels = Map<string, Map<string, string>>;

function labelsOf(fields: FormField[]): Labels {
  const labels: Labels = new Map();
  const visit = (list: FormField[]) => {
    for (const field of list) {
      if (field.type === 'select' || field.type === 'multi_select') {
        labels.set(field.key, new Map(choicesOf(field).map((choice) => [choice.name, choice.label])));
      }
      if (field.fields) visit(field.fields);
    }
  };
  visit(fields);
  return labels;
}

/**
 * An answer as a cell: a choice's label (a name the field no longer has, as stored), several joined
 * with "; "; a date a date; a number, a boolean as they are; coordinates `lat,lng`; a repeat its number
 * of entries. A text cell is never a formula in .xlsx: `=` and the rest stay as typed.
 */
function cellOf(field: FormField, answer: unknown, labels: Labels): ExcelJS.CellValue {
  if (answer === undefined || answer === null) return null;
  if (field.type === 'repeat') return Array.isArray(answer) ? answer.length : null;
  const choices = labels.get(field.key);
  if (choices) {
    const labelOf = (name: unknown) => choices.get(String(name)) ?? String(name);
    return text(Array.isArray(answer) ? answer.map(labelOf).join('; ') : labelOf(answer));
  }
  if (field.type === 'date' && typeof answer === 'string' && DAY.test(answer)) {
    return new Date(`${answer}T00:00:00.000Z`);
  }
  if (Array.isArray(answer)) return text(answer.join('; '));
  if (typeof answer === 'object') {
    const place = answer as Partial<Location>;
    return typeof place.lat === 'number' && typeof place.lng === 'number'
      ? coordinates(place as Location)
      : text(JSON.stringify(answer));
  }
  if (typeof answer === 'string') return text(answer);
  return answer as number | boolean;
}

/** A column's width in characters, by what it holds; 24 for the rest. */
const WIDTHS: Partial<Record<FormField['type'], number>> = {
  number: 12,
  boolean: 10,
  repeat: 12,
  date: 12,
  textarea: 40,
  file: 50,
};
const widthOf = (field: FormField): number => WIDTHS[field.type] ?? 24;

const DATE_FORMAT = 'yyyy-mm-dd';
const TIME_FORMAT = 'yyyy-mm-dd hh:mm:ss';

/** The two header rows (labels, then names), the columns' widths and formats, and the frozen panes. */
function startSheet(
  book: WorkbookStream,
  name: string,
  columns: { label: string; name: string; width: number; numFmt?: string }[],
  frozenColumns: number,
): ExcelJS.Worksheet {
  const sheet = book.addSheet(name, {
    views: [{ state: 'frozen', xSplit: frozenColumns, ySplit: 2 }],
  });
  sheet.columns = columns.map((column) => ({
    key: column.name,
    width: column.width,
    ...(column.numFmt && { style: { numFmt: column.numFmt } }),
  }));
  const labels = sheet.addRow(columns.map((column) => column.label));
  labels.font = { bold: true };
  labels.commit();
  const names = sheet.addRow(columns.map((column) => column.name));
  names.font = { italic: true, color: { argb: 'FF666666' } };
  names.commit();
  return sheet;
}

const fieldColumn = (field: FormField) => ({
  label: field.label ?? field.key,
  name: field.key,
  width: widthOf(field),
  ...(field.type === 'date' && { numFmt: DATE_FORMAT }),
});

/** What one export writes. */
interface Export {
  db: Db;
  form: { orgId: string; id: string; fields: FormField[] };
  baseUrl: string;
  personal: PersonalAnswers;
  filter: SubmissionFilter;
  labels: Labels;
}

type Slice = { rows: SubmissionRow[]; files: SubmissionFileRow[]; last: Position | null };

/** A slice of submissions after `from`, with their files when `withFiles`. */
async function readSlice(exported: Export, from: Position | null, withFiles: boolean): Promise<Slice> {
  const { db, form, filter } = exported;
  const rows = await submissionsAfter(db, form.orgId, form.id, from, SLICE, filter);
  const files =
    withFiles && rows.length > 0
      ? await filesOf(
          db,
          form.orgId,
          rows.map((row) => row.id),
        )
      : [];
  const last = rows.length === SLICE ? rows[SLICE - 1]! : null;
  return { rows, files, last: last && { submittedAt: last.submittedAt, id: last.id } };
}

/**
 * The submissions oldest first, a slice at a time, the next slice read while this one is written; up to
 * `until` when given (later passes stop where the first one ended). `first`: the first slice, read already.
 */
async function* slices(
  exported: Export,
  withFiles: boolean,
  first: Slice | null,
  until: Position | null,
): AsyncGenerator<Slice> {
  let next: Promise<Slice> = first ? Promise.resolve(first) : readSlice(exported, null, withFiles);
  for (;;) {
    const slice = await next;
    const rows = until ? slice.rows.filter((row) => !after(row, until)) : slice.rows;
    const more = slice.last !== null && rows.length === slice.rows.length;
    if (more) {
      next = readSlice(exported, slice.last, withFiles);
      // Awaited at the next turn; a client that leaves before it must not leave it unhandled.
      next.catch(() => undefined);
    }
    yield { ...slice, rows };
    if (!more) return;
  }
}

/** The sheet of submissions; resolves with where it ended (null: no submission). */
async function writeSubmissions(
  book: WorkbookStream,
  exported: Export,
  name: string,
  first: Slice,
): Promise<Position | null> {
  const { form, personal, labels, baseUrl } = exported;
  const columns = columnsOf(form.fields);
  const files = columns.some((field) => field.type === 'file');
  const sheet = startSheet(
    book,
    name,
    [
      { label: 'Submission ID', name: 'id', width: 38 },
      { label: 'Submitted at (UTC)', name: 'submittedAt', width: 20, numFmt: TIME_FORMAT },
      { label: 'Counted', name: 'counted', width: 10 },
      { label: 'Location', name: 'location', width: 22 },
      ...columns.map(fieldColumn),
    ],
    1,
  );
  let end: Position | null = null;
  for await (const slice of slices(exported, files, first, null)) {
    for (const row of slice.rows) {
      const answers = readableAnswers(personal, row);
      for (const file of slice.files) {
        if (file.submissionId === row.id)
          answers[file.fieldKey] = baseUrl + submissionFileUrl(row, file.fieldKey);
      }
      const location = readableLocation(personal, row);
      sheet
        .addRow([
          row.id,
          row.submittedAt,
          row.counted,
          location ? coordinates(location) : null,
          ...columns.map((field) =>
            field.type === 'file'
              ? ((answerOf(answers, field.key) as string | undefined) ?? null)
              : cellOf(field, answerOf(answers, field.key), labels),
          ),
        ])
        .commit();
      end = { submittedAt: row.submittedAt, id: row.id };
    }
    await book.settle(sheet);
  }
  sheet.commit();
  return end;
}

/** A repeat's sheet: one row per entry, after the submission's id and the entry's number at each level. */
async function writeRepeat(
  book: WorkbookStream,
  exported: Export,
  name: string,
  { repeat, outer }: RepeatSheet,
  until: Position | null,
): Promise<void> {
  const { personal, labels } = exported;
  const columns = columnsOf(repeat.fields ?? []);
  const sheet = startSheet(
    book,
    name,
    [
      { label: 'Submission ID', name: 'submission_id', width: 38 },
      ...outer.map((around) => ({
        label: `${around.label ?? around.key} entry`,
        name: `${around.key}_entry`,
        width: 10,
      })),
      { label: 'Entry', name: 'entry', width: 8 },
      ...columns.map(fieldColumn),
    ],
    2 + outer.length,
  );
  const path = [...outer, repeat];
  if (until) {
    for await (const slice of slices(exported, false, null, until)) {
      for (const row of slice.rows) {
        for (const { numbers, entry } of entriesOf(readableAnswers(personal, row), path)) {
          sheet
            .addRow([
              row.id,
              ...numbers,
              ...columns.map((field) => cellOf(field, answerOf(entry, field.key), labels)),
            ])
            .commit();
        }
      }
      await book.settle(sheet);
    }
  }
  sheet.commit();
}

export interface SubmissionsXlsxQuery extends SubmissionFilter {
  lang?: string;
}

/**
 * The export: the opening the CSV export shares (submissions-export.ts: the form, the filter checked, the
 * audit entry) and the first slice read, all before the answer starts; then the workbook, streamed.
 */
export async function submissionsXlsx(
  deps: { db: Db; config: Config },
  member: Member,
  id: string,
  source: AuditSource,
  { lang, ...filter }: SubmissionsXlsxQuery,
  reads: Db = deps.db,
): Promise<{ fileName: string; workbook: Readable }> {
  const { form, personal, rows } = await openSubmissionsExport(deps, member, id, source, { filter, reads });
  const localized = localizeForm(form, lang);
  const job: Export = {
    db: rows,
    form: { orgId: form.orgId, id: form.id, fields: form.fields },
    baseUrl: deps.config.baseUrl,
    personal,
    filter,
    labels: labelsOf(localized.fields),
  };
  const withFiles = columnsOf(form.fields).some((field) => field.type === 'file');
  // The first slice is read before the answer starts: a read that fails fails here, with its status.
  const first = await readSlice(job, null, withFiles);
  const repeats = repeatSheets(localized.fields);
  const taken = new Set<string>();
  const names = {
    main: sheetName('Submissions', taken),
    repeats: repeats.map((r) => sheetName(r.repeat.key, taken)),
  };
  const workbook = await streamWorkbook(async (book) => {
    const labelled = { ...job, form: { ...job.form, fields: localized.fields } };
    const end = await writeSubmissions(book, labelled, names.main, first);
    for (const [index, sheet] of repeats.entries()) {
      await writeRepeat(book, labelled, names.repeats[index]!, sheet, end);
    }
  });
  return { fileName: `${form.title.replace(/[\\/]/g, '_')}.xlsx`, workbook };
}
