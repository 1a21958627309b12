import { CloneType, Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/schemas/pagination.js';
import {
  Body,
  FilePart,
  MULTILINE,
  Nullable,
  NullableString,
  Paragraphs,
  SINGLE_LINE,
  Text,
  Timestamp,
  Uuid,
} from '../../http/schemas/schemas.js';
import { Coordinates, FormFieldSchema, KEY_PATTERN, MAX_FIELDS } from './form-fields.js';
import type { DisaggregateBy } from './disaggregate-by.js';
import { LanguageCode, TranslationsSchema } from './form-languages.js';
import { COUNT_INTO, COUNTED_REASONS, type CountInto, type CountedReason } from './forms.tables.js';

const Reason = (description: string) =>
  Type.Unsafe<CountedReason | null>({
    type: ['string', 'null'],
    enum: [...COUNTED_REASONS, null],
    description,
  });

/** Why a submission is not counted, documented once. */
export const REASONS_TEXT =
  'not_counting (the form counts into no indicator), no_value (the value field unanswered), ' +
  'no_period_for_date (counting by date: no period of the project holds it), period_locked, ' +
  'report_submitted, report_approved, value_out_of_range (the sum would pass the largest double), ' +
  'category_not_mapped (a form filling disaggregations: an answer mapping to no category), unknown (stored ' +
  'before reasons were kept, not derivable)';

/** Named for the OpenAPI document; the same schema as form-fields.ts. */
const FormField = CloneType(FormFieldSchema, { title: 'FormField' });

const Fields = Type.Array(FormField, {
  minItems: 1,
  maxItems: MAX_FIELDS,
  description: 'In the order respondents see them; keys unique',
});

const DisaggregationMapping = Type.Object(
  {
    disaggregation: Type.String({
      minLength: 1,
      maxLength: 200,
      notBlank: true,
      ...SINGLE_LINE,
      description: 'A plain disaggregation of the indicator, by name (crosses are filled from their parts)',
    }),
    field: Type.String({
      pattern: KEY_PATTERN,
      description:
        'The key of a select or text field (its answer names a category), or of a number field (an age, ' +
        'placed in the age ranges a-b / a+; unanswered: unknown, when a category)',
    }),
    categories: Type.Optional(
      Type.Record(
        Type.String({ minLength: 1, maxLength: 2000 }),
        Type.String({ minLength: 1, maxLength: 200, notBlank: true, ...SINGLE_LINE }),
        { description: 'Answer to category; an answer equal to a category name maps to it without this' },
      ),
    ),
  },
  { additionalProperties: false, title: 'FormDisaggregationMapping' },
);

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
      'The key of a number field: a counted submission adds its answer instead of 1. Needs indicatorId. ' +
      'A calculate field too (it adds its result when a number), and inside groups; with countRepeat, a ' +
      'number or calculate field of that repeat.',
  }),
  countInto: Type.Unsafe<CountInto>({
    type: 'string',
    enum: [...COUNT_INTO],
    description:
      'fixed_period (default): submissions count into reportingPeriodId. period_of_date: each counts into ' +
      "the project's reporting period holding its date (countDateField's answer, else submittedAt's date " +
      'in UTC), the report created there as needed; a date in no period, or in a locked one, is stored ' +
      'but not counted, with its reason. Needs indicatorId, and reportingPeriodId null.',
  }),
  countDateField: NullableString({
    pattern: KEY_PATTERN,
    description:
      'With countInto period_of_date: the key of a date field giving the date to count by (paper forms ' +
      "entered later); a date in the future is refused (400); unanswered: submittedAt's date.",
  }),
  countRepeat: NullableString({
    pattern: KEY_PATTERN,
    description:
      'The key of a repeat (outside any other repeat): its entries are counted instead of the submission, ' +
      'each entry that countWhere takes adding 1, or its answer to valueFieldKey (then a number or ' +
      'calculate field of the repeat; an entry without that answer adds nothing); disaggregateBy may map ' +
      "the repeat's fields, per entry. A submission none of whose entries is taken is counted with 0. " +
      'Needs indicatorId. null (default): the submission is counted.',
  }),
  countWhere: NullableString({
    minLength: 1,
    maxLength: 1000,
    notBlank: true,
    ...SINGLE_LINE,
    description:
      'With countRepeat: an expression (docs/forms.md, "Expressions") over the repeat\'s fields and the ' +
      'top-level ones, evaluated per entry: only the entries it holds for are counted (`${age} < 5`). ' +
      'null: every entry.',
  }),
  disaggregateBy: Type.Unsafe<DisaggregateBy[] | null>({
    type: ['array', 'null'],
    items: CloneType(DisaggregationMapping),
    maxItems: 50,
    description:
      "Fills the indicator's disaggregations from answers: each counted submission adds its amount to the " +
      'category its answer maps to in every mapped disaggregation, and to the cell of every cross of them, ' +
      "in the same statement as the value. Every one of the indicator's disaggregations must be mapped " +
      '(they add up to the value). A submission whose answer maps to no category is stored, not counted ' +
      '(category_not_mapped). null or []: the value only, as without it.',
  }),
};

const retention = {
  minimum: 1,
  maximum: 36_500,
  description:
    'Days the answers of fields marked personal and the locations are kept: once a day the worker erases ' +
    'them from submissions older than that (as the erase route does; the submission and its count stay). ' +
    'null: kept.',
};

const languages = {
  defaultLanguage: LanguageCode(
    "The BCP 47 code of the language the form's own strings are written in (en, ar, fa-AF, prs); en by default",
  ),
  translations: CloneType(TranslationsSchema),
};

const editable = {
  title: Text(300),
  description: NullableString({
    maxLength: 10_000,
    ...MULTILINE,
    description: 'Instructions shown to respondents',
  }),
  closesAt: NullableString({
    format: 'date-time',
    description: 'After this moment the public endpoints answer 410; null: open until unpublished',
  }),
  fields: Fields,
  personalDataRetentionDays: Type.Unsafe<number | null>({ ...retention, type: ['integer', 'null'] }),
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
    countInto: links.countInto,
    countDateField: Nullable(Type.String()),
    disaggregateBy: links.disaggregateBy,
    countRepeat: Nullable(Type.String()),
    countWhere: Nullable(Type.String()),
    title: Type.String(),
    description: Nullable(Type.String()),
    publicToken: Uuid('The secret of the public link'),
    publicUrl: Type.String({ description: '{APP_URL}/f/<publicToken>' }),
    isPublished: Type.Boolean({ description: 'Whether responses are accepted' }),
    closesAt: Nullable(Timestamp()),
    personalDataRetentionDays: Nullable(Type.Integer(retention)),
    fields: Type.Array(FormField),
    defaultLanguage: Type.String({ description: "The language of the form's own strings (BCP 47)" }),
    translations: languages.translations,
    submissionCount: Type.Integer(),
    uncountedCount: Type.Integer({
      description: 'Submissions stored but not counted (any reason, not_counting included)',
    }),
    uncountedBy: Type.Record(Type.String(), Type.Integer(), {
      description: `Not counted submissions by reason (only reasons with at least one): ${REASONS_TEXT}`,
    }),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { title: 'Form', description: "A project's data-collection form" },
);

export const PublicForm = Type.Object(
  {
    title: Type.String(),
    description: Nullable(Type.String()),
    fields: Type.Array(FormField),
    closesAt: Nullable(Timestamp()),
    language: Type.String({
      description:
        'The language the strings are in: `lang` matched exactly (ignoring case), else by its primary ' +
        "subtag (ar-EG gives ar), else the form's default language",
    }),
    languages: Type.Array(
      Type.Object(
        {
          code: Type.String({ description: 'BCP 47' }),
          name: Type.String({ description: 'In that language (العربية for ar) where known, else the code' }),
        },
        { title: 'FormLanguage' },
      ),
      { description: 'The languages the form can be answered in: its default one first' },
    ),
  },
  { title: 'PublicForm', description: 'What a respondent needs, nothing about the organization behind it' },
);

export const CreateFormBody = Body(
  {
    projectId: Uuid('The project the form collects for'),
    title: editable.title,
    description: Type.Optional(editable.description),
    closesAt: Type.Optional(editable.closesAt),
    personalDataRetentionDays: Type.Optional(editable.personalDataRetentionDays),
    fields: editable.fields,
    indicatorId: Type.Optional(editable.indicatorId),
    reportingPeriodId: Type.Optional(editable.reportingPeriodId),
    valueFieldKey: Type.Optional(editable.valueFieldKey),
    countInto: Type.Optional(editable.countInto),
    countDateField: Type.Optional(editable.countDateField),
    disaggregateBy: Type.Optional(editable.disaggregateBy),
    defaultLanguage: Type.Optional(languages.defaultLanguage),
    translations: Type.Optional(languages.translations),
    countRepeat: Type.Optional(editable.countRepeat),
    countWhere: Type.Optional(editable.countWhere),
  },
  { title: 'FormCreate' },
);

export const UpdateFormBody = Body(
  {
    title: Type.Optional(editable.title),
    description: Type.Optional(editable.description),
    closesAt: Type.Optional(editable.closesAt),
    personalDataRetentionDays: Type.Optional(editable.personalDataRetentionDays),
    fields: Type.Optional(editable.fields),
    indicatorId: Type.Optional(editable.indicatorId),
    reportingPeriodId: Type.Optional(editable.reportingPeriodId),
    valueFieldKey: Type.Optional(editable.valueFieldKey),
    countInto: Type.Optional(editable.countInto),
    countDateField: Type.Optional(editable.countDateField),
    disaggregateBy: Type.Optional(editable.disaggregateBy),
    defaultLanguage: Type.Optional(languages.defaultLanguage),
    translations: Type.Optional(languages.translations),
    countRepeat: Type.Optional(editable.countRepeat),
    countWhere: Type.Optional(editable.countWhere),
  },
  { title: 'FormUpdate' },
);

export const PublicFormQuery = Type.Object({
  lang: Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        'The language wanted (BCP 47, e.g. ar or ar-EG): matched exactly (ignoring case), then by its ' +
        "primary subtag, else the form's default language",
    }),
  ),
});

export const FormQuery = Type.Object({
  ...PageQuery,
  projectId: Type.Optional(Uuid('Only forms of this project')),
});

export type NewForm = Static<typeof CreateFormBody>;
export type FormInput = Static<typeof UpdateFormBody>;

export const SubmitBody = Type.Object(
  {
    answers: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Field key to answer; hidden fields are ignored, file fields come as multipart parts',
      maxProperties: MAX_FIELDS,
    }),
    location: Type.Optional(Nullable(Coordinates)),
  },
  {
    title: 'FormSubmissionCreate',
    description:
      'As JSON, or as multipart/form-data with a part `data` holding this JSON and one file part per file ' +
      'field, named by its key.',
  },
);

/** The multipart form of SubmitBody, for the OpenAPI document: the route reads the parts itself. */
export const MultipartSubmission = Type.Object(
  {
    data: Type.Optional(
      Type.String({
        contentMediaType: 'application/json',
        description: 'The JSON body, `{ answers, location? }`; may be left out when only files are sent',
      }),
    ),
  },
  {
    title: 'FormSubmissionMultipart',
    additionalProperties: FilePart(
      'The file of the file field named by this part (PDF, JPEG, PNG, WebP, DOCX, XLSX or CSV; 10 MiB)',
    ),
  },
);

export const Submitted = Type.Object(
  { id: Uuid(), submittedAt: Timestamp() },
  { title: 'FormSubmissionReceipt' },
);

export const SubmissionSchema = Type.Object(
  {
    id: Uuid(),
    submittedAt: Timestamp(),
    location: Type.Union([Coordinates, Type.Null()], {
      description:
        "The respondent's position when sent, or null. Personal data, as an answer of a field marked " +
        'personal: null for viewers, and for everyone once erased.',
    }),
    counted: Type.Boolean({ description: "Whether it was added to the indicator's report" }),
    countedReason: Reason(`Null when counted; else why not: ${REASONS_TEXT}`),
    answers: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'Answers of the fields that were shown; a file answer is { fileName, contentType, size, url }. ' +
        'The answers of fields marked personal are null for viewers, and for everyone once erased.',
    }),
  },
  { title: 'FormSubmission' },
);

export const CountedSubmission = Type.Object(
  {
    ...SubmissionSchema.properties,
    formId: Uuid('The form it answered (several forms may count into one report)'),
    amount: Nullable(
      Type.Number({
        description:
          "What it added to the report's value: 1, or its answer to the form's value field. Null where " +
          'that answer may be personal and is hidden: the form has a number field marked personal and ' +
          'the reader is a viewer, or the personal answers were erased.',
      }),
    ),
    cells: Type.Optional(
      Nullable(
        Type.Record(Type.String(), Type.Number(), {
          description:
            "What it added to the report's disaggregatedValues (a form filling disaggregations, " +
            'disaggregateBy): the amount in one category of each disaggregation and in the cell of each ' +
            'cross. Absent when it added none; null where the answers it was placed by may be personal ' +
            'and are hidden (its form has a select, text or number field marked personal).',
        }),
      ),
    ),
  },
  { title: 'CountedSubmission', description: 'A form submission counted into an indicator report' },
);

export const SubmissionsCsvQuery = Type.Object({
  indicatorReportId: Type.Optional(
    Uuid("Only the submissions counted into this indicator report (a report of the form's project)"),
  ),
  repeat: Type.Optional(
    Type.String({
      pattern: KEY_PATTERN,
      description:
        "The key of a repeat field (outside other repeats): one row per entry of that repeat instead, joined to the submissions' file by submission_id",
    }),
  ),
});

export const EraseBody = Body(
  {
    reason: Paragraphs(
      1000,
      "Why the answers are erased (a person's request, a consent withdrawn): kept in the audit log",
    ),
  },
  { title: 'SubmissionErasure' },
);

export const FileParams = Type.Object(
  {
    orgId: Uuid(),
    formId: Uuid(),
    submissionId: Uuid(),
    key: Type.String({ pattern: KEY_PATTERN }),
  },
  { additionalProperties: false },
);
