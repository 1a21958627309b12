import { Type } from '@sinclair/typebox';
import {
  Body,
  MULTILINE,
  Nullable,
  NullableString,
  SINGLE_LINE,
  Text,
  Timestamp,
  Uuid,
} from '../../http/schemas/schemas.js';
import { MAX_FORMULA_LENGTH } from '../../lib/formula.js';
import { RULE_OPERATORS } from '../../lib/rule-expressions.js';
import { RULE_IMPORTANCES } from './quality.tables.js';

const Expression = (side: string) =>
  Type.String({
    minLength: 1,
    maxLength: MAX_FORMULA_LENGTH,
    ...SINGLE_LINE,
    description:
      `The ${side} side: an indicator formula (numbers, indicator codes, + - * /, parentheses) in which ` +
      '`CODE[category]` (or a cross cell, `CODE[female|15-24]`) reads one cell of its disaggregated values',
  });

const Operator = () =>
  Type.Unsafe<(typeof RULE_OPERATORS)[number]>({ type: 'string', enum: [...RULE_OPERATORS] });
const Importance = () =>
  Type.Unsafe<(typeof RULE_IMPORTANCES)[number]>({
    type: 'string',
    enum: [...RULE_IMPORTANCES],
    description: 'high: submitting a report that breaks it needs a justification',
  });

const ProjectIds = () =>
  Type.Array(Uuid(), {
    minItems: 1,
    maxItems: 1000,
    uniqueItems: true,
    description: 'The projects it applies to; left out or null: every project of the organization',
  });

export const ValidationRule = Type.Object(
  {
    id: Uuid(),
    orgId: Uuid(),
    name: Type.String(),
    left: Type.String(),
    operator: Operator(),
    right: Type.String(),
    importance: Importance(),
    instruction: Nullable(Type.String()),
    projectIds: Nullable(Type.Array(Uuid())),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { title: 'ValidationRule' },
);

const fields = {
  name: Text(200),
  left: Expression('left'),
  operator: Operator(),
  right: Expression('right'),
  importance: Importance(),
};
const optional = {
  instruction: Type.Optional(
    NullableString({
      maxLength: 2000,
      ...MULTILINE,
      description: 'What to check or do when it is broken, shown with the flag',
    }),
  ),
  projectIds: Type.Optional(Type.Union([ProjectIds(), Type.Null()])),
};

export const CreateValidationRuleBody = Body({ ...fields, ...optional }, { title: 'ValidationRuleCreate' });
export const UpdateValidationRuleBody = Body(
  {
    name: Type.Optional(fields.name),
    left: Type.Optional(fields.left),
    operator: Type.Optional(fields.operator),
    right: Type.Optional(fields.right),
    importance: Type.Optional(fields.importance),
    ...optional,
  },
  { title: 'ValidationRuleUpdate' },
);
