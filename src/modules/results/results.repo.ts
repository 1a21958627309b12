import { and, asc, eq, inArray, isNull, ne, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { ResultLevel } from './results.schemas.js';
import { resultNodes } from './results.tables.js';

/** First key of the two-key advisory lock; the second is the program. Any fixed number would do. */
const TREE_LOCK = 7_340_111;

/**
 * Serializes the writes to one program's tree until the transaction ends, so that two requests never
 * compute sibling positions from the same state (an empty sibling group has no row to lock).
 */
export async function lockProgramTree(db: Db, orgId: string, programId: string): Promise<void> {
  await db.execute(sql`SELECT pg_advisory_xact_lock(${TREE_LOCK}, hashtext(${`${orgId}:${programId}`}))`);
}

export async function findNode(db: Db, orgId: string, id: string) {
  const [row] = await db
    .select()
    .from(resultNodes)
    .where(and(eq(resultNodes.orgId, orgId), eq(resultNodes.id, id)))
    .limit(1);
  return row;
}

/** Every node of a program, siblings in order (tie by id). */
export function listProgramNodes(db: Db, orgId: string, programId: string) {
  return db
    .select()
    .from(resultNodes)
    .where(and(eq(resultNodes.orgId, orgId), eq(resultNodes.programId, programId)))
    .orderBy(asc(resultNodes.orderIndex), asc(resultNodes.id));
}

const childrenOf = (orgId: string, programId: string, parentId: string | null): SQL | undefined =>
  and(
    eq(resultNodes.orgId, orgId),
    eq(resultNodes.programId, programId),
    parentId === null ? isNull(resultNodes.parentId) : eq(resultNodes.parentId, parentId),
  );

/** The children of a parent (the impacts of the program when parentId is null), in order. */
export function listChildren(db: Db, orgId: string, programId: string, parentId: string | null) {
  return db
    .select()
    .from(resultNodes)
    .where(childrenOf(orgId, programId, parentId))
    .orderBy(asc(resultNodes.orderIndex), asc(resultNodes.id));
}

/** The ones of these ids that name a node of the organization. */
export async function existingNodeIds(db: Db, orgId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: resultNodes.id })
    .from(resultNodes)
    .where(and(eq(resultNodes.orgId, orgId), inArray(resultNodes.id, ids)));
  return new Set(rows.map((row) => row.id));
}

/** Whether another node of the program has this code, whatever its case. */
export async function nodeCodeTaken(
  db: Db,
  orgId: string,
  programId: string,
  code: string,
  exceptId?: string,
): Promise<boolean> {
  const [row] = await db
    .select({ id: resultNodes.id })
    .from(resultNodes)
    .where(
      and(
        eq(resultNodes.orgId, orgId),
        eq(resultNodes.programId, programId),
        sql`lower(${resultNodes.code}) = lower(${code})`,
        exceptId === undefined ? undefined : ne(resultNodes.id, exceptId),
      ),
    )
    .limit(1);
  return row !== undefined;
}

export async function insertNode(
  db: Db,
  orgId: string,
  values: {
    programId: string;
    parentId: string | null;
    level: ResultLevel;
    code: string | null;
    title: string;
    description: string | null;
    orderIndex: number;
  },
) {
  const [row] = await db
    .insert(resultNodes)
    .values({ ...values, orgId })
    .returning();
  return row!;
}

export async function updateNode(
  db: Db,
  orgId: string,
  id: string,
  changes: {
    code?: string | null;
    title?: string;
    description?: string | null;
    parentId?: string | null;
    orderIndex?: number;
  },
) {
  const [row] = await db
    .update(resultNodes)
    .set(changes)
    .where(and(eq(resultNodes.orgId, orgId), eq(resultNodes.id, id)))
    .returning();
  return row;
}

/** Deletes the node; its descendants follow by cascade. */
export async function deleteNode(db: Db, orgId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(resultNodes)
    .where(and(eq(resultNodes.orgId, orgId), eq(resultNodes.id, id)))
    .returning({ id: resultNodes.id });
  return rows.length > 0;
}

/** Gives these nodes the positions 0..n-1 in the order listed, in one statement; unchanged rows stay untouched. */
export async function renumber(db: Db, orgId: string, orderedIds: string[]): Promise<void> {
  if (orderedIds.length === 0) return;
  const ids = sql`ARRAY[${sql.join(
    orderedIds.map((id) => sql`${id}`),
    sql`, `,
  )}]::uuid[]`;
  const position = sql<number>`(array_position(${ids}, ${resultNodes.id}) - 1)`;
  await db
    .update(resultNodes)
    .set({ orderIndex: position })
    .where(
      and(
        eq(resultNodes.orgId, orgId),
        inArray(resultNodes.id, orderedIds),
        ne(resultNodes.orderIndex, position),
      ),
    );
}
