import { randomUUID } from 'node:crypto';
import { asc, count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newSigningSecret } from '../src/modules/webhooks/secrets.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../src/modules/webhooks/events.js';
import { webhookDeliveries, webhookEvents } from '../src/modules/webhooks/webhooks.tables.js';
import { person, postActivity, register, registrationsUrl } from './helpers/activities.js';
import { buildTestAppWithMail, type MailTestApp } from './helpers/app.js';
import {
  assignProject,
  createProject,
  createTeam,
  registerUser,
  uniqueEmail,
  type Team,
  type TestUser,
} from './helpers/factories.js';
import { answers, countingFormFor, formTargets, reportOfTargets, submitUrl } from './helpers/forms.js';
import { call, TIMESTAMP, type Caller } from './helpers/http.js';
import { act, linkIndicator, postIndicator, postReport, reportUrl } from './helpers/indicators.js';
import { invitationToken, invite } from './helpers/invitations.js';
import { createPeriod } from './helpers/periods.js';
import { donorReportUrl, listItem, projectReportsUrl, type DonorReportJson } from './helpers/reports.js';
import { header, verify, WebhookReceiver, type ReceivedWebhook } from './helpers/webhooks.js';

type EventType = Exclude<WebhookEventType, 'ping'>;

let t: MailTestApp;
let receiver: WebhookReceiver;
/** Each test's own organization, so that its events and endpoints are its own. */
let team: Team;

beforeAll(async () => {
  t = await buildTestAppWithMail({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  receiver = new WebhookReceiver();
  await receiver.start();
});
beforeEach(async () => {
  team = await createTeam(t.app, t.database.db);
});
afterAll(async () => {
  await t.close();
  await receiver.stop();
});

interface Endpoint {
  id: string;
  url: string;
  secret: string;
  /** Requests already looked at by `nextEvent`. */
  seen: number;
}

/** An endpoint through the API, at a URL of its own on the receiver; the secret from the 201. */
async function endpoint(
  orgId: string,
  as: Caller,
  events: readonly EventType[] = WEBHOOK_EVENT_TYPES,
  active = true,
): Promise<Endpoint> {
  const url = receiver.newUrl();
  const res = await call(t.app, 'POST', `/orgs/${orgId}/webhooks`, { as, body: { url, events, active } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  return { id: res.body.id as string, url, secret: res.body.secret as string, seen: 0 };
}

/**
 * The endpoint that should hear `emitted` (every type), and the bystanders that should hear nothing: one
 * subscribed to every other type, one inactive, and another organization's subscribed to everything.
 */
async function listeners(emitted: EventType[]) {
  const all = await endpoint(team.org.id, team.admin);
  const bystanders = [
    await endpoint(
      team.org.id,
      team.admin,
      WEBHOOK_EVENT_TYPES.filter((type) => !emitted.includes(type)),
    ),
    await endpoint(team.org.id, team.admin, WEBHOOK_EVENT_TYPES, false),
    await endpoint(team.outsiderOrg.id, team.outsider),
  ];
  return { all, bystanders };
}

/** Delivers everything due, as the worker does on its timer. */
async function deliver(): Promise<void> {
  for (let round = 0; round < 10 && (await t.app.webhooks.deliverDue()) > 0; round += 1);
}

interface Delivered {
  request: ReceivedWebhook;
  body: { type: string; timestamp: string; data: Record<string, unknown> };
}

/**
 * Delivers, then asserts that exactly one new request reached `to`, signed for it and shaped as the
 * Standard Webhooks specification says, telling of `type`; its id is the event row's and its body the
 * row's exact text.
 */
async function nextEvent(to: Endpoint, type: EventType): Promise<Delivered> {
  await deliver();
  const fresh = receiver.at(to.url).slice(to.seen);
  expect(fresh.map((request) => JSON.parse(request.rawBody).type)).toEqual([type]);
  to.seen += 1;
  const request = fresh[0]!;

  expect(request.method).toBe('POST');
  expect(header(request, 'content-type')).toMatch(/^application\/json\b/);
  const id = header(request, 'webhook-id');
  const timestamp = header(request, 'webhook-timestamp');
  expect(id).toBeTruthy();
  expect(timestamp).toMatch(/^\d{10}$/);
  expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
  expect(header(request, 'webhook-signature')).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

  const body = verify(to.secret, request) as Delivered['body'];
  expect(() => verify(newSigningSecret(), request)).toThrow();
  expect(Object.keys(body).sort()).toEqual(['data', 'timestamp', 'type']);
  expect(body.type).toBe(type);
  expect(body.timestamp).toMatch(TIMESTAMP);

  const [row] = await t.database.db.select().from(webhookEvents).where(eq(webhookEvents.id, id!));
  expect(row).toMatchObject({ orgId: team.org.id, type, body: request.rawBody });
  return { request, body };
}

/** Delivers, then asserts that none of `endpoints` got anything (ever). */
async function expectNothing(endpoints: Endpoint[]): Promise<void> {
  await deliver();
  for (const quiet of endpoints) expect(receiver.at(quiet.url)).toEqual([]);
}

/** The raw body names none of `values` (personal data, secrets), in any case. */
function expectAbsent(request: ReceivedWebhook, values: string[]): void {
  const raw = request.rawBody.toLowerCase();
  for (const value of values) expect(raw).not.toContain(value.toLowerCase());
}

async function eventRows(orgId: string) {
  return t.database.db
    .select()
    .from(webhookEvents)
    .where(eq(webhookEvents.orgId, orgId))
    .orderBy(asc(webhookEvents.createdAt));
}

async function deliveryCount(orgId: string): Promise<number> {
  const [row] = await t.database.db
    .select({ total: count() })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.orgId, orgId));
  return row!.total;
}

/** A project with an indicator linked and a period, the reporter assigned. */
async function reportingScene() {
  const db = t.database.db;
  const project = await createProject(db, team.org.id);
  const indicator = await postIndicator(t.app, team.officer, team.org.id);
  await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target: 100 });
  const period = await createPeriod(db, team.org.id, project.id);
  await assignProject(db, team.org.id, project.id, team.reporter.id);
  return { project, indicator, period };
}

/** The indicator report as the API answers an org_admin now. */
async function reportAsAdmin(id: string) {
  const res = await call(t.app, 'GET', reportUrl(team.org.id, id), { as: team.admin });
  expect(res.status).toBe(200);
  return res.body as Record<string, unknown>;
}

const patchPeriod = (id: string, as: TestUser, body: Record<string, unknown>) =>
  call(t.app, 'PATCH', `/orgs/${team.org.id}/reporting-periods/${id}`, { as, body });

describe('webhook events, each delivered signed to the endpoints that subscribe to it', () => {
  it('indicator_report.submitted, .rejected and .approved carry the report as an org_admin reads it', async () => {
    const { project, indicator, period } = await reportingScene();
    const { all, bystanders } = await listeners([
      'indicator_report.submitted',
      'indicator_report.rejected',
      'indicator_report.approved',
    ]);
    const draft = await postReport(t.app, team.reporter, team.org.id, project.id, {
      indicatorId: indicator.id,
      reportingPeriodId: period.id,
      value: 40,
    });
    await deliver();
    expect(receiver.at(all.url)).toEqual([]);

    const steps: [TestUser, 'submit' | 'reject' | 'approve', EventType][] = [
      [team.reporter, 'submit', 'indicator_report.submitted'],
      [team.officer, 'reject', 'indicator_report.rejected'],
      [team.reporter, 'submit', 'indicator_report.submitted'],
      [team.admin, 'approve', 'indicator_report.approved'],
    ];
    for (const [as, action, type] of steps) {
      const answer = await act(t.app, as, team.org.id, draft.id, action);
      const { body } = await nextEvent(all, type);
      expect(body.data).toEqual(await reportAsAdmin(draft.id));
      expect(body.data).toMatchObject({ id: draft.id, status: answer.status, projectId: project.id });
    }
    await expectNothing(bystanders);
  });

  it('report.published carries the report without its sections and without its share link', async () => {
    const { project } = await reportingScene();
    const { all, bystanders } = await listeners(['report.published']);
    const created = await call(t.app, 'POST', projectReportsUrl(team.org.id, project.id), {
      as: team.officer,
      body: { title: 'Annual report 2026', startDate: '2026-01-01', endDate: '2026-12-31' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const shared = await call(t.app, 'PATCH', donorReportUrl(team.org.id, id, 'share'), {
      as: team.officer,
      body: { expiresAt: '2031-06-30T12:00:00.000Z' },
    });
    expect(shared.status, JSON.stringify(shared.body)).toBe(200);
    await deliver();
    expect(receiver.at(all.url)).toEqual([]);

    const published = await call(t.app, 'PATCH', donorReportUrl(team.org.id, id), {
      as: team.officer,
      body: { status: 'published' },
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const report = published.body as DonorReportJson;
    expect(report.shareToken).toBeTruthy();

    const { request, body } = await nextEvent(all, 'report.published');
    const { shareToken, shareUrl, shareExpiresAt, ...expected } = listItem(report, project.name);
    expect(body.data).toEqual(expected);
    expect(body.data).toMatchObject({ id, status: 'published', publishedAt: report.publishedAt });
    expect(shareExpiresAt).toBe('2031-06-30T12:00:00.000Z');
    expectAbsent(request, [shareToken!, shareUrl!, shareExpiresAt!, '"sections"']);

    // Back to draft tells nothing; publishing again is a second event.
    const draft = await call(t.app, 'PATCH', donorReportUrl(team.org.id, id), {
      as: team.admin,
      body: { status: 'draft' },
    });
    expect(draft.status).toBe(200);
    const again = await call(t.app, 'PATCH', donorReportUrl(team.org.id, id), {
      as: team.admin,
      body: { status: 'published' },
    });
    expect(again.status).toBe(200);
    const second = await nextEvent(all, 'report.published');
    expect(second.body.data).toMatchObject({ id, publishedAt: again.body.publishedAt });
    await expectNothing(bystanders);
  });

  it('form_submission.created carries ids and where it was counted, never the answers', async () => {
    const targets = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const form = await countingFormFor(t.app, team.officer, team.org.id, targets);
    const { all, bystanders } = await listeners(['form_submission.created']);
    const name = `Zawadi ${randomUUID().slice(0, 8)}`;

    const submitted = await call(t.app, 'POST', submitUrl(form.publicToken), {
      body: { answers: answers({ name, source: 'river', river_reason: 'The borehole is broken' }) },
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);

    const { request, body } = await nextEvent(all, 'form_submission.created');
    expect(body.data).toEqual({
      id: submitted.body.id,
      formId: form.id,
      projectId: targets.project.id,
      reportingPeriodId: targets.period.id,
      submittedAt: submitted.body.submittedAt,
      indicatorReportId: await reportOfTargets(t.app, team.admin, team.org.id, targets),
    });
    expect(body.timestamp).toBe(submitted.body.submittedAt);
    expectAbsent(request, [name, 'borehole', 'river', '"answers"']);
    await expectNothing(bystanders);
  });

  it('participant.registered carries ids only, for the people a batch newly registers', async () => {
    const { project } = await reportingScene();
    const activity = await postActivity(t.app, team.officer, team.org.id, project.id);
    const { all, bystanders } = await listeners(['participant.registered']);
    const tag = randomUUID().slice(0, 8);
    const people = [
      person({ firstName: `Wanjiru${tag}`, lastName: `Kamau${tag}`, phone: `+254 711 ${tag}` }),
      person({ lastName: `Otieno${tag}`, nationalId: `NID-${tag}`, dateOfBirth: '1987-11-23' }),
    ];

    const registered = await register(t.app, team.reporter, team.org.id, activity.id, people);
    const { request, body } = await nextEvent(all, 'participant.registered');
    expect(Object.keys(body.data).sort()).toEqual(['activityId', 'participantIds', 'projectId']);
    expect(body.data).toMatchObject({ activityId: activity.id, projectId: project.id });
    expect([...(body.data.participantIds as string[])].sort()).toEqual(
      registered.map((r) => r.participantId).sort(),
    );
    expectAbsent(request, [
      `Wanjiru${tag}`,
      `Kamau${tag}`,
      `Otieno${tag}`,
      `+254 711 ${tag}`,
      `NID-${tag}`,
      '1987-11-23',
      people[0]!.firstName as string,
      people[1]!.firstName as string,
    ]);

    // Someone registered already changes nothing and tells nothing; a batch with a newcomer names only them.
    const known = { participantId: registered[0]!.participantId };
    const same = await call(t.app, 'POST', registrationsUrl(team.org.id, activity.id), {
      as: team.officer,
      body: { participants: [known] },
    });
    expect(same.status).toBe(201);
    await deliver();
    expect(receiver.at(all.url)).toHaveLength(1);
    const mixed = await register(t.app, team.officer, team.org.id, activity.id, [known, person()]);
    const second = await nextEvent(all, 'participant.registered');
    expect(second.body.data).toEqual({
      activityId: activity.id,
      projectId: project.id,
      participantIds: [mixed[1]!.participantId],
    });
    await expectNothing(bystanders);
  });

  it('period.locked and period.unlocked carry the period as the API answers; an edit tells nothing', async () => {
    const { period } = await reportingScene();
    const { all, bystanders } = await listeners(['period.locked', 'period.unlocked']);
    const edited = await patchPeriod(period.id, team.officer, { dueDate: '2026-04-15' });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    await deliver();
    expect(receiver.at(all.url)).toEqual([]);

    const locked = await patchPeriod(period.id, team.officer, { isLocked: true });
    expect(locked.status).toBe(200);
    const first = await nextEvent(all, 'period.locked');
    expect(first.body.data).toEqual(locked.body);
    expect(first.body.data).toMatchObject({ id: period.id, isLocked: true, lockedBy: team.officer.id });

    // Locking a locked period changes nothing and tells nothing.
    expect((await patchPeriod(period.id, team.admin, { isLocked: true })).status).toBe(200);
    const unlocked = await patchPeriod(period.id, team.admin, { isLocked: false });
    expect(unlocked.status).toBe(200);
    const second = await nextEvent(all, 'period.unlocked');
    expect(second.body.data).toEqual(unlocked.body);
    expect(second.body.data).toMatchObject({ id: period.id, isLocked: false, lockedBy: null });
    await expectNothing(bystanders);
  });

  it('member.invited and member.joined carry ids and the role, never the address or the name', async () => {
    const { all, bystanders } = await listeners(['member.invited', 'member.joined']);
    const email = uniqueEmail('invitee');
    const invitation = await invite(t.app, team.admin, team.org.id, email, 'me_officer');

    const invited = await nextEvent(all, 'member.invited');
    expect(invited.body.data).toEqual({
      id: invitation.id,
      role: 'me_officer',
      invitedBy: team.admin.id,
      expiresAt: invitation.expiresAt,
    });
    expectAbsent(invited.request, [email, email.split('@')[0]!]);

    const invitee = await registerUser(t.app, {
      email,
      firstName: 'Imani',
      lastName: `Njoroge${randomUUID().slice(0, 6)}`,
    });
    const token = await invitationToken(t.smtp, email);
    const accepted = await call(t.app, 'POST', `/invitations/${token}/accept`, { as: invitee });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);

    const joined = await nextEvent(all, 'member.joined');
    expect(joined.body.data).toEqual({ userId: invitee.id, role: 'me_officer', invitationId: invitation.id });
    expectAbsent(joined.request, [email, email.split('@')[0]!, invitee.lastName, token]);
    await expectNothing(bystanders);
  });
});

describe('webhook events that are not written', () => {
  it('a change that fails after queuing its event leaves no event and sends nothing', async () => {
    const { all } = await listeners(['member.invited']);
    // The database refuses the invitation email, which is queued after the webhook event, in the same
    // transaction: the request fails after the queuing point.
    await t.database.db.execute(sql`
      CREATE OR REPLACE FUNCTION refuse_test_mail() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.recipient LIKE 'refused-%' THEN RAISE EXCEPTION 'mail refused by the test'; END IF;
        RETURN NEW;
      END $$`);
    await t.database.db.execute(sql`
      CREATE TRIGGER refuse_test_mail BEFORE INSERT ON outbox_emails
      FOR EACH ROW EXECUTE FUNCTION refuse_test_mail()`);
    try {
      const refused = await call(t.app, 'POST', `/orgs/${team.org.id}/members`, {
        as: team.admin,
        body: { email: uniqueEmail('refused'), role: 'reporter' },
      });
      expect(refused.status).toBe(500);
      await deliver();
      expect(await eventRows(team.org.id)).toEqual([]);
      expect(await deliveryCount(team.org.id)).toBe(0);
      expect(receiver.at(all.url)).toEqual([]);
      const open = await call(t.app, 'GET', `/orgs/${team.org.id}/invitations`, { as: team.admin });
      expect(open.status).toBe(200);
      expect(open.body).toEqual([]);

      // The same request that commits is told.
      await invite(t.app, team.admin, team.org.id, uniqueEmail('accepted'));
      await nextEvent(all, 'member.invited');
      expect(await eventRows(team.org.id)).toHaveLength(1);
    } finally {
      await t.database.db.execute(sql`DROP TRIGGER refuse_test_mail ON outbox_emails`);
      await t.database.db.execute(sql`DROP FUNCTION refuse_test_mail()`);
    }
  });

  it('writes no event row while no active endpoint of the organization subscribes to the type', async () => {
    const { period } = await reportingScene();
    const lock = (isLocked: boolean) => patchPeriod(period.id, team.admin, { isLocked });

    expect((await lock(true)).status).toBe(200);
    expect(await eventRows(team.org.id)).toEqual([]);

    const others = await endpoint(team.org.id, team.admin, ['period.locked', 'member.invited']);
    const inactive = await endpoint(team.org.id, team.admin, WEBHOOK_EVENT_TYPES, false);
    const stranger = await endpoint(team.outsiderOrg.id, team.outsider, ['period.unlocked']);
    expect((await lock(false)).status).toBe(200);
    expect(await eventRows(team.org.id)).toEqual([]);
    expect(await eventRows(team.outsiderOrg.id)).toEqual([]);
    expect(await deliveryCount(team.org.id)).toBe(0);
    await expectNothing([others, inactive, stranger]);

    // Subscribed now: one event row, one delivery, to that endpoint alone.
    expect((await lock(true)).status).toBe(200);
    const rows = await eventRows(team.org.id);
    expect(rows.map((row) => row.type)).toEqual(['period.locked']);
    expect(await deliveryCount(team.org.id)).toBe(1);
    await nextEvent(others, 'period.locked');
    await expectNothing([inactive, stranger]);
  });
});

describe('redelivery and ping, through the API to a real receiver', () => {
  it('redelivers an event under the same webhook-id and body, signed anew, and pings an endpoint', async () => {
    const hook = await endpoint(team.org.id, team.admin, ['period.locked']);
    const project = await createProject(t.database.db, team.org.id);
    const period = await createPeriod(t.database.db, team.org.id, project.id);
    expect((await patchPeriod(period.id, team.admin, { isLocked: true })).status).toBe(200);
    const first = await nextEvent(hook, 'period.locked');
    const deliveries = `/orgs/${team.org.id}/webhooks/${hook.id}/deliveries`;
    const listed = await call(t.app, 'GET', deliveries, { as: team.admin });
    expect(listed.status).toBe(200);
    // Unpaged, a list is the bare array.
    expect(listed.body).toHaveLength(1);
    expect(listed.body[0]).toMatchObject({ status: 'succeeded', attempts: 1, statusCode: 204 });

    const again = await call(t.app, 'POST', `${deliveries}/${listed.body[0].id}/redeliver`, {
      as: team.admin,
    });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ status: 'pending', attempts: 0, eventType: 'period.locked' });
    const second = await nextEvent(hook, 'period.locked');
    // The same event: a receiver that kept the first de-duplicates the second by its id.
    expect(header(second.request, 'webhook-id')).toBe(header(first.request, 'webhook-id'));
    expect(second.request.rawBody).toBe(first.request.rawBody);
    const after = await call(t.app, 'GET', `${deliveries}?status=succeeded`, { as: team.admin });
    expect(after.body.map((d: { id: string }) => d.id)).toEqual([again.body.id, listed.body[0].id]);

    const ping = await call(t.app, 'POST', `/orgs/${team.org.id}/webhooks/${hook.id}/ping`, {
      as: team.admin,
    });
    expect(ping.status).toBe(202);
    await deliver();
    const pinged = receiver.at(hook.url).slice(hook.seen);
    expect(pinged).toHaveLength(1);
    expect(verify(hook.secret, pinged[0]!)).toMatchObject({ type: 'ping', data: { webhookId: hook.id } });
  });
});
