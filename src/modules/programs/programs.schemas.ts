import { Type } from '@sinclair/typebox';
import { Body, MULTILINE, Nullable, Text, Timestamp, Uuid, DateOnly } from '../../http/schemas/schemas.js';

export const PROGRAM_STATUSES = ['draft', 'active', 'completed'] as const;
export type ProgramStatus = (typeof PROGRAM_STATUSES)[number];

const Status = () => Type.Unsafe<ProgramStatus>({ type: 'string', enum: [...PROGRAM_STATUSES] });
const Name = () => Text(200);
const Description = () => Nullable(Type.String({ maxLength: 10_000, ...MULTILINE }));
const DonorIds = () =>
  Type.Array(Uuid(), {
    uniqueItems: true,
    maxItems: 100,
    description: "Ids of the organization's donors; the array is the program's whole set",
  });

export const DonorSummary = Type.Object(
  { id: Uuid(), name: Type.String(), code: Type.String() },
  { title: 'DonorSummary' },
);
export const ProjectSummary = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    status: Type.String({ enum: ['draft', 'active', 'completed', 'suspended'] }),
  },
  { title: 'ProjectSummary' },
);

const programFields = {
  id: Uuid(),
  orgId: Uuid(),
  name: Type.String(),
  description: Nullable(Type.String()),
  startDate: Type.String({ format: 'date' }),
  endDate: Type.String({ format: 'date' }),
  status: Status(),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
};

export const ProgramListItem = Type.Object(
  { ...programFields, donors: Type.Array(DonorSummary), projectCount: Type.Integer() },
  {
    title: 'ProgramOverview',
    description: 'A program with its donors (by name) and the number of its projects the caller can see',
  },
);

export const Program = Type.Object(
  { ...programFields, donors: Type.Array(DonorSummary), projects: Type.Array(ProjectSummary) },
  { title: 'Program', description: 'A program with its donors and projects, each sorted by name then id' },
);

export const CreateProgramBody = Body(
  {
    name: Name(),
    description: Type.Optional(Description()),
    startDate: DateOnly(),
    endDate: DateOnly(),
    status: Type.Optional(Status()),
    donorIds: Type.Optional(DonorIds()),
  },
  { title: 'ProgramCreate' },
);

export const UpdateProgramBody = Body(
  {
    name: Type.Optional(Name()),
    description: Type.Optional(Description()),
    startDate: Type.Optional(DateOnly()),
    endDate: Type.Optional(DateOnly()),
    status: Type.Optional(Status()),
    donorIds: Type.Optional(DonorIds()),
  },
  { title: 'ProgramUpdate' },
);

export interface ProgramInput {
  name?: string;
  description?: string | null;
  startDate?: string;
  endDate?: string;
  status?: ProgramStatus;
  donorIds?: string[];
}
