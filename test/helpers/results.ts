import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../src/db/client.js';
import { resultNodes } from '../../src/modules/results/results.tables.js';

export { createProgram } from './factories.js';

type Level = 'impact' | 'outcome' | 'output';

/** A result node inserted directly, for tests that need a tree to start from. */
export async function insertResultNode(
  db: Db,
  orgId: string,
  programId: string,
  level: Level,
  parentId: string | null,
  orderIndex: number,
  title = `${level} ${orderIndex}`,
) {
  const [node] = await db
    .insert(resultNodes)
    .values({ orgId, programId, level, parentId, orderIndex, title })
    .returning();
  return node!;
}

/** Child ids with their positions, straight from the table, in stored order. */
export async function storedChildren(db: Db, programId: string, parentId: string | null) {
  return db
    .select({ id: resultNodes.id, orderIndex: resultNodes.orderIndex })
    .from(resultNodes)
    .where(
      and(
        eq(resultNodes.programId, programId),
        parentId === null ? isNull(resultNodes.parentId) : eq(resultNodes.parentId, parentId),
      ),
    )
    .orderBy(asc(resultNodes.orderIndex), asc(resultNodes.id));
}
