import { eq, like } from 'drizzle-orm';
import { expect } from 'vitest';
import {
  indicatorReports,
  type IndicatorReportStatus,
} from '../../src/modules/indicator-reports/indicator-reports.tables.js';
import { outboxEmails } from '../../src/modules/mail/mail.tables.js';
import { assignProject, createProject, type TestUser } from './factories.js';
import { call, notFoundBody, TIMESTAMP, type Call } from './http.js';
import {
  act,
  indicatorCode,
  linkIndicator,
  postIndicator,
  postReport,
  reportUrl,
  type IndicatorJson,
} from './indicators.js';
import { createPeriod, type PeriodRow } from './periods.js';
import type { Suite } from './suite.js';

export type Action = 'submit' | 'approve' | 'reject';
export type ReportBody = Record<string, unknown> & { id: string; status: IndicatorReportStatus };

export const NOT_FOUND = notFoundBody('Indicator report');
export const nameOf = (user: TestUser) => `${user.firstName} ${user.lastName}`;

export interface Fixture {
  orgId: string;
  project: { id: string; name: string };
  period: PeriodRow;
  indicator: IndicatorJson;
}

interface FeedEntry {
  type: string;
  actor: { id: string; name: string } | null;
  subject: { id: string };
}

/** The feed entry `recordEvent` writes for `verb` on the report of `fx`. */
export const feedEntry = (fx: Fixture, reportId: string, verb: string, actor: TestUser) => ({
  id: expect.any(String),
  type: `indicator_report.${verb}`,
  occurredAt: expect.stringMatching(TIMESTAMP),
  actor: { id: actor.id, name: nameOf(actor) },
  projectId: fx.project.id,
  subject: {
    type: 'indicator_report',
    id: reportId,
    label: `${fx.indicator.name} (${fx.period.label})`,
  },
  summary: `${nameOf(actor)} ${verb} ${fx.indicator.name} for ${fx.period.label} of ${fx.project.name}`,
});

/** A timestamp the service set between `before` and now. */
export function expectRecent(timestamp: unknown, before: number): void {
  expect(timestamp).toMatch(TIMESTAMP);
  const at = Date.parse(timestamp as string);
  expect(at).toBeGreaterThanOrEqual(before);
  expect(at).toBeLessThanOrEqual(Date.now());
}

/** Fixtures, actions and read-backs of the review workflow tests (indicator-reports-transitions, -submit-approve-reject, -notices). */
export function reviewScene(suite: Suite) {
  const app = () => suite().t.app;
  const db = () => suite().t.database.db;
  const team = () => suite().team;

  /**
   * A project with one reporting period and one linked indicator. In the team's org the reporter is
   * assigned to it unless `assign` is false.
   */
  async function fixture(
    options: { orgId?: string; manager?: TestUser; assign?: boolean; indicator?: string } = {},
  ): Promise<Fixture> {
    const orgId = options.orgId ?? team().org.id;
    const manager = options.manager ?? team().officer;
    const project = await createProject(db(), orgId, 'Clean Water');
    const period = await createPeriod(db(), orgId, project.id, { label: 'Q1 2026' });
    const indicator = await addIndicator({ orgId, project }, manager, options.indicator);
    if (orgId === team().org.id && options.assign !== false) {
      await assignProject(db(), orgId, project.id, team().reporter.id);
    }
    return { orgId, project, period, indicator };
  }

  async function addIndicator(
    fx: Pick<Fixture, 'orgId' | 'project'>,
    manager: TestUser = team().officer,
    name = 'Wells built',
  ): Promise<IndicatorJson> {
    const indicator = await postIndicator(app(), manager, fx.orgId, { name, code: indicatorCode('W') });
    await linkIndicator(app(), manager, fx.orgId, fx.project.id, indicator.id);
    return indicator;
  }

  /** A draft through the API (value 12 unless told otherwise). */
  async function draft(
    fx: Fixture,
    options: { as?: TestUser; indicatorId?: string; value?: number | null } = {},
  ): Promise<ReportBody> {
    const report = await postReport(app(), options.as ?? team().reporter, fx.orgId, fx.project.id, {
      indicatorId: options.indicatorId ?? fx.indicator.id,
      reportingPeriodId: fx.period.id,
      value: options.value === undefined ? 12 : options.value,
    });
    return report as unknown as ReportBody;
  }

  /** A report of its own fixture moved to `status`: submitted by the reporter, reviewed by the officer. */
  async function reportIn(
    status: IndicatorReportStatus,
    fx?: Fixture,
    indicatorId?: string,
  ): Promise<{ fx: Fixture; report: ReportBody }> {
    fx ??= await fixture();
    let report = await draft(fx, { indicatorId });
    const move = async (as: TestUser, action: Action, body?: Record<string, unknown>) =>
      (report = (await act(app(), as, fx.orgId, report.id, action, body)) as unknown as ReportBody);
    if (status !== 'draft') await move(team().reporter, 'submit');
    if (status === 'approved') await move(team().officer, 'approve');
    if (status === 'rejected') await move(team().officer, 'reject', { comment: 'Check the source' });
    expect(report.status).toBe(status);
    return { fx, report };
  }

  const send = (
    action: Action,
    id: string,
    as: TestUser | null,
    body?: unknown,
    orgId = team().org.id,
  ): Promise<Call> =>
    call(app(), 'PATCH', reportUrl(orgId, id, action), {
      as,
      ...(body !== undefined
        ? { body }
        : action === 'reject'
          ? { body: { comment: 'Check the source' } }
          : {}),
    });

  const edit = (id: string, as: TestUser, body: Record<string, unknown>) =>
    call(app(), 'PATCH', reportUrl(team().org.id, id), { as, body });

  async function stored(id: string) {
    const [row] = await db().select().from(indicatorReports).where(eq(indicatorReports.id, id));
    return row!;
  }

  /** The report as the API shows it now (it must equal what the action answered). */
  async function shown(id: string) {
    const res = await call(app(), 'GET', reportUrl(team().org.id, id), { as: team().admin });
    expect(res.status).toBe(200);
    return res.body as ReportBody;
  }

  /** The feed entries about one indicator report, oldest first. */
  async function feedAbout(reportId: string): Promise<FeedEntry[]> {
    const res = await call(app(), 'GET', `/orgs/${team().org.id}/activity-feed`, { as: team().admin });
    expect(res.status).toBe(200);
    return (res.body as FeedEntry[]).filter((e) => e.subject.id === reportId).reverse();
  }

  /** Emails queued for one report (its link names the report id). */
  const outboxFor = (reportId: string) =>
    db()
      .select()
      .from(outboxEmails)
      .where(like(outboxEmails.body, `%/indicator-reports/${reportId}%`));

  return { fixture, addIndicator, draft, reportIn, send, edit, stored, shown, feedAbout, outboxFor };
}
