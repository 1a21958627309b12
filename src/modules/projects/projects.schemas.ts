import { Type } from '@sinclair/typebox';
import { CURRENCY_CODE } from '../../lib/patterns.js';
import {
  Body,
  MULTILINE,
  Nullable,
  SINGLE_LINE,
  Text,
  Timestamp,
  Uuid,
  DateOnly,
} from '../../http/schemas/schemas.js';

export const PROJECT_STATUSES = ['draft', 'active', 'completed', 'suspended'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

/** numeric(18,2) holds more, but beyond this the cents of a JSON number are no longer exact. */
export const MAX_BUDGET = 10_000_000_000_000;

const Status = () => Type.Unsafe<ProjectStatus>({ type: 'string', enum: [...PROJECT_STATUSES] });
const Name = () => Text(200);
const Code = () =>
  Type.String({
    minLength: 1,
    maxLength: 50,
    notBlank: true,
    ...SINGLE_LINE,
    description:
      'The project’s reference as the organization writes it (e.g. KSM-WASH-01): 1 to 50 characters on ' +
      'one line, letters in either case; unique in the organization as written. Not a slug like an ' +
      'organization’s code, nor a formula name like an indicator’s.',
  });
const Currency = () =>
  Type.String({ pattern: CURRENCY_CODE.pattern, description: 'ISO 4217 code in upper case, e.g. USD' });
const Budget = () =>
  Type.Number({ minimum: 0, maximum: MAX_BUDGET, description: 'Stored with two decimals' });
const OptionalLine = (maxLength: number) => Nullable(Type.String({ maxLength, ...SINGLE_LINE }));

export const Project = Type.Object(
  {
    id: Uuid(),
    orgId: Uuid(),
    programId: Uuid(),
    name: Type.String(),
    code: Type.String(),
    description: Nullable(Type.String()),
    budget: Type.Number(),
    currency: Type.String(),
    startDate: Type.String({ format: 'date' }),
    endDate: Type.String({ format: 'date' }),
    status: Status(),
    location: Nullable(Type.String()),
    lead: Nullable(Type.String()),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { title: 'Project' },
);

const optionalFields = {
  description: Type.Optional(Nullable(Type.String({ maxLength: 10_000, ...MULTILINE }))),
  budget: Type.Optional(Budget()),
  status: Type.Optional(Status()),
  location: Type.Optional(OptionalLine(200)),
  lead: Type.Optional(OptionalLine(200)),
};

export const CreateProjectBody = Body(
  {
    name: Name(),
    code: Code(),
    startDate: DateOnly(),
    endDate: DateOnly(),
    currency: Currency(),
    ...optionalFields,
  },
  { title: 'ProjectCreate' },
);

export const UpdateProjectBody = Body(
  {
    name: Type.Optional(Name()),
    code: Type.Optional(Code()),
    startDate: Type.Optional(DateOnly()),
    endDate: Type.Optional(DateOnly()),
    currency: Type.Optional(Currency()),
    ...optionalFields,
  },
  { title: 'ProjectUpdate' },
);

export interface ProjectInput {
  name?: string;
  code?: string;
  startDate?: string;
  endDate?: string;
  currency?: string;
  description?: string | null;
  budget?: number;
  status?: ProjectStatus;
  location?: string | null;
  lead?: string | null;
}
