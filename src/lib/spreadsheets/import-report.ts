/**
 * What every import answers, dry run or applied: a summary, and one entry per row read saying what it
 * does (or did) and why. The same shape for the bulk values, a project's set-up workbook and
 * participants; the HTTP schema is `ImportReport` (src/http/schemas/import-report.ts).
 */

/**
 * `create`, `update`, `unchanged` and `refused` for values and set-up rows; a participant row is `new`
 * (registered as a new person) or `matched existing` (a person already known, by national id).
 */
export const IMPORT_ACTIONS = [
  'create',
  'update',
  'unchanged',
  'refused',
  'new',
  'matched existing',
] as const;
export type ImportAction = (typeof IMPORT_ACTIONS)[number];

export interface ImportRowResult {
  /** The sheet the row is on (`data` for a CSV, `values` for a JSON body). */
  sheet: string;
  /** The row's number as the spreadsheet shows it (the header is row 1); a JSON body's index from 1. */
  row: number;
  /** The cell a message is about (`indicators!C12`), else the row (`indicators!12:12`). */
  cell: string;
  action: ImportAction;
  /** Why a row is refused, or what to know about it; empty when there is nothing to say. */
  messages: string[];
}

export interface ImportSummary {
  created: number;
  updated: number;
  unchanged: number;
  refused: number;
}

export interface ImportReport {
  /** true when nothing was changed (a dry run, or an atomic import refused as a whole). */
  dryRun: boolean;
  /** true when the import changed what its rows say (false for a dry run, and for a refused atomic one). */
  applied: boolean;
  summary: ImportSummary;
  rows: ImportRowResult[];
  /** The rows' paging: `rows` holds page `page` of `totalPages`, `limit` rows each. */
  meta: { totalRows: number; page: number; limit: number; totalPages: number };
}

/** Rows of a report page, refused rows first when asked: the ones a person must act on. */
export const IMPORT_PAGE_LIMIT = { default: 1000, max: 5000 } as const;

/** `new` counts as created, `matched existing` as unchanged: the summary keeps four numbers. */
export function summarize(rows: readonly ImportRowResult[]): ImportSummary {
  const summary: ImportSummary = { created: 0, updated: 0, unchanged: 0, refused: 0 };
  for (const { action } of rows) {
    if (action === 'create' || action === 'new') summary.created++;
    else if (action === 'update') summary.updated++;
    else if (action === 'refused') summary.refused++;
    else summary.unchanged++;
  }
  return summary;
}

/** The report of `rows`, paged (`page` from 1, `limit` rows a page). */
export function importReport(
  rows: readonly ImportRowResult[],
  {
    dryRun,
    applied,
    page = 1,
    limit = IMPORT_PAGE_LIMIT.default,
  }: {
    dryRun: boolean;
    applied: boolean;
    page?: number;
    limit?: number;
  },
): ImportReport {
  const totalPages = Math.max(1, Math.ceil(rows.length / limit));
  return {
    dryRun,
    applied,
    summary: summarize(rows),
    rows: rows.slice((page - 1) * limit, page * limit),
    meta: { totalRows: rows.length, page, limit, totalPages },
  };
}
