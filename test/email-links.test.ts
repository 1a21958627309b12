/**
 * Every link the service emails leads somewhere when APP_URL is the service itself: each kind of email
 * is made to happen for real, and every URL under APP_URL in every message is opened as a browser opens
 * it (Accept: text/html, the recipient's session cookie when they have an account), expecting a page.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MovableClock } from '../src/lib/clock.js';
import { addDays } from '../src/lib/dates.js';
import { WebhookWorker } from '../src/modules/webhooks/index.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createTeam, uniqueEmail, type Team, type TestUser } from './helpers/factories.js';
import { call, TEST_APP_URL } from './helpers/http.js';
import { invite } from './helpers/invitations.js';
import { browserGet, returnedReportScene } from './helpers/member-pages.js';
import { TestSmtpServer, type ReceivedEmail } from './helpers/smtp.js';
import { WebhookReceiver } from './helpers/webhooks.js';

/** Each kind of email the service sends, by the start of its subject. */
const KINDS = {
  verification: 'Confirm your email address',
  passwordReset: 'Reset your password',
  invitation: 'You are invited to join ',
  reportReturned: 'Indicator report returned: ',
  reminderDigest: 'Reporting deadlines: ',
  endpointTurnedOff: 'Webhook endpoint turned off: ',
};

const clock = new MovableClock(new Date());
let t: TestApp;
let smtp: TestSmtpServer;
let receiver: WebhookReceiver;
let team: Team;
beforeAll(async () => {
  smtp = new TestSmtpServer();
  await smtp.start();
  receiver = new WebhookReceiver();
  await receiver.start();
  t = await buildTestApp({ SMTP_URL: smtp.url, WEBHOOK_ALLOW_PRIVATE: 'true' }, { clock });
  team = await createTeam(t.app, t.database.db);
});
afterAll(async () => {
  await t.close();
  await smtp.stop();
  await receiver.stop();
});

/** Subjects of the emails queued by `queueEmail(` calls in the service's code: one kind each. */
function queuedKindsInCode(): number {
  const modules = path.resolve(import.meta.dirname, '../src/modules');
  return readdirSync(modules, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.startsWith('mail'))
    .map((file) => readFileSync(path.join(modules, file), 'utf8').split('queueEmail(').length - 1)
    .reduce((sum, count) => sum + count, 0);
}

/** Waits until an email of each kind has arrived; then every email received. */
async function everyKind(): Promise<ReceivedEmail[]> {
  const subject = (email: ReceivedEmail) => /^Subject: (.*)$/m.exec(email.raw)?.[1] ?? '';
  const deadline = Date.now() + 15_000;
  for (;;) {
    const missing = Object.values(KINDS).filter(
      (start) => !smtp.received.some((email) => subject(email).startsWith(start)),
    );
    if (missing.length === 0) return smtp.received;
    if (Date.now() > deadline) throw new Error(`no email starting with: ${missing.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The URLs under APP_URL in a message, without the punctuation of the sentence around them. */
const linksIn = (email: ReceivedEmail) =>
  [...email.text.matchAll(new RegExp(`${TEST_APP_URL.replace(/\./g, '\\.')}[^\\s]+`, 'g'))].map((m) =>
    m[0].replace(/[.,;:!?)]+$/, ''),
  );

it('sends six kinds of email, as the code queues them', () => {
  expect(queuedKindsInCode()).toBe(Object.keys(KINDS).length);
});

it('every link in every kind of email answers a page (200, HTML) to its recipient', async () => {
  const orgId = team.org.id;
  // A webhook endpoint that fails, turned off at its first failure here (5 days in production).
  receiver.answer = { status: 500, body: 'down' };
  const endpoint = await call(t.app, 'POST', `/orgs/${orgId}/webhooks`, {
    as: team.admin,
    body: { url: receiver.newUrl(), events: ['indicator_report.submitted'] },
  });
  expect(endpoint.status).toBe(201);
  const ping = await call(t.app, 'POST', `/orgs/${orgId}/webhooks/${endpoint.body.id}/ping`, {
    as: team.admin,
  });
  expect(ping.status).toBe(202);
  const worker = new WebhookWorker(t.database.db, t.config, clock, t.app.log, { disableAfterMs: 0 });
  expect(await worker.deliverDue()).toBe(1);

  const today = clock.now().toISOString().slice(0, 10);
  const scene = await returnedReportScene(t.app, t.database.db, team, { dueDate: addDays(today, 7) });
  expect(await t.app.reminders.runOnce()).toBeGreaterThan(0);
  expect(
    (await call(t.app, 'POST', '/auth/forgot-password', { body: { email: team.viewer.email } })).status,
  ).toBe(202);
  await invite(t.app, team.admin, orgId, uniqueEmail('newcomer'), 'viewer');
  const users: TestUser[] = [
    team.admin,
    team.officer,
    team.reporter,
    team.viewer,
    team.outsider,
    scene.unassigned,
  ];

  const opened: string[] = [];
  for (const email of await everyKind()) {
    const recipient = users.find((user) => email.to.includes(user.email)) ?? null;
    const links = linksIn(email);
    expect(links.length, email.text).toBeGreaterThan(0);
    for (const link of links) {
      const res = await browserGet(t.app, link.slice(TEST_APP_URL.length), recipient);
      expect(res.statusCode, `${link} for ${recipient?.email ?? 'a new person'}`).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      opened.push(new URL(link).pathname.replace(/[0-9a-f-]{36}|[\w-]{40,}/g, ':id'));
    }
  }
  // Each kind's links were among them.
  expect(new Set(opened)).toEqual(
    new Set([
      '/verify-email',
      '/reset-password',
      '/invitations/:id',
      '/projects/:id/indicator-reports/:id',
      '/projects/:id/reporting-periods/:id',
      '/settings',
      '/orgs/:id/settings/webhooks',
    ]),
  );
});
