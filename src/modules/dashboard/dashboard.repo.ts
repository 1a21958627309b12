/**
 * A read model (docs/architecture.md, "Module order"): the dashboard reads across programs, projects, periods and
 * progress in set-based queries, and writes no table.
 */
import { and, asc, between, eq, inArray, sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import { programs } from '../programs/programs.tables.js';
import { projects } from '../projects/projects.tables.js';
import { visibleTo, type ProjectVisibility } from '../projects/index.js';

export interface BudgetRow {
  programId: string | null;
  currency: string | null;
  projectCount: number;
  activeCount: number;
  budget: string;
  spent: string;
}

/**
 * Project counts and money in one pass, summed exactly in numeric: the whole organization, per currency,
 * per program, and per program and currency (GROUPING SETS). Spent is the sum of budget lines' actual
 * amounts. Only the projects within `visibility` count.
 */
export async function projectTotals(
  db: Db,
  orgId: string,
  visibility: ProjectVisibility,
): Promise<BudgetRow[]> {
  // Unaliased: the visibility condition names the projects table itself.
  const scope = visibleTo(orgId, visibility, projects.id);
  const result = await db.execute(sql`
    SELECT projects.program_id AS "programId", projects.currency,
      count(*)::int AS "projectCount",
      (count(*) FILTER (WHERE projects.status = 'active'))::int AS "activeCount",
      sum(projects.budget)::text AS budget,
      coalesce(sum(spending.spent), 0)::text AS spent
    FROM projects
    LEFT JOIN (
      SELECT project_id, sum(actual_amount) AS spent FROM budget_lines WHERE org_id = ${orgId} GROUP BY project_id
    ) spending ON spending.project_id = projects.id
    WHERE projects.org_id = ${orgId} ${scope ? sql`AND ${scope}` : sql``}
    GROUP BY GROUPING SETS ((), (projects.currency), (projects.program_id), (projects.program_id, projects.currency))
    ORDER BY projects.currency`);
  return rowsOf<BudgetRow>(result);
}

/** Programs by name; `programIds` limits them (a reporter sees the programs of their projects). */
export function programList(db: Db, orgId: string, programIds: string[] | undefined) {
  return db
    .select({ id: programs.id, name: programs.name, status: programs.status })
    .from(programs)
    .where(and(eq(programs.orgId, orgId), programIds ? inArray(programs.id, programIds) : undefined))
    .orderBy(asc(programs.name), asc(programs.id));
}

/**
 * Periods of the projects within `visibility` due from `from` to `to` (inclusive), soonest first, ties
 * by project name and period id.
 */
export function periodsDue(
  db: Db,
  orgId: string,
  visibility: ProjectVisibility,
  range: { from: string; to: string },
) {
  return db
    .select({
      periodId: reportingPeriods.id,
      projectId: reportingPeriods.projectId,
      projectName: projects.name,
      label: reportingPeriods.label,
      dueDate: sql<string>`${reportingPeriods.dueDate}`,
    })
    .from(reportingPeriods)
    .innerJoin(
      projects,
      and(eq(projects.orgId, reportingPeriods.orgId), eq(projects.id, reportingPeriods.projectId)),
    )
    .where(
      and(
        eq(reportingPeriods.orgId, orgId),
        between(reportingPeriods.dueDate, range.from, range.to),
        visibleTo(orgId, visibility, reportingPeriods.projectId),
      ),
    )
    .orderBy(asc(reportingPeriods.dueDate), asc(projects.name), asc(reportingPeriods.id));
}
