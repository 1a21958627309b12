import type { Db } from '../../db/client.js';
import { notFound } from '../../errors/catalogue.js';
import type { Member, Memberships, Session } from '../../http/pipeline/access.js';
import { findUserName } from '../auth/index.js';
import { dimensionsOf, findIndicator, linkedIndicators } from '../indicators/index.js';
import { findIndicatorReport, indicatorReportsOfPeriod } from '../indicator-reports/index.js';
import { findPeriod } from '../periods/index.js';
import { ensureProjectAccess, findProject, projectExists, requireProject } from '../projects/index.js';

/**
 * The caller as a member of the organization that holds the project: the links in emails name a
 * project, not its organization. Undefined when none of the caller's organizations has it, so another
 * organization's project is "not found", as an id of another organization is in the API.
 */
export async function memberForProject(
  db: Db,
  memberships: Memberships,
  session: Session,
  projectId: string,
): Promise<Member | undefined> {
  for (const { organization, role } of await memberships.list(db, session.userId)) {
    if (await projectExists(db, organization.id, projectId)) {
      return { orgId: organization.id, userId: session.userId, role };
    }
  }
  return undefined;
}

const fullName = async (db: Db, userId: string | null) => {
  const user = userId ? await findUserName(db, userId) : undefined;
  return user ? `${user.firstName} ${user.lastName}` : null;
};

/**
 * One indicator report with the names its page shows, under the API's rules for
 * GET /orgs/:orgId/indicator-reports/:id: 404 when the organization has no such report (or it is of
 * another project than the path's), then 403 for a reporter the project is not assigned to.
 */
export async function indicatorReportView(db: Db, member: Member, projectId: string, reportId: string) {
  const report = await findIndicatorReport(db, member.orgId, reportId);
  if (!report || report.projectId !== projectId) throw notFound('Indicator report');
  await ensureProjectAccess(db, member, projectId);
  const project = await findProject(db, member.orgId, projectId);
  const indicator = await findIndicator(db, member.orgId, report.indicatorId);
  const period = await findPeriod(db, member.orgId, report.reportingPeriodId);
  // The report references all three in the organization (foreign keys): they are there.
  if (!project || !indicator || !period) throw notFound('Indicator report');
  return {
    member,
    report,
    project,
    indicator,
    period,
    dimensions: await dimensionsOf(db, member.orgId, indicator.id),
    submitter: await fullName(db, report.submittedBy),
    reviewer: await fullName(db, report.reviewedBy),
  };
}

export type IndicatorReportView = Awaited<ReturnType<typeof indicatorReportView>>;

/**
 * A project's reporting period and, for each indicator reported on in it (linked to the project, not a
 * formula: formulas are computed), its report or none yet. The API's rules for the project's data: 404
 * when the organization has no such project or period (or the period is another project's), 403 for a
 * reporter the project is not assigned to.
 */
export async function reportingPeriodView(db: Db, member: Member, projectId: string, periodId: string) {
  await requireProject(db, member, projectId);
  const period = await findPeriod(db, member.orgId, periodId);
  if (!period || period.projectId !== projectId) throw notFound('Reporting period');
  const project = (await findProject(db, member.orgId, projectId))!;
  const linked = await linkedIndicators(db, member.orgId, [projectId]);
  const reports = new Map(
    (await indicatorReportsOfPeriod(db, member.orgId, projectId, periodId)).map((r) => [r.indicatorId, r]),
  );
  const indicators = linked
    .filter((indicator) => !indicator.isFormula)
    .sort((a, b) => a.code.toLowerCase().localeCompare(b.code.toLowerCase()))
    .map((indicator) => ({
      id: indicator.id,
      name: indicator.name,
      code: indicator.code,
      unit: indicator.unit,
      report: reports.get(indicator.id) ?? null,
    }));
  return { member, project, period, indicators };
}

export type ReportingPeriodView = Awaited<ReturnType<typeof reportingPeriodView>>;
