import type { TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import { transaction, type Db } from '../../db/client.js';
import { AppError } from '../../errors/catalogue.js';
import { violations } from '../../http/errors/violations.js';
import { build, guarded } from '../../http/schemas/validation.js';
import type { ImportAction, ImportRowResult } from '../../lib/spreadsheets/import-report.js';
import { cell, type Table, type TableRow } from '../../lib/spreadsheets/tables.js';

/**
 * What the set-up sheets share: a row's result, a refusal named at its cell in the sheet's words, the
 * routes' own schemas checking a row as the JSON body it stands for, and each row's work in a savepoint.
 */

/** API field name → the sheet's column, to say a refusal in the words of the sheet. */
export type FieldColumns = Readonly<Record<string, string>>;

export function rowResult(
  table: Table,
  { row }: TableRow,
  action: ImportAction,
  messages: string[] = [],
  column?: string,
): ImportRowResult {
  return { sheet: table.name, row, cell: cell(table, row, column), action, messages };
}

export const refusedRow = (table: Table, row: TableRow, column: string | undefined, messages: string[]) =>
  rowResult(table, row, 'refused', messages, column);

/** A message with the API's field names replaced by the sheet's columns (`endDate` → `end_date`). */
export function inSheetWords(message: string, fields: FieldColumns): string {
  let text = message;
  for (const [field, column] of Object.entries(fields)) {
    if (field !== column) text = text.replace(new RegExp(`\\b${field}\\b`, 'g'), column);
  }
  return text;
}

/** The column a refusal is about: its first problem's path, else the first field its message names. */
function columnOf(err: AppError, fields: FieldColumns): string | undefined {
  const detail = err.details?.[0];
  const path = typeof detail === 'object' ? detail.path.split('/')[1] : undefined;
  if (path && fields[path]) return fields[path];
  const [message = ''] = [err.messages].flat();
  let first: { at: number; column: string } | undefined;
  for (const [field, column] of Object.entries(fields)) {
    const at = message.search(new RegExp(`\\b${field}\\b`));
    if (at >= 0 && (!first || at < first.at)) first = { at, column };
  }
  return first?.column;
}

/** A service's refusal of a row, in the sheet's words, at the cell it is about (`fallback` otherwise). */
export function refusedBy(
  table: Table,
  row: TableRow,
  err: AppError,
  fields: FieldColumns,
  fallback?: string,
): ImportRowResult {
  const messages = [err.messages].flat().map((message) => inSheetWords(message, fields));
  return refusedRow(table, row, columnOf(err, fields) ?? fallback, messages);
}

const validators = new Map<TSchema, ValidateFunction>();

/**
 * A row's body checked by the route's own schema, as a 400 of that route would list its problems, in
 * the sheet's words: the first problem's column and every message; null when the body is valid.
 */
export function bodyProblems(
  schema: TSchema,
  body: unknown,
  fields: FieldColumns,
): { column: string | undefined; messages: string[] } | null {
  let validate = validators.get(schema);
  if (!validate) {
    validate = build(false).compile(guarded(schema) as object);
    validators.set(schema, validate);
  }
  if (validate(body)) return null;
  const problems = violations({ validation: validate.errors ?? [], validationContext: 'body' });
  const field = problems[0]?.path.split('/')[1];
  return {
    column: field === undefined ? undefined : fields[field],
    messages: problems.map((problem) => inSheetWords(problem.message, fields)),
  };
}

/**
 * A row's work in a savepoint of the import's transaction: a refusal (a typed error) undoes only that
 * row's writes and is handed back; anything else fails the import.
 */
export async function attempt<T>(
  tx: Db,
  work: (sp: Db) => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: AppError }> {
  try {
    return { ok: true, value: await transaction(tx, work) };
  } catch (err) {
    if (err instanceof AppError && err.statusCode < 500) return { ok: false, error: err };
    throw err;
  }
}

/**
 * Rows between two turns of the event loop: rows only read (a few microseconds each), and rows each
 * written in a savepoint (a few milliseconds each on PGlite, whose queries settle without a turn).
 */
export const ROWS_A_TURN = { reading: 250, writing: 20 } as const;

/**
 * Lets other requests run every `rowsATurn` rows of a sheet: a loop over 5,000 rows otherwise holds the
 * process for as long as it runs.
 */
export async function letOthersRun(index: number, rowsATurn: number): Promise<void> {
  if (index > 0 && index % rowsATurn === 0) await new Promise(setImmediate);
}
