import { Type } from '@sinclair/typebox';
import { IMPORT_ACTIONS, IMPORT_PAGE_LIMIT } from '../../lib/spreadsheets/import-report.js';

/**
 * The answer of every import (bulk values, a project's set-up workbook, participants): the shape of
 * src/lib/spreadsheets/import-report.ts, for validation, serialization and the OpenAPI document.
 */
export const ImportRowResult = Type.Object(
  {
    sheet: Type.String({ description: 'The sheet of the row (`data` for a CSV, `values` for a JSON body)' }),
    row: Type.Integer({
      description: 'The row as the spreadsheet numbers it (header = 1); a JSON item from 1',
    }),
    cell: Type.String({
      description: 'The cell a message is about (`indicators!C12`), else the row (`indicators!12:12`)',
    }),
    action: Type.Union(
      IMPORT_ACTIONS.map((action) => Type.Literal(action)),
      { description: 'What the row does, or would do on a dry run' },
    ),
    messages: Type.Array(Type.String(), { description: 'Why it is refused, or what to know about it' }),
  },
  { title: 'ImportRowResult' },
);

export const ImportReport = Type.Object(
  {
    dryRun: Type.Boolean({ description: 'true: nothing was changed' }),
    applied: Type.Boolean({ description: 'true: the rows that are not refused were applied' }),
    summary: Type.Object(
      {
        created: Type.Integer({ description: 'Rows that create something (participants: `new`)' }),
        updated: Type.Integer(),
        unchanged: Type.Integer({
          description: 'Rows that change nothing (participants: `matched existing`)',
        }),
        refused: Type.Integer(),
      },
      { title: 'ImportSummary' },
    ),
    rows: Type.Array(ImportRowResult, { description: 'One page of the rows, in the order they were read' }),
    meta: Type.Object(
      {
        totalRows: Type.Integer(),
        page: Type.Integer(),
        limit: Type.Integer(),
        totalPages: Type.Integer(),
      },
      { title: 'ImportReportMeta' },
    ),
  },
  { title: 'ImportReport' },
);

/** The query every import takes for its report's rows: `page` and `limit` (1,000 rows by default). */
export const ImportPageQuery = {
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Page of the rows, from 1' }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: IMPORT_PAGE_LIMIT.max,
      description: `Rows a page, ${IMPORT_PAGE_LIMIT.default} by default, ${IMPORT_PAGE_LIMIT.max} at most`,
    }),
  ),
};
