import type { ValidateFunction } from 'ajv';
import { violations } from '../../http/errors/violations.js';
import { build, guarded } from '../../http/schemas/validation.js';
import { BulkValueRow } from './bulk-values.schemas.js';

/** The fields of a row of values, as the JSON body names them (a CSV's columns take the same names). */
export const VALUE_FIELDS = [
  'projectCode',
  'projectId',
  'indicatorCode',
  'indicatorId',
  'periodLabel',
  'periodId',
  'value',
  'disaggregatedValues',
  'narrative',
] as const;
export type ValueField = (typeof VALUE_FIELDS)[number];

/**
 * One row of values to import. Each pair names its thing one way or both (`projectCode` or `projectId`,
 * `indicatorCode` or `indicatorId`, `periodLabel` or `periodId`; both must then agree). A field left out
 * (undefined) is not sent: an existing report keeps it. `disaggregatedValues: null` clears them, as in a
 * PATCH of one report.
 */
export interface ValueRowInput {
  /** The sheet the row is on (`data` for a CSV, `values` for a JSON body or a workbook's sheet). */
  sheet: string;
  /** Its number as the spreadsheet shows it (header = 1), or a JSON item's index from 1. */
  row: number;
  /** The row as a whole, for messages about no one field (`values!12:12`). */
  rowCell: string;
  /** Where each field was read (`values!C12`, `/values/11/value`), for messages about it. */
  cells: Partial<Record<ValueField, string>>;
  projectCode?: string;
  projectId?: string;
  indicatorCode?: string;
  indicatorId?: string;
  periodLabel?: string;
  periodId?: string;
  value?: number | null;
  disaggregatedValues?: Record<string, number> | null;
  narrative?: string | null;
  /** What reading the row found wrong (a value that is not a number): it is refused with these. */
  problems?: { field?: ValueField; message: string }[];
}

/** The text fields of a row, the ones a spreadsheet gives as it was typed. */
const TEXT_FIELDS = [
  'projectCode',
  'projectId',
  'indicatorCode',
  'indicatorId',
  'periodLabel',
  'periodId',
  'narrative',
] as const satisfies readonly ValueField[];

/** The JSON row's schema, compiled on first use. */
let validate: ValidateFunction | undefined;

/**
 * A row with its text fields checked by the rules of a JSON row (ids as UUIDs, lengths, no NUL, control
 * characters or lone surrogates): a CSV cell or a workbook's cell breaking one is a problem of its row,
 * and the field is dropped, so that nothing refused reaches a query or is stored. A JSON body was
 * checked by the same schema already: its rows come back as they were.
 */
export function textProblems(row: ValueRowInput): ValueRowInput {
  const text: Record<string, unknown> = {};
  for (const field of TEXT_FIELDS) if (typeof row[field] === 'string') text[field] = row[field];
  validate ??= build(false).compile(guarded(BulkValueRow) as object);
  if (validate(text)) return row;
  const checked: ValueRowInput = { ...row, problems: [...(row.problems ?? [])] };
  for (const problem of violations({ validation: validate.errors ?? [], validationContext: 'body' })) {
    const field = problem.path.split('/')[1] as ValueField;
    checked.problems!.push({ field, message: problem.message });
    delete checked[field];
  }
  return checked;
}
