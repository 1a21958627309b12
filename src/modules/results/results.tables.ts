import { sql } from 'drizzle-orm';
import {
  foreignKey,
  index,
  integer,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, rowId, updatedAt } from '../../db/columns.js';
import { programs } from '../programs/programs.tables.js';

export const RESULT_LEVELS = ['impact', 'outcome', 'output'] as const;
export const resultLevel = pgEnum('result_level', RESULT_LEVELS);

/** The results framework of a program: impact > outcome > output. Deleting a node deletes its descendants. */
export const resultNodes = pgTable(
  'result_nodes',
  {
    id: rowId(),
    orgId: uuid('org_id').notNull(),
    programId: uuid('program_id').notNull(),
    parentId: uuid('parent_id'),
    level: resultLevel('level').notNull(),
    /** A short reference (`1.2`, `OUT-3`) a spreadsheet names the node by; unique in the program whatever the case. */
    code: text('code'),
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
    primaryKey({ name: 'result_nodes_pkey', columns: [t.orgId, t.id] }),
    foreignKey({
      name: 'result_nodes_parent_id_result_nodes_id_fk',
      columns: [t.orgId, t.parentId],
      foreignColumns: [t.orgId, t.id],
    }).onDelete('cascade'),
    index('result_nodes_org_id_program_id_parent_id_idx').on(t.orgId, t.programId, t.parentId, t.orderIndex),
    uniqueIndex('result_nodes_org_id_program_id_lower_code_key').on(
      t.orgId,
      t.programId,
      sql`lower(${t.code})`,
    ),
  ],
);
