import { Type } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.js';
import { Body, Nullable, NullableString, Text, Timestamp, Uuid } from '../../http/schemas.js';
import { TEXT_MAX } from './answers.js';
import { FIELD_TYPES, KEY_PATTERN, MAX_FIELDS, type FormField } from './form-fields.js';

const Key = (description: string) => Type.String({ pattern: KEY_PATTERN, description });

export const FormFieldSchema = Type.Unsafe<FormField>(
  Type.Object(
    {
      type: Type.Unsafe({ type: 'string', enum: [...FIELD_TYPES] }),
      label: Text(500),
      key: Key('The answer identifier: a lowercase letter, then up to 63 lowercase letters, digits or _'),
      options: Type.Optional(
        Type.Array(Text(200), {
          minItems: 1,
          maxItems: 200,
          uniqueItems: true,
          description: 'Required for select and multi_select, not allowed otherwise',
        }),
      ),
      required: Type.Optional(
        Type.Boolean({ description: 'false by default; only shown fields are required' }),
      ),
      showIf: Type.Optional(
        Type.Object(
          {
            field: Key('The key of an earlier field'),
            equals: Type.Unsafe<string | number | boolean>({
              type: ['string', 'number', 'boolean'],
              description:
                'The answer that shows this field: one of the options of a select (for a multi_select, ' +
                'one of the chosen options), a boolean, a number, or the exact text',
            }),
          },
          { additionalProperties: false },
        ),
      ),
    },
    {
      additionalProperties: false,
      description:
        `Answers: text up to ${TEXT_MAX.text} characters, textarea up to ${TEXT_MAX.textarea}; number a ` +
        'finite number; select one of the options; multi_select a list of distinct options; date ' +
        'YYYY-MM-DD; boolean true or false; location { lat, lng, accuracy? } or the name of a place; file ' +
        'a part of a multipart body (PDF, JPEG, PNG, WebP, DOCX, XLSX or CSV, 10 MiB at most).',
    },
  ),
);

const Fields = Type.Array(FormFieldSchema, {
  minItems: 1,
  maxItems: MAX_FIELDS,
  description: 'In the order respondents see them; keys unique',
});

const links = {
  indicatorId: NullableString({
    format: 'uuid',
    description:
      'An indicator linked to the project: each counted submission adds to its report for the period. ' +
      'Needs reportingPeriodId.',
  }),
  reportingPeriodId: NullableString({
    format: 'uuid',
    description: 'A reporting period of the project that submissions count toward',
  }),
  valueFieldKey: NullableString({
    pattern: KEY_PATTERN,
    description:
      'The key of a number field: a counted submission adds its answer instead of 1. Needs indicatorId.',
  }),
};

const editable = {
  title: Text(300),
  description: NullableString({ maxLength: 10_000, description: 'Instructions shown to respondents' }),
  closesAt: NullableString({
    format: 'date-time',
    description: 'After this moment the public endpoints answer 410; null: open until unpublished',
  }),
  fields: Fields,
  ...links,
};

export const Form = Type.Object(
  {
    id: Uuid(),
    orgId: Uuid(),
    projectId: Uuid(),
    indicatorId: Nullable(Uuid()),
    reportingPeriodId: Nullable(Uuid()),
    valueFieldKey: Nullable(Type.String()),
    title: Type.String(),
    description: Nullable(Type.String()),
    publicToken: Uuid('The secret of the public link'),
    publicUrl: Type.String({ description: '{APP_URL}/f/<publicToken>' }),
    isPublished: Type.Boolean({ description: 'Whether responses are accepted' }),
    closesAt: Nullable(Timestamp()),
    fields: Type.Array(FormFieldSchema),
    submissionCount: Type.Integer(),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { description: "A project's data-collection form" },
);

export const PublicForm = Type.Object(
  {
    title: Type.String(),
    description: Nullable(Type.String()),
    fields: Type.Array(FormFieldSchema),
    closesAt: Nullable(Timestamp()),
  },
  { description: 'What a respondent needs, nothing about the organization behind it' },
);

export const CreateFormBody = Body({
  projectId: Uuid('The project the form collects for'),
  title: editable.title,
  description: Type.Optional(editable.description),
  closesAt: Type.Optional(editable.closesAt),
  fields: editable.fields,
  indicatorId: Type.Optional(editable.indicatorId),
  reportingPeriodId: Type.Optional(editable.reportingPeriodId),
  valueFieldKey: Type.Optional(editable.valueFieldKey),
});

export const UpdateFormBody = Body({
  title: Type.Optional(editable.title),
  description: Type.Optional(editable.description),
  closesAt: Type.Optional(editable.closesAt),
  fields: Type.Optional(editable.fields),
  indicatorId: Type.Optional(editable.indicatorId),
  reportingPeriodId: Type.Optional(editable.reportingPeriodId),
  valueFieldKey: Type.Optional(editable.valueFieldKey),
});

export const FormQuery = Type.Object({
  ...PageQuery,
  projectId: Type.Optional(Uuid('Only forms of this project')),
});

export interface FormInput {
  title?: string;
  description?: string | null;
  closesAt?: string | null;
  fields?: FormField[];
  indicatorId?: string | null;
  reportingPeriodId?: string | null;
  valueFieldKey?: string | null;
}

const Coordinates = Type.Object({
  lat: Type.Number({ minimum: -90, maximum: 90 }),
  lng: Type.Number({ minimum: -180, maximum: 180 }),
  accuracy: Type.Optional(Type.Number({ minimum: 0, description: 'metres' })),
});

export const SubmitBody = Type.Object(
  {
    answers: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Field key to answer; hidden fields are ignored, file fields come as multipart parts',
    }),
    location: Type.Optional(Nullable(Coordinates)),
  },
  {
    description:
      'As JSON, or as multipart/form-data with a part `data` holding this JSON and one file part per file ' +
      'field, named by its key.',
  },
);

export const Submitted = Type.Object({ id: Uuid(), submittedAt: Timestamp() });

export const SubmissionSchema = Type.Object({
  id: Uuid(),
  submittedAt: Timestamp(),
  location: Nullable(Coordinates),
  counted: Type.Boolean({ description: "Whether it was added to the indicator's report" }),
  answers: Type.Record(Type.String(), Type.Unknown(), {
    description:
      'Answers of the fields that were shown; a file answer is { fileName, contentType, size, url }',
  }),
});

export const FileParams = Type.Object(
  {
    orgId: Uuid(),
    formId: Uuid(),
    submissionId: Uuid(),
    key: Type.String({ pattern: KEY_PATTERN }),
  },
  { additionalProperties: false },
);
