import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../src/db/client.js';
import { programs } from '../../src/modules/programs/programs.tables.js';
import { resultNodes } from '../../src/modules/results/results.tables.js';

/** A program row; the programs API arrives with its own module. */
export async function createProgram(db: Db, orgId: string, name = 'Water for All'): Promise<{ id: string }> {
  const [program] = await db
    .insert(programs)
    .values({ orgId, name, startDate: '2026-01-01', endDate: '2028-12-31' })
    .returning({ id: programs.id });
  return program!;
}

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
