import { and, asc, count, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { disaggregations, indicators, projectIndicators } from './indicators.tables.js';

export type DisaggregationRow = typeof disaggregations.$inferSelect;

/** The indicator, its row locked until the transaction ends: one writer of its disaggregations at a time. */
export async function lockIndicator(db: Db, orgId: string, id: string): Promise<boolean> {
  const rows = await db
    .select({ id: indicators.id })
    .from(indicators)
    .where(and(eq(indicators.orgId, orgId), eq(indicators.id, id)))
    .for('no key update');
  return rows.length > 0;
}

const ofIndicator = (orgId: string, indicatorId: string) =>
  and(eq(disaggregations.orgId, orgId), eq(disaggregations.indicatorId, indicatorId));

const oldestFirst = [asc(disaggregations.createdAt), asc(disaggregations.id)];

export async function countDisaggregations(db: Db, orgId: string, indicatorId: string): Promise<number> {
  const [row] = await db
    .select({ total: count() })
    .from(disaggregations)
    .where(ofIndicator(orgId, indicatorId));
  return row?.total ?? 0;
}

/** In creation order. */
export function listDisaggregations(db: Db, orgId: string, indicatorId: string, window?: Window) {
  const query = db
    .select()
    .from(disaggregations)
    .where(ofIndicator(orgId, indicatorId))
    .orderBy(...oldestFirst)
    .$dynamic();
  return window ? inWindow(query, window) : query;
}

export async function insertDisaggregation(
  db: Db,
  orgId: string,
  indicatorId: string,
  values: { name: string; categories: string[]; crosses?: string[] | null },
): Promise<DisaggregationRow> {
  const [row] = await db
    .insert(disaggregations)
    .values({ orgId, indicatorId, ...values })
    .returning();
  return row!;
}

export async function deleteDisaggregation(db: Db, orgId: string, indicatorId: string, id: string) {
  const rows = await db
    .delete(disaggregations)
    .where(and(ofIndicator(orgId, indicatorId), eq(disaggregations.id, id)))
    .returning({ id: disaggregations.id });
  return rows.length > 0;
}

/** A disaggregation of an indicator linked to a project, as the read models show it. */
export interface LinkedDisaggregation {
  indicatorId: string;
  name: string;
  categories: string[];
  crosses: string[] | null;
}

/** The disaggregations of every indicator linked to the projects, oldest first. */
export function disaggregationsOfLinked(
  db: Db,
  orgId: string,
  projectIds: string[],
): Promise<LinkedDisaggregation[]> {
  const linked = db
    .selectDistinct({ id: projectIndicators.indicatorId })
    .from(projectIndicators)
    .where(and(eq(projectIndicators.orgId, orgId), inArray(projectIndicators.projectId, projectIds)));
  const { indicatorId, name, categories, crosses } = disaggregations;
  return db
    .select({ indicatorId, name, categories, crosses })
    .from(disaggregations)
    .where(and(eq(disaggregations.orgId, orgId), inArray(indicatorId, linked)))
    .orderBy(...oldestFirst);
}
