import { and, asc, count, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { projects } from '../projects/projects.tables.js';
import { budgetLines } from './budget.tables.js';

const lineColumns = {
  id: budgetLines.id,
  orgId: budgetLines.orgId,
  projectId: budgetLines.projectId,
  category: budgetLines.category,
  description: budgetLines.description,
  plannedAmount: budgetLines.plannedAmount,
  actualAmount: budgetLines.actualAmount,
  currency: projects.currency,
  createdAt: budgetLines.createdAt,
  updatedAt: budgetLines.updatedAt,
};

function lineQuery(db: Db) {
  return db
    .select(lineColumns)
    .from(budgetLines)
    .innerJoin(projects, and(eq(projects.orgId, budgetLines.orgId), eq(projects.id, budgetLines.projectId)));
}

const ofProject = (orgId: string, projectId: string) =>
  and(eq(budgetLines.orgId, orgId), eq(budgetLines.projectId, projectId));

export async function countLines(db: Db, orgId: string, projectId: string): Promise<number> {
  const [row] = await db.select({ total: count() }).from(budgetLines).where(ofProject(orgId, projectId));
  return row?.total ?? 0;
}

export function listLines(db: Db, orgId: string, projectId: string, window: Window) {
  return inWindow(
    lineQuery(db)
      .where(ofProject(orgId, projectId))
      .orderBy(asc(budgetLines.category), asc(budgetLines.id))
      .$dynamic(),
    window,
  );
}

export async function findLine(db: Db, orgId: string, id: string) {
  const [row] = await lineQuery(db)
    .where(and(eq(budgetLines.orgId, orgId), eq(budgetLines.id, id)))
    .limit(1);
  return row;
}

export async function insertLine(
  db: Db,
  orgId: string,
  projectId: string,
  values: { category: string; description: string | null; plannedAmount: number; actualAmount: number },
): Promise<string> {
  const [row] = await db
    .insert(budgetLines)
    .values({ orgId, projectId, ...values })
    .returning({ id: budgetLines.id });
  return row!.id;
}

/** false when no such line exists in the org. */
export async function updateLine(
  db: Db,
  orgId: string,
  id: string,
  values: { category?: string; description?: string | null; plannedAmount?: number; actualAmount?: number },
): Promise<boolean> {
  const rows = await db
    .update(budgetLines)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(budgetLines.orgId, orgId), eq(budgetLines.id, id)))
    .returning({ id: budgetLines.id });
  return rows.length > 0;
}

export async function deleteLine(db: Db, orgId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(budgetLines)
    .where(and(eq(budgetLines.orgId, orgId), eq(budgetLines.id, id)))
    .returning({ id: budgetLines.id });
  return rows.length > 0;
}
