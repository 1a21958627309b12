import { indicatorsCsv } from './indicators-csv.js';
import { asReturned, queueWebhookEvent } from '../webhooks/index.js';
import type { Config } from '../../config.js';
import { singleWrite, transaction, type Db } from '../../db/client.js';
import type { ReadRouting } from '../../db/replica.js';
import type { Member } from '../../http/pipeline/access.js';
import { badRequest, invalidTransition, notFound } from '../../errors/catalogue.js';
import { refusedWrite } from '../../errors/refusals.js';
import { paginate } from '../../http/schemas/pagination.js';
import { dateOrderProblem } from '../../lib/dates.js';
import { recordFeedEventBy } from '../feed/index.js';
import { ensureProjectAccess, requireProject, visibilityOf } from '../projects/index.js';
import {
  assemble,
  EMPTY_NARRATIVES,
  type IncludedPeriod,
  type IncludedValue,
  type ReportContent,
} from './assembly.js';
import {
  periodsById,
  periodsOverlapping,
  projectData,
  projectForReport,
  type Range,
} from './assembly.repo.js';
import { targetsInPeriods, valuesInPeriods, valuesSubmittedIn } from './included-values.repo.js';
import { flaggingRules } from './quality-notes.js';
import { ruleInputsOf } from './rule-inputs.repo.js';
import {
  countReports,
  deleteReport,
  findReport,
  insertReport,
  listReports,
  lockReport,
  updateReport,
  type ReportChanges,
  type ReportRow,
} from './reports.repo.js';
import {
  ReportListItem,
  type CreateProjectReportInput,
  type CreateReportInput,
  type ReportQueryInput,
  type UpdateReportInput,
} from './reports.schemas.js';
import { reportView } from './report-view.js';
import { shareUrl } from './share-links.js';

export const REPORT_PUBLISHED = 'Report is published: move it back to draft to change it';

/** Which values a report includes: chosen periods, or a date range. */
type Selection = { periodIds: string[] } | { range: Range };

interface Included {
  range: Range;
  periods: IncludedPeriod[];
  /** Still being read, while the rest of the project is read beside it. */
  values: Promise<IncludedValue[]>;
}

/**
 * Chosen periods must be of the project: unknown 404, another project's 400. A period deleted since a
 * report was made is skipped on refresh (`lenient`). The range spans the periods.
 */
async function chosenPeriods(
  db: Db,
  orgId: string,
  project: { id: string; startDate: string; endDate: string },
  periodIds: string[],
  lenient: boolean,
): Promise<Included> {
  const found = await periodsById(db, orgId, periodIds);
  if (!lenient) {
    const byId = new Map(found.map((period) => [period.id, period]));
    if (periodIds.some((id) => !byId.has(id))) throw notFound('Reporting period');
    const foreign = periodIds.flatMap((id, index) =>
      byId.get(id)!.projectId === project.id
        ? []
        : [`periodIds.${index} must be a reporting period of this project`],
    );
    if (foreign.length > 0) throw badRequest(...foreign);
  }
  const periods = found.filter((period) => period.projectId === project.id);
  const range =
    periods.length > 0
      ? {
          startDate: periods.map((p) => p.startDate).reduce((a, b) => (b < a ? b : a)),
          endDate: periods.map((p) => p.endDate).reduce((a, b) => (b > a ? b : a)),
        }
      : { startDate: project.startDate, endDate: project.endDate };
  const values = valuesInPeriods(
    db,
    orgId,
    project.id,
    periods.map((period) => period.id),
  );
  return { range, periods, values };
}

/** The project's periods overlapping the range; without any, the values submitted within it (rule 4). */
async function periodsInRange(db: Db, orgId: string, projectId: string, range: Range): Promise<Included> {
  const periods = await periodsOverlapping(db, orgId, projectId, range);
  if (periods.length === 0) {
    const submitted = await valuesSubmittedIn(db, orgId, projectId, range);
    return { range, periods: submitted.periods, values: Promise.resolve(submitted.values) };
  }
  const values = valuesInPeriods(
    db,
    orgId,
    projectId,
    periods.map((period) => period.id),
  );
  return { range, periods, values };
}

/** Reads everything a report shows and assembles it (SPEC.md "Assembly rules"). */
async function assembleFor(
  db: Db,
  orgId: string,
  projectId: string,
  selection: Selection,
  lenient = false,
): Promise<{ range: Range; content: ReportContent }> {
  const found = await projectForReport(db, orgId, projectId);
  if (!found) throw notFound('Project');
  const { range, periods, values } =
    'periodIds' in selection
      ? await chosenPeriods(db, orgId, found.project, selection.periodIds, lenient)
      : await periodsInRange(db, orgId, projectId, selection.range);
  // The rules' inputs are read once the values say which rules flag them, beside the rest of the project.
  const flagged = values.then(async (list) => ({
    values: list,
    ruleInputs: await ruleInputsOf(db, orgId, flaggingRules(list)),
  }));
  const [data, included, periodTargets] = await Promise.all([
    projectData(db, orgId, found.project, range),
    flagged,
    targetsInPeriods(
      db,
      orgId,
      projectId,
      periods.map((period) => period.id),
    ),
  ]);
  const content = assemble({
    ...data,
    range,
    project: found.project,
    organization: found.organization,
    periods,
    values: included.values,
    ruleInputs: included.ruleInputs,
    periodTargets,
  });
  return { range, content };
}

function rangeOf(input: { startDate: string; endDate: string }): Range {
  const problem = dateOrderProblem(input);
  if (problem) throw badRequest(problem);
  return { startDate: input.startDate, endDate: input.endDate };
}

export class ReportService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly replica: ReadRouting,
    /** Wakes the webhook worker; queueWebhookEvent calls it once a delivery it queued has committed. */
    private readonly webhooksQueued: () => void,
  ) {}

  /**
   * Assembly reads committed data, so it runs before the write, on the replica once that has replayed
   * everything committed before this request: a stored snapshot must not be older than the request.
   */
  private assemble(orgId: string, projectId: string, selection: Selection, lenient = false) {
    return this.replica.read((db) => assembleFor(db, orgId, projectId, selection, lenient), {
      caughtUp: true,
    });
  }

  private view(row: ReportRow) {
    // Members read the notes whatever the setting: they see the flags on the values themselves.
    return reportView(row, this.config, { orgId: row.orgId }, { qualityNotes: true });
  }

  async list(member: Member, query: ReportQueryInput) {
    if (query.projectId) await requireProject(this.db, member, query.projectId);
    const filter = { projectId: query.projectId, status: query.status as ReportRow['status'] | undefined };
    const visibility = visibilityOf(member);
    return paginate(query, {
      count: () => countReports(this.db, member.orgId, filter, visibility),
      list: async (window) =>
        (await listReports(this.db, member.orgId, filter, visibility, window)).map((row) => ({
          ...row,
          shareUrl: shareUrl(this.config, row.shareToken),
        })),
    });
  }

  /** `POST /orgs/:orgId/reports`: periodIds or startDate and endDate, never both. */
  async create(member: Member, input: CreateReportInput) {
    const hasRange = input.startDate !== undefined || input.endDate !== undefined;
    if (input.periodIds && hasRange)
      throw badRequest('Send either periodIds or startDate and endDate, not both');
    if (!input.periodIds && !hasRange) throw badRequest('Send either periodIds or startDate and endDate');
    if (hasRange) {
      const missing = (['startDate', 'endDate'] as const).filter((key) => input[key] === undefined);
      if (missing.length > 0)
        throw badRequest(
          ...missing.map((key) => `${key} is required with ${key === 'startDate' ? 'endDate' : 'startDate'}`),
        );
    }
    const selection: Selection = input.periodIds
      ? { periodIds: input.periodIds }
      : { range: rangeOf({ startDate: input.startDate!, endDate: input.endDate! }) };
    return this.insert(member, input.projectId, input.title, input.reportType, selection);
  }

  /** `POST /orgs/:orgId/projects/:projectId/reports`: a custom date range. */
  createForProject(member: Member, projectId: string, input: CreateProjectReportInput) {
    const range = rangeOf(input);
    return this.insert(member, projectId, input.title, input.reportType ?? 'ad_hoc', { range });
  }

  private async insert(
    member: Member,
    projectId: string,
    title: string,
    reportType: string,
    selection: Selection,
  ) {
    const { range, content } = await this.assemble(member.orgId, projectId, selection);
    try {
      const row = await singleWrite(this.db, (tx) =>
        insertReport(tx, member.orgId, {
          projectId,
          title: title.trim(),
          reportType: reportType as ReportRow['reportType'],
          ...range,
          selectedPeriodIds: 'periodIds' in selection ? selection.periodIds : null,
          narratives: EMPTY_NARRATIVES,
          content,
          createdBy: member.userId,
        }),
      );
      return this.view(row);
    } catch (err) {
      // The project went away while the report was assembled.
      return refusedWrite({ gone: () => notFound('Project') })(err);
    }
  }

  /** A report the member may read: 404 outside the org, 403 for a reporter not on its project. */
  private async readable(member: Member, id: string): Promise<ReportRow> {
    const row = await findReport(this.db, member.orgId, id);
    if (!row) throw notFound('Report');
    await ensureProjectAccess(this.db, member, row.projectId);
    return row;
  }

  async get(member: Member, id: string) {
    return this.view(await this.readable(member, id));
  }

  /** The report's indicator values as CSV (indicators-csv.ts), from its stored snapshot. */
  async indicatorsCsv(member: Member, id: string) {
    const row = await this.readable(member, id);
    return { fileName: `report-${row.id}-indicators.csv`, csv: indicatorsCsv(row.content.indicators) };
  }

  /**
   * Title and narratives of a draft; `status` publishes (publishedAt, feed `report.published`) or moves a
   * published report back to draft. A published report takes only `status: draft` or an empty body; anything else is 409.
   */
  async update(member: Member, id: string, input: UpdateReportInput) {
    const row = await transaction(this.db, async (tx) => {
      const report = await lockReport(tx, member.orgId, id);
      if (!report) throw notFound('Report');
      const edits = input.title !== undefined || input.sections !== undefined;
      if (report.status === 'published' && (edits || input.status === 'published')) {
        throw invalidTransition(edits ? REPORT_PUBLISHED : 'Report is already published');
      }
      const changes: ReportChanges = {};
      if (input.title !== undefined) changes.title = input.title.trim();
      if (input.sections) changes.narratives = { ...report.narratives, ...input.sections };
      const publishing = report.status === 'draft' && input.status === 'published';
      if (publishing) Object.assign(changes, { status: 'published', publishedAt: new Date() });
      if (report.status === 'published' && input.status === 'draft') {
        Object.assign(changes, { status: 'draft', publishedAt: null });
      }
      if (Object.keys(changes).length === 0) return report;
      const updated = await updateReport(tx, member.orgId, id, changes);
      if (publishing) {
        await recordFeedEventBy(tx, member, (actor) => ({
          type: 'report.published',
          projectId: updated.projectId,
          subject: { type: 'report', id: updated.id, label: updated.title },
          summary: `${actor} published the report ${updated.title} of ${updated.content.project.name}`,
        }));
        // The report without its sections (they can run to megabytes: GET .../reports/:id has them) and
        // without its share link, a capability that travels only when a person shares it.
        const data = asReturned(ReportListItem, { ...updated, projectName: updated.content.project.name });
        for (const link of ['shareToken', 'shareUrl', 'shareExpiresAt']) delete data[link];
        await queueWebhookEvent(
          tx,
          { orgId: member.orgId, type: 'report.published', data },
          this.webhooksQueued,
        );
      }
      return updated;
    });
    return this.view(row);
  }

  /** Re-assembles the data sections of a draft from today's data; narratives and title stay. */
  async refresh(member: Member, id: string) {
    const before = await findReport(this.db, member.orgId, id);
    if (!before) throw notFound('Report');
    if (before.status === 'published') throw invalidTransition(REPORT_PUBLISHED);
    const selection: Selection = before.selectedPeriodIds
      ? { periodIds: before.selectedPeriodIds }
      : { range: { startDate: before.startDate, endDate: before.endDate } };
    const { range, content } = await this.assemble(member.orgId, before.projectId, selection, true);
    const row = await transaction(this.db, async (tx) => {
      const report = await lockReport(tx, member.orgId, id);
      if (!report) throw notFound('Report');
      if (report.status === 'published') throw invalidTransition(REPORT_PUBLISHED);
      return updateReport(tx, member.orgId, id, { ...range, content });
    });
    return this.view(row);
  }

  async remove(member: Member, id: string): Promise<void> {
    if (!(await deleteReport(this.db, member.orgId, id))) throw notFound('Report');
  }
}
