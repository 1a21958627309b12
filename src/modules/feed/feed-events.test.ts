import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { person, postActivity, register, registrationsUrl } from '../../../test/helpers/activities.js';
import { buildTestAppWithMail, type MailTestApp } from '../../../test/helpers/app.js';
import {
  assignProject,
  createProject,
  createTeam,
  registerUser,
  uniqueEmail,
  type Team,
  type TestUser,
} from '../../../test/helpers/factories.js';
import { call, expectError, TIMESTAMP, ADMINS, MANAGERS, roleRefused } from '../../../test/helpers/http.js';
import { conflictBody } from '../../../test/helpers/indicator-scenes.js';
import {
  act,
  linkIndicator,
  postIndicator,
  postReport,
  reportUrl,
} from '../../../test/helpers/indicators.js';
import { invitationToken, invite, invitedToken } from '../../../test/helpers/invitations.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { UUID_PATTERN } from '../../lib/ids.js';

let t: MailTestApp;
/** The current test's team: every test registers an organization of its own, so its feed is its own. */
let team: Team;

beforeAll(async () => {
  t = await buildTestAppWithMail();
});
beforeEach(async () => {
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

interface Entry {
  type: string;
  occurredAt: string;
  projectId: string | null;
}

async function feed(as: TestUser = team.admin): Promise<Entry[]> {
  const res = await call(t.app, 'GET', `/orgs/${team.org.id}/activity-feed`, { as });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Entry[];
}

/** A whole feed entry as DECISIONS.md section 11 shapes it. */
const event = (
  type: string,
  actor: TestUser | null,
  projectId: string | null,
  subject: { type: string; id: string; label: string },
  summary: string,
) => ({
  id: expect.stringMatching(UUID_PATTERN),
  type,
  occurredAt: expect.stringMatching(TIMESTAMP),
  actor: actor ? { id: actor.id, name: `${actor.firstName} ${actor.lastName}` } : null,
  projectId,
  subject,
  summary,
});

/** A project with the indicator "Children vaccinated" linked and the period "Q1 2026"; the reporter assigned. */
async function scene(name = 'Clean Water', assigned = true) {
  const db = t.database.db;
  const project = await createProject(db, team.org.id, name);
  const indicator = await postIndicator(t.app, team.officer, team.org.id, { name: 'Children vaccinated' });
  await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target: 100 });
  const period = await createPeriod(db, team.org.id, project.id, { label: 'Q1 2026' });
  if (assigned) await assignProject(db, team.org.id, project.id, team.reporter.id);
  const draft = (as: TestUser) =>
    postReport(t.app, as, team.org.id, project.id, {
      indicatorId: indicator.id,
      reportingPeriodId: period.id,
      value: 40,
    });
  return { project, indicator, period, draft };
}

const lock = (periodId: string, as: TestUser, isLocked: boolean) =>
  call(t.app, 'PATCH', `/orgs/${team.org.id}/reporting-periods/${periodId}`, { as, body: { isLocked } });

const patchReport = (id: string, as: TestUser, body: Record<string, unknown>) =>
  call(t.app, 'PATCH', `/orgs/${team.org.id}/reports/${id}`, { as, body });

async function newReport(projectId: string, title: string) {
  const res = await call(t.app, 'POST', `/orgs/${team.org.id}/projects/${projectId}/reports`, {
    as: team.officer,
    body: { title, startDate: '2026-01-01', endDate: '2026-12-31' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}

describe('activity feed events emitted by their modules', () => {
  it('records indicator_report.submitted, .rejected and .approved; drafts and refused actions record nothing', async () => {
    const { project, draft } = await scene();
    const report = await draft(team.reporter);
    expect(await feed()).toEqual([]);

    await act(t.app, team.reporter, team.org.id, report.id, 'submit');
    const early = await call(t.app, 'PATCH', reportUrl(team.org.id, report.id, 'approve'), {
      as: team.reporter,
    });
    expectError(early, roleRefused(MANAGERS));
    await act(t.app, team.admin, team.org.id, report.id, 'reject', { comment: 'Source missing' });
    await act(t.app, team.reporter, team.org.id, report.id, 'submit');
    await act(t.app, team.officer, team.org.id, report.id, 'approve');
    const again = await call(t.app, 'PATCH', reportUrl(team.org.id, report.id, 'approve'), {
      as: team.admin,
    });
    expectError(
      again,
      conflictBody('Only submitted indicator reports can be approved; this one is approved'),
    );

    const subject = { type: 'indicator_report', id: report.id, label: 'Children vaccinated (Q1 2026)' };
    const of = 'Children vaccinated for Q1 2026 of Clean Water';
    expect(await feed(team.reporter)).toEqual([
      event('indicator_report.approved', team.officer, project.id, subject, `Omar Officer approved ${of}`),
      event(
        'indicator_report.submitted',
        team.reporter,
        project.id,
        subject,
        `Rita Reporter submitted ${of}`,
      ),
      event('indicator_report.rejected', team.admin, project.id, subject, `Ada Admin rejected ${of}`),
      event(
        'indicator_report.submitted',
        team.reporter,
        project.id,
        subject,
        `Rita Reporter submitted ${of}`,
      ),
    ]);
  });

  it('records report.published on each publication, under the title it is published with', async () => {
    const { project } = await scene();
    const report = await newReport(project.id, 'Annual report 2026');
    expect(await feed()).toEqual([]);

    const first = await patchReport(report.id, team.officer, {
      title: 'Annual report 2026 (final)',
      status: 'published',
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expectError(await patchReport(report.id, team.viewer, { status: 'draft' }), roleRefused(MANAGERS));
    expect((await patchReport(report.id, team.admin, { status: 'draft' })).status).toBe(200);
    expect((await patchReport(report.id, team.admin, { status: 'published' })).status).toBe(200);
    expectError(
      await patchReport(report.id, team.admin, { status: 'published' }),
      conflictBody('Report is already published'),
    );

    const subject = { type: 'report', id: report.id, label: 'Annual report 2026 (final)' };
    const what = 'published the report Annual report 2026 (final) of Clean Water';
    expect(await feed(team.viewer)).toEqual([
      event('report.published', team.admin, project.id, subject, `Ada Admin ${what}`),
      event('report.published', team.officer, project.id, subject, `Omar Officer ${what}`),
    ]);
  });

  it('records participant.registered per batch that registers someone, counting the new registrations', async () => {
    const { project } = await scene();
    const activity = await postActivity(t.app, team.officer, team.org.id, project.id, {
      title: 'Hygiene training',
    });
    const [first] = await register(t.app, team.reporter, team.org.id, activity.id, [person(), person()]);
    // Registering the same person again changes nothing and records nothing.
    const again = await call(t.app, 'POST', registrationsUrl(team.org.id, activity.id), {
      as: team.officer,
      body: { participants: [{ participantId: first!.participantId }] },
    });
    expect(again.status).toBe(201);
    await register(t.app, team.officer, team.org.id, activity.id, [
      { participantId: first!.participantId },
      person(),
    ]);

    const subject = { type: 'activity', id: activity.id, label: 'Hygiene training' };
    expect(await feed(team.officer)).toEqual([
      event(
        'participant.registered',
        team.officer,
        project.id,
        subject,
        'Omar Officer registered 1 participant in Hygiene training',
      ),
      event(
        'participant.registered',
        team.reporter,
        project.id,
        subject,
        'Rita Reporter registered 2 participants in Hygiene training',
      ),
    ]);
  });

  it('records reporting_period.locked and .unlocked; edits and a refused unlock record nothing', async () => {
    const { project, period } = await scene();
    const edited = await call(t.app, 'PATCH', `/orgs/${team.org.id}/reporting-periods/${period.id}`, {
      as: team.officer,
      body: { dueDate: '2026-04-15' },
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(await feed()).toEqual([]);

    expect((await lock(period.id, team.officer, true)).status).toBe(200);
    expectError(await lock(period.id, team.officer, false), roleRefused(ADMINS));
    expect((await lock(period.id, team.admin, false)).status).toBe(200);

    const subject = { type: 'reporting_period', id: period.id, label: 'Q1 2026' };
    expect(await feed()).toEqual([
      event(
        'reporting_period.unlocked',
        team.admin,
        project.id,
        subject,
        'Ada Admin unlocked reporting period Q1 2026 of Clean Water',
      ),
      event(
        'reporting_period.locked',
        team.officer,
        project.id,
        subject,
        'Omar Officer locked reporting period Q1 2026 of Clean Water',
      ),
    ]);
  });

  it('records member.invited and member.joined as organization-wide events', async () => {
    const email = uniqueEmail('invitee');
    const { invitation, token } = await invitedToken(
      t.app,
      t.smtp,
      team.admin,
      team.org.id,
      email,
      'me_officer',
    );
    const member = await call(t.app, 'POST', `/orgs/${team.org.id}/members`, {
      as: team.admin,
      body: { email: team.viewer.email, role: 'reporter' },
    });
    expectError(member, conflictBody('This user is already a member of the organization'));
    const invitee = await registerUser(t.app, { email, firstName: 'Ines', lastName: 'Invitee' });
    const accepted = await call(t.app, 'POST', `/invitations/${token}/accept`, { as: invitee });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);

    // org-wide: the reporter, assigned to nothing, sees them too
    expect(await feed(team.reporter)).toEqual([
      event(
        'member.joined',
        invitee,
        null,
        { type: 'member', id: invitee.id, label: 'Ines Invitee' },
        'Ines Invitee joined as me_officer',
      ),
      event(
        'member.invited',
        team.admin,
        null,
        { type: 'invitation', id: invitation.id, label: email },
        `Ada Admin invited ${email} as me_officer`,
      ),
    ]);
  });

  it('lists every type newest first; a reporter sees org-wide events and those of assigned projects', async () => {
    const mine = await scene('Clean Water');
    const other = await scene('Dry Lands', false);
    const email = uniqueEmail('joiner');

    await invite(t.app, team.admin, team.org.id, email); // 1 member.invited, org-wide
    const mineReport = await mine.draft(team.reporter);
    await act(t.app, team.reporter, team.org.id, mineReport.id, 'submit'); // 2 submitted, mine
    await act(t.app, team.admin, team.org.id, mineReport.id, 'reject'); // 3 rejected, mine
    await lock(other.period.id, team.officer, true); // 4 locked, other
    await lock(other.period.id, team.admin, false); // 5 unlocked, other
    const otherReport = await other.draft(team.officer);
    await act(t.app, team.officer, team.org.id, otherReport.id, 'submit'); // 6 submitted, other
    await act(t.app, team.officer, team.org.id, otherReport.id, 'approve'); // 7 approved, other
    const activity = await postActivity(t.app, team.officer, team.org.id, mine.project.id);
    await register(t.app, team.officer, team.org.id, activity.id, [person()]); // 8 registered, mine
    const joiner = await registerUser(t.app, { email });
    const token = await invitationToken(t.smtp, email);
    expect((await call(t.app, 'POST', `/invitations/${token}/accept`, { as: joiner })).status).toBe(200); // 9 joined
    const published = await newReport(other.project.id, 'Dry Lands 2026');
    expect((await patchReport(published.id, team.officer, { status: 'published' })).status).toBe(200); // 10 published, other

    const [m, o] = [mine.project.id, other.project.id];
    const everything = [
      ['report.published', o],
      ['member.joined', null],
      ['participant.registered', m],
      ['indicator_report.approved', o],
      ['indicator_report.submitted', o],
      ['reporting_period.unlocked', o],
      ['reporting_period.locked', o],
      ['indicator_report.rejected', m],
      ['indicator_report.submitted', m],
      ['member.invited', null],
    ];
    const typesAndProjects = (entries: Entry[]) => entries.map((e) => [e.type, e.projectId]);
    for (const user of [team.admin, team.officer, team.viewer]) {
      const entries = await feed(user);
      expect(typesAndProjects(entries)).toEqual(everything);
      const times = entries.map((e) => e.occurredAt);
      expect(times).toEqual([...times].sort().reverse());
    }
    expect(new Set(everything.map(([type]) => type))).toEqual(
      new Set([
        'indicator_report.submitted',
        'indicator_report.approved',
        'indicator_report.rejected',
        'report.published',
        'participant.registered',
        'reporting_period.locked',
        'reporting_period.unlocked',
        'member.invited',
        'member.joined',
      ]),
    );
    expect(typesAndProjects(await feed(team.reporter))).toEqual(
      everything.filter(([, projectId]) => projectId === null || projectId === m),
    );
  });
});
