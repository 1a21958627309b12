import { eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestAppWithMail, type MailTestApp } from '../../../test/helpers/app.js';
import {
  addMember,
  assignProject,
  createProject,
  createTeam,
  registerUser,
  type Team,
  type TestUser,
} from '../../../test/helpers/factories.js';
import {
  badRequest,
  call,
  expectError,
  expectViolations,
  FORBIDDEN,
  MISSING_ID,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  type Call,
} from '../../../test/helpers/http.js';
import {
  act,
  indicatorCode,
  linkIndicator,
  postIndicator,
  postReport,
  reportsUrl,
  reportUrl,
  type IndicatorJson,
} from '../../../test/helpers/indicators.js';
import { createPeriod, type PeriodRow } from '../../../test/helpers/periods.js';
import { outboxEmails } from '../mail/mail.tables.js';
import { indicatorReports, type IndicatorReportStatus } from './indicator-reports.tables.js';

let t: MailTestApp;
let team: Team;

beforeAll(async () => {
  t = await buildTestAppWithMail();
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

type Action = 'submit' | 'approve' | 'reject';
type ReportBody = Record<string, unknown> & { id: string; status: IndicatorReportStatus };

const NOT_FOUND = notFoundBody('Indicator report');
const LOCKED = { statusCode: 403, message: 'Reporting period is locked', error: 'Forbidden' };
const conflictBody = (message: string) => ({ statusCode: 409, message, error: 'Conflict' });
const nameOf = (user: TestUser) => `${user.firstName} ${user.lastName}`;

interface Fixture {
  orgId: string;
  project: { id: string; name: string };
  period: PeriodRow;
  indicator: IndicatorJson;
}

/**
 * A project with one reporting period and one linked indicator. In the team's org the reporter is
 * assigned to it unless `assign` is false.
 */
async function fixture(
  options: { orgId?: string; manager?: TestUser; assign?: boolean; indicator?: string } = {},
): Promise<Fixture> {
  const orgId = options.orgId ?? team.org.id;
  const manager = options.manager ?? team.officer;
  const project = await createProject(t.database.db, orgId, 'Clean Water');
  const period = await createPeriod(t.database.db, orgId, project.id, { label: 'Q1 2026' });
  const indicator = await addIndicator({ orgId, project }, manager, options.indicator);
  if (orgId === team.org.id && options.assign !== false) {
    await assignProject(t.database.db, orgId, project.id, team.reporter.id);
  }
  return { orgId, project, period, indicator };
}

async function addIndicator(
  fx: Pick<Fixture, 'orgId' | 'project'>,
  manager: TestUser = team.officer,
  name = 'Wells built',
): Promise<IndicatorJson> {
  const indicator = await postIndicator(t.app, manager, fx.orgId, { name, code: indicatorCode('W') });
  await linkIndicator(t.app, manager, fx.orgId, fx.project.id, indicator.id);
  return indicator;
}

/** A draft through the API (value 12 unless told otherwise). */
async function draft(
  fx: Fixture,
  options: { as?: TestUser; indicatorId?: string; value?: number | null } = {},
): Promise<ReportBody> {
  const report = await postReport(t.app, options.as ?? team.reporter, fx.orgId, fx.project.id, {
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
    (report = (await act(t.app, as, fx.orgId, report.id, action, body)) as unknown as ReportBody);
  if (status !== 'draft') await move(team.reporter, 'submit');
  if (status === 'approved') await move(team.officer, 'approve');
  if (status === 'rejected') await move(team.officer, 'reject', { comment: 'Check the source' });
  expect(report.status).toBe(status);
  return { fx, report };
}

const send = (
  action: Action,
  id: string,
  as: TestUser | null,
  body?: unknown,
  orgId = team.org.id,
): Promise<Call> =>
  call(t.app, 'PATCH', reportUrl(orgId, id, action), {
    as,
    ...(body !== undefined ? { body } : action === 'reject' ? { body: { comment: 'Check the source' } } : {}),
  });

const edit = (id: string, as: TestUser, body: Record<string, unknown>) =>
  call(t.app, 'PATCH', reportUrl(team.org.id, id), { as, body });

async function stored(id: string) {
  const [row] = await t.database.db.select().from(indicatorReports).where(eq(indicatorReports.id, id));
  return row!;
}

/** The report as the API shows it now (it must equal what the action answered). */
async function shown(id: string) {
  const res = await call(t.app, 'GET', reportUrl(team.org.id, id), { as: team.admin });
  expect(res.status).toBe(200);
  return res.body as ReportBody;
}

interface FeedEntry {
  type: string;
  actor: { id: string; name: string } | null;
  subject: { id: string };
}

/** The feed entries about one indicator report, oldest first. */
async function feedAbout(reportId: string): Promise<FeedEntry[]> {
  const res = await call(t.app, 'GET', `/orgs/${team.org.id}/activity-feed`, { as: team.admin });
  expect(res.status).toBe(200);
  return (res.body as FeedEntry[]).filter((e) => e.subject.id === reportId).reverse();
}

/** The feed entry `recordEvent` writes for `verb` on the report of `fx`. */
const feedEntry = (fx: Fixture, reportId: string, verb: string, actor: TestUser) => ({
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

/** Emails queued for one report (its link names the report id). */
const outboxFor = (reportId: string) =>
  t.database.db
    .select()
    .from(outboxEmails)
    .where(like(outboxEmails.body, `%/indicator-reports/${reportId}%`));

/** A timestamp the service set between `before` and now. */
function expectRecent(timestamp: unknown, before: number): void {
  expect(timestamp).toMatch(TIMESTAMP);
  const at = Date.parse(timestamp as string);
  expect(at).toBeGreaterThanOrEqual(before);
  expect(at).toBeLessThanOrEqual(Date.now());
}

describe('indicator report transitions (SPEC.md States and transitions)', () => {
  const TABLE: {
    from: IndicatorReportStatus;
    action: Action;
    to?: IndicatorReportStatus;
    refused?: string;
  }[] = [
    { from: 'draft', action: 'submit', to: 'submitted' },
    {
      from: 'draft',
      action: 'approve',
      refused: 'Only submitted indicator reports can be approved; this one is draft',
    },
    {
      from: 'draft',
      action: 'reject',
      refused: 'Only submitted indicator reports can be rejected; this one is draft',
    },
    {
      from: 'submitted',
      action: 'submit',
      refused: 'Only draft or rejected indicator reports can be submitted; this one is submitted',
    },
    { from: 'submitted', action: 'approve', to: 'approved' },
    { from: 'submitted', action: 'reject', to: 'rejected' },
    { from: 'rejected', action: 'submit', to: 'submitted' },
    {
      from: 'rejected',
      action: 'approve',
      refused: 'Only submitted indicator reports can be approved; this one is rejected',
    },
    {
      from: 'rejected',
      action: 'reject',
      refused: 'Only submitted indicator reports can be rejected; this one is rejected',
    },
    {
      from: 'approved',
      action: 'submit',
      refused: 'Only draft or rejected indicator reports can be submitted; this one is approved',
    },
    {
      from: 'approved',
      action: 'approve',
      refused: 'Only submitted indicator reports can be approved; this one is approved',
    },
    {
      from: 'approved',
      action: 'reject',
      refused: 'Only submitted indicator reports can be rejected; this one is approved',
    },
  ];

  for (const { from, action, to, refused } of TABLE) {
    it(`${from} + ${action}: ${to ? `200 ${to}` : '409'}`, async () => {
      const { fx, report } = await reportIn(from);
      const actor = action === 'submit' ? team.reporter : team.officer;
      const row = await stored(report.id);
      const feedBefore = await feedAbout(report.id);
      const before = Date.now();
      const res = await send(action, report.id, actor);

      if (refused) {
        expectError(res, conflictBody(refused));
        expect(await stored(report.id)).toEqual(row);
        expect(await feedAbout(report.id)).toEqual(feedBefore);
        return;
      }
      expect(res.status).toBe(200);
      const changes =
        action === 'submit'
          ? { submittedAt: expect.stringMatching(TIMESTAMP), submittedBy: actor.id }
          : {
              comment: action === 'reject' ? 'Check the source' : null,
              reviewedAt: expect.stringMatching(TIMESTAMP),
              reviewedBy: actor.id,
            };
      // Everything else (value, a rejected report's comment and review) stays as it was.
      expect(res.body).toEqual({
        ...report,
        ...changes,
        status: to,
        updatedAt: expect.stringMatching(TIMESTAMP),
      });
      expectRecent(action === 'submit' ? res.body.submittedAt : res.body.reviewedAt, before);
      expect(await shown(report.id)).toEqual(res.body);
      const verb = { submit: 'submitted', approve: 'approved', reject: 'rejected' }[action];
      expect(await feedAbout(report.id)).toEqual([...feedBefore, feedEntry(fx, report.id, verb, actor)]);
    });
  }

  it('refuses every edit of a submitted or approved report (409), leaving it unchanged', async () => {
    for (const status of ['submitted', 'approved'] as const) {
      const { report } = await reportIn(status);
      const row = await stored(report.id);
      for (const body of [{ value: 99 }, { narrative: 'Late correction' }, {}]) {
        for (const user of [team.reporter, team.officer, team.admin]) {
          expectError(
            await edit(report.id, user, body),
            conflictBody(
              `Indicator report can only be edited while draft or rejected; this one is ${status}`,
            ),
          );
        }
      }
      expect(await stored(report.id)).toEqual(row);
    }
  });

  it('runs a full cycle: submit, reject, edit, resubmit by another user, approve, then immutable', async () => {
    const { fx, report } = await reportIn('draft');
    await act(t.app, team.reporter, fx.orgId, report.id, 'submit');
    const rejected = await send('reject', report.id, team.officer, { comment: 'Counts look doubled' });
    expect(rejected.body).toMatchObject({ status: 'rejected', comment: 'Counts look doubled' });

    const edited = await edit(report.id, team.reporter, { value: 6, narrative: 'Recounted' });
    expect(edited.status).toBe(200);
    expect(edited.body).toEqual({
      ...rejected.body,
      value: 6,
      narrative: 'Recounted',
      updatedAt: expect.stringMatching(TIMESTAMP),
    });

    const resubmitted = await send('submit', report.id, team.admin);
    expect(resubmitted.status).toBe(200);
    // The last review stays visible until the next one.
    expect(resubmitted.body).toEqual({
      ...edited.body,
      status: 'submitted',
      submittedAt: expect.stringMatching(TIMESTAMP),
      submittedBy: team.admin.id,
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    expect(Date.parse(resubmitted.body.submittedAt)).toBeGreaterThanOrEqual(
      Date.parse(rejected.body.submittedAt),
    );

    const approved = await send('approve', report.id, team.admin);
    expect(approved.status).toBe(200);
    expect(approved.body).toEqual({
      ...resubmitted.body,
      status: 'approved',
      comment: null,
      reviewedAt: expect.stringMatching(TIMESTAMP),
      reviewedBy: team.admin.id,
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    const row = await stored(report.id);
    for (const action of ['submit', 'approve', 'reject'] as const) {
      expect((await send(action, report.id, team.admin)).status).toBe(409);
    }
    expect((await edit(report.id, team.admin, { value: 7 })).status).toBe(409);
    expect(await stored(report.id)).toEqual(row);
    expect(await shown(report.id)).toEqual(approved.body);
  });
});

describe('PATCH /orgs/:orgId/indicator-reports/:id/submit', () => {
  it('requires a value: a draft without one is 400 and stays a draft', async () => {
    const fx = await fixture();
    const report = await draft(fx, { value: null });
    expect(report.value).toBeNull();
    const row = await stored(report.id);
    expect((await send('submit', report.id, team.reporter)).body).toEqual(
      badRequest('value is required to submit the report'),
    );
    expect(await stored(report.id)).toEqual(row);
    expect(await feedAbout(report.id)).toEqual([]);
  });

  it('is allowed to org_admin, me_officer and the assigned reporter, recording submittedAt and submittedBy', async () => {
    const fx = await fixture();
    for (const user of [team.admin, team.officer, team.reporter]) {
      const indicator = await addIndicator(fx);
      const report = await draft(fx, { indicatorId: indicator.id });
      const before = Date.now();
      const res = await send('submit', report.id, user);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...report,
        status: 'submitted',
        submittedAt: expect.stringMatching(TIMESTAMP),
        submittedBy: user.id,
        updatedAt: expect.stringMatching(TIMESTAMP),
      });
      expectRecent(res.body.submittedAt, before);
      const row = await stored(report.id);
      expect([row.status, row.submittedBy, row.submittedAt?.toISOString()]).toEqual([
        'submitted',
        user.id,
        res.body.submittedAt,
      ]);
    }
  });

  it('refuses an unassigned reporter, the viewer and an outsider (403) and no session (401)', async () => {
    const fx = await fixture({ assign: false });
    const report = await draft(fx, { as: team.officer });
    const row = await stored(report.id);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await send('submit', report.id, user), FORBIDDEN);
    }
    expectError(await send('submit', report.id, null), UNAUTHORIZED);
    expect(await stored(report.id)).toEqual(row);
    expect(await feedAbout(report.id)).toEqual([]);
  });

  it('answers 404 for another organization’s report or a missing id, 400 for a malformed id', async () => {
    const foreign = await fixture({ orgId: team.outsiderOrg.id, manager: team.outsider });
    const report = await draft(foreign, { as: team.outsider });
    const row = await stored(report.id);
    for (const id of [report.id, MISSING_ID]) {
      expectError(await send('submit', id, team.admin), NOT_FOUND);
    }
    expect(await stored(report.id)).toEqual(row);
    expect((await send('submit', 'nope', team.admin)).body).toEqual(badRequest('id must be a UUID'));
  });
});

describe('PATCH /orgs/:orgId/indicator-reports/:id/approve', () => {
  it('is for me_officer and org_admin, recording reviewedAt and reviewedBy', async () => {
    for (const user of [team.officer, team.admin]) {
      const { report } = await reportIn('submitted');
      const before = Date.now();
      const res = await send('approve', report.id, user);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...report,
        status: 'approved',
        comment: null,
        reviewedAt: expect.stringMatching(TIMESTAMP),
        reviewedBy: user.id,
        updatedAt: expect.stringMatching(TIMESTAMP),
      });
      expectRecent(res.body.reviewedAt, before);
      const row = await stored(report.id);
      expect([row.status, row.reviewedBy, row.reviewedAt?.toISOString()]).toEqual([
        'approved',
        user.id,
        res.body.reviewedAt,
      ]);
    }
  });

  it('refuses the assigned reporter, the viewer and an outsider (403) and no session (401)', async () => {
    const { report } = await reportIn('submitted');
    const row = await stored(report.id);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await send('approve', report.id, user), FORBIDDEN);
    }
    expectError(await send('approve', report.id, null), UNAUTHORIZED);
    expect(await stored(report.id)).toEqual(row);
  });

  it('takes no body, an empty body, {} or { comment }, and stores the comment', async () => {
    const cases: { options: Parameters<typeof call>[3]; comment: string | null }[] = [
      { options: {}, comment: null },
      { options: { headers: { 'content-type': 'application/json' } }, comment: null },
      { options: { body: {} }, comment: null },
      { options: { body: { comment: null } }, comment: null },
      { options: { body: { comment: 'Good' } }, comment: 'Good' },
    ];
    for (const { options, comment } of cases) {
      const { report } = await reportIn('submitted');
      const res = await call(t.app, 'PATCH', reportUrl(team.org.id, report.id, 'approve'), {
        as: team.officer,
        ...options,
      });
      expect([res.status, res.body.status, res.body.comment]).toEqual([200, 'approved', comment]);
      expect((await stored(report.id)).comment).toBe(comment);
    }
  });

  it('rejects unknown body properties (400) and leaves the report submitted', async () => {
    const { report } = await reportIn('submitted');
    const row = await stored(report.id);
    expectViolations(
      await send('approve', report.id, team.officer, { comment: 'Good', status: 'approved', foo: 1 }),
      'property status should not exist',
      'property foo should not exist',
    );
    expect(await stored(report.id)).toEqual(row);
  });

  it('answers 404 for another organization’s report or a missing id, 400 for a malformed id', async () => {
    const foreign = await fixture({ orgId: team.outsiderOrg.id, manager: team.outsider });
    const report = await draft(foreign, { as: team.outsider });
    await act(t.app, team.outsider, foreign.orgId, report.id, 'submit');
    const row = await stored(report.id);
    for (const id of [report.id, MISSING_ID]) {
      expectError(await send('approve', id, team.admin), NOT_FOUND);
      expectError(await send('reject', id, team.admin), NOT_FOUND);
    }
    expect(await stored(report.id)).toEqual(row);
    expect((await send('approve', 'nope', team.admin)).body).toEqual(badRequest('id must be a UUID'));
    expect((await send('reject', 'nope', team.admin)).body).toEqual(badRequest('id must be a UUID'));
  });
});

describe('PATCH /orgs/:orgId/indicator-reports/:id/reject', () => {
  it('requires a non-empty comment (400) and leaves the report submitted', async () => {
    const { report } = await reportIn('submitted');
    const row = await stored(report.id);
    const cases: [unknown, string[]][] = [
      [{}, ['comment is required']],
      [{ comment: '   ' }, ['comment should not be empty']],
      [{ comment: '' }, ['comment should not be empty']],
      [{ comment: null }, ['comment must be a string']],
      [{ comment: 'Why', foo: 1 }, ['property foo should not exist']],
    ];
    for (const [body, messages] of cases) {
      expectViolations(await send('reject', report.id, team.officer, body), ...messages);
    }
    const bare = await call(t.app, 'PATCH', reportUrl(team.org.id, report.id, 'reject'), {
      as: team.officer,
    });
    // No body at all is an empty one: the missing comment is named.
    expect(bare.body).toEqual(badRequest('comment is required'));
    expect(await stored(report.id)).toEqual(row);
    expect(await feedAbout(report.id)).toEqual([
      expect.objectContaining({ type: 'indicator_report.submitted' }),
    ]);
  });

  it('is for me_officer and org_admin, storing the comment, reviewedAt and reviewedBy', async () => {
    for (const user of [team.officer, team.admin]) {
      const { report } = await reportIn('submitted');
      const before = Date.now();
      const res = await send('reject', report.id, user, { comment: 'Attach the register' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...report,
        status: 'rejected',
        comment: 'Attach the register',
        reviewedAt: expect.stringMatching(TIMESTAMP),
        reviewedBy: user.id,
        updatedAt: expect.stringMatching(TIMESTAMP),
      });
      expectRecent(res.body.reviewedAt, before);
      const row = await stored(report.id);
      expect([row.status, row.comment, row.reviewedBy]).toEqual(['rejected', 'Attach the register', user.id]);
    }
  });

  it('refuses the assigned reporter, the viewer and an outsider (403) and no session (401)', async () => {
    const { report } = await reportIn('submitted');
    const row = await stored(report.id);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await send('reject', report.id, user, { comment: 'No' }), FORBIDDEN);
    }
    expectError(await send('reject', report.id, null, { comment: 'No' }), UNAUTHORIZED);
    expect(await stored(report.id)).toEqual(row);
    expect(await outboxFor(report.id)).toEqual([]);
  });
});

describe('a locked reporting period', () => {
  it('refuses create, PATCH and submit (403) but still lets reviewers approve and reject', async () => {
    const fx = await fixture();
    const { report: toApprove } = await reportIn('submitted', fx);
    const { report: toReject } = await reportIn('submitted', fx, (await addIndicator(fx)).id);
    const { report: drafted } = await reportIn('draft', fx, (await addIndicator(fx)).id);
    const { report: returned } = await reportIn('rejected', fx, (await addIndicator(fx)).id);
    const unreported = await addIndicator(fx);

    const lock = await call(t.app, 'PATCH', `/orgs/${team.org.id}/reporting-periods/${fx.period.id}`, {
      as: team.officer,
      body: { isLocked: true },
    });
    expect([lock.status, lock.body.isLocked]).toEqual([200, true]);

    const created = await call(t.app, 'POST', reportsUrl(team.org.id, fx.project.id), {
      as: team.reporter,
      body: { indicatorId: unreported.id, reportingPeriodId: fx.period.id, value: 3 },
    });
    expectError(created, LOCKED);
    const reports = await t.database.db
      .select()
      .from(indicatorReports)
      .where(eq(indicatorReports.reportingPeriodId, fx.period.id));
    expect(reports.map((r) => r.id).sort()).toEqual(
      [toApprove.id, toReject.id, drafted.id, returned.id].sort(),
    );

    for (const report of [drafted, returned]) {
      const row = await stored(report.id);
      for (const user of [team.reporter, team.officer, team.admin]) {
        expectError(await edit(report.id, user, { value: 40 }), LOCKED);
        expectError(await send('submit', report.id, user), LOCKED);
      }
      expect(await stored(report.id)).toEqual(row);
    }

    const approved = await send('approve', toApprove.id, team.officer, { comment: 'Fine' });
    expect([approved.status, approved.body.status, approved.body.comment]).toEqual([200, 'approved', 'Fine']);
    const rejected = await send('reject', toReject.id, team.admin, { comment: 'Too high' });
    expect([rejected.status, rejected.body.status, rejected.body.comment]).toEqual([
      200,
      'rejected',
      'Too high',
    ]);
    expect((await stored(toReject.id)).status).toBe('rejected');
    // Still locked: the rejected report cannot be corrected until the period is unlocked.
    expectError(await send('submit', toReject.id, team.reporter), LOCKED);
  });
});

describe('activity feed entries', () => {
  it('records submitted, rejected and approved with actor, project, subject and summary', async () => {
    const fx = await fixture();
    const report = await draft(fx);
    await act(t.app, team.reporter, fx.orgId, report.id, 'submit');
    await act(t.app, team.officer, fx.orgId, report.id, 'reject', { comment: 'Recount' });
    await act(t.app, team.reporter, fx.orgId, report.id, 'submit');
    await act(t.app, team.admin, fx.orgId, report.id, 'approve');

    const entry = (type: string, actor: TestUser, summary: string) => ({
      id: expect.any(String),
      type,
      occurredAt: expect.stringMatching(TIMESTAMP),
      actor: { id: actor.id, name: nameOf(actor) },
      projectId: fx.project.id,
      subject: { type: 'indicator_report', id: report.id, label: 'Wells built (Q1 2026)' },
      summary,
    });
    expect(await feedAbout(report.id)).toEqual([
      entry(
        'indicator_report.submitted',
        team.reporter,
        'Rita Reporter submitted Wells built for Q1 2026 of Clean Water',
      ),
      entry(
        'indicator_report.rejected',
        team.officer,
        'Omar Officer rejected Wells built for Q1 2026 of Clean Water',
      ),
      entry(
        'indicator_report.submitted',
        team.reporter,
        'Rita Reporter submitted Wells built for Q1 2026 of Clean Water',
      ),
      entry(
        'indicator_report.approved',
        team.admin,
        'Ada Admin approved Wells built for Q1 2026 of Clean Water',
      ),
    ]);
  });
});

describe('the rejection email', () => {
  /** A reporter of the team's org of their own, assigned to the fixture's project: their mailbox is theirs alone. */
  async function submitter(fx: Fixture): Promise<TestUser> {
    const user = await registerUser(t.app, { firstName: 'Sara', lastName: 'Submitter' });
    await addMember(t.database.db, team.org.id, user.id, 'reporter');
    await assignProject(t.database.db, team.org.id, fx.project.id, user.id);
    return user;
  }

  it('reaches the submitter (not the author or reviewer) naming indicator, project, period and comment', async () => {
    const fx = await fixture();
    const author = await submitter(fx);
    const sender = await submitter(fx);
    const report = await draft(fx, { as: author });
    await act(t.app, sender, fx.orgId, report.id, 'submit');
    const res = await send('reject', report.id, team.officer, {
      comment: 'The figure double-counts school wells.',
    });
    expect(res.status).toBe(200);

    const message = await t.smtp.waitFor(sender.email);
    expect(message.to).toEqual([sender.email]);
    expect(message.raw).toMatch(/^Subject: Indicator report returned: Wells built, Q1 2026\r?$/m);
    expect(message.text.replace(/\r\n/g, '\n').trimEnd()).toBe(
      [
        'Hello Sara,',
        '',
        `Omar Officer returned your report on Wells built (${fx.indicator.code}) for Clean Water, ` +
          'reporting period Q1 2026, with this comment:',
        '',
        'The figure double-counts school wells.',
        '',
        'Edit the report and submit it again:',
        `http://app.test/projects/${fx.project.id}/indicator-reports/${report.id}`,
      ].join('\n'),
    );
    const queued = await outboxFor(report.id);
    expect(queued.map((m) => m.recipient)).toEqual([sender.email]);
    expect(
      t.smtp.received.filter((m) => [author.email, team.officer.email].some((a) => m.to.includes(a))),
    ).toEqual([]);
  });

  it('is not sent on approval', async () => {
    const fx = await fixture();
    const user = await submitter(fx);
    const approvedReport = await draft(fx, { as: user });
    await act(t.app, user, fx.orgId, approvedReport.id, 'submit');
    await act(t.app, team.officer, fx.orgId, approvedReport.id, 'approve', { comment: 'Good' });

    // A rejection queued afterwards arrives; nothing was queued for the approval before it.
    const indicator = await addIndicator(fx, team.officer, 'Latrines built');
    const rejectedReport = await draft(fx, { as: user, indicatorId: indicator.id });
    await act(t.app, user, fx.orgId, rejectedReport.id, 'submit');
    await act(t.app, team.admin, fx.orgId, rejectedReport.id, 'reject', { comment: 'Missing evidence' });
    const message = await t.smtp.waitFor(user.email);
    expect(message.raw).toMatch(/^Subject: Indicator report returned: Latrines built, Q1 2026\r?$/m);
    expect(await outboxFor(approvedReport.id)).toEqual([]);
    expect(
      (await t.database.db.select().from(outboxEmails).where(eq(outboxEmails.recipient, user.email))).length,
    ).toBe(1);
    expect(t.smtp.received.filter((m) => m.to.includes(user.email))).toHaveLength(1);
  });
});

describe('concurrent transitions', () => {
  const REVIEW = ['indicator_report.approved', 'indicator_report.rejected'];

  it('lets exactly one of two reviewers (approve vs reject) decide; the other gets 409', async () => {
    for (let round = 0; round < 3; round++) {
      const { report } = await reportIn('submitted');
      const [approval, rejection] = await Promise.all([
        send('approve', report.id, team.admin),
        send('reject', report.id, team.officer, { comment: 'Not yet' }),
      ]);
      expect([approval.status, rejection.status].sort()).toEqual([200, 409]);
      const approveWon = approval.status === 200;
      const winner = approveWon ? approval : rejection;
      const loser = approveWon ? rejection : approval;
      expect(winner.body.status).toBe(approveWon ? 'approved' : 'rejected');
      expectError(
        loser,
        conflictBody(
          approveWon
            ? 'Only submitted indicator reports can be rejected; this one is approved'
            : 'Only submitted indicator reports can be approved; this one is rejected',
        ),
      );
      const row = await stored(report.id);
      expect([row.status, row.reviewedBy, row.comment]).toEqual(
        approveWon ? ['approved', team.admin.id, null] : ['rejected', team.officer.id, 'Not yet'],
      );
      expect(await shown(report.id)).toEqual(winner.body);
      const reviews = (await feedAbout(report.id)).filter((e) => REVIEW.includes(e.type));
      expect(reviews.map((e) => [e.type, e.actor?.id])).toEqual([
        approveWon
          ? ['indicator_report.approved', team.admin.id]
          : ['indicator_report.rejected', team.officer.id],
      ]);
      expect(await outboxFor(report.id)).toHaveLength(approveWon ? 0 : 1);
    }
  });

  it('lets exactly one of two simultaneous approvals through', async () => {
    for (let round = 0; round < 3; round++) {
      const { report } = await reportIn('submitted');
      const results = await Promise.all([
        send('approve', report.id, team.admin, { comment: 'Admin ok' }),
        send('approve', report.id, team.officer, { comment: 'Officer ok' }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const won = results.findIndex((r) => r.status === 200);
      const [reviewer, comment] = won === 0 ? [team.admin, 'Admin ok'] : [team.officer, 'Officer ok'];
      expectError(
        results[1 - won]!,
        conflictBody('Only submitted indicator reports can be approved; this one is approved'),
      );
      const row = await stored(report.id);
      expect([row.status, row.reviewedBy, row.comment]).toEqual(['approved', reviewer.id, comment]);
      expect(await shown(report.id)).toEqual(results[won]!.body);
      const reviews = (await feedAbout(report.id)).filter((e) => REVIEW.includes(e.type));
      expect(reviews.map((e) => [e.type, e.actor?.id])).toEqual([['indicator_report.approved', reviewer.id]]);
    }
  });

  it('lets exactly one of two simultaneous submits of a draft through', async () => {
    for (let round = 0; round < 3; round++) {
      const { report } = await reportIn('draft');
      const submitters = [team.reporter, team.officer];
      const results = await Promise.all(submitters.map((user) => send('submit', report.id, user)));
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const won = results.findIndex((r) => r.status === 200);
      expectError(
        results[1 - won]!,
        conflictBody('Only draft or rejected indicator reports can be submitted; this one is submitted'),
      );
      const row = await stored(report.id);
      expect([row.status, row.submittedBy]).toEqual(['submitted', submitters[won]!.id]);
      const entries = await feedAbout(report.id);
      expect(entries.map((e) => [e.type, e.actor?.id])).toEqual([
        ['indicator_report.submitted', submitters[won]!.id],
      ]);
    }
  });
});
