import { Type } from '@sinclair/typebox';
import { PageQuery } from '../../http/schemas/pagination.js';
import {
  Body,
  DateOnly,
  MULTILINE,
  NullableString,
  SINGLE_LINE,
  Text,
  Timestamp,
  Uuid,
} from '../../http/schemas/schemas.js';
import { ACTIVITY_STATUSES, type ActivityStatus } from './activities.tables.js';

const Status = (description?: string) =>
  Type.Unsafe<ActivityStatus>({ type: 'string', enum: [...ACTIVITY_STATUSES], description });

const fields = {
  title: Text(300),
  description: NullableString({ maxLength: 10_000, ...MULTILINE }),
  outputId: NullableString({
    format: 'uuid',
    description: "An output node of the project's program's results framework; null detaches it",
  }),
  startDate: DateOnly('First day (inclusive)'),
  endDate: DateOnly('Last day (inclusive); not before startDate'),
  location: NullableString({ maxLength: 300, ...SINGLE_LINE }),
  facilitator: NullableString({ maxLength: 300, ...SINGLE_LINE }),
};

export const Activity = Type.Object(
  {
    id: Uuid(),
    orgId: Uuid(),
    projectId: Uuid(),
    outputId: Type.Union([Uuid(), Type.Null()]),
    title: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    startDate: DateOnly(),
    endDate: DateOnly(),
    location: Type.Union([Type.String(), Type.Null()]),
    facilitator: Type.Union([Type.String(), Type.Null()]),
    status: Status(),
    participantCount: Type.Integer({ description: 'People registered for the activity' }),
    attendedCount: Type.Integer({ description: 'Registered people whose attendance is confirmed' }),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  {
    title: 'Activity',
    description: 'Something a project does on the ground: a training, a distribution, a meeting',
  },
);

export const CreateActivityBody = Body(
  {
    title: fields.title,
    description: Type.Optional(fields.description),
    outputId: Type.Optional(fields.outputId),
    startDate: fields.startDate,
    endDate: fields.endDate,
    location: Type.Optional(fields.location),
    facilitator: Type.Optional(fields.facilitator),
    status: Type.Optional(Status('planned by default')),
  },
  { title: 'ActivityCreate' },
);

export const UpdateActivityBody = Body(
  {
    title: Type.Optional(fields.title),
    description: Type.Optional(fields.description),
    outputId: Type.Optional(fields.outputId),
    startDate: Type.Optional(fields.startDate),
    endDate: Type.Optional(fields.endDate),
    location: Type.Optional(fields.location),
    facilitator: Type.Optional(fields.facilitator),
    status: Type.Optional(
      Status(
        'planned > in_progress, completed or cancelled; in_progress > completed or cancelled; cancelled > planned',
      ),
    ),
  },
  { title: 'ActivityUpdate' },
);

export const ActivityQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Status('Only activities in this status')),
  from: Type.Optional(DateOnly('Only activities still running on or after this date (endDate >= from)')),
  to: Type.Optional(DateOnly('Only activities started on or before this date (startDate <= to)')),
});

export interface ActivityInput {
  title?: string;
  description?: string | null;
  outputId?: string | null;
  startDate?: string;
  endDate?: string;
  location?: string | null;
  facilitator?: string | null;
  status?: ActivityStatus;
}

export interface ActivityFilter {
  status?: ActivityStatus;
  from?: string;
  to?: string;
}
