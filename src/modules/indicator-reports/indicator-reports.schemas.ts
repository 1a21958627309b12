import { Type } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.js';
import { Body, Nullable, Text, Timestamp, Uuid } from '../../http/schemas.js';
import { INDICATOR_REPORT_STATUSES, type IndicatorReportStatus } from './indicator-reports.tables.js';

const Status = () =>
  Type.Unsafe<IndicatorReportStatus>({ type: 'string', enum: [...INDICATOR_REPORT_STATUSES] });
// One JSON type list rather than `Nullable`'s union: a bad value then gets one message, not two.
const NullableNumber = (description: string) =>
  Type.Unsafe<number | null>({ type: ['number', 'null'], description });
const NullableText = (maxLength: number) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength });

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
  value: Type.Optional(NullableNumber('The value for the period; null while unknown (drafts)')),
  target: Type.Optional(NullableNumber('Target for this period')),
  narrative: Type.Optional(NullableText(20_000)),
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
  { description: 'The value of one indicator for one project and reporting period' },
);

export const CreateIndicatorReportBody = Body({
  indicatorId: Uuid('An indicator linked to the project, not a formula indicator'),
  reportingPeriodId: Uuid('A reporting period of the project'),
  ...writable,
});

export const UpdateIndicatorReportBody = Body(writable);

export const ApproveBody = Body({ comment: Type.Optional(NullableText(5000)) });
export const RejectBody = Body({
  comment: { ...Text(5000), description: 'Why the report is returned; the submitter receives it by email' },
});

export const IndicatorReportQuery = Type.Object({
  ...PageQuery,
  periodId: Type.Optional(Uuid('Only this reporting period')),
  status: Type.Optional(Status()),
  indicatorId: Type.Optional(Uuid('Only this indicator')),
});
