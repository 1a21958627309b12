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
