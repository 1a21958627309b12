import { and, asc, eq, like } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import {
  addMember,
  assignProject,
  createProject,
  createTeam,
  registerUser,
  type Team,
  type TestUser,
} from '../../../test/helpers/factories.js';
import { call, TEST_APP_URL, TIMESTAMP } from '../../../test/helpers/http.js';
import {
  act,
  indicatorCode,
  linkIndicator,
  postIndicator,
  postReport,
  type IndicatorJson,
} from '../../../test/helpers/indicators.js';
import { createPeriod, type PeriodRow } from '../../../test/helpers/periods.js';
import { TestSmtpServer } from '../../../test/helpers/smtp.js';
import { addDays } from '../../lib/dates.js';
import { MovableClock } from '../../lib/clock.js';
import { outboxEmails } from '../mail/mail.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import { reminderSends } from './reminders.tables.js';

let t: TestApp;
let smtp: TestSmtpServer;
const clock = new MovableClock(new Date('2026-06-01T08:00:00Z'));

beforeAll(async () => {
  smtp = new TestSmtpServer();
  await smtp.start();
  t = await buildTestApp({ SMTP_URL: smtp.url }, { clock });
});
afterAll(async () => {
  await t.close();
  await smtp.stop();
});
// The job serves every organization of the database: a test's periods must not be reminded of in the next.
afterEach(async () => {
  await t.database.db.update(reportingPeriods).set({ isLocked: true });
});

const SUBJECT = 'Reporting deadlines:';
const OPT_OUT =
  'You get these reminders as a reporter assigned to the project or as an M&E officer of the ' +
  `organization. To turn them off, open your settings at ${TEST_APP_URL}/settings, or send ` +
  'PATCH /auth/me with {"notifications": {"reminders": false}}.\n';

/** Runs the job with the clock at 08:00 UTC of `date`; the number of emails it queued. */
async function runOn(date: string): Promise<number> {
  clock.set(new Date(`${date}T08:00:00Z`));
  return t.app.reminders.runOnce();
}

/** The reminder digests queued for a user, oldest first. */
async function digestsTo(user: TestUser) {
  return t.database.db
    .select({ subject: outboxEmails.subject, body: outboxEmails.body })
    .from(outboxEmails)
    .where(and(eq(outboxEmails.recipient, user.email), like(outboxEmails.subject, `${SUBJECT}%`)))
    .orderBy(asc(outboxEmails.createdAt), asc(outboxEmails.id));
}

const sendKey = (row: { kind: string; userId: string; periodId: string }) =>
  `${row.kind} ${row.userId} ${row.periodId}`;

async function sendsOf(orgId: string) {
  const rows = await t.database.db
    .select({ periodId: reminderSends.periodId, userId: reminderSends.userId, kind: reminderSends.kind })
    .from(reminderSends)
    .where(eq(reminderSends.orgId, orgId));
  return rows.sort((a, b) => sendKey(a).localeCompare(sendKey(b)));
}

async function feedOf(team: Team, as: TestUser = team.admin) {
  const res = await call(t.app, 'GET', `/orgs/${team.org.id}/activity-feed`, { as });
  expect(res.status).toBe(200);
  return (res.body as { type: string }[]).filter((entry) => entry.type === 'reminders.sent');
}

interface Scene {
  team: Team;
  project: { id: string; name: string };
}

/** A team whose reporter is assigned to a project of its own. */
async function scene(projectName = 'Clean Water'): Promise<Scene> {
  const team = await createTeam(t.app, t.database.db);
  const project = await createProject(t.database.db, team.org.id, projectName);
  await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
  return { team, project };
}

/** An indicator linked to the project; its code starts with `prefix` (the digest lists by code). */
async function linked(s: Scene, name: string, prefix: string, body: Record<string, unknown> = {}) {
  const indicator = await postIndicator(t.app, s.team.officer, s.team.org.id, {
    name,
    code: indicatorCode(prefix),
    ...body,
  });
  await linkIndicator(t.app, s.team.officer, s.team.org.id, s.project.id, indicator.id);
  return indicator;
}

async function report(s: Scene, indicator: IndicatorJson, period: PeriodRow) {
  return postReport(t.app, s.team.reporter, s.team.org.id, s.project.id, {
    indicatorId: indicator.id,
    reportingPeriodId: period.id,
    value: 12,
  });
}

const missingLink = (s: Scene, period: PeriodRow) =>
  `${TEST_APP_URL}/projects/${s.project.id}/reporting-periods/${period.id}`;
const reportLink = (s: Scene, reportId: string) =>
  `${TEST_APP_URL}/projects/${s.project.id}/indicator-reports/${reportId}`;

/** What a digest says to `firstName` about these sections. */
const digestBody = (firstName: string, sections: string[]) =>
  `Hello ${firstName},\n\n` +
  'These indicator reports are still missing, in draft or rejected, and their reporting deadline ' +
  'is near or has passed:\n\n' +
  `${sections.join('\n\n')}\n\n${OPT_OUT}`;

/** Waits for the digest to arrive at the SMTP peer; its text with the line ends of the body. */
async function delivered(address: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = smtp.received.find((m) => m.to.includes(address) && m.raw.includes(`Subject: ${SUBJECT}`));
    if (found) return found.text.replace(/\r\n/g, '\n');
    if (Date.now() > deadline) throw new Error(`no digest to ${address}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the deadline reminder digest', () => {
  it('lists what is missing, in draft or rejected, with links, to the assigned reporter and the me_officer', async () => {
    const today = '2026-06-01';
    const s = await scene();
    const period = await createPeriod(t.database.db, s.team.org.id, s.project.id, {
      label: 'Q2 2026',
      startDate: '2026-04-01',
      endDate: '2026-06-30',
      dueDate: addDays(today, 7),
    });
    const missing = await linked(s, 'Wells built', 'A_WELLS');
    const drafted = await linked(s, 'Latrines built', 'B_LATRINES');
    const rejected = await linked(s, 'Households reached', 'C_HOUSEHOLDS');
    const submitted = await linked(s, 'Schools served', 'D_SCHOOLS');
    const approved = await linked(s, 'Clinics served', 'E_CLINICS');
    await linked(s, 'Coverage', 'F_COVERAGE', { formula: `${missing.code} + ${drafted.code}` });
    const draft = await report(s, drafted, period);
    const rejectedReport = await report(s, rejected, period);
    await act(t.app, s.team.reporter, s.team.org.id, rejectedReport.id, 'submit');
    await act(t.app, s.team.officer, s.team.org.id, rejectedReport.id, 'reject');
    const submittedReport = await report(s, submitted, period);
    await act(t.app, s.team.reporter, s.team.org.id, submittedReport.id, 'submit');
    const approvedReport = await report(s, approved, period);
    await act(t.app, s.team.reporter, s.team.org.id, approvedReport.id, 'submit');
    await act(t.app, s.team.officer, s.team.org.id, approvedReport.id, 'approve');

    expect(await runOn(today)).toBe(2);

    const section =
      `Clean Water (Hope Relief), Q2 2026: due in 7 days (2026-06-08)\n` +
      `  - Wells built (${missing.code}): missing\n` +
      `    ${missingLink(s, period)}\n` +
      `  - Latrines built (${drafted.code}): draft\n` +
      `    ${reportLink(s, draft.id)}\n` +
      `  - Households reached (${rejected.code}): rejected\n` +
      `    ${reportLink(s, rejectedReport.id)}`;
    const subject = `${SUBJECT} 3 indicator reports to complete`;
    expect(await digestsTo(s.team.reporter)).toEqual([{ subject, body: digestBody('Rita', [section]) }]);
    expect(await digestsTo(s.team.officer)).toEqual([{ subject, body: digestBody('Omar', [section]) }]);
    // Org admins and viewers are not reminded.
    expect(await digestsTo(s.team.admin)).toEqual([]);
    expect(await digestsTo(s.team.viewer)).toEqual([]);

    // The digest really leaves, through the outbox worker.
    expect(await delivered(s.team.reporter.email)).toContain(digestBody('Rita', [section]).trim());

    // One feed event for the run, about the organization, by no one; reporters see it too.
    const entry = {
      id: expect.any(String),
      type: 'reminders.sent',
      occurredAt: expect.stringMatching(TIMESTAMP),
      actor: null,
      projectId: null,
      subject: { type: 'organization', id: s.team.org.id, label: 'Hope Relief' },
      summary: 'Deadline reminders sent to 2 people for 1 reporting period',
    };
    expect(await feedOf(s.team)).toEqual([entry]);
    expect(await feedOf(s.team, s.team.reporter)).toEqual([entry]);

    // The next hour: nothing new to send, no second email, no second feed event.
    clock.advance(60 * 60 * 1000);
    expect(await t.app.reminders.runOnce()).toBe(0);
    expect(await digestsTo(s.team.reporter)).toHaveLength(1);
    expect(await feedOf(s.team)).toHaveLength(1);
  });

  it('goes to reporters only for their assigned projects, in one digest per person for several periods', async () => {
    const today = '2026-09-01';
    const s = await scene('Aqua Project');
    const second = await createProject(t.database.db, s.team.org.id, 'Borehole Project');
    const other: Scene = { team: s.team, project: second };
    await assignProject(t.database.db, s.team.org.id, second.id, s.team.reporter.id);
    // A reporter of the second project only, and one assigned nowhere.
    const [partner, idle] = await Promise.all([
      registerUser(t.app, { firstName: 'Paula', lastName: 'Partner' }),
      registerUser(t.app, { firstName: 'Ivan', lastName: 'Idle' }),
    ]);
    await addMember(t.database.db, s.team.org.id, partner.id, 'reporter');
    await addMember(t.database.db, s.team.org.id, idle.id, 'reporter');
    await assignProject(t.database.db, s.team.org.id, second.id, partner.id);
    // A reporter assigned to the project who became a viewer: the role decides.
    const former = await registerUser(t.app, { firstName: 'Fiona', lastName: 'Former' });
    await addMember(t.database.db, s.team.org.id, former.id, 'reporter');
    await assignProject(t.database.db, s.team.org.id, s.project.id, former.id);
    const demoted = await call(t.app, 'PATCH', `/orgs/${s.team.org.id}/members/${former.id}`, {
      as: s.team.admin,
      body: { role: 'viewer' },
    });
    expect(demoted.status).toBe(200);

    const wells = await linked(s, 'Wells built', 'WELLS');
    const pumps = await linked(other, 'Pumps fixed', 'PUMPS');
    const overdue = await createPeriod(t.database.db, s.team.org.id, s.project.id, {
      label: 'Q2 2026',
      startDate: '2026-04-01',
      endDate: '2026-06-30',
      dueDate: addDays(today, -1),
    });
    const dueFirst = await createPeriod(t.database.db, s.team.org.id, s.project.id, {
      label: 'Q3 2026',
      startDate: '2026-07-01',
      endDate: '2026-09-30',
      dueDate: addDays(today, 7),
    });
    const dueSecond = await createPeriod(t.database.db, s.team.org.id, second.id, {
      label: 'Q3 2026',
      startDate: '2026-07-01',
      endDate: '2026-09-30',
      dueDate: addDays(today, 7),
    });

    expect(await runOn(today)).toBe(3);

    const aquaOverdue =
      `Aqua Project (Hope Relief), Q2 2026: overdue since 2026-08-31\n` +
      `  - Wells built (${wells.code}): missing\n    ${missingLink(s, overdue)}`;
    const aquaDue =
      `Aqua Project (Hope Relief), Q3 2026: due in 7 days (2026-09-08)\n` +
      `  - Wells built (${wells.code}): missing\n    ${missingLink(s, dueFirst)}`;
    const boreholeDue =
      `Borehole Project (Hope Relief), Q3 2026: due in 7 days (2026-09-08)\n` +
      `  - Pumps fixed (${pumps.code}): missing\n    ${missingLink(other, dueSecond)}`;
    const all = [aquaOverdue, aquaDue, boreholeDue];
    expect(await digestsTo(s.team.reporter)).toEqual([
      { subject: `${SUBJECT} 3 indicator reports to complete`, body: digestBody('Rita', all) },
    ]);
    expect((await digestsTo(s.team.officer)).map((d) => d.body)).toEqual([digestBody('Omar', all)]);
    expect(await digestsTo(partner)).toEqual([
      { subject: `${SUBJECT} 1 indicator report to complete`, body: digestBody('Paula', [boreholeDue]) },
    ]);
    for (const user of [idle, former, s.team.admin, s.team.viewer]) expect(await digestsTo(user)).toEqual([]);

    expect((await feedOf(s.team)).map((e) => (e as { summary?: string }).summary)).toEqual([
      'Deadline reminders sent to 3 people for 3 reporting periods',
    ]);
    expect(await sendsOf(s.team.org.id)).toEqual(
      [
        ...[s.team.reporter, s.team.officer].flatMap((u) => [
          { periodId: dueFirst.id, userId: u.id, kind: 'due_in_7' },
          { periodId: dueSecond.id, userId: u.id, kind: 'due_in_7' },
          { periodId: overdue.id, userId: u.id, kind: 'overdue' },
        ]),
        { periodId: dueSecond.id, userId: partner.id, kind: 'due_in_7' },
      ].sort((a, b) => sendKey(a).localeCompare(sendKey(b))),
    );
  });
});

describe('when reminders are sent', () => {
  it('by default 7 days and 1 day before the due date and the day after it, each once', async () => {
    const due = '2026-12-10';
    const s = await scene();
    await linked(s, 'Wells built', 'WELLS');
    const period = await createPeriod(t.database.db, s.team.org.id, s.project.id, {
      label: 'Q4 2026',
      startDate: '2026-10-01',
      endDate: '2026-11-30',
      dueDate: due,
    });

    const sentOn: Record<string, number> = {};
    for (let offset = -9; offset <= 3; offset += 1) {
      sentOn[offset] = await runOn(addDays(due, offset));
    }
    expect(sentOn).toEqual({
      '-9': 0,
      '-8': 0,
      '-7': 2,
      '-6': 0,
      '-5': 0,
      '-4': 0,
      '-3': 0,
      '-2': 0,
      '-1': 2,
      '0': 0,
      '1': 2,
      '2': 0,
      '3': 0,
    });
    const headings = (await digestsTo(s.team.reporter)).map((d) => d.body.split('\n')[4]);
    expect(headings).toEqual([
      'Clean Water (Hope Relief), Q4 2026: due in 7 days (2026-12-10)',
      'Clean Water (Hope Relief), Q4 2026: due in 1 day (2026-12-10)',
      'Clean Water (Hope Relief), Q4 2026: overdue since 2026-12-10',
    ]);
    expect((await sendsOf(s.team.org.id)).map((row) => [row.periodId, row.kind])).toEqual(
      expect.arrayContaining([
        [period.id, 'due_in_1'],
        [period.id, 'due_in_7'],
        [period.id, 'overdue'],
      ]),
    );
    expect(await sendsOf(s.team.org.id)).toHaveLength(6);
    expect((await feedOf(s.team)).length).toBe(3);
  });

  it("on the organization's own days, and never after the due date when overdueReminder is false", async () => {
    const due = '2027-04-20';
    const s = await scene();
    await linked(s, 'Wells built', 'WELLS');
    await createPeriod(t.database.db, s.team.org.id, s.project.id, {
      label: 'Q1 2027',
      startDate: '2027-01-01',
      endDate: '2027-03-31',
      dueDate: due,
    });
    const settings = await call(t.app, 'PATCH', `/orgs/${s.team.org.id}`, {
      as: s.team.admin,
      body: { reminderDaysBefore: [3, 14], overdueReminder: false },
    });
    expect(settings.status).toBe(200);

    const sent: number[] = [];
    for (let offset = -15; offset <= 2; offset += 1) {
      if ((await runOn(addDays(due, offset))) > 0) sent.push(offset);
    }
    expect(sent).toEqual([-14, -3]);
    expect((await sendsOf(s.team.org.id)).map((row) => row.kind).sort()).toEqual([
      'due_in_14',
      'due_in_14',
      'due_in_3',
      'due_in_3',
    ]);
    const headings = (await digestsTo(s.team.officer)).map((d) => d.body.split('\n')[4]);
    expect(headings).toEqual([
      'Clean Water (Hope Relief), Q1 2027: due in 14 days (2027-04-20)',
      'Clean Water (Hope Relief), Q1 2027: due in 3 days (2027-04-20)',
    ]);
  });

  it('not before the due date when reminderDaysBefore is empty; overdue still', async () => {
    const due = '2027-09-15';
    const s = await scene();
    await linked(s, 'Wells built', 'WELLS');
    await createPeriod(t.database.db, s.team.org.id, s.project.id, {
      label: 'Q2 2027',
      startDate: '2027-04-01',
      endDate: '2027-06-30',
      dueDate: due,
    });
    await call(t.app, 'PATCH', `/orgs/${s.team.org.id}`, {
      as: s.team.admin,
      body: { reminderDaysBefore: [] },
    });
    const sent: number[] = [];
    for (let offset = -8; offset <= 2; offset += 1) {
      if ((await runOn(addDays(due, offset))) > 0) sent.push(offset);
    }
    expect(sent).toEqual([1]);
    expect((await sendsOf(s.team.org.id)).map((row) => row.kind)).toEqual(['overdue', 'overdue']);
  });

  it('to no one who turned reminders off, and again once they turn them back on', async () => {
    const today = '2028-02-01';
    const s = await scene();
    await linked(s, 'Wells built', 'WELLS');
    await createPeriod(t.database.db, s.team.org.id, s.project.id, {
      label: 'Q4 2027',
      startDate: '2027-10-01',
      endDate: '2027-12-31',
      dueDate: addDays(today, 7),
    });
    const off = await call(t.app, 'PATCH', '/auth/me', {
      as: s.team.reporter,
      body: { notifications: { reminders: false } },
    });
    expect([off.status, off.body.notifications]).toEqual([200, { reminders: false }]);

    expect(await runOn(today)).toBe(1);
    expect(await digestsTo(s.team.reporter)).toEqual([]);
    expect(await digestsTo(s.team.officer)).toHaveLength(1);
    expect((await feedOf(s.team)).map((e) => (e as { summary?: string }).summary)).toEqual([
      'Deadline reminders sent to 1 person for 1 reporting period',
    ]);

    const on = await call(t.app, 'PATCH', '/auth/me', {
      as: s.team.reporter,
      body: { notifications: { reminders: true } },
    });
    expect(on.status).toBe(200);
    // Later the same day the reminder they missed reaches them; the officer's is not sent twice.
    clock.advance(60 * 60 * 1000);
    expect(await t.app.reminders.runOnce()).toBe(1);
    expect(await digestsTo(s.team.reporter)).toHaveLength(1);
    expect(await digestsTo(s.team.officer)).toHaveLength(1);
    expect(await feedOf(s.team)).toHaveLength(2);
  });

  it('never for a locked period or one with nothing outstanding; no feed event when nothing was sent', async () => {
    const today = '2028-06-01';
    const s = await scene();
    const wells = await linked(s, 'Wells built', 'WELLS');
    const pumps = await linked(s, 'Pumps fixed', 'PUMPS');
    await createPeriod(t.database.db, s.team.org.id, s.project.id, {
      label: 'Locked',
      startDate: '2028-01-01',
      endDate: '2028-01-31',
      dueDate: addDays(today, 7),
      isLocked: true,
    });
    const done = await createPeriod(t.database.db, s.team.org.id, s.project.id, {
      label: 'Done',
      startDate: '2028-02-01',
      endDate: '2028-02-28',
      dueDate: addDays(today, 1),
    });
    const submitted = await report(s, wells, done);
    await act(t.app, s.team.reporter, s.team.org.id, submitted.id, 'submit');
    const approved = await report(s, pumps, done);
    await act(t.app, s.team.reporter, s.team.org.id, approved.id, 'submit');
    await act(t.app, s.team.officer, s.team.org.id, approved.id, 'approve');
    // A project whose only indicator is a formula, and one with no indicator at all.
    const formulaOnly: Scene = {
      team: s.team,
      project: await createProject(t.database.db, s.team.org.id, 'Formula Project'),
    };
    await linked(formulaOnly, 'Coverage', 'COVER', { formula: wells.code });
    await createPeriod(t.database.db, s.team.org.id, formulaOnly.project.id, {
      label: 'Q1 2028',
      startDate: '2028-01-01',
      endDate: '2028-03-31',
      dueDate: addDays(today, 7),
    });
    const empty = await createProject(t.database.db, s.team.org.id, 'Empty Project');
    await createPeriod(t.database.db, s.team.org.id, empty.id, {
      label: 'Q1 2028',
      startDate: '2028-01-01',
      endDate: '2028-03-31',
      dueDate: addDays(today, 7),
    });

    expect(await runOn(today)).toBe(0);
    expect(await sendsOf(s.team.org.id)).toEqual([]);
    expect(await feedOf(s.team)).toEqual([]);
    for (const user of [s.team.reporter, s.team.officer]) expect(await digestsTo(user)).toEqual([]);
  });
});
