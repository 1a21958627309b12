import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Db } from '../../db/client.js';
import type { FormField, Location } from './form-fields.js';
import { readableAnswers, submissionFileUrl, type PersonalAnswers } from './submission-view.js';
import { filesOf, submissionsAfter, type SubmissionFilter, type SubmissionRow } from './submissions.repo.js';

/** Submissions read per query: memory stays flat whatever the form's size. */
const SLICE = 1000;

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
function inert(text: string): string {
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
 * Submissions oldest first, a slice at a time, with their files' download URLs; personal answers as
 * the reader may get them (empty cells otherwise, the columns stay).
 */
async function* rows(
  db: Db,
  form: ExportedForm,
  baseUrl: string,
  personal: PersonalAnswers,
  filter: SubmissionFilter,
) {
  const { orgId, id: formId, fields } = form;
  yield ['id', 'submittedAt', 'counted', 'location', ...fields.map((field) => field.key)];
  let after: SubmissionRow | null = null;
  for (;;) {
    const slice: SubmissionRow[] = await submissionsAfter(db, orgId, formId, after, SLICE, filter);
    if (slice.length === 0) return;
    const hasFileFields = fields.some((field) => field.type === 'file');
    const files = hasFileFields
      ? await filesOf(
          db,
          orgId,
          slice.map((row) => row.id),
        )
      : [];
    for (const row of slice) {
      const answers = readableAnswers(personal, row);
      for (const file of files) {
        if (file.submissionId === row.id) {
          answers[file.fieldKey] = baseUrl + submissionFileUrl(row, file.fieldKey);
        }
      }
      yield [
        row.id,
        row.submittedAt.toISOString(),
        row.counted,
        row.location ? coordinates(row.location) : null,
        ...fields.map((field) => cell(answers[field.key])),
      ];
    }
    if (slice.length < SLICE) return;
    after = slice.at(-1)!;
  }
}

/**
 * The form's submissions (those the filter takes) as CSV (RFC 4180, UTF-8), streamed: one row per submission, one column per
 * field by key, multi-select answers joined with "; ", locations as `lat,lng`, files as download URLs.
 * Text cells are quoted and guarded (`inert`); numbers and booleans are bare; no answer is an empty field,
 * and so is a personal answer the reader may not get.
 */
export function submissionsCsv(
  db: Db,
  form: ExportedForm,
  baseUrl: string,
  personal: PersonalAnswers,
  filter: SubmissionFilter = {},
): Readable {
  // Every string is quoted, so a `;` or tab inside an answer never ends the cell, whatever separator
  // the spreadsheet's locale uses; numbers and booleans are left bare so they stay numbers and booleans.
  const csv = stringify({ quoted_string: true, cast: { boolean: (value) => String(value) } });
  const source = Readable.from(rows(db, form, baseUrl, personal, filter));
  source.once('error', (err) => csv.destroy(err));
  csv.once('close', () => source.destroy());
  return source.pipe(csv);
}
