import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { badRequest, unsupportedMediaType } from '../../errors/catalogue.js';
import { errorResponse } from '../../http/errors/replies.js';
import { CONTRIBUTORS, memberOf } from '../../http/pipeline/access.js';
import {
  importAnswer,
  ImportFormatQuery,
  ImportPageQuery,
  ImportReport,
  sendCheckedWorkbook,
} from '../../http/schemas/import-report.js';
import { importReport } from '../../lib/spreadsheets/import-report.js';
import { FilePart, Params } from '../../http/schemas/schemas.js';
import { readFilePart } from '../files/index.js';
import { auditSourceOf } from '../privacy/index.js';
import { IMPORT_FIELDS, PARTICIPANT_IMPORT_LIMITS as LIMITS } from './participant-import-rows.js';
import { ParticipantImportService } from './participant-import.service.js';
import { NATIONAL_ID_ELSEWHERE } from './registration-plan.js';

const MIB = 1024 * 1024;

const ImportQuery = Type.Object({
  dryRun: Type.Optional(
    Type.Boolean({
      description: 'true: check every row and answer the report, change nothing (default false)',
    }),
  ),
  apply: Type.Optional(
    Type.Boolean({ description: 'false: the same as dryRun=true (the spelling of the set-up import)' }),
  ),
  atomic: Type.Optional(
    Type.Boolean({
      description:
        'true (default): one refused row and nothing is applied; false: the rows not refused are applied',
    }),
  ),
  ...ImportFormatQuery,
  ...ImportPageQuery,
});

const ParticipantsUpload = Type.Object(
  {
    file: FilePart(
      `The participants, one a row under a header row (.xlsx or .csv, ${LIMITS.fileBytes / MIB} MiB at most)`,
    ),
  },
  { title: 'ParticipantsUpload' },
);

/** Participants registered in an activity from a spreadsheet (docs/spreadsheets.md). */
export const participantImportRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  await app.register(multipart, {
    limits: { fileSize: LIMITS.fileBytes, files: 1, fields: 5, parts: 10, fieldSize: 1024 },
  });
  const imports = new ParticipantImportService(ctx.db, ctx.config.piiKeyring, ctx.webhooksQueued);

  app.post(
    '/orgs/:orgId/activities/:activityId/participants/import',
    {
      config: {
        access: { roles: CONTRIBUTORS },
        idempotency: 'user',
        conditional: { none: 'an import registers many people; no one resource to match' },
      },
      schema: {
        operationId: 'importActivityParticipants',
        tags: ['Activities'],
        summary: 'Register participants in an activity from a spreadsheet',
        description:
          'multipart/form-data with the part `file`: an .xlsx (its sheet `participants`, else its first ' +
          'sheet) or a UTF-8 .csv (comma, semicolon or tab; a file that is not UTF-8 is read as ' +
          'Windows-1252), one person a row under a header row. Columns, in any order, any case, with `_`, ' +
          `spaces or dashes between words (\`first_name\`, \`First Name\`, \`firstName\`): ${IMPORT_FIELDS.join(', ')} ` +
          '(also gender, dob, birth_date, phone_number); a `status` column is skipped. An unknown column, a field given by two columns, or ' +
          'missing columns firstName, lastName, sex, village and district (without a participantId column): ' +
          '400. Each row is checked as one item of POST /orgs/:orgId/activities/:id/participants: a new ' +
          "participant's fields, or the `participantId` of an existing one; sex in any case; dateOfBirth " +
          'as a date cell or YYYY-MM-DD text; attended yes/no, true/false, 1/0 or x (empty: no); role ' +
          'default attendee. A row whose nationalId the organization knows is that participant (`matched ' +
          "existing`, their stored fields kept); a later row with an earlier row's nationalId (or " +
          'participantId) is that same person, registered once as the earlier row says (`matched existing`); ' +
          'a row without nationalId is always a new person. Someone registered in the activity already keeps ' +
          'their registration. Phone and national id are stored sealed, as for one registration. ' +
          'Refused rows say why, each message naming the cell (`participants!D7: dateOfBirth must be a ' +
          'valid date (YYYY-MM-DD)`) and never what a cell holds. A reporter reaches only their projects: ' +
          `a nationalId of someone outside them is refused (\`${NATIONAL_ID_ELSEWHERE}\`), naming nobody. ` +
          'Applied by default, in one transaction: all rows, or with one refused row none (`atomic=false`: ' +
          'the rows not refused); `dryRun=true` (or `apply=false`) checks everything and changes nothing ' +
          '(the two saying the opposite: 400). ' +
          '200: the report (`dryRun` true when nothing was changed; `new` counts as created, `matched ' +
          'existing` as unchanged), its rows paged (`page`, `limit`). One audit entry (action `import`) ' +
          'per import, dry runs included, with the people it registered or found and its counts. ' +
          `Limits: ${LIMITS.rows} rows, ${LIMITS.columns} columns, ${LIMITS.cellChars} characters a cell, ` +
          `${LIMITS.fileBytes / MIB} MiB (an .xlsx also ${LIMITS.unzippedBytes / MIB} MiB unzipped, ` +
          `${LIMITS.sheetRows} rows and ${LIMITS.sheetCells} cells in all its sheets): 413 past them. ` +
          'A file that is neither .xlsx nor text (an empty one too): 415. `format=xlsx` answers the ' +
          'uploaded file as an .xlsx (a CSV as its one sheet, its header as written) with a `status` column ' +
          'on the sheet read, instead of the JSON report, `Import-Applied` saying whether it was applied: ' +
          'the cells are those that were sent, nothing read from the store is added. That answer is not ' +
          'kept for an `Idempotency-Key`: a retry of an applied import with the same key hears 409.',
        params: Params('orgId', 'activityId'),
        querystring: ImportQuery,
        bodyMedia: { 'multipart/form-data': ParticipantsUpload },
        response: {
          200: ImportReport,
          409: errorResponse("a nationalId another request registered meanwhile, out of a reporter's reach"),
          413: errorResponse(`A file over ${LIMITS.fileBytes / MIB} MiB, or more than ${LIMITS.rows} rows`),
          415: errorResponse('Not multipart, or a file that is neither an .xlsx workbook nor a CSV'),
        },
        answers: { 200: importAnswer },
      },
    },
    async (request, reply) => {
      if (!request.isMultipart())
        throw unsupportedMediaType('Unsupported content type; send multipart/form-data');
      const member = memberOf(request);
      const { bytes, fileName } = await readFilePart(request.parts(), LIMITS.fileBytes);
      const { dryRun, apply, atomic, format = 'json', page, limit } = request.query;
      if (dryRun !== undefined && apply !== undefined && dryRun === apply) {
        throw badRequest('dryRun and apply say the opposite: give one of them');
      }
      const outcome = await imports.import(
        member,
        auditSourceOf(request, member),
        request.params.activityId,
        bytes,
        { dryRun: dryRun ?? apply === false, atomic: atomic ?? true },
      );
      const { rows, applied } = outcome;
      if (format === 'xlsx') {
        const source = outcome.format === 'xlsx' ? { xlsx: bytes } : { csv: outcome.table };
        return sendCheckedWorkbook(reply, { source, fileName, applied }, rows);
      }
      return importReport(rows, { dryRun: !applied, applied, page, limit });
    },
  );
};
