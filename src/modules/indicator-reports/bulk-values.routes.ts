import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { badRequest } from '../../errors/catalogue.js';
import { CONTRIBUTORS, memberOf } from '../../http/pipeline/access.js';
import { errorResponse } from '../../http/errors/replies.js';
import { importAnswer, ImportReport, sendCheckedWorkbook } from '../../http/schemas/import-report.js';
import { withExample } from '../../http/schemas/schemas.js';
import { Params } from '../../http/schemas/schemas.js';
import { importReport } from '../../lib/spreadsheets/import-report.js';
import { BULK_BODY_BYTES, readValuesCsv, valuesOfJson } from './bulk-values-csv.js';
import { bulkImportValues } from './bulk-values.js';
import { BulkValuesBody, BulkValuesCsv, BulkValuesQuery, MAX_VALUE_ROWS } from './bulk-values.schemas.js';

const tags = ['Indicator reports'];
const MIB = 1024 * 1024;

const isCsv = (type: string | undefined) => /^\s*text\/csv\s*(;|$)/i.test(type ?? '');

/** Values of many indicators, projects and periods in one request, as JSON or CSV (docs/spreadsheets.md). */
export const bulkValueRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  // Read as text, within the route's body limit: the rows are read (and refused one by one) in the handler.
  app.addContentTypeParser('text/csv', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post(
    '/orgs/:orgId/indicator-reports/bulk',
    {
      bodyLimit: BULK_BODY_BYTES,
      // A CSV body is no JSON object: the schema's verdict counts for JSON bodies only (the handler).
      attachValidation: true,
      config: {
        access: { roles: CONTRIBUTORS },
        idempotency: 'user',
        conditional: {
          none: "many reports at once, each checked by its status; one report's PATCH takes If-Match",
        },
      },
      schema: {
        operationId: 'importIndicatorValues',
        tags,
        summary: 'Import many values at once (JSON or CSV)',
        description:
          `Up to ${MAX_VALUE_ROWS.toLocaleString('en')} rows, as JSON (\`{ values: [...] }\`) or as a CSV ` +
          `body (\`Content-Type: text/csv\`), ${BULK_BODY_BYTES / MIB} MiB at most (413). Each row names a ` +
          'project (`projectCode` or `projectId`), an indicator (`indicatorCode` or `indicatorId`) and a ' +
          'reporting period of that project (`periodLabel` or `periodId`); both of a pair may be given and ' +
          'must then agree; codes and labels match in any case. It sets `value`, `disaggregatedValues` ' +
          '(in a CSV: a JSON object in one cell, `{"female": 12, "male": 8}`) and `narrative`; a field ' +
          'left out (an empty CSV cell) keeps what an existing report has, as a PATCH of one report. Each ' +
          'row follows the rules of one value: a reporter writes only projects assigned to them (a ' +
          'reporter with none: 403), the indicator must be linked to the project and not be a formula, ' +
          'the period must not be locked, an existing report must be draft or rejected (it keeps its ' +
          'status), disaggregated values must add up, and one row per project, indicator and period. A ' +
          'row breaking any of them is `refused` with every reason, `cell` pointing at the first field ' +
          'refused (a CSV cell `data!C7`, a JSON pointer `/values/6/indicatorCode`). The others are ' +
          '`create` (a new draft), `update` (with a message per field that changes) or `unchanged` ' +
          '(nothing is written, no history entry). Changes are recorded in each report’s history as ' +
          '`imported`; no feed entry or webhook, as for one report’s creation and edit. With `atomic=true` ' +
          '(the default) the rows are applied together or not at all: one refused row and nothing is ' +
          'written (`applied: false`, `dryRun: true`, the other rows saying what they would do); with ' +
          '`atomic=false` the rows that are not refused are applied, in one transaction. `dryRun=true` ' +
          'writes nothing. Always 200 with the import report (its rows paged by `page` and `limit`); a ' +
          'body that is not of this shape (JSON that breaks the schema, an unknown CSV column, more ' +
          `than ${MAX_VALUE_ROWS.toLocaleString('en')} rows): 400, nothing written. A report another ` +
          'request creates for one of the rows during the import: 409, nothing written; send it again. ' +
          '`format=xlsx` (a CSV body only; with JSON: 400) answers the CSV as an .xlsx, its one sheet ' +
          '`data` with a `status` column, instead of the report, `Import-Applied` saying whether it was ' +
          'applied; a CSV saved from it can be sent again as it is (the `status` column is not read). ' +
          'That answer is not kept for an `Idempotency-Key`: a retry of an applied import with the same ' +
          'key hears 409 (sending the file again is safe: its rows are then `unchanged`).',
        params: Params('orgId'),
        querystring: BulkValuesQuery,
        body: withExample(BulkValuesBody, {
          values: [
            { projectCode: 'WASH-01', indicatorCode: 'HH_WATER', periodLabel: 'Q1 2026', value: 120 },
            {
              projectCode: 'WASH-01',
              indicatorCode: 'HH_WATER_SEX',
              periodLabel: 'Q1 2026',
              disaggregatedValues: { female: 70, male: 50 },
              narrative: 'Two boreholes rehabilitated',
            },
          ],
        }),
        bodyMedia: { 'text/csv': BulkValuesCsv },
        response: {
          200: ImportReport,
          409: errorResponse('A report of a row was created by another request meanwhile'),
        },
        answers: { 200: importAnswer },
      },
    },
    async (request, reply) => {
      const csv = isCsv(request.headers['content-type']) && typeof request.body === 'string';
      if (!csv && request.validationError) throw request.validationError;
      // Fastify stops at the first part refused: the query of a CSV body (refused as no JSON object) is
      // checked, coerced and given its defaults here.
      const checkQuery = request.getValidationFunction('querystring');
      if (csv && checkQuery && !checkQuery(request.query)) {
        throw Object.assign(new Error('invalid query'), {
          validation: checkQuery.errors,
          validationContext: 'querystring',
        });
      }
      const { atomic = true, dryRun = false, format = 'json', page, limit } = request.query;
      if (format === 'xlsx' && !csv) {
        throw badRequest('format=xlsx answers a CSV body as a checked workbook: send the values as text/csv');
      }
      const sent = csv
        ? await readValuesCsv(request.body as unknown as string)
        : { table: null, rows: valuesOfJson(request.body.values) };
      const { rows, applied } = await bulkImportValues(ctx.db, memberOf(request), sent.rows, {
        atomic,
        dryRun,
      });
      if (format === 'xlsx' && sent.table) {
        return sendCheckedWorkbook(reply, { source: { csv: sent.table }, fileName: 'values', applied }, rows);
      }
      return importReport(rows, { dryRun: !applied, applied, page, limit });
    },
  );
};
