import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { annotatedWorkbook, type AnnotateSource } from '../../lib/spreadsheets/annotate.js';
import {
  IMPORT_ACTIONS,
  IMPORT_PAGE_LIMIT,
  type ImportRowResult as RowResult,
} from '../../lib/spreadsheets/import-report.js';
import { XLSX_TYPE } from '../../lib/spreadsheets/tables.js';
import { contentDisposition } from '../../storage/file-storage.js';

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

/** `format`: every import answers its report as JSON, or as the file that was sent with a status column. */
export const ImportFormatQuery = {
  format: Type.Optional(
    Type.Unsafe<'json' | 'xlsx'>({
      type: 'string',
      enum: ['json', 'xlsx'],
      default: 'json',
      description:
        'json: the report; xlsx: the uploaded sheets as an .xlsx with a `status` column (what each row ' +
        'does, refused rows and the cells named filled red, the messages as the cells’ notes; all rows, ' +
        'not paged)',
    }),
  ),
};

/** The 200 of an import in the OpenAPI document: the report, or with `format=xlsx` the checked workbook. */
export const importAnswer = {
  description: 'The report (application/json), or with `format=xlsx` the workbook with its status column',
  content: { 'application/json': ImportReport, [XLSX_TYPE]: Type.String({ format: 'binary' }) },
  headers: ['Content-Disposition', 'Import-Applied'],
};

/**
 * Sends the uploaded sheets back with their status column (`format=xlsx`), named after the upload
 * (`partner-q1-checked.xlsx`). Whether the rows were applied is in the `Import-Applied` header.
 */
export async function sendCheckedWorkbook(
  reply: FastifyReply,
  upload: { source: AnnotateSource; fileName: string; applied: boolean },
  rows: readonly RowResult[],
): Promise<FastifyReply> {
  const base = upload.fileName.replace(/\.(xlsx|csv|txt)$/i, '').replace(/[\\/]/g, '_') || 'import';
  return (
    reply
      .header('content-type', XLSX_TYPE)
      .header('content-disposition', contentDisposition(`${base}-checked.xlsx`))
      .header('import-applied', String(upload.applied))
      // Bytes are sent as they are: the 200 schema (the JSON report) serializes only objects.
      .send(await annotatedWorkbook(upload.source, rows))
  );
}
