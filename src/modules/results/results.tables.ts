import {
  type AnyPgColumn,
  foreignKey,
  index,
  integer,
  pgEnum,
  pgTable,
  text,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, id, updatedAt } from '../../db/columns.js';
import { programs } from '../programs/programs.tables.js';

export const RESULT_LEVELS = ['impact', 'outcome', 'output'] as const;
export const resultLevel = pgEnum('result_level', RESULT_LEVELS);

/** The results framework of a program: impact > outcome > output. Deleting a node deletes its descendants. */
export const resultNodes = pgTable(
  'result_nodes',
  {
    id: id(),
    orgId: uuid('org_id').notNull(),
    programId: uuid('program_id').notNull(),
    parentId: uuid('parent_id').references((): AnyPgColumn => resultNodes.id, { onDelete: 'cascade' }),
    level: resultLevel('level').notNull(),
    title: text('title').notNull(),
    description: text('description'),
    orderIndex: integer('order_index').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    foreignKey({ columns: [t.orgId, t.programId], foreignColumns: [programs.orgId, programs.id] }).onDelete(
      'cascade',
    ),
    unique('result_nodes_org_id_id_key').on(t.orgId, t.id),
    index('result_nodes_org_id_program_id_parent_id_idx').on(t.orgId, t.programId, t.parentId, t.orderIndex),
  ],
);
