import type { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Db } from '../../db/client.js';
import { readAhead } from '../../lib/read-ahead.js';
import { answerOf, topLevelFields, type FormField, type Location } from './form-fields.js';
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

/** Submissions read per query: memory stays flat whatever the form's size. */
const SLICE = 1000;

/**
 * Rows per chunk of text, about 45 KB: few enough writes for the compression stream, and each chunk well
 * under V8's large-object size (128 KB), which only a full collection frees.
 */
const ROWS_PER_CHUNK = 250;

/**
 * Every string is quoted, so a `;` or tab inside an answer never ends the cell, whatever separator the
 * spreadsheet's locale uses; numbers and booleans are left bare so they stay numbers and booleans.
 */
const CSV_OPTIONS = { quoted_string: true, cast: { boolean: (value: boolean) => String(value) } };

// OWASP's formula triggers, with the full-width forms Apple Numbers folds into them (csv-stringify's list).
const TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20']);
// Where a spreadsheet may start a new cell inside ours: list separators of every locale, and line breaks.
const SEPARATORS = new Set([';', ',', '\t', '\r', '\n']);
const ANY_TRIGGER = /[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
// What import trimming or a quote may put before a trigger: spaces of every kind (NBSP too) and `"`.
const SKIPPED = /^[\p{Zs}"]$/u;

/**
 * A respondent's text is data: every formula trigger that starts the cell, or a part of it a spreadsheet
 * may split off (after a separator, leading spaces and quotes skipped as import trimming would), gets an apostrophe.
 * One pass over the characters: linear whatever the input.
 */
export function inert(text: string): string {
  // Most answers hold no trigger at all: one native scan (a single character class) returns them as they are.
  if (!ANY_TRIGGER.test(text)) return text;
  let out = '';
  let atStart = true;
  for (const char of text) {
    if (atStart && TRIGGERS.has(char)) out += "'";
    out += char;
    atStart = SEPARATORS.has(char) || (atStart && SKIPPED.test(char));
  }
  return out;
}

const coordinates = (location: Location) => `${location.lat},${location.lng}`;

/** Text is guarded (and quoted by the stringifier); numbers stay numbers, negative ones included. */
function cell(value: unknown): string | number | boolean | null {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) return inert(value.join('; '));
  // Coordinates are written from two validated numbers: nothing of the respondent's text is in them.
  if (typeof value === 'object') return coordinates(value as Location);
  return typeof value === 'string' ? inert(value) : (value as number | boolean);
}

/** The form a CSV export reads: its key and its fields. */
interface ExportedForm {
  orgId: string;
  id: string;
  fields: FormField[];
}

/**
 * The columns of a level of answers: one per answerable field, groups flattened, notes none, calculate
 * fields a column, a repeat one column holding its number of entries.
 */
export const columnsOf = (fields: FormField[]): FormField[] =>
  topLevelFields(fields).filter((field) => field.type !== 'group' && field.type !== 'note');

/** A column's cell: a repeat's number of entries, any other answer as `cell` writes it. */
const columnCell = (field: FormField, answer: unknown) =>
  field.type === 'repeat' ? (Array.isArray(answer) ? answer.length : null) : cell(answer);

/** What one export writes: every submission a row, or (`repeat`) every entry of one repeat a row. */
interface Export {
  form: ExportedForm;
  baseUrl: string;
  personal: PersonalAnswers;
  /** The repeat whose entries are the rows; undefined: the submissions. */
  repeat?: FormField;
}

const headerOf = ({ form, repeat }: Export): string[] =>
  repeat
    ? ['submission_id', 'entry', ...columnsOf(repeat.fields ?? []).map((field) => field.key)]
    : ['id', 'submittedAt', 'counted', 'location', ...columnsOf(form.fields).map((field) => field.key)];

/** The records of one submission: its row, or its repeat's entries, each joined to it by its id. */
function recordsOf(row: SubmissionRow, files: SubmissionFileRow[], exported: Export): unknown[][] {
  const { personal, repeat, baseUrl } = exported;
  const answers = readableAnswers(personal, row);
  if (repeat) {
    const entries = answerOf(answers, repeat.key);
    const columns = columnsOf(repeat.fields ?? []);
    return (Array.isArray(entries) ? entries : []).map((entry, index) => {
      const given = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
      return [row.id, index + 1, ...columns.map((field) => columnCell(field, answerOf(given, field.key)))];
    });
  }
  const location = readableLocation(personal, row);
  for (const file of files) {
    if (file.submissionId === row.id)
      answers[file.fieldKey] = baseUrl + submissionFileUrl(row, file.fieldKey);
  }
  const record: unknown[] = [
    row.id,
    row.submittedAt.toISOString(),
    row.counted,
    location ? coordinates(location) : null,
  ];
  for (const field of columnsOf(exported.form.fields))
    record.push(columnCell(field, answerOf(answers, field.key)));
  return [record];
}

/**
 * One slice of submissions as CSV text, in chunks of ROWS_PER_CHUNK submissions, with their files'
 * download URLs; personal answers and positions as the reader may get them (empty cells otherwise, the
 * columns stay). The rows are read and written in this one call, so none of them outlives it.
 */
function csvOf(slice: SubmissionRow[], files: SubmissionFileRow[], exported: Export): string[] {
  const chunks: string[] = [];
  for (let start = 0; start < slice.length; start += ROWS_PER_CHUNK) {
    const records = slice
      .slice(start, start + ROWS_PER_CHUNK)
      .flatMap((row) => recordsOf(row, files, exported));
    chunks.push(stringify(records, CSV_OPTIONS));
  }
  return chunks;
}

/** The next slice after `after` as CSV chunks, and where the one after it starts (null: this was the last). */
async function sliceAfter(
  db: Db,
  exported: Export,
  filter: SubmissionFilter,
  after: { submittedAt: Date; id: string } | null,
): Promise<{ chunks: string[]; last: { submittedAt: Date; id: string } | null }> {
  const { form } = exported;
  const slice = await submissionsAfter(db, form.orgId, form.id, after, SLICE, filter);
  const files =
    slice.length > 0 && !exported.repeat && topLevelFields(form.fields).some((field) => field.type === 'file')
      ? await filesOf(
          db,
          form.orgId,
          slice.map((row) => row.id),
        )
      : [];
  const last = slice.length === SLICE ? slice[SLICE - 1]! : null;
  return {
    chunks: csvOf(slice, files, exported),
    last: last && { submittedAt: last.submittedAt, id: last.id },
  };
}

/**
 * The CSV text of submissions oldest first, a slice at a time, in chunks of about 45 KB: a chunk per
 * row (as a row stream gives) made the compression stream take 100,000 writes of 180 bytes for a
 * 100,000-row export, each a round trip to zlib's thread: the compressed export took 3.5 s of CPU,
 * 1.7 s in chunks (measured).
 */
async function* chunks(db: Db, exported: Export, filter: SubmissionFilter): AsyncGenerator<string> {
  // The header row goes out with the first rows, so that the first piece holds the first read.
  let header = stringify([headerOf(exported)], CSV_OPTIONS);
  let after: { submittedAt: Date; id: string } | null = null;
  do {
    const slice: Awaited<ReturnType<typeof sliceAfter>> = await sliceAfter(db, exported, filter, after);
    const [first = '', ...rest] = slice.chunks;
    yield header + first;
    header = '';
    yield* rest;
    after = slice.last;
  } while (after);
}

/**
 * The form's submissions (those the filter takes) as CSV (RFC 4180, UTF-8), streamed: one row per
 * submission, one column per answerable top-level field by key (groups flattened, notes none, a repeat
 * its number of entries), multi-select answers joined with "; ", locations as `lat,lng`, files as
 * download URLs. With `repeat` (a repeat field of the form outside other repeats): one row per entry,
 * `submission_id`, `entry` (1-based), then one column per field of the repeat, as ODK and Kobo export
 * them. Text cells are quoted and guarded (`inert`); numbers and booleans are bare; no answer is an empty field,
 * and so is a personal answer or a position the reader may not get. Resolves once the first slice is
 * read: a read that fails (a replica that hangs) fails here, before anything is sent, and may run again
 * elsewhere.
 */
export function submissionsCsv(
  db: Db,
  form: ExportedForm,
  baseUrl: string,
  personal: PersonalAnswers,
  filter: SubmissionFilter = {},
  repeat?: FormField,
): Promise<Readable> {
  // One slice ahead at most: the slice being sent, and the one PostgreSQL is reading.
  // One chunk ahead at most: the export's memory stays flat however slowly the client reads.
  return readAhead(chunks(db, { form, baseUrl, personal, repeat }, filter));
}
