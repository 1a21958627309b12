import { Type } from '@sinclair/typebox';
import {
  Body,
  MULTILINE,
  Nullable,
  NullableNumber,
  NullableString,
  SINGLE_LINE,
  Text,
  Timestamp,
  Uuid,
} from '../../http/schemas/schemas.js';
import { PageQuery } from '../../http/schemas/pagination.js';
import { AGGREGATION_METHODS, PROGRESS_STATUSES, type AggregationMethod } from '../../lib/scoring.js';
import { MAX_FORMULA_LENGTH } from '../../lib/formula.js';
import { INDICATOR_CODE, NOT_BLANK } from '../../lib/patterns.js';
import { QualityChecksAnswer, QualityChecksInput } from './quality-checks.schemas.js';

const Method = (description: string) =>
  Type.Unsafe<AggregationMethod>({ type: 'string', enum: [...AGGREGATION_METHODS], description });
const NullableText = (maxLength: number, description?: string) =>
  NullableString({ maxLength, ...MULTILINE, description });
const NullableUuid = (description: string) => NullableString({ format: 'uuid', description });

const fields = {
  name: Text(300),
  code: Type.String({
    pattern: INDICATOR_CODE.pattern,
    description:
      'Letters, digits and underscores, not starting with a digit, at most 64 characters; unique in the ' +
      'organization whatever the case. Formulas refer to indicators by code.',
  }),
  unit: Text(100),
  aggregationMethod: Method('How values add up over periods. Required unless isFormula.'),
  description: NullableText(10_000),
  dataSource: NullableText(1000),
  resultNodeId: NullableUuid('A node of any program’s results framework in this organization'),
  isFormula: Type.Boolean({ description: 'true: computed from other indicators by `formula`' }),
  formula: NullableString({
    maxLength: MAX_FORMULA_LENGTH,
    ...SINGLE_LINE,
    description:
      'Numbers, indicator codes, + - * /, parentheses and unary minus, e.g. `(GIRLS + BOYS) / HH * 100`.',
  }),
  qualityChecks: QualityChecksInput(),
};

export const Indicator = Type.Object(
  {
    id: Uuid(),
    orgId: Uuid(),
    name: Type.String(),
    code: Type.String(),
    unit: Type.String(),
    aggregationMethod: Nullable(Method('null for formula indicators without one')),
    description: Nullable(Type.String()),
    dataSource: Nullable(Type.String()),
    resultNodeId: Nullable(Uuid()),
    isFormula: Type.Boolean(),
    formula: Nullable(Type.String()),
    qualityChecks: QualityChecksAnswer(),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { title: 'Indicator', description: 'An indicator definition of the organization' },
);

const optionalFields = {
  aggregationMethod: Type.Optional(fields.aggregationMethod),
  description: Type.Optional(fields.description),
  dataSource: Type.Optional(fields.dataSource),
  resultNodeId: Type.Optional(fields.resultNodeId),
  isFormula: Type.Optional(fields.isFormula),
  formula: Type.Optional(fields.formula),
  qualityChecks: Type.Optional(fields.qualityChecks),
};

/**
 * A formula indicator is one with `isFormula: true`, or with a formula and no `isFormula`; every other
 * needs an aggregationMethod. Said in the schema, so that `{}` gets every missing field at once.
 */
const IS_FORMULA = {
  anyOf: [
    { properties: { isFormula: { const: true } }, required: ['isFormula'] },
    {
      not: { required: ['isFormula'] },
      properties: { formula: { type: 'string', pattern: NOT_BLANK.pattern } },
      required: ['formula'],
    },
  ],
};

export const CreateIndicatorBody = Body(
  { name: fields.name, code: fields.code, unit: fields.unit, ...optionalFields },
  { title: 'IndicatorCreate', if: IS_FORMULA, else: { required: ['aggregationMethod'] } },
);

/** Any subset of the create fields. */
export const UpdateIndicatorBody = Type.Partial(
  Body({ name: fields.name, code: fields.code, unit: fields.unit, ...optionalFields }),
  { title: 'IndicatorUpdate' },
);

export const ProgressStatusSchema = Type.Unsafe<(typeof PROGRESS_STATUSES)[number]>({
  type: 'string',
  enum: [...PROGRESS_STATUSES],
});

export const IndicatorListQuery = Type.Object({
  ...PageQuery,
  resultNodeId: Type.Optional(Uuid('Only indicators attached to this result node')),
  projectId: Type.Optional(Uuid('Only indicators linked to this project')),
  status: Type.Optional(ProgressStatusSchema),
});

export const Progress = Type.Object(
  {
    value: Nullable(Type.Number({ description: 'Aggregated actual over the included periods' })),
    target: Nullable(Type.Number({ description: 'Cumulative target' })),
    progressPct: Nullable(Type.Number({ description: 'value / target × 100, one decimal' })),
    status: ProgressStatusSchema,
    gap: Nullable(Type.Number({ description: 'target − value' })),
  },
  {
    title: 'Progress',
    description:
      'Progress score: `progressPct` is value / cumulative target × 100, one decimal; `status` is ' +
      '`on_track` from 90, `at_risk` from 70 to under 90, `off_track` under 70, `no_target` when the ' +
      'target is null or 0, `no_data` when there is no value.',
  },
);

export const IndicatorProgress = Type.Object(
  {
    ...Indicator.properties,
    project: Type.Object({ id: Uuid(), name: Type.String() }),
    progress: Progress,
  },
  { title: 'IndicatorProgress', description: 'An indicator in one project with its progress score' },
);

export const Disaggregation = Type.Object(
  {
    id: Uuid(),
    indicatorId: Uuid(),
    name: Type.String(),
    categories: Type.Array(Type.String(), {
      description:
        'Its categories; for a cross, its cells: the crossed categories joined by `|`, in the order of `crosses`.',
    }),
    crosses: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'Only on a cross: the names of the disaggregations it crosses, in the order of its cell keys.',
      }),
    ),
    createdAt: Timestamp(),
  },
  { title: 'Disaggregation' },
);

export const CreateDisaggregationBody = Body(
  {
    name: Text(100),
    categories: Type.Optional(
      Type.Array(Text(100), {
        minItems: 1,
        maxItems: 50,
        uniqueItems: true,
        description:
          '1 to 50 category names, unique within the indicator’s disaggregations whatever their case; ' +
          'they are the keys of an indicator report’s disaggregatedValues. Required unless `crosses` is sent.',
      }),
    ),
    crosses: Type.Optional(
      Type.Array(Text(100), {
        minItems: 2,
        maxItems: 4,
        uniqueItems: true,
        description:
          'Instead of categories: the names of 2 to 4 plain disaggregations of the indicator this one crosses ' +
          '(sex by age). Its categories are then the cells, every combination of the crossed categories ' +
          'joined by `|` in this order (`female|15-24`), at most 1,000.',
      }),
    ),
  },
  // Without crosses, categories are required (and reported as such, as before crosses existed).
  { title: 'DisaggregationCreate', if: { required: ['crosses'] }, else: { required: ['categories'] } },
);

const Year = () => Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 1900, maximum: 2200 });

export const ProjectIndicator = Type.Object(
  {
    projectId: Uuid(),
    indicatorId: Uuid(),
    target: Nullable(Type.Number()),
    baseline: Nullable(Type.Number()),
    baselineYear: Nullable(Type.Integer()),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
    indicator: Indicator,
  },
  {
    title: 'ProjectIndicator',
    description: 'An indicator tracked by a project, with the project’s target and baseline',
  },
);

export const LinkIndicatorBody = Body(
  {
    indicatorId: Uuid('An indicator of this organization'),
    target: Type.Optional(NullableNumber({ description: 'Target over the life of the project' })),
    baseline: Type.Optional(NullableNumber({ description: 'Value before the project' })),
    baselineYear: Type.Optional(Year()),
  },
  { title: 'ProjectIndicatorCreate' },
);

/** Most reporting periods one request may target: far above a project's periods (monthly for 10 years). */
export const MAX_PERIOD_TARGETS = 200;

export const UpdateLinkBody = Body(
  {
    target: Type.Optional(NullableNumber({ description: 'Target over the life of the project' })),
    baseline: Type.Optional(NullableNumber({ description: 'Value before the project' })),
    baselineYear: Type.Optional(Year()),
    periodTargets: Type.Optional(
      Type.Record(Type.String(), NullableNumber(), {
        maxProperties: MAX_PERIOD_TARGETS,
        description:
          "Targets per reporting period of the project, by period id: each becomes the target of the period's " +
          'indicator report (a draft report is created where none exists; null clears, and creates nothing). ' +
          `At most ${MAX_PERIOD_TARGETS} periods.`,
      }),
    ),
  },
  { title: 'ProjectIndicatorUpdate' },
);

export const PeriodTarget = Type.Object(
  {
    reportingPeriodId: Uuid(),
    label: Type.String(),
    target: Nullable(Type.Number({ description: "The period's target: its indicator report's target" })),
    indicatorReportId: Nullable(Uuid('The report holding it; null when the period has no report')),
    status: Nullable(
      Type.Unsafe<'draft' | 'submitted' | 'approved' | 'rejected'>({
        type: 'string',
        enum: ['draft', 'submitted', 'approved', 'rejected'],
      }),
    ),
    created: Type.Boolean({ description: 'Whether this request created the draft report' }),
  },
  { title: 'PeriodTarget', description: "A reporting period's target after the change" },
);

export const UpdatedProjectIndicator = Type.Composite(
  [
    ProjectIndicator,
    Type.Object({
      periodTargets: Type.Optional(
        Type.Array(PeriodTarget, {
          description: 'Only when the request sent periodTargets: each period it named, oldest first',
        }),
      ),
    }),
  ],
  {
    title: 'ProjectIndicatorUpdated',
    description: 'The link, as its other routes answer it, and the periods whose targets the request set',
  },
);
