import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { fileTypeFromBuffer } from 'file-type';
import type { AppContext } from '../../context.js';
import { badRequest, payloadTooLarge, unsupportedMediaType } from '../../errors/catalogue.js';
import { errorResponse } from '../../http/errors/replies.js';
import { ALL_ROLES, MANAGERS, memberOf } from '../../http/pipeline/access.js';
import {
  importAnswer,
  ImportFormatQuery,
  ImportPageQuery,
  ImportReport,
  sendCheckedWorkbook,
} from '../../http/schemas/import-report.js';
import { FileDownload, FilePart, Params } from '../../http/schemas/schemas.js';
import { importReport } from '../../lib/spreadsheets/import-report.js';
import { readWorkbook, TableError, XLSX_TYPE } from '../../lib/spreadsheets/tables.js';
import { contentDisposition } from '../../storage/file-storage.js';
import { readFilePart } from '../files/index.js';
import { requireProject } from '../projects/index.js';
import { SetupImportService, type SetupImportPorts } from './setup-import.service.js';
import { SETUP_SHEETS } from './setup-sheets.js';
import { setupTemplate } from './setup-template.js';

const tags = ['Imports'];
const MIB = 1024 * 1024;

/** The bounds of a set-up workbook: well above a project's framework, indicators and a season's values. */
export const SETUP_LIMITS = {
  fileBytes: 10 * MIB,
  unzippedBytes: 32 * MIB,
  entries: 500,
  /** Rows and cells of all the sheets together, counted before exceljs reads them (about 0.5 KiB a cell). */
  sheetRows: 25_000,
  sheetCells: 250_000,
  /** Rows of one sheet. */
  rows: 5000,
  columns: 200,
  cellChars: 10_000,
} as const;

const ImportQuery = Type.Object({
  apply: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'true: write the rows, all or nothing; false (the default): a dry run that writes nothing',
    }),
  ),
  ...ImportFormatQuery,
  ...ImportPageQuery,
});

const SetupUpload = Type.Object(
  { file: FilePart(`The set-up workbook (.xlsx, ${SETUP_LIMITS.fileBytes / MIB} MiB at most)`) },
  { title: 'SetupWorkbookUpload' },
);

const notXlsx = () =>
  unsupportedMediaType(`file must be an .xlsx workbook (sheets ${SETUP_SHEETS.join(', ')})`);

/** A project's set-up from one workbook, and its template (docs/spreadsheets.md). */
export const importRoutes: FastifyPluginAsyncTypebox<
  AppContext & { setup: Omit<SetupImportPorts, 'webhooksQueued'> }
> = async (app, ctx) => {
  await app.register(multipart, {
    limits: { fileSize: SETUP_LIMITS.fileBytes, files: 1, fields: 5, parts: 10, fieldSize: 1024 },
  });
  const setup = new SetupImportService(ctx.db, { ...ctx.setup, webhooksQueued: ctx.webhooksQueued });

  app.post(
    '/orgs/:orgId/projects/:projectId/import',
    {
      config: {
        access: { roles: MANAGERS },
        idempotency: 'user',
        conditional: { none: "an import writes many rows of a project's set-up; no one resource to match" },
      },
      schema: {
        operationId: 'importProjectSetup',
        tags,
        summary: 'Set up a project from a workbook (dry run by default)',
        description:
          'multipart/form-data with the part `file`: an .xlsx with any of the sheets `results` (the ' +
          "program's results framework: code, title, level, parent_code, description), `indicators` (code, " +
          'name, unit, aggregation, result_code, description, data_source, formula, disaggregations as ' +
          '`Sex: female|male; Age: 0-17|18+`, baseline, baseline_year, target, and `target <period label>` ' +
          'columns), `periods` (label, start_date, end_date, due_date) and `values`; other sheets are not ' +
          'read (GET /orgs/:orgId/import-template.xlsx is the template). Rows match what exists by code ' +
          '(result nodes of the project’s program, indicators of the organization, linked to the project ' +
          'if they are not) and by label, else dates (periods): a match that differs is `update`d, an equal ' +
          'one `unchanged`, anything else `create`d; nothing is deleted but the disaggregations an ' +
          'indicator row no longer lists. A blank cell clears its field, a column left out leaves it. Each ' +
          'row is checked by the rules of its own API route (the same messages, in the sheet’s column ' +
          'names, at the cell: `indicators!C12`). By default a dry run: 200 with the report of what ' +
          'applying would do, nothing written. With `apply=true` every row is written in one transaction, ' +
          'all or nothing: if a row is refused nothing is written and the report says `applied: false`. ' +
          'Importing the same workbook again reports every row `unchanged`. A sheet missing a required ' +
          'column, or with a column it does not know (except `status` and `notes`), or a workbook with ' +
          'none of the sheets: 400. Not an .xlsx: 415. Past ' +
          `${SETUP_LIMITS.fileBytes / MIB} MiB, ${SETUP_LIMITS.unzippedBytes / MIB} MiB unzipped, ` +
          `${SETUP_LIMITS.rows} rows a sheet or ${SETUP_LIMITS.columns} columns: 413. \`format=xlsx\` ` +
          'answers the uploaded workbook with a `status` column (refused rows and the cells named filled ' +
          'red, the messages as the cells’ notes) instead of the JSON report, `Import-Applied` saying whether ' +
          'it was applied; that answer is not kept for an `Idempotency-Key` (an applied import’s retry with ' +
          'the same key: 409; importing the workbook again is safe).',
        params: Params('orgId', 'projectId'),
        querystring: ImportQuery,
        bodyMedia: { 'multipart/form-data': SetupUpload },
        response: {
          200: ImportReport,
          413: errorResponse('A workbook past the size, row or column limits'),
          415: errorResponse('Not multipart, or a file that is not an .xlsx workbook'),
        },
        answers: { 200: importAnswer },
      },
    },
    async (request, reply) => {
      const member = memberOf(request);
      const { projectId } = request.params;
      // Another organization's project is 404 whatever the body.
      await requireProject(ctx.db, member, projectId);
      if (!request.isMultipart()) {
        throw unsupportedMediaType('Unsupported content type; send multipart/form-data');
      }
      const { bytes, fileName } = await readFilePart(request.parts(), SETUP_LIMITS.fileBytes);
      const { apply = false, format = 'json', page, limit } = request.query;
      if (bytes.length === 0 || (await fileTypeFromBuffer(bytes))?.mime !== XLSX_TYPE) throw notXlsx();
      let tables;
      try {
        tables = await readWorkbook(bytes, SETUP_LIMITS);
      } catch (err) {
        if (!(err instanceof TableError)) throw err;
        throw err.tooLarge ? payloadTooLarge(`file: ${err.message}`) : badRequest(`file: ${err.message}`);
      }
      const { rows, applied } = await setup.run(member, projectId, tables, apply);
      if (format === 'xlsx') {
        return sendCheckedWorkbook(reply, { source: { xlsx: bytes }, fileName, applied }, rows);
      }
      return importReport(rows, { dryRun: !applied, applied, page, limit });
    },
  );

  app.get(
    '/orgs/:orgId/import-template.xlsx',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'getImportTemplate',
        tags,
        summary: 'The empty set-up workbook',
        description:
          'The template of POST /orgs/:orgId/projects/:projectId/import, for any member (it holds no ' +
          'data): a sheet `instructions` (every column of every sheet, what it holds and whether it is ' +
          'required), then `results`, `indicators`, `periods` and `values`, each with its header row and ' +
          'one example row that imports as it is (replace or delete it), and lists to pick from: levels, ' +
          'units (any other text is accepted too), aggregation methods, and the codes and period labels ' +
          'of the other sheets.',
        params: Params('orgId'),
        answers: { 200: FileDownload('The template workbook', [XLSX_TYPE]) },
      },
    },
    async (_request, reply) =>
      reply
        .header('content-type', XLSX_TYPE)
        .header('content-disposition', contentDisposition('project-setup-template.xlsx'))
        .send(await setupTemplate()),
  );
};
