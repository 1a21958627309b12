import { asReturned, queueWebhookEvent } from '../webhooks/index.js';
import type { Config } from '../../config.js';
import { transaction, type Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import { badRequest, notFound, periodLocked, separateApprovalRequired } from '../../errors/catalogue.js';
import { refusedDuplicate, refusedWrite } from '../../errors/refusals.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { countParticipantGroups } from '../activities/index.js';
import { findUserName } from '../auth/index.js';
import { recordFeedEventBy } from '../feed/index.js';
import { dimensionsOf, findIndicator, lockIndicatorForShare } from '../indicators/index.js';
import { queueEmail } from '../mail/index.js';
import { ageBandsOf, recipientLocale, requiresSeparateApproval } from '../orgs/index.js';
import { findPeriod, lockPeriodForShare } from '../periods/index.js';
import type { AuditSource } from '../privacy/index.js';
import { countTarget, refusedCountTarget, type CountTargetRefusal } from './count-target.js';
import { ensureProjectAccess, requireProject, findProject } from '../projects/index.js';
import {
  countIndicatorReports,
  countIntoReport,
  findIndicatorReport,
  type CountRefusal,
  insertIndicatorReport,
  listIndicatorReports,
  lockIndicatorReportFor,
  updateIndicatorReport,
  type IndicatorReportFilter,
  type IndicatorReportKey,
  type IndicatorReportRow,
} from './indicator-reports.repo.js';
import {
  IndicatorReport,
  type IndicatorReportInput,
  type NewIndicatorReport,
  type PrefillInput,
} from './indicator-reports.schemas.js';
import { INDICATOR_REPORT_STATUSES } from './indicator-reports.tables.js';
import { axesFor, tally } from './prefill.js';
import { clean, reportValues, same } from './report-values.js';
import { reportReturnedEmail, type ReportNames } from './indicator-reports.emails.js';
import { unjustified, withFlags } from './report-flags.js';
import { lockRuleChecks } from './rule-check-lock.js';
import { readHistory, recordHistory, type PersonalAmounts } from './report-history.js';
import { checkEditable, checkMove, EDITABLE, movableTo } from './report-workflow.js';

/**
 * What the submissions counted into a report add up to now, the value and the cells of forms filling
 * disaggregations (the forms module, which keeps the link of
 * each counted submission to its report, answers: wired in `buildApp`).
 */
export type CountedSources = (
  tx: Db,
  orgId: string,
  reportId: string,
) => Promise<{ amount: number; submissions: number; cells: Record<string, number> }>;

/** What a recount can take in of the uncounted submissions of the report's period. */
export interface Uncounted {
  submissions: number;
  amount: number;
  byReason: Record<string, number>;
}

/**
 * The uncounted submissions of a report's period a recount may take in, and with `write` marks them
 * counted into it (the forms module, which keeps the submissions, answers: wired in `buildApp`).
 */
export type UncountedSources = (
  tx: Db,
  orgId: string,
  report: { id: string; projectId: string; indicatorId: string; reportingPeriodId: string },
  write: boolean,
) => Promise<Uncounted>;

/** A recount: the report after it, and the counted part before and after. */
export interface Recount {
  report: IndicatorReportRow;
  counted: { from: number; to: number };
  submissions: { from: number; to: number };
  value: { from: number | null; to: number | null };
  uncounted: Uncounted & { takenIn: boolean };
  dryRun: boolean;
}

/** Carries a dry run's answer out of its transaction, which it rolls back. */
class DryRun extends Error {
  constructor(readonly result: Recount) {
    super('dry run');
  }
}

export const DUPLICATE = 'An indicator report already exists for this indicator and reporting period';
/** The four-eyes refusal: what the reviewer who submitted the report can do about it. */
const cleanNarrative = (text: string | null | undefined) =>
  text === undefined ? undefined : text?.trim() ? text : null;

/**
 * What a new report needs, checked in this order: the project (404, 403), the indicator and the period
 * in the org (404), the period of this project (400), not locked (403), an indicator that takes reports
 * (400) and is linked to the project (400). Indicator and period stay locked FOR SHARE.
 */
const REPORT_CHECKS: readonly CountTargetRefusal[] = [
  'indicator-missing',
  'period-missing',
  'period-of-another-project',
  'period-locked',
  'formula-indicator',
  'indicator-not-linked',
];

async function reportable(
  tx: Db,
  member: Member,
  projectId: string,
  input: { indicatorId: string; reportingPeriodId: string },
) {
  await requireProject(tx, member, projectId);
  const { indicator, period, refusals } = await countTarget(tx, member.orgId, projectId, input);
  const refused = refusedCountTarget(refusals, REPORT_CHECKS, 'indicatorId');
  if (refused) throw refused;
  return { indicator: indicator!, period: period! };
}

/** Why a submission was not counted into its report, as the indicator reports module knows it. */
export type ReportRefusal = 'period_locked' | CountRefusal['refused'];

/**
 * Adds a submission's `amount` to the report of an indicator for a project and period, in the caller's
 * transaction (forms count each submission so), and records it in the report's history: the id of the
 * report it went into, or why not: a locked (or unknown) period, a submitted or approved report, a sum
 * past the largest double. The period stays locked FOR SHARE, so it cannot be locked while the count is
 * being written.
 */
export async function countIntoIndicatorReport(
  tx: Db,
  orgId: string,
  key: IndicatorReportKey,
  count: { amount: number; submissionId: string; cells?: Record<string, number> },
): Promise<{ reportId: string } | { refused: ReportRefusal }> {
  const period = await lockPeriodForShare(tx, orgId, key.reportingPeriodId);
  if (!period || period.isLocked) return { refused: 'period_locked' };
  // Before the report's row lock, as every write checking the rules (rule-check-lock.ts).
  await lockRuleChecks(tx, orgId, [key]);
  const change = await countIntoReport(tx, orgId, key, count.amount, count.cells);
  if ('refused' in change) return change;
  const after = await withFlags(tx, change.after);
  await recordHistory(tx, { kind: 'counted', actor: { submissionId: count.submissionId }, ...change, after });
  return { reportId: change.after.id };
}

/**
 * What submissions counted into a report when they are deleted with their form (in the caller's
 * transaction): the value stays as it is, those amounts leave the counted part, which keeps matching the
 * submissions still linked (so a recount leaves the value be), and the history says why: `uncounted`.
 * Whatever the report's status: the value does not change.
 */
export async function uncountFromIndicatorReport(
  tx: Db,
  member: Member,
  released: {
    reportId: string;
    amount: number;
    submissions: number;
    personal: boolean;
    cells?: Record<string, number>;
  },
  reason: string,
): Promise<void> {
  const report = await findIndicatorReport(tx, member.orgId, released.reportId, { lock: true });
  if (!report) return;
  const after = (await updateIndicatorReport(tx, member.orgId, report.id, INDICATOR_REPORT_STATUSES, {
    countedValue: clean(report.countedValue - released.amount),
    ...(Object.keys(released.cells ?? {}).length > 0 && {
      countedDisaggregatedValues: addCells(report.countedDisaggregatedValues, released.cells!, -1),
    }),
    countedSubmissions: report.countedSubmissions - released.submissions,
    personalAmountsGone: report.personalAmountsGone || released.personal,
  }))!;
  const counted = { from: report.countedValue, to: after.countedValue };
  await recordHistory(tx, {
    kind: 'uncounted',
    actor: member,
    before: report,
    after,
    reason:
      `${reason}: ${released.submissions} counted submission(s) adding ${released.amount} no longer ` +
      `have a source (counted part ${counted.from} → ${counted.to}; the value stays)`,
  });
}

/** `cells` added to `to` key by key (`sign` -1: taken away); a missing key counts 0. */
function addCells(to: Record<string, number>, cells: Record<string, number>, sign = 1) {
  const sum = { ...to };
  for (const [key, n] of Object.entries(cells)) sum[key] = clean((sum[key] ?? 0) + sign * n);
  return sum;
}

/**
 * The report's cells with their counted part rebuilt from the sources' cells (the rest, entered by
 * hand, stays); null when nothing is off, or neither counted any cell.
 */
function rebuiltCells(report: IndicatorReportRow, sources: Record<string, number>) {
  const counted = report.countedDisaggregatedValues;
  const keys = new Set([...Object.keys(counted), ...Object.keys(sources)]);
  if ([...keys].every((key) => same(counted[key] ?? 0, sources[key] ?? 0))) return null;
  return addCells(addCells(report.disaggregatedValues, counted, -1), sources);
}

/** Indicator values per project and period, and their review (SPEC.md IndicatorReport status). */
export class IndicatorReportService {
  constructor(
    private readonly db: Db,
    private readonly config: Pick<Config, 'appUrl'>,
    /** Wakes the outbox worker once a transaction that queued email has committed. */
    private readonly mailQueued: () => void,
    private readonly countedSources: CountedSources,
    private readonly personalAmounts: PersonalAmounts,
    /** Wakes the webhook worker; queueWebhookEvent calls it once a delivery it queued has committed. */
    private readonly webhooksQueued: () => void,
    private readonly uncountedSources: UncountedSources,
  ) {}

  async list(member: Member, projectId: string, query: PageRequest & IndicatorReportFilter) {
    await requireProject(this.db, member, projectId);
    const filter: IndicatorReportFilter = {
      periodId: query.periodId,
      status: query.status,
      indicatorId: query.indicatorId,
      flagged: query.flagged,
    };
    return paginate(query, {
      count: () => countIndicatorReports(this.db, member.orgId, projectId, filter),
      list: async (window) =>
        (await listIndicatorReports(this.db, member.orgId, projectId, filter, window)).map(
          (row) => row.report,
        ),
    });
  }

  async get(member: Member, id: string): Promise<IndicatorReportRow> {
    const report = await findIndicatorReport(this.db, member.orgId, id);
    if (!report) throw notFound('Indicator report');
    await ensureProjectAccess(this.db, member, report.projectId);
    return report;
  }

  create(member: Member, projectId: string, input: NewIndicatorReport): Promise<IndicatorReportRow> {
    return transaction(this.db, async (tx) => {
      const { indicator, period } = await reportable(tx, member, projectId, input);
      const dimensions = await dimensionsOf(tx, member.orgId, indicator.id);
      const values = reportValues(dimensions, input, undefined, await this.bandsFor(tx, member, dimensions));
      await lockRuleChecks(tx, member.orgId, [{ projectId, reportingPeriodId: period.id }]);
      const report = await withFlags(
        tx,
        await insertIndicatorReport(tx, member.orgId, {
          projectId,
          indicatorId: indicator.id,
          reportingPeriodId: period.id,
          ...values,
          target: input.target ?? null,
          narrative: cleanNarrative(input.narrative) ?? null,
        }),
      );
      await recordHistory(tx, { kind: 'created', actor: member, before: null, after: report });
      return report;
    }).catch(
      refusedWrite({
        taken: DUPLICATE,
        // The link, period or project went away between the checks and the insert.
        gone: () => badRequest('indicatorId must be an indicator linked to the project'),
      }),
    );
  }

  /**
   * Writes participant counts into the project's report of the indicator for the period (DECISIONS.md
   * section 7): distinct people registered in the project's activities that overlap the period, counted
   * by sex and by age band at the period's end. The draft or rejected report is updated, keeping its
   * status, target and narrative; without a report one is created as draft.
   */
  prefill(member: Member, projectId: string, input: PrefillInput) {
    return transaction(this.db, async (tx) => {
      const { indicator, period } = await reportable(tx, member, projectId, input);
      const dimensions = await dimensionsOf(tx, member.orgId, indicator.id);
      // The organization's bands matter only to an indicator without disaggregations of its own.
      const axes = axesFor(dimensions, dimensions.length === 0 ? await ageBandsOf(tx, member.orgId) : []);
      const key = { projectId, indicatorId: indicator.id, reportingPeriodId: period.id };
      await lockRuleChecks(tx, member.orgId, [key]);
      const existing = await lockIndicatorReportFor(tx, member.orgId, key);
      if (existing) checkEditable(existing.status, 'pre-filled');
      const groups = await countParticipantGroups(tx, member.orgId, {
        projectId,
        startDate: period.startDate,
        endDate: period.endDate,
        attendedOnly: input.attendedOnly ?? true,
      });
      const { prefill, ...counted } = tally(groups, axes);
      const values = { ...counted, prefillValue: counted.value };
      const report = await withFlags(
        tx,
        existing
          ? (await updateIndicatorReport(tx, member.orgId, existing.id, EDITABLE, values))!
          : await insertIndicatorReport(tx, member.orgId, {
              ...key,
              ...values,
              target: null,
              narrative: null,
            }),
      );
      await recordHistory(tx, { kind: 'prefilled', actor: member, before: existing ?? null, after: report });
      return { created: !existing, report, prefill };
    }).catch(refusedDuplicate(DUPLICATE)); // Another request created the report in between.
  }

  /**
   * The organization's age bands, which an indicator without disaggregations takes as the keys of a
   * breakdown (report-values' implicitDimensions); not read for an indicator with disaggregations.
   */
  private async bandsFor(tx: Db, member: Member, dimensions: unknown[]) {
    return dimensions.length === 0 ? await ageBandsOf(tx, member.orgId) : undefined;
  }

  /** Edits a draft or rejected report; it keeps its status. */
  update(member: Member, id: string, input: IndicatorReportInput): Promise<IndicatorReportRow> {
    return transaction(this.db, async (tx) => {
      const report = await this.editable(tx, member, id);
      // Stored values are checked again only when the request touches them.
      const touchesValues = input.value !== undefined || input.disaggregatedValues !== undefined;
      const dimensions = touchesValues ? await dimensionsOf(tx, member.orgId, report.indicatorId) : [];
      const values = touchesValues
        ? reportValues(dimensions, input, report, await this.bandsFor(tx, member, dimensions))
        : {};
      const changes = { ...values, target: input.target, narrative: cleanNarrative(input.narrative) };
      const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
      if (Object.keys(set).length === 0) return report;
      const updated = await withFlags(
        tx,
        (await updateIndicatorReport(tx, member.orgId, id, EDITABLE, set))!,
      );
      await recordHistory(tx, { kind: 'edited', actor: member, before: report, after: updated });
      return updated;
    });
  }

  /**
   * Submits a draft or rejected report. Its rules are checked again first; a flag of high importance not
   * yet justified needs `justification` (400 naming the rules), which every flag without one then takes.
   */
  submit(member: Member, id: string, justification?: string | null): Promise<IndicatorReportRow> {
    return transaction(this.db, async (tx) => {
      const report = await this.editable(tx, member, id, 'submitted');
      if (report.value === null) throw badRequest('value is required to submit the report');
      const checked = await withFlags(tx, report);
      const reason = justification?.trim() || null;
      const needed = unjustified(checked.flags);
      if (needed.length > 0 && reason === null) {
        throw badRequest(
          ...needed.map(
            (flag) =>
              `justification is required: the value breaks a rule of high importance (${flag.message})`,
          ),
        );
      }
      const flags = reason
        ? checked.flags.map((flag) =>
            flag.justification === null ? { ...flag, justification: reason } : flag,
          )
        : checked.flags;
      const now = new Date();
      const submitted = await updateIndicatorReport(tx, member.orgId, id, movableTo('submitted'), {
        flags,
        status: 'submitted',
        submittedAt: now,
        firstSubmittedAt: report.firstSubmittedAt ?? now,
        submittedBy: member.userId,
        // Each submission starts a new count of the form submissions it refuses.
        refusedSinceSubmitted: 0,
      });
      await recordHistory(tx, { kind: 'submitted', actor: member, before: report, after: submitted! });
      await this.recordEvent(tx, member, submitted!, 'submitted');
      return submitted!;
    });
  }

  /**
   * Approve or reject a submitted report. Locked periods do not stop a review; the organization's four
   * eyes (separateApproval) stop its last submitter. A rejection emails the submitter: the outbox worker
   * is woken once that is committed.
   */
  async review(
    member: Member,
    id: string,
    decision: 'approved' | 'rejected',
    comment: string | null | undefined,
  ): Promise<IndicatorReportRow> {
    const { reviewed, emailed } = await transaction(this.db, async (tx) => {
      // In the order every write of reports takes them (editable): the period FOR SHARE (a due date
      // moved meanwhile would recount the period's on-time values before this one's change is seen),
      // then the rule check of its project and period (a save there may flag this report, and the read
      // model of its period, period_report_counts, changes with both: in another order the two could
      // deadlock), then the row. A locked period does not stop a review.
      const found = await findIndicatorReport(tx, member.orgId, id);
      if (!found) throw notFound('Indicator report');
      await lockPeriodForShare(tx, member.orgId, found.reportingPeriodId);
      await lockRuleChecks(tx, member.orgId, [found]);
      // The row lock makes two reviewers take turns: the second sees the first one's decision.
      const report = await findIndicatorReport(tx, member.orgId, id, { lock: true });
      if (!report) throw notFound('Indicator report');
      await ensureProjectAccess(tx, member, report.projectId);
      checkMove(report.status, decision);
      // submittedBy is set by every submission: it names the last submitter of a submitted report.
      if (report.submittedBy === member.userId && (await requiresSeparateApproval(tx, member.orgId))) {
        throw separateApprovalRequired();
      }
      const reviewed = (await updateIndicatorReport(tx, member.orgId, id, movableTo(decision), {
        status: decision,
        comment: comment?.trim() || null,
        reviewedAt: new Date(),
        reviewedBy: member.userId,
      }))!;
      await recordHistory(tx, {
        kind: decision,
        actor: member,
        before: report,
        after: reviewed,
        reason: reviewed.comment,
        // Approving a flagged value says the flags were seen: the entry keeps them as they were.
        ...(decision === 'approved' && report.flags.length > 0 && { also: { flagsSeen: report.flags } }),
      });
      return { reviewed, emailed: await this.recordEvent(tx, member, reviewed, decision) };
    });
    if (emailed) this.mailQueued();
    return reviewed;
  }

  /** The report's history as the member may read it, oldest first (the report must be of the path's project). */
  async history(
    member: Member,
    at: { projectId: string; id: string },
    query: PageRequest,
    source: AuditSource,
  ) {
    const report = await this.ofProject(member, at);
    return readHistory(this.db, member, at.id, query, {
      personalAmounts: this.personalAmounts,
      source,
      personalAmountsGone: report.personalAmountsGone,
    });
  }

  /**
   * Recomputes the counted part of a draft or rejected report from the submissions linked to it: the
   * value moves by the difference, the manual and pre-filled parts stay. Recorded in the history, even
   * when nothing was off. The row lock makes counting submissions wait, so none is missed or added twice.
   */
  async recount(
    member: Member,
    at: { projectId: string; id: string },
    options: { takeIn?: boolean; dryRun?: boolean } = {},
  ): Promise<Recount> {
    const takeIn = options.takeIn === true;
    const dryRun = options.dryRun === true;
    const run = transaction(this.db, async (tx) => {
      const report = await this.editable(tx, member, at.id, 'recounted', at.projectId);
      // Taken in first: linked to the report, they are among the sources summed below.
      const uncounted = await this.uncountedSources(tx, member.orgId, report, takeIn);
      const sources = await this.countedSources(tx, member.orgId, report.id);
      // Counting adds in float8 one submission at a time; the sources are summed exactly: a difference
      // of rounding only is no difference.
      const off = !same(sources.amount, report.countedValue);
      const cells = rebuiltCells(report, sources.cells);
      const recounted = await withFlags(
        tx,
        (await updateIndicatorReport(tx, member.orgId, report.id, EDITABLE, {
          value: off ? clean((report.value ?? 0) + sources.amount - report.countedValue) : report.value,
          countedValue: off ? sources.amount : report.countedValue,
          countedSubmissions: sources.submissions,
          ...(cells && { disaggregatedValues: cells, countedDisaggregatedValues: sources.cells }),
        }))!,
      );
      await recordHistory(tx, { kind: 'recounted', actor: member, before: report, after: recounted });
      const result: Recount = {
        report: recounted,
        counted: { from: report.countedValue, to: recounted.countedValue },
        submissions: { from: report.countedSubmissions, to: sources.submissions },
        value: { from: report.value, to: recounted.value },
        uncounted: { ...uncounted, takenIn: takeIn },
        dryRun,
      };
      // Everything done as it would be, then rolled back: the answer is exactly what would change.
      if (dryRun) throw new DryRun(result);
      return result;
    });
    return dryRun
      ? run.catch((err: unknown) => {
          if (err instanceof DryRun) return err.result;
          throw err;
        })
      : run;
  }

  /** A report read through its project's path: 404 when it is another project's. */
  private async ofProject(member: Member, at: { projectId: string; id: string }) {
    await requireProject(this.db, member, at.projectId);
    const report = await findIndicatorReport(this.db, member.orgId, at.id);
    if (report?.projectId !== at.projectId) throw notFound('Indicator report');
    return report;
  }

  /**
   * The report, row-locked, if it may still change (draft or rejected, in an unlocked period): to be
   * edited, recounted, or submitted (each checks the rules again). Its project, period and indicator,
   * which never change, are read first without a lock: the period and indicator are locked FOR SHARE and
   * the rule check of the project and period taken before the report's row lock, in the order of a count.
   */
  private async editable(
    tx: Db,
    member: Member,
    id: string,
    change?: 'submitted' | 'recounted',
    projectId?: string,
  ) {
    if (projectId) await requireProject(tx, member, projectId);
    const found = await findIndicatorReport(tx, member.orgId, id);
    if (!found || (projectId && found.projectId !== projectId)) throw notFound('Indicator report');
    await ensureProjectAccess(tx, member, found.projectId);
    const period = await lockPeriodForShare(tx, member.orgId, found.reportingPeriodId);
    await lockIndicatorForShare(tx, member.orgId, found.indicatorId);
    await lockRuleChecks(tx, member.orgId, [found]);
    // Read again under the row lock: another write may have moved it in between.
    const report = await findIndicatorReport(tx, member.orgId, id, { lock: true });
    if (!report) throw notFound('Indicator report');
    if (change === 'submitted') checkMove(report.status, change);
    else checkEditable(report.status, change);
    if (period?.isLocked) throw periodLocked();
    return report;
  }

  /** Names the report in the feed entry and, for a rejection, emails the submitter: true when queued. */
  private async recordEvent(
    tx: Db,
    member: Member,
    report: IndicatorReportRow,
    action: 'submitted' | 'approved' | 'rejected',
  ): Promise<boolean> {
    const context = await this.context(tx, report);
    const label = `${context.indicatorName} (${context.periodLabel})`;
    const actor = await recordFeedEventBy(tx, member, (name) => ({
      type: `indicator_report.${action}`,
      projectId: report.projectId,
      subject: { type: 'indicator_report', id: report.id, label },
      summary: `${name} ${action} ${context.indicatorName} for ${context.periodLabel} of ${context.projectName}`,
    }));
    await queueWebhookEvent(
      tx,
      {
        orgId: report.orgId,
        type: `indicator_report.${action}`,
        data: asReturned(IndicatorReport, report),
      },
      this.webhooksQueued,
    );
    if (action !== 'rejected' || !report.submittedBy) return false;
    const submitter = await findUserName(tx, report.submittedBy);
    if (!submitter) return false;
    const locale = await recipientLocale(tx, { userId: report.submittedBy, orgId: report.orgId });
    await queueEmail(
      tx,
      reportReturnedEmail(
        {
          submitter,
          reviewerName: actor,
          names: context,
          comment: report.comment,
          appUrl: this.config.appUrl,
          report,
        },
        locale,
      ),
    );
    return true;
  }

  /** Names for feed entries and emails, each read from the module that owns it. */
  private async context(tx: Db, report: IndicatorReportRow): Promise<ReportNames> {
    const indicator = await findIndicator(tx, report.orgId, report.indicatorId);
    const project = await findProject(tx, report.orgId, report.projectId);
    const period = await findPeriod(tx, report.orgId, report.reportingPeriodId);
    return {
      indicatorName: indicator!.name,
      indicatorCode: indicator!.code,
      projectName: project!.name,
      periodLabel: period!.label,
    };
  }
}
