/**
 * XLSForm (https://xlsform.org) as this service reads and writes it: the type and column names, and the
 * bounds of an upload. docs/forms.md is the table in words.
 */

export const XLSFORM_LIMITS = {
  /** The upload, as sent (the attachments' limit). */
  fileBytes: 10 * 1024 * 1024,
  /** All the zip's entries once inflated: an .xlsx bomb stops here, before exceljs reads a byte. */
  unzippedBytes: 16 * 1024 * 1024,
  /**
   * Rows and cells of all the worksheets together, counted in their XML before exceljs builds its model
   * of them (about 0.5 KiB a cell: 150,000 cells took 70 MB and a second; 400,000 one-cell rows in 27 MiB
   * of XML took 430 MB and 14 s, which these bounds refuse).
   */
  sheetRows: 12_000,
  sheetCells: 150_000,
  /** Entries of the zip. */
  entries: 500,
  /** Rows of the survey sheet (200 fields, their groups' end rows, blank rows between). */
  surveyRows: 1000,
  /** Rows of the choices sheet. */
  choiceRows: 10_000,
  /** Rows of the settings sheet. */
  settingsRows: 10,
  /** Columns of any sheet. */
  columns: 100,
  /** Characters of a cell (the longest string of a form, a description, is 10,000). */
  cellChars: 10_000,
} as const;

/** Where a problem is: `survey row 7, column type`. */
export interface Place {
  sheet: 'survey' | 'choices' | 'settings';
  row?: number;
  column?: string;
}

export const placed = (place: Place, message: string): string =>
  `${[
    place.sheet,
    place.row !== undefined ? ` row ${place.row}` : '',
    place.column !== undefined ? `, column ${place.column}` : '',
  ].join('')}: ${message}`;

/** Question types read as one of ours (select types and groups are read apart). */
export const SIMPLE_TYPES: Record<string, { type: string; integer?: true }> = {
  text: { type: 'text' },
  integer: { type: 'number', integer: true },
  decimal: { type: 'number' },
  date: { type: 'date' },
  geopoint: { type: 'location' },
  image: { type: 'file' },
  file: { type: 'file' },
  note: { type: 'note' },
  calculate: { type: 'calculate' },
};

/** XLSForm types we know and refuse (any other unknown type is refused too, as unknown). */
export const REFUSED_TYPES = [
  'range',
  'rank',
  'geotrace',
  'geoshape',
  'audio',
  'video',
  'barcode',
  'time',
  'datetime',
  'dateTime',
  'start',
  'end',
  'today',
  'deviceid',
  'subscriberid',
  'simserial',
  'phonenumber',
  'username',
  'email',
  'audit',
  'start-geopoint',
  'background-audio',
  'background-geopoint',
  'acknowledge',
  'trigger',
  'hidden',
  'xml-external',
  'csv-external',
  'select_one_from_file',
  'select_multiple_from_file',
  'begin_loop',
  'end_loop',
  'begin loop',
  'end loop',
];

/** The translatable survey columns, by their XLSForm name, to the field property they fill. */
export const TRANSLATABLE = {
  label: 'label',
  hint: 'hint',
  constraint_message: 'constraintMessage',
} as const;
export type TranslatableColumn = keyof typeof TRANSLATABLE;

/** Survey columns that only change how a question looks, or texts we have no place for: ignored. */
export const IGNORED_SURVEY_COLUMNS = [
  'guidance_hint',
  'required_message',
  'image',
  'audio',
  'video',
  'big-image',
  'autoplay',
  'media',
  'comments',
  'note',
];

/** Settings we leave aside: they name or version the form elsewhere, or style it. */
export const IGNORED_SETTINGS = [
  'form_id',
  'version',
  'instance_name',
  'style',
  'allow_choice_duplicates',
  'namespaces',
  'clean_text_values',
];

/** A `select_one` of this list with exactly the names true and false is a boolean field (export). */
export const BOOLEAN_LIST = 'mel_boolean';

/** Our extension columns of the survey sheet. */
export const EXTENSION_COLUMNS = ['personal', 'min_count', 'max_count'];

/** `label::English (en)`: the column, and the language code in the parentheses (or the suffix itself). */
export function splitColumn(header: string): { base: string; language?: string; suffix?: string } {
  const at = header.indexOf('::');
  if (at < 0) return { base: header };
  const base = header.slice(0, at).trim();
  const suffix = header.slice(at + 2).trim();
  const inParentheses = /\(([^()]+)\)\s*$/.exec(suffix)?.[1]?.trim();
  return { base, suffix, language: inParentheses ?? suffix };
}
