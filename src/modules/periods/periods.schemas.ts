import { Type } from '@sinclair/typebox';
import {
  Body,
  DateOnly,
  Nullable,
  NullableString,
  Text,
  Timestamp,
  Uuid,
} from '../../http/schemas/schemas.js';

const Label = () => Text(200);
const NullableDate = (description: string) => NullableString({ format: 'date', description });

export const ReportingPeriod = Type.Object(
  {
    id: Uuid(),
    orgId: Uuid(),
    projectId: Uuid(),
    label: Type.String(),
    startDate: DateOnly(),
    endDate: DateOnly(),
    dueDate: Nullable(DateOnly('Optional deadline for the period’s data')),
    isLocked: Type.Boolean({ description: 'Locked periods refuse new indicator reports and every edit' }),
    lockedAt: Nullable(Timestamp()),
    lockedBy: Nullable(Uuid('User who locked the period')),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { title: 'ReportingPeriod' },
);

export const CreateReportingPeriodBody = Body(
  {
    label: Label(),
    startDate: DateOnly('First day of the period (inclusive)'),
    endDate: DateOnly('Last day of the period (inclusive); not before startDate'),
    dueDate: Type.Optional(NullableDate('Optional deadline; any date, usually after endDate')),
  },
  { title: 'ReportingPeriodCreate' },
);

export const UpdateReportingPeriodBody = Body(
  {
    label: Type.Optional(Label()),
    startDate: Type.Optional(DateOnly()),
    endDate: Type.Optional(DateOnly()),
    dueDate: Type.Optional(NullableDate('null removes the deadline')),
    isLocked: Type.Optional(Type.Boolean({ description: 'true locks; false unlocks (org_admin only)' })),
  },
  { title: 'ReportingPeriodUpdate' },
);

export const GenerateReportingPeriodsBody = Body(
  {
    frequency: Type.Unsafe<'monthly' | 'quarterly' | 'semiannual' | 'annual'>({
      type: 'string',
      enum: ['monthly', 'quarterly', 'semiannual', 'annual'],
      description:
        'Calendar months (`January 2026`), quarters from January (`Q1 2026`), halves (`H1 2026`) or years (`2026`)',
    }),
    from: DateOnly('A day of the first period: the whole calendar period holding it is generated'),
    to: DateOnly(
      'A day of the last period (not before `from`): the whole calendar period holding it is generated',
    ),
    dueDays: Type.Optional(
      Type.Unsafe<number | null>({
        type: ['integer', 'null'],
        minimum: 0,
        maximum: 366,
        description: 'Each period’s dueDate is its endDate plus this many days; absent or null: no dueDate',
      }),
    ),
  },
  { title: 'ReportingPeriodsGenerate' },
);

export const SkippedPeriod = Type.Object(
  {
    label: Type.String(),
    startDate: DateOnly(),
    endDate: DateOnly(),
    reason: Type.Unsafe<'exists' | 'overlaps' | 'label_taken'>({
      type: 'string',
      enum: ['exists', 'overlaps', 'label_taken'],
      description:
        '`exists`: a period of the project has these dates; `overlaps`: one shares a day with them; ' +
        '`label_taken`: one with other dates has this label',
    }),
    periodId: Uuid('The existing period in the way'),
  },
  { title: 'SkippedReportingPeriod' },
);

export const GeneratedReportingPeriods = Type.Object(
  {
    created: Type.Array(ReportingPeriod, { description: 'The periods created, by start date' }),
    skipped: Type.Array(SkippedPeriod, { description: 'The calendar periods not created, by start date' }),
  },
  { title: 'GeneratedReportingPeriods' },
);
