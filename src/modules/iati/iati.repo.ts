/**
 * A read model (docs/architecture.md, "Module order"): the IATI export reads the organization, its projects and what
 * hangs under them (donors, budget lines, indicators, result nodes, periods, approved reports), a batch
 * of projects at a time, each read set-based for the whole batch. It writes no table.
 */
import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { budgetLines } from '../budget/budget.tables.js';
import { donors } from '../donors/donors.tables.js';
import { indicatorReports } from '../indicator-reports/indicator-reports.tables.js';
import { organizations } from '../orgs/orgs.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import { programDonors } from '../programs/programs.tables.js';
import { projects } from '../projects/projects.tables.js';
import { resultNodes } from '../results/results.tables.js';

/** The organization as it publishes: its name, IATI identifier (null: not set) and organisation type. */
export async function publisherOf(db: Db, orgId: string) {
  const [row] = await db
    .select({ name: organizations.name, ref: organizations.iatiRef, type: organizations.iatiOrgType })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  return row;
}

/** The codes of the organization's projects, by code. */
export async function projectCodes(db: Db, orgId: string): Promise<string[]> {
  const rows = await db
    .select({ code: projects.code })
    .from(projects)
    .where(eq(projects.orgId, orgId))
    .orderBy(asc(projects.code));
  return rows.map((row) => row.code);
}

/** Projects by code after `afterCode` (keyset on the (org_id, code) unique index), or the one project. */
export function projectsAfter(
  db: Db,
  orgId: string,
  scope: { afterCode: string | null; projectId?: string; limit: number },
) {
  return db
    .select({
      id: projects.id,
      programId: projects.programId,
      code: projects.code,
      name: projects.name,
      description: projects.description,
      currency: projects.currency,
      startDate: projects.startDate,
      endDate: projects.endDate,
      status: projects.status,
    })
    .from(projects)
    .where(
      and(
        eq(projects.orgId, orgId),
        scope.projectId === undefined ? undefined : eq(projects.id, scope.projectId),
        scope.afterCode === null ? undefined : gt(projects.code, scope.afterCode),
      ),
    )
    .orderBy(asc(projects.code))
    .limit(scope.limit);
}

export function donorsOfPrograms(db: Db, orgId: string, programIds: string[]) {
  return db
    .select({ programId: programDonors.programId, name: donors.name, type: donors.type })
    .from(programDonors)
    .innerJoin(donors, and(eq(donors.orgId, programDonors.orgId), eq(donors.id, programDonors.donorId)))
    .where(and(eq(programDonors.orgId, orgId), inArray(programDonors.programId, programIds)))
    .orderBy(asc(donors.name), asc(donors.id));
}

/** Each project's budget lines' planned amounts, summed exactly (numeric, as text). */
export function plannedBudgets(db: Db, orgId: string, projectIds: string[]) {
  return db
    .select({
      projectId: budgetLines.projectId,
      planned: sql<string>`sum(${budgetLines.plannedAmount})::text`,
    })
    .from(budgetLines)
    .where(and(eq(budgetLines.orgId, orgId), inArray(budgetLines.projectId, projectIds)))
    .groupBy(budgetLines.projectId);
}

/** The result nodes of the programs: enough to put them in the framework's order. */
export function resultNodesOf(db: Db, orgId: string, programIds: string[]) {
  return db
    .select({ id: resultNodes.id, parentId: resultNodes.parentId, orderIndex: resultNodes.orderIndex })
    .from(resultNodes)
    .where(and(eq(resultNodes.orgId, orgId), inArray(resultNodes.programId, programIds)));
}

export function periodsOf(db: Db, orgId: string, projectIds: string[]) {
  return db
    .select({
      id: reportingPeriods.id,
      projectId: reportingPeriods.projectId,
      startDate: reportingPeriods.startDate,
      endDate: reportingPeriods.endDate,
    })
    .from(reportingPeriods)
    .where(and(eq(reportingPeriods.orgId, orgId), inArray(reportingPeriods.projectId, projectIds)))
    .orderBy(asc(reportingPeriods.startDate), asc(reportingPeriods.id));
}

/** Approved reports only: drafts, submitted and rejected values are not published. */
export function approvedValuesOf(db: Db, orgId: string, projectIds: string[]) {
  return db
    .select({
      projectId: indicatorReports.projectId,
      indicatorId: indicatorReports.indicatorId,
      periodId: indicatorReports.reportingPeriodId,
      value: indicatorReports.value,
      target: indicatorReports.target,
      disaggregatedValues: indicatorReports.disaggregatedValues,
    })
    .from(indicatorReports)
    .where(
      and(
        eq(indicatorReports.orgId, orgId),
        inArray(indicatorReports.projectId, projectIds),
        eq(indicatorReports.status, 'approved'),
      ),
    );
}
