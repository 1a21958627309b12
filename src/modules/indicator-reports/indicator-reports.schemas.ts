import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.js';
import { Body, Nullable, NullableNumber, NullableString, Text, Timestamp, Uuid } from '../../http/schemas.js';
import { INDICATOR_REPORT_STATUSES, type IndicatorReportStatus } from './indicator-reports.tables.js';

const Status = () =>
  Type.Unsafe<IndicatorReportStatus>({ type: 'string', enum: [...INDICATOR_REPORT_STATUSES] });

const DisaggregatedValues = Type.Unsafe<Record<string, number> | null>({
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
  narrative: Type.Optional(NullableString({ maxLength: 20_000 })),
  disaggregatedValues: Type.Optional(DisaggregatedValues),
};

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
  },
  {
    title: 'IndicatorReport',
    description: 'The value of one indicator for one project and reporting period',
  },
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

export const ApproveBody = Body(
  { comment: Type.Optional(NullableString({ maxLength: 5000 })) },
  { title: 'IndicatorReportApproval' },
);
export const RejectBody = Body(
  {
    comment: { ...Text(5000), description: 'Why the report is returned; the submitter receives it by email' },
  },
  { title: 'IndicatorReportRejection' },
);

export const IndicatorReportQuery = Type.Object({
  ...PageQuery,
  periodId: Type.Optional(Uuid('Only this reporting period')),
  status: Type.Optional(Status()),
  indicatorId: Type.Optional(Uuid('Only this indicator')),
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
