import type { Config } from '../../config.js';
import { transaction, type Db } from '../../db/client.js';
import type { Member } from '../../http/access.js';
import { badRequest, conflict, forbidden, notFound, pgErrorCode } from '../../http/errors.js';
import { paginate, type PageRequest } from '../../http/pagination.js';
import { actorName, recordFeedEvent } from '../feed/feed.service.js';
import { queueEmail } from '../mail/mail.service.js';
import { PERIOD_LOCKED } from '../periods/periods.service.js';
import { ensureProjectAccess, requireProject } from '../projects/project-scope.js';
import {
  countReports,
  dimensionsOf,
  findReport,
  findUserName,
  insertReport,
  isLinked,
  listReports,
  reportContext,
  shareIndicator,
  sharePeriod,
  updateReport,
  type IndicatorReportRow,
  type ReportFilter,
} from './indicator-reports.repo.js';
import { EDITABLE, type IndicatorReportStatus } from './indicator-reports.tables.js';
import { reportValues, type DisaggregatedValues } from './report-values.js';

export const DUPLICATE = 'An indicator report already exists for this indicator and reporting period';

export interface NewReport extends ReportInput {
  indicatorId: string;
  reportingPeriodId: string;
}

export interface ReportInput {
  value?: number | null;
  target?: number | null;
  narrative?: string | null;
  disaggregatedValues?: DisaggregatedValues | null;
}

const cleanNarrative = (text: string | null | undefined) =>
  text === undefined ? undefined : text?.trim() ? text : null;

/**
 * What a new report needs, checked in this order: the project (404, 403), the indicator and the period
 * in the org (404), the period of this project (400), not locked (403), an indicator that takes reports
 * (400) and is linked to the project (400). Indicator and period stay share-locked.
 */
export async function reportable(
  tx: Db,
  member: Member,
  projectId: string,
  input: { indicatorId: string; reportingPeriodId: string },
) {
  await requireProject(tx, member, projectId);
  const indicator = await shareIndicator(tx, member.orgId, input.indicatorId);
  if (!indicator) throw notFound('Indicator');
  const period = await sharePeriod(tx, member.orgId, input.reportingPeriodId);
  if (!period) throw notFound('Reporting period');
  if (period.projectId !== projectId) {
    throw badRequest('reportingPeriodId must be a reporting period of this project');
  }
  if (period.isLocked) throw forbidden(PERIOD_LOCKED);
  if (indicator.isFormula) throw badRequest('Formula indicators are computed and cannot receive reports');
  if (!(await isLinked(tx, projectId, indicator.id))) {
    throw badRequest('indicatorId must be an indicator linked to the project');
  }
  return { indicator, period };
}

/** Indicator values per project and period, and their review (SPEC.md IndicatorReport status). */
export class IndicatorReportService {
  constructor(
    private readonly db: Db,
    private readonly config: Pick<Config, 'appUrl'>,
  ) {}

  async list(member: Member, projectId: string, query: PageRequest & ReportFilter) {
    await requireProject(this.db, member, projectId);
    const filter: ReportFilter = {
      periodId: query.periodId,
      status: query.status,
      indicatorId: query.indicatorId,
    };
    return paginate(query, {
      count: () => countReports(this.db, member.orgId, projectId, filter),
      list: async (window) =>
        (await listReports(this.db, member.orgId, projectId, filter, window)).map((row) => row.report),
    });
  }

  async get(member: Member, id: string): Promise<IndicatorReportRow> {
    const report = await findReport(this.db, member.orgId, id);
    if (!report) throw notFound('Indicator report');
    await ensureProjectAccess(this.db, member, report.projectId);
    return report;
  }

  create(member: Member, projectId: string, input: NewReport): Promise<IndicatorReportRow> {
    return transaction(this.db, async (tx) => {
      const { indicator, period } = await reportable(tx, member, projectId, input);
      const values = reportValues(await dimensionsOf(tx, indicator.id), input);
      return insertReport(tx, {
        orgId: member.orgId,
        projectId,
        indicatorId: indicator.id,
        reportingPeriodId: period.id,
        ...values,
        target: input.target ?? null,
        narrative: cleanNarrative(input.narrative) ?? null,
      });
    }).catch((err: unknown) => {
      const { code } = pgErrorCode(err);
      if (code === '23505') throw conflict(DUPLICATE);
      // The link, period or project went away between the checks and the insert.
      if (code === '23503') throw badRequest('indicatorId must be an indicator linked to the project');
      throw err;
    });
  }

  /** Edits a draft or rejected report; it keeps its status. */
  update(member: Member, id: string, input: ReportInput): Promise<IndicatorReportRow> {
    return transaction(this.db, async (tx) => {
      const report = await this.editable(tx, member, id);
      // Stored values are checked again only when the request touches them.
      const touchesValues = input.value !== undefined || input.disaggregatedValues !== undefined;
      const values = touchesValues
        ? reportValues(await dimensionsOf(tx, report.indicatorId), input, report)
        : {};
      const changes = { ...values, target: input.target, narrative: cleanNarrative(input.narrative) };
      const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
      if (Object.keys(set).length === 0) return report;
      return (await updateReport(tx, member.orgId, id, EDITABLE, set)) ?? report;
    });
  }

  submit(member: Member, id: string): Promise<IndicatorReportRow> {
    return transaction(this.db, async (tx) => {
      const report = await this.editable(tx, member, id, 'submitted');
      if (report.value === null) throw badRequest('value is required to submit the report');
      const submitted = await updateReport(tx, member.orgId, id, EDITABLE, {
        status: 'submitted',
        submittedAt: new Date(),
        submittedBy: member.userId,
      });
      await this.recordEvent(tx, member, submitted!, 'submitted');
      return submitted!;
    });
  }

  /** Approve or reject a submitted report. Locked periods do not stop a review. */
  review(
    member: Member,
    id: string,
    decision: 'approved' | 'rejected',
    comment: string | null | undefined,
  ): Promise<IndicatorReportRow> {
    return transaction(this.db, async (tx) => {
      // The row lock makes two reviewers take turns: the second sees the first one's decision.
      const report = await findReport(tx, member.orgId, id, { lock: true });
      if (!report) throw notFound('Indicator report');
      await ensureProjectAccess(tx, member, report.projectId);
      if (report.status !== 'submitted') {
        throw conflict(`Only submitted indicator reports can be ${decision}; this one is ${report.status}`);
      }
      const reviewed = await updateReport(tx, member.orgId, id, ['submitted'], {
        status: decision,
        comment: comment?.trim() || null,
        reviewedAt: new Date(),
        reviewedBy: member.userId,
      });
      await this.recordEvent(tx, member, reviewed!, decision);
      return reviewed!;
    });
  }

  /** The report, row-locked, if it may still change: draft or rejected, in an unlocked period. */
  private async editable(tx: Db, member: Member, id: string, to?: IndicatorReportStatus) {
    const report = await findReport(tx, member.orgId, id, { lock: true });
    if (!report) throw notFound('Indicator report');
    await ensureProjectAccess(tx, member, report.projectId);
    if (!EDITABLE.includes(report.status)) {
      throw conflict(
        to
          ? `Only draft or rejected indicator reports can be ${to}; this one is ${report.status}`
          : `Indicator report can only be edited while draft or rejected; this one is ${report.status}`,
      );
    }
    const period = await sharePeriod(tx, member.orgId, report.reportingPeriodId);
    if (period?.isLocked) throw forbidden(PERIOD_LOCKED);
    await shareIndicator(tx, member.orgId, report.indicatorId);
    return report;
  }

  private async recordEvent(
    tx: Db,
    member: Member,
    report: IndicatorReportRow,
    action: 'submitted' | 'approved' | 'rejected',
  ): Promise<void> {
    const context = await reportContext(tx, report);
    const actor = await actorName(tx, member.userId);
    const label = `${context.indicatorName} (${context.periodLabel})`;
    await recordFeedEvent(tx, {
      orgId: member.orgId,
      type: `indicator_report.${action}`,
      actorId: member.userId,
      projectId: report.projectId,
      subject: { type: 'indicator_report', id: report.id, label },
      summary: `${actor} ${action} ${context.indicatorName} for ${context.periodLabel} of ${context.projectName}`,
    });
    if (action !== 'rejected' || !report.submittedBy) return;
    const submitter = await findUserName(tx, report.submittedBy);
    if (!submitter) return;
    await queueEmail(tx, {
      recipient: submitter.email,
      subject: `Indicator report returned: ${context.indicatorName}, ${context.periodLabel}`,
      body:
        `Hello ${submitter.firstName},\n\n` +
        `${actor} returned your report on ${context.indicatorName} (${context.indicatorCode}) ` +
        `for ${context.projectName}, reporting period ${context.periodLabel}, with this comment:\n\n` +
        `${report.comment ?? ''}\n\n` +
        `Edit the report and submit it again:\n` +
        `${this.config.appUrl}/projects/${report.projectId}/indicator-reports/${report.id}\n`,
    });
  }
}
