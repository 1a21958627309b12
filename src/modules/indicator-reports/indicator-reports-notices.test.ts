import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestAppWithMail, type MailTestApp } from '../../../test/helpers/app.js';
import {
  addMember,
  assignProject,
  createTeam,
  registerUser,
  type Team,
  type TestUser,
} from '../../../test/helpers/factories.js';
import { TIMESTAMP } from '../../../test/helpers/http.js';
import { act } from '../../../test/helpers/indicators.js';
import { nameOf, reviewScene, type Fixture } from '../../../test/helpers/review-scenes.js';
import { outboxEmails } from '../mail/mail.tables.js';

let t: MailTestApp;
let team: Team;
const scene = reviewScene(() => ({ t, team }));
const { fixture, addIndicator, draft, send, feedAbout, outboxFor } = scene;

beforeAll(async () => {
  t = await buildTestAppWithMail();
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

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

  /** Rejection notices only: every registered user also got the verification email of registration. */
  const RETURNED = 'Subject: Indicator report returned';
  const noticesTo = (address: string) =>
    t.smtp.received.filter((m) => m.to.includes(address) && m.raw.includes(RETURNED));
  async function noticeTo(address: string) {
    const deadline = Date.now() + 10_000;
    while (noticesTo(address).length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const [notice] = noticesTo(address);
    if (!notice) throw new Error(`no rejection notice to ${address}`);
    return notice;
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

    const message = await noticeTo(sender.email);
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
    expect([author.email, team.officer.email].flatMap(noticesTo)).toEqual([]);
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
    const message = await noticeTo(user.email);
    expect(message.raw).toMatch(/^Subject: Indicator report returned: Latrines built, Q1 2026\r?$/m);
    expect(await outboxFor(approvedReport.id)).toEqual([]);
    expect(
      (await t.database.db.select().from(outboxEmails).where(eq(outboxEmails.recipient, user.email))).filter(
        (row) => row.subject.startsWith('Indicator report returned'),
      ),
    ).toHaveLength(1);
    expect(noticesTo(user.email)).toHaveLength(1);
  });
});
