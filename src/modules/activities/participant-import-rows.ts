import type { ValidateFunction } from 'ajv';
import { fileTypeFromBuffer } from 'file-type';
import { badRequest, payloadTooLarge, unsupportedMediaType } from '../../errors/catalogue.js';
import { violations } from '../../http/errors/violations.js';
import { build, guarded } from '../../http/schemas/validation.js';
import {
  cell,
  readCsv,
  readWorkbook,
  TableError,
  type Table,
  type TableLimits,
  XLSX_TYPE,
} from '../../lib/spreadsheets/tables.js';
import { RegistrationItem, type RegistrationItemInput } from './participants.schemas.js';
import { fieldsBesideParticipantId, itemBirthDateProblem } from './registrations.service.js';

/**
 * The rows of a participants sheet as registration items: each column read as the registration field
 * it names, each row checked as one item of POST .../participants is (the same schema, with the routes'
 * own Ajv, and the same rules beyond it). Messages name the cell and the field, never the cell's value:
 * a report carries no personal data.
 */

type Field = keyof RegistrationItemInput;

const MIB = 1024 * 1024;

/** What a participants file may hold (past these: 413). */
export const PARTICIPANT_IMPORT_LIMITS = {
  /** The upload as sent. */
  fileBytes: 10 * MIB,
  /** People, one a row, the header row aside. */
  rows: 10_000,
  /** A cell's characters: past the fields' own lengths (at most 200), a row is refused, not the file. */
  cellChars: 1000,
  columns: 30,
  /** An .xlsx: its zip entries, their size inflated, and the rows and cells of all its sheets. */
  entries: 200,
  unzippedBytes: 64 * MIB,
  sheetRows: 12_000,
  sheetCells: 250_000,
} as const satisfies TableLimits & { fileBytes: number };

export const NOT_A_SHEET = 'file must be an .xlsx workbook or a .csv file';

/** Text in UTF-8; a file that is not is read as Windows-1252, what Excel's plain "CSV" writes. */
function utf8(bytes: Buffer): Buffer {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return bytes;
  } catch {
    return Buffer.from(new TextDecoder('windows-1252').decode(bytes), 'utf8');
  }
}

/**
 * The sheet of participants of an upload: an .xlsx's sheet named `participants` (any case), else its
 * first; or a CSV (its table named `data`). Anything else, an empty file too, is 415; past the limits 413.
 */
export async function readParticipantSheet(bytes: Buffer): Promise<{ table: Table; format: 'xlsx' | 'csv' }> {
  if (bytes.length === 0) throw unsupportedMediaType(`${NOT_A_SHEET}; the file is empty`);
  const type = await fileTypeFromBuffer(bytes);
  const text = type === undefined && !bytes.includes(0);
  if (type?.mime !== XLSX_TYPE && !text) throw unsupportedMediaType(NOT_A_SHEET);
  try {
    if (text) return { table: await readCsv(utf8(bytes), PARTICIPANT_IMPORT_LIMITS), format: 'csv' };
    const sheets = await readWorkbook(bytes, PARTICIPANT_IMPORT_LIMITS);
    const table = sheets.find((sheet) => sheet.name.toLowerCase() === 'participants') ?? sheets[0];
    if (!table) throw badRequest('file: the workbook has no sheet');
    return { table, format: 'xlsx' };
  } catch (err) {
    if (!(err instanceof TableError)) throw err;
    throw err.tooLarge ? payloadTooLarge(`file: ${err.message}`) : badRequest(`file: ${err.message}`);
  }
}

/** The fields a row may give, in the order the documentation lists them. */
export const IMPORT_FIELDS = [
  'firstName',
  'lastName',
  'sex',
  'dateOfBirth',
  'phone',
  'nationalId',
  'village',
  'district',
  'participantId',
  'role',
  'attended',
] as const satisfies readonly Field[];

/** Other spellings of a field's header, as spreadsheets commonly have them (compared without `_`). */
const ALIASES: Record<string, Field> = {
  gender: 'sex',
  dob: 'dateOfBirth',
  birthdate: 'dateOfBirth',
  phonenumber: 'phone',
};

/** A header's field: `first_name`, `firstName`, `First Name` and `first-name` all name firstName. */
const FIELD_OF: Record<string, Field> = {
  ...Object.fromEntries(IMPORT_FIELDS.map((field) => [field.toLowerCase(), field])),
  ...ALIASES,
};
export const fieldOfColumn = (column: string): Field | undefined => FIELD_OF[column.replace(/_/g, '')];

/** The column an annotated workbook carries each row's verdict in: not a field, and not refused. */
const STATUS_COLUMN = 'status';

const NEW_PERSON_REQUIRED: readonly Field[] = ['firstName', 'lastName', 'sex', 'village', 'district'];

/** A spreadsheet's yes and no for `attended` (any case); an empty cell is no. */
const YES = new Set(['true', 'yes', 'y', '1', 'x']);
const NO = new Set(['false', 'no', 'n', '0']);

/** A number Excel wrote in scientific notation (`1.23457E+11`): its digits are gone. */
const SCIENTIFIC = /^[+-]?\d(?:\.\d+)?e[+-]?\d+$/i;

export interface ImportRow {
  /** The row's number in the sheet (the header is row 1). */
  row: number;
  /** The registration item it gives, when it has no problem. */
  item: RegistrationItemInput | null;
  /** Where each problem is (`participants!D7`) and what it is, the field named. */
  problems: { cell: string; message: string }[];
  /** The cell of each field, for the messages about the row once planned. */
  cellOf: (field: Field) => string;
}

let validate: ValidateFunction | undefined;

/** The columns of the sheet by field; a header no field has, or two headers of one field: a 400. */
function columnsOf(table: Table): Map<Field, string> {
  const byField = new Map<Field, string>();
  const problems: string[] = [];
  for (const column of table.columns) {
    // What an import report written into the workbook added (`?format=xlsx`): sent back, it is skipped.
    if (column === STATUS_COLUMN) continue;
    const field = fieldOfColumn(column);
    if (!field) {
      // Not quoted: a file without its header row has a person's name or phone number up there.
      problems.push(`${cell(table, 1, column)}: not a column this import knows`);
    } else if (byField.has(field)) {
      problems.push(
        `${cell(table, 1, column)}: the column ${column} gives ${field}, as column ${table.letters[byField.get(field)!]} does`,
      );
    } else {
      byField.set(field, column);
    }
  }
  if (problems.length > 0) {
    throw badRequest(...problems, `the columns are ${IMPORT_FIELDS.join(', ')} (any case, with _ or spaces)`);
  }
  const missing = NEW_PERSON_REQUIRED.filter((field) => !byField.has(field));
  if (!byField.has('participantId') && missing.length > 0) {
    throw badRequest(
      `${table.name}: the columns ${missing.join(', ')} are missing (a new participant needs firstName, ` +
        'lastName, sex, village and district; a column participantId names existing participants)',
    );
  }
  if (table.rows.length === 0)
    throw badRequest(`${table.name}: no participant to import below the header row`);
  return byField;
}

/** Each row of the table as a registration item, or the problems that refuse it. */
export function importRows(table: Table): ImportRow[] {
  const columns = columnsOf(table);
  validate ??= build(false).compile(guarded(RegistrationItem) as object);
  return table.rows.map(({ row, values }) => {
    const cellOf = (field: Field) => {
      const column = columns.get(field);
      return column === undefined ? cell(table, row) : cell(table, row, column);
    };
    const problems: { cell: string; message: string }[] = [];
    const item: Record<string, unknown> = {};
    for (const [field, column] of columns) {
      const text = values[column];
      if (text === undefined) continue;
      if (field === 'attended') {
        const answer = text.toLowerCase();
        if (YES.has(answer)) item.attended = true;
        else if (NO.has(answer)) item.attended = false;
        else
          problems.push({
            cell: cellOf(field),
            message: 'attended must be yes or no (true or false, 1 or 0)',
          });
      } else if ((field === 'phone' || field === 'nationalId') && SCIENTIFIC.test(text)) {
        problems.push({
          cell: cellOf(field),
          message: `${field} was read as a number in scientific notation, its digits lost: format the column as text`,
        });
      } else {
        item[field] = field === 'sex' ? text.toLowerCase() : text;
      }
    }
    if (!validate!(item)) {
      for (const problem of violations({ validation: validate!.errors ?? [], validationContext: 'body' })) {
        const field = problem.path.split('/')[1] as Field | undefined;
        problems.push({ cell: field ? cellOf(field) : cell(table, row), message: problem.message });
      }
    }
    const extra = fieldsBesideParticipantId(item);
    if (extra.length > 0) {
      problems.push({
        cell: cellOf('participantId'),
        message: `participantId and ${extra.join(', ')} are both given: give an existing participant's id or a new participant's fields, not both`,
      });
    }
    const birth = itemBirthDateProblem('dateOfBirth', item);
    if (birth) problems.push({ cell: cellOf('dateOfBirth'), message: birth });
    return {
      row,
      item: problems.length === 0 ? item : null,
      problems,
      cellOf,
    };
  });
}
