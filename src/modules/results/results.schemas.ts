import { Type, type Static } from '@sinclair/typebox';
import {
  Body,
  MULTILINE,
  Nullable,
  NullableString,
  Text,
  Timestamp,
  Uuid,
} from '../../http/schemas/schemas.js';
import { RESULT_CODE } from '../../lib/patterns.js';
import { RESULT_LEVELS, type resultNodes } from './results.tables.js';

export type ResultLevel = (typeof RESULT_LEVELS)[number];
export type ResultNodeRow = typeof resultNodes.$inferSelect;

const Level = () =>
  Type.Unsafe<ResultLevel>({
    type: 'string',
    enum: [...RESULT_LEVELS],
    description: 'impact (root) > outcome > output',
  });
const Title = () => Text(500);
const Code = (description: string) => NullableString({ pattern: RESULT_CODE.pattern, description });
const NullableUuid = (description: string) => NullableString({ format: 'uuid', description });
const Description = () => NullableString({ maxLength: 10_000, ...MULTILINE });
const OrderIndex = () =>
  Type.Integer({
    minimum: 0,
    maximum: 100_000,
    description:
      'Position among the siblings, from 0. Siblings at or after it move one place down; a value past ' +
      'the end places the node last. Omitted: last.',
  });

const nodeFields = {
  id: Uuid(),
  orgId: Uuid(),
  programId: Uuid(),
  parentId: Nullable(Uuid()),
  level: Level(),
  code: Nullable(
    Type.String({ description: 'Its reference in the logframe (`1.2`), unique in the program' }),
  ),
  title: Type.String(),
  description: Nullable(Type.String()),
  orderIndex: Type.Integer({ description: 'Position among its siblings, 0 to n-1' }),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
};

export const ResultNode = Type.Object(nodeFields, {
  title: 'ResultNode',
  description: 'A node of a program’s results framework',
});

// The tree has exactly three levels, so it is spelled out rather than recursive: the OpenAPI document
// then says which level sits where.
const OutputTreeNode = Type.Object(
  { ...nodeFields, children: Type.Array(Type.Unknown(), { maxItems: 0, description: 'Always empty' }) },
  { title: 'OutputNode', description: 'An output node' },
);
const OutcomeTreeNode = Type.Object(
  { ...nodeFields, children: Type.Array(OutputTreeNode) },
  { title: 'OutcomeNode', description: 'An outcome node with its outputs' },
);
export const ImpactTreeNode = Type.Object(
  { ...nodeFields, children: Type.Array(OutcomeTreeNode) },
  { title: 'ImpactNode', description: 'An impact node with its outcomes' },
);

export const CreateResultNodeBody = Body(
  {
    level: Level(),
    parentId: Type.Optional(
      NullableUuid(
        'null or omitted for an impact; an impact of the same program for an outcome; an outcome for an output',
      ),
    ),
    code: Type.Optional(
      Code(
        'Its reference in the logframe (`1.2`, `OUT-3`): unique in the program whatever the case (409); ' +
          'the set-up workbook names nodes by it',
      ),
    ),
    title: Title(),
    description: Type.Optional(Description()),
    orderIndex: Type.Optional(OrderIndex()),
  },
  { title: 'ResultNodeCreate' },
);
export type CreateResultNodeInput = Static<typeof CreateResultNodeBody>;

export const UpdateResultNodeBody = Body(
  {
    code: Type.Optional(Code('A new code, unique in the program (409); null removes it')),
    title: Type.Optional(Title()),
    description: Type.Optional(Description()),
    parentId: Type.Optional(
      NullableUuid('A new parent of the level above, in the same program; null only for an impact'),
    ),
    orderIndex: Type.Optional(OrderIndex()),
  },
  { title: 'ResultNodeUpdate' },
);
export type UpdateResultNodeInput = Static<typeof UpdateResultNodeBody>;

export const ReorderBody = Body(
  {
    parentId: NullableUuid('The node whose children are reordered; null for the impacts of programId'),
    programId: Type.Optional(
      Uuid('Required when parentId is null; otherwise, when given, the parent’s program'),
    ),
    orderedIds: Type.Array(Uuid(), {
      uniqueItems: true,
      maxItems: 1000,
      description: 'Every child of the parent, each once, in the new order',
    }),
  },
  { title: 'ResultNodeReorder' },
);
export type ReorderInput = Static<typeof ReorderBody>;
