import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { fileTypeFromBuffer } from 'file-type';
import type { AppContext } from '../../../context.js';
import { badRequest, payloadTooLarge, unsupportedMediaType } from '../../../errors/catalogue.js';
import { errorResponse } from '../../../http/errors/replies.js';
import { ALL_ROLES, MANAGERS, memberOf } from '../../../http/pipeline/access.js';
import { FileDownload, FilePart, Params, Uuid } from '../../../http/schemas/schemas.js';
import { checkZip } from '../../../lib/spreadsheets/xlsx-zip.js';
import { contentDisposition } from '../../../storage/file-storage.js';
import { readFilePart } from '../../files/index.js';
import { requireProject } from '../../projects/index.js';
import { CreateFormBody, Form } from '../forms.schemas.js';
import { FormService } from '../forms.service.js';
import { readXlsForm } from './xlsform-read.js';
import { XLSX_TYPE } from '../../../lib/spreadsheets/tables.js';
import { XLSFORM_LIMITS } from './xlsform-types.js';
import { writeXlsForm } from './xlsform-write.js';

const tags = ['Forms'];
const MIB = 1024 * 1024;

const ImportQuery = Type.Object({
  projectId: Uuid('The project the form collects for'),
  dryRun: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'true: check everything, store nothing, and answer 200 with the form as FormCreate',
    }),
  ),
});

const XlsFormUpload = Type.Object(
  { file: FilePart(`The XLSForm workbook (.xlsx, ${XLSFORM_LIMITS.fileBytes / MIB} MiB at most)`) },
  { title: 'XlsFormUpload' },
);

const notXlsx = () =>
  unsupportedMediaType(
    'file must be an .xlsx workbook (an XLSForm with survey, choices and settings sheets)',
  );

/** XLSForm import and export of forms (docs/forms.md). */
export const xlsformRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, ctx) => {
  await app.register(multipart, {
    limits: { fileSize: XLSFORM_LIMITS.fileBytes, files: 1, fields: 5, parts: 10, fieldSize: 1024 },
  });
  const formService = new FormService(ctx.db, ctx.config, ctx.storage, app.log);

  app.post(
    '/orgs/:orgId/forms/import',
    {
      config: { access: { roles: MANAGERS }, idempotency: 'user', location: '/orgs/:orgId/forms/:newId' },
      schema: {
        operationId: 'importXlsForm',
        tags,
        summary: 'Create a form from an XLSForm',
        description:
          'multipart/form-data with the part `file`: an .xlsx XLSForm (survey, choices and settings sheets; ' +
          `${XLSFORM_LIMITS.fileBytes / MIB} MiB, ${XLSFORM_LIMITS.unzippedBytes / MIB} MiB unzipped, ` +
          `${XLSFORM_LIMITS.sheetRows} rows and ${XLSFORM_LIMITS.sheetCells} cells in all, ` +
          `${XLSFORM_LIMITS.surveyRows} survey rows, ${XLSFORM_LIMITS.choiceRows} choice rows, ` +
          `${XLSFORM_LIMITS.columns} columns, ${XLSFORM_LIMITS.cellChars} characters a cell at most: 413 ` +
          'past the size limits). Types text (appearance multiline: textarea), integer, decimal, ' +
          'select_one, select_multiple, date, geopoint, image, file, note, calculate, begin_group and ' +
          'begin_repeat; columns label, hint and constraint_message, each also per language ' +
          '(`label::العربية (ar)`: the code in parentheses), required, relevant, constraint, calculation, ' +
          'appearance, and our extensions personal, min_count and max_count (repeats); settings form_title, ' +
          'default_language and description. The language without a suffix (or settings default_language) ' +
          'is defaultLanguage, the others become translations. Everything else (other types, columns that ' +
          'change what is asked such as default, read_only, choice_filter or repeat_count, unclosed groups, ' +
          'unknown choice lists, duplicate names) and all the form rules of POST /orgs/:orgId/forms are ' +
          'listed in one 400, each as `survey row 7, column type: ...`. A file that is not an .xlsx ' +
          '(an empty one too): 415. The form is created unpublished, in one transaction (201, as GET ' +
          '/orgs/:orgId/forms/:id shows it). With `dryRun=true` nothing is stored: 200 with the form as ' +
          'the body POST /orgs/:orgId/forms would take (FormCreate). docs/forms.md has the table.',
        params: Params('orgId'),
        querystring: ImportQuery,
        bodyMedia: { 'multipart/form-data': XlsFormUpload },
        response: {
          201: Form,
          200: CreateFormBody,
          413: errorResponse(
            'A file over 10 MiB, or one that unzips to more than 16 MiB or too many rows or cells',
          ),
          415: errorResponse('Not multipart, or a file that is not an .xlsx workbook'),
        },
      },
    },
    async (request, reply) => {
      if (!request.isMultipart())
        throw unsupportedMediaType('Unsupported content type; send multipart/form-data');
      const member = memberOf(request);
      const { bytes, fileName } = await readFilePart(request.parts(), XLSFORM_LIMITS.fileBytes);
      const { projectId, dryRun } = request.query;
      await requireProject(ctx.db, member, projectId);
      if (bytes.length === 0 || (await fileTypeFromBuffer(bytes))?.mime !== XLSX_TYPE) throw notXlsx();
      const zip = checkZip(bytes, XLSFORM_LIMITS);
      if (!zip.ok)
        throw zip.tooLarge ? payloadTooLarge(`file: ${zip.reason}`) : badRequest(`file: ${zip.reason}`);
      const read = await readXlsForm(bytes, { projectId, fileName });
      if (!read.form) throw badRequest(...read.problems);
      if (dryRun) {
        await formService.check(member, read.form);
        return reply.status(200).send(read.form);
      }
      return reply.status(201).send(await formService.create(member, read.form));
    },
  );

  app.get(
    '/orgs/:orgId/forms/:id/xlsform',
    {
      config: { access: { roles: ALL_ROLES } },
      schema: {
        operationId: 'exportXlsForm',
        tags,
        summary: 'A form as an XLSForm',
        description:
          "An .xlsx with survey, choices and settings sheets, named after the form's title, that the " +
          'import reads back as the same form. One label, hint and constraint_message column per language ' +
          '(`label::English (en)`); the choices of each choice field in a list named by its key; showIf ' +
          "as a relevant expression (`${field} = 'value'`, `selected(${field}, 'value')` for a " +
          "multi_select), and-ed with the field's own relevant; boolean fields as `select_one mel_boolean` " +
          '(names true and false, labelled Yes and No), which the import reads back as boolean. Reporters ' +
          'only for projects assigned to them.',
        params: Params('orgId', 'id'),
        answers: { 200: FileDownload('The XLSForm workbook', [XLSX_TYPE]) },
      },
    },
    async (request, reply) => {
      const form = await formService.get(memberOf(request), request.params.id);
      const bytes = await writeXlsForm(form);
      return reply
        .header('content-type', XLSX_TYPE)
        .header('content-disposition', contentDisposition(`${form.title.replace(/[\\/]/g, '_')}.xlsx`))
        .send(bytes);
    },
  );
};
