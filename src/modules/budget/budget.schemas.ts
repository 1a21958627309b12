import { Type } from '@sinclair/typebox';
import { Body, MULTILINE, Nullable, Text, Timestamp, Uuid } from '../../http/schemas/schemas.js';

/** numeric(18,2) holds 16 integer digits; a trillion keeps every cent exact in a JSON number. */
const MAX_AMOUNT = 1_000_000_000_000;

const Amount = (description: string) =>
  Type.Number({ minimum: 0, maximum: MAX_AMOUNT, description: `${description}; at most 2 decimals` });

const fields = {
  category: Text(200),
  description: Nullable(Type.String({ maxLength: 2000, ...MULTILINE })),
  plannedAmount: Amount('Planned amount in the project currency'),
  actualAmount: Amount('Amount spent so far in the project currency'),
};

export const BudgetLine = Type.Object(
  {
    id: Uuid(),
    orgId: Uuid(),
    projectId: Uuid(),
    category: Type.String(),
    description: Nullable(Type.String()),
    plannedAmount: Type.Number(),
    actualAmount: Type.Number(),
    currency: Type.String({ description: "The project's ISO 4217 currency" }),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { title: 'BudgetLine', description: 'A planned and actual amount of a project, in the project currency' },
);

export const CreateBudgetLine = Body(
  {
    category: fields.category,
    description: Type.Optional(fields.description),
    plannedAmount: Type.Optional({ ...fields.plannedAmount, default: 0 }),
    actualAmount: Type.Optional({ ...fields.actualAmount, default: 0 }),
  },
  { title: 'BudgetLineCreate' },
);

export const UpdateBudgetLine = Body(
  {
    category: Type.Optional(fields.category),
    description: Type.Optional(fields.description),
    plannedAmount: Type.Optional(fields.plannedAmount),
    actualAmount: Type.Optional(fields.actualAmount),
  },
  { title: 'BudgetLineUpdate' },
);

export interface BudgetLineInput {
  category?: string;
  description?: string | null;
  plannedAmount?: number;
  actualAmount?: number;
}
