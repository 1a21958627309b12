import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestAppWithMail, type MailTestApp } from '../../../test/helpers/app.js';
import { createTeam, type Team } from '../../../test/helpers/factories.js';
import { call, expectError, TIMESTAMP } from '../../../test/helpers/http.js';
import { conflictBody } from '../../../test/helpers/indicator-scenes.js';
import { act, reportsUrl } from '../../../test/helpers/indicators.js';
import { LOCKED } from '../../../test/helpers/report-scenes.js';
import { expectRecent, feedEntry, reviewScene, type Action } from '../../../test/helpers/review-scenes.js';
import { indicatorReports, type IndicatorReportStatus } from './indicator-reports.tables.js';

let t: MailTestApp;
let team: Team;
const scene = reviewScene(() => ({ t, team }));
const { fixture, addIndicator, reportIn, send, edit, stored, shown, feedAbout, outboxFor } = scene;

beforeAll(async () => {
  t = await buildTestAppWithMail();
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

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
