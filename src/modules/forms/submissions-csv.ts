import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Db } from '../../db/client.js';
import type { FormField, Location } from './form-fields.js';
import { filesOf, submissionsAfter, type SubmissionRow } from './submissions.repo.js';

/** Submissions read per query: memory stays flat whatever the form's size. */
const SLICE = 1000;

/**
 * A spreadsheet opens a cell that starts with =, +, -, @, tab or carriage return as a formula; a
 * respondent's text is data, so such text gets a leading apostrophe (OWASP's advice). Numbers are
 * written as numbers and keep their sign.
 */
const inert = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);

const coordinates = (location: Location) => `${location.lat},${location.lng}`;

function cell(value: unknown): string | number | boolean {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return inert(value.join('; '));
  if (typeof value === 'object') return coordinates(value as Location);
  return typeof value === 'string' ? inert(value) : (value as number | boolean);
}

/** Submissions oldest first, a slice at a time, with their files' download URLs. */
async function* rows(db: Db, formId: string, fields: FormField[], baseUrl: string) {
  yield ['id', 'submittedAt', 'counted', 'location', ...fields.map((field) => field.key)];
  let after: SubmissionRow | null = null;
  for (;;) {
    const slice: SubmissionRow[] = await submissionsAfter(db, formId, after, SLICE);
    if (slice.length === 0) return;
    const hasFileFields = fields.some((field) => field.type === 'file');
    const files = hasFileFields
      ? await filesOf(
          db,
          slice.map((row) => row.id),
        )
      : [];
    for (const row of slice) {
      const answers: Record<string, unknown> = { ...row.answers };
      for (const file of files) {
        if (file.submissionId === row.id) {
          answers[file.fieldKey] =
            `${baseUrl}/orgs/${row.orgId}/forms/${row.formId}/submissions/${row.id}/files/${file.fieldKey}`;
        }
      }
      yield [
        row.id,
        row.submittedAt.toISOString(),
        row.counted,
        row.location ? coordinates(row.location) : '',
        ...fields.map((field) => cell(answers[field.key])),
      ];
    }
    if (slice.length < SLICE) return;
    after = slice.at(-1)!;
  }
}

/**
 * The form's submissions as CSV (RFC 4180, UTF-8), streamed: one row per submission, one column per
 * field by key, multi-select answers joined with "; ", locations as `lat,lng`, files as download URLs.
 */
export function submissionsCsv(db: Db, formId: string, fields: FormField[], baseUrl: string): Readable {
  const csv = stringify({ cast: { boolean: (value) => String(value) } });
  const source = Readable.from(rows(db, formId, fields, baseUrl));
  source.once('error', (err) => csv.destroy(err));
  csv.once('close', () => source.destroy());
  return source.pipe(csv);
}
