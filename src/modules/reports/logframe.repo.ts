/**
 * The reads of a project's logframe (a read model, like assembly.repo.ts): its periods, the results
 * framework around its indicators and every disaggregation of them. The values, the targets, the
 * indicators and the donors are read by the queries report assembly uses.
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import { resultNodes } from '../results/results.tables.js';

/** Every period of the project, oldest first (periods of one project never overlap). */
export function projectPeriods(db: Db, orgId: string, projectId: string) {
  return db
    .select({
      id: reportingPeriods.id,
      label: reportingPeriods.label,
      startDate: reportingPeriods.startDate,
      endDate: reportingPeriods.endDate,
    })
    .from(reportingPeriods)
    .where(and(eq(reportingPeriods.orgId, orgId), eq(reportingPeriods.projectId, projectId)))
    .orderBy(asc(reportingPeriods.startDate), asc(reportingPeriods.id));
}

export interface ResultNodeRow {
  id: string;
  programId: string;
  parentId: string | null;
  level: string;
  /** The result's code in its framework (`1.1`), when it has one. */
  code: string | null;
  title: string;
  orderIndex: number;
}

/**
 * The result nodes of the programs whose frameworks hold the given nodes (an indicator may sit in any
 * program's framework of the organization), for their ancestors and their order.
 */
export function resultFrameworks(db: Db, orgId: string, nodeIds: string[]): Promise<ResultNodeRow[]> {
  if (nodeIds.length === 0) return Promise.resolve([]);
  const programsOfNodes = db
    .selectDistinct({ id: resultNodes.programId })
    .from(resultNodes)
    .where(and(eq(resultNodes.orgId, orgId), inArray(resultNodes.id, nodeIds)));
  return db
    .select({
      id: resultNodes.id,
      programId: resultNodes.programId,
      parentId: resultNodes.parentId,
      level: resultNodes.level,
      code: resultNodes.code,
      title: resultNodes.title,
      orderIndex: resultNodes.orderIndex,
    })
    .from(resultNodes)
    .where(and(eq(resultNodes.orgId, orgId), inArray(resultNodes.programId, programsOfNodes)))
    .orderBy(asc(resultNodes.orderIndex), asc(resultNodes.id));
}
