import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { PageQuery } from '../../http/schemas/pagination.js';
import {
  Body,
  MULTILINE,
  Nullable,
  NullableNumber,
  NullableString,
  Paragraphs,
  Timestamp,
  Uuid,
} from '../../http/schemas/schemas.js';
import {
  HISTORY_KINDS,
  INDICATOR_REPORT_STATUSES,
  type HistoryKind,
  type IndicatorReportStatus,
} from './indicator-reports.tables.js';

const Status = () =>
  Type.Unsafe<IndicatorReportStatus>({ type: 'string', enum: [...INDICATOR_REPORT_STATUSES] });

export const DisaggregatedValues = Type.Unsafe<Record<string, number> | null>({
  type: ['object', 'null'],
  additionalProperties: { type: 'number' },
  propertyNames: { minLength: 1, maxLength: 100 },
  maxProperties: 500,
  description:
    'Category name → number. With disaggregations, keys are their categories and each disaggregation ' +
    'filled in adds up to the same total; without, any keys, added up. The total becomes `value`.',
});

const writable = {
  value: Type.Optional(
    NullableNumber({ description: 'The value for the period; null while unknown (drafts)' }),
  ),
  target: Type.Optional(NullableNumber({ description: 'Target for this period' })),
  narrative: Type.Optional(NullableString({ maxLength: 20_000, ...MULTILINE })),
  disaggregatedValues: Type.Optional(DisaggregatedValues),
};

/** A data-quality flag of a report (docs/data-quality.md). */
export const ReportFlag = Type.Object(
  {
    kind: Type.Unsafe<'rule' | 'outlier'>({
      type: 'string',
      enum: ['rule', 'outlier'],
      description: 'rule: a validation rule it breaks; outlier: its value far from the indicator’s history',
    }),
    rule: Type.Optional(Uuid('The validation rule (kind `rule`)')),
    method: Type.Optional(Type.String({ description: 'The outlier method (kind `outlier`)' })),
    message: Type.String({ description: 'What is wrong, with the numbers' }),
    importance: Type.Unsafe<'high' | 'medium' | 'low'>({ type: 'string', enum: ['high', 'medium', 'low'] }),
    instruction: Type.Optional(Nullable(Type.String({ description: 'The rule’s instruction' }))),
    justification: Nullable(Type.String({ description: 'What the submitter said of it' })),
  },
  { title: 'IndicatorReportFlag' },
);

export const IndicatorReport = Type.Object(
  {
    id: Uuid(),
    orgId: Uuid(),
    projectId: Uuid(),
    indicatorId: Uuid(),
    reportingPeriodId: Uuid(),
    value: Nullable(Type.Number()),
    target: Nullable(Type.Number()),
    narrative: Nullable(Type.String()),
    disaggregatedValues: Type.Record(Type.String(), Type.Number()),
    status: Status(),
    comment: Nullable(Type.String({ description: 'The last reviewer’s comment' })),
    submittedAt: Nullable(Timestamp()),
    submittedBy: Nullable(Uuid()),
    reviewedAt: Nullable(Timestamp()),
    reviewedBy: Nullable(Uuid()),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
    flags: Type.Array(ReportFlag, {
      description:
        'Data-quality flags: the validation rules the value breaks in its project and period, checked at ' +
        'each write and submission (saving is never refused); empty when none',
    }),
    refusedSinceSubmitted: Type.Integer({
      minimum: 0,
      description:
        'Form submissions refused (stored, not counted: `report_submitted` or `report_approved`) because ' +
        'the report was submitted or approved, since it was last submitted; 0 again at each submission. ' +
        'Not lowered when a recount takes them in.',
    }),
  },
  {
    title: 'IndicatorReport',
    description: 'The value of one indicator for one project and reporting period',
  },
);

export const PrefilledIndicatorReport = Type.Object(
  {
    ...IndicatorReport.properties,
    prefill: Type.Object(
      {
        counted: Type.Integer({ description: 'People in the value (and in every disaggregation’s total)' }),
        leftOut: Type.Integer({
          description:
            'People registered but in no category of some disaggregation: in neither the value nor any cell',
        }),
        leftOutBy: Type.Record(Type.String(), Type.Integer(), {
          description:
            'Left-out people by reason, `dimension:what`: `sex:male` (a sex the disaggregation does not ' +
            'list), `age:0-14` (ages no range holds, the stretch between ranges they fall in), ' +
            '`age:unknown` (no birth date, or one after the period, and no `unknown` category). A person ' +
            'left out for two reasons is under both; reasons with nobody are not listed.',
          examples: [{ 'age:unknown': 2, 'sex:other': 1 }],
        }),
      },
      {
        description: 'Who the pre-fill counted and who it left out (not stored: given with this answer only)',
      },
    ),
  },
  { title: 'PrefilledIndicatorReport', description: 'The pre-filled report and how its people were counted' },
);

export const CreateIndicatorReportBody = Body(
  {
    indicatorId: Uuid('An indicator linked to the project, not a formula indicator'),
    reportingPeriodId: Uuid('A reporting period of the project'),
    ...writable,
  },
  { title: 'IndicatorReportCreate' },
);

export const UpdateIndicatorReportBody = Body(writable, { title: 'IndicatorReportUpdate' });

export const SubmitBody = Body(
  {
    justification: Type.Optional(
      NullableString({
        maxLength: 5000,
        ...MULTILINE,
        description:
          'Why the value stands although it breaks a rule: required when a rule of high importance is broken',
      }),
    ),
  },
  { title: 'IndicatorReportSubmission' },
);
export const ApproveBody = Body(
  { comment: Type.Optional(NullableString({ maxLength: 5000, ...MULTILINE })) },
  { title: 'IndicatorReportApproval' },
);
export const RejectBody = Body(
  {
    comment: Paragraphs(5000, 'Why the report is returned; the submitter receives it by email'),
  },
  { title: 'IndicatorReportRejection' },
);

export const IndicatorReportQuery = Type.Object({
  ...PageQuery,
  periodId: Type.Optional(Uuid('Only this reporting period')),
  status: Type.Optional(Status()),
  indicatorId: Type.Optional(Uuid('Only this indicator')),
  flagged: Type.Optional(
    Type.Boolean({
      description:
        'true: only the reports with data-quality flags (what an approver looks at first); false: only those without',
    }),
  ),
});

export const PrefillBody = Body(
  {
    indicatorId: Uuid('An indicator linked to the project, not a formula indicator'),
    reportingPeriodId: Uuid('A reporting period of the project'),
    attendedOnly: Type.Optional(
      Type.Boolean({ default: true, description: 'Count only confirmed attendance (default true)' }),
    ),
  },
  { title: 'IndicatorReportPrefill' },
);

export type NewIndicatorReport = Static<typeof CreateIndicatorReportBody>;
export type IndicatorReportInput = Static<typeof UpdateIndicatorReportBody>;
export type PrefillInput = Static<typeof PrefillBody>;

const Change = <T extends TSchema>(schema: T) =>
  Type.Optional(Type.Object({ from: schema, to: schema }, { additionalProperties: false }));

export const HistoryEntry = Type.Object(
  {
    id: Type.Integer({ description: 'Entries are numbered in the order they were written' }),
    at: Timestamp(),
    kind: Type.Unsafe<HistoryKind>({
      type: 'string',
      enum: [...HISTORY_KINDS],
      description:
        'created, edited (by hand), prefilled (from participant counts), counted (a form submission ' +
        'added to it), recounted, uncounted (a form was deleted: its submissions left the counted ' +
        'part, the value stayed), submitted, approved, rejected',
    }),
    actorId: Nullable(Uuid('The user who made the change (a pre-fill and a recount too); null for counted')),
    actorName: Nullable(Type.String({ description: "The user's name; null once the user is deleted" })),
    submissionId: Nullable(Uuid('The form submission a `counted` entry added')),
    changes: Type.Object(
      {
        value: Change(Nullable(Type.Number())),
        target: Change(Nullable(Type.Number())),
        disaggregatedValues: Change(Type.Record(Type.String(), Type.Number())),
        narrative: Change(Nullable(Type.String())),
        status: Change(Nullable(Status())),
        flags: Change(Type.Array(ReportFlag)),
        flagsSeen: Type.Optional(
          Type.Array(ReportFlag, { description: 'On an approval: the flags the approver saw' }),
        ),
      },
      { description: 'Each field that changed, from what to what (from null: the report was created)' },
    ),
    reason: Nullable(
      Type.String({
        description:
          'The comment given with a rejection (or approval); for `uncounted`, what the service wrote of the deletion',
      }),
    ),
    valuesHidden: Type.Boolean({
      description:
        'True when `changes.value` and `changes.disaggregatedValues` are left out (and the reason of an ' +
        '`uncounted` entry): the report counts personal answers, which this reader may not see',
    }),
  },
  { title: 'IndicatorReportHistoryEntry' },
);

const FromTo = (schema: TSchema) => Type.Object({ from: schema, to: schema });

export const RecountResult = Type.Object(
  {
    report: IndicatorReport,
    counted: FromTo(Type.Number({ description: 'The counted part of the value' })),
    submissions: FromTo(Type.Integer({ description: 'How many submissions are counted into it' })),
    value: FromTo(Nullable(Type.Number({ description: 'The value of the report' }))),
    uncounted: Type.Object(
      {
        submissions: Type.Integer({
          description: "Uncounted submissions of the report's period that a take-in takes in",
        }),
        amount: Type.Number({ description: 'What they add up to' }),
        byReason: Type.Record(Type.String(), Type.Integer(), {
          description: 'How many of them by the reason they were not counted (reasons present only)',
        }),
        takenIn: Type.Boolean({ description: 'Whether they were taken in (in a dry run: would be)' }),
      },
      { description: 'The submissions stored but not counted that belong in this report' },
    ),
    dryRun: Type.Boolean({ description: 'True when nothing was written' }),
  },
  { title: 'IndicatorReportRecount' },
);

export const RecountQuery = Type.Object({
  takeIn: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        "Also take in the uncounted submissions of the report's period (see the route's description)",
    }),
  ),
  dryRun: Type.Optional(
    Type.Boolean({ default: false, description: 'Answer what would change, writing nothing' }),
  ),
});
