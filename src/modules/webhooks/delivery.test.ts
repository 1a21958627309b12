import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq, inArray } from 'drizzle-orm';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { addMember, createTeam, registerUser, type Team } from '../../../test/helpers/factories.js';
import { transaction, type Db } from '../../db/client.js';
import { MovableClock } from '../../lib/clock.js';
import { outboxEmails } from '../mail/mail.tables.js';
import { claimDueDeliveries, recordDelivered } from './deliveries.repo.js';
import { WebhookWorker, type Resolve, type WebhookWorkerOptions } from './delivery-worker.js';
import { queueWebhookEvent, type WebhookEventType } from './events.js';
import { systemResolve } from './safe-request.js';
import { newSigningSecret, ROTATION_OVERLAP_MS, sealSecret } from './secrets.js';
import { webhookDeliveries, webhookEndpoints, webhookEvents } from './webhooks.tables.js';

const log = pino({ level: 'silent' });
const SECOND = 1000;
const HOUR = 60 * 60 * SECOND;
const DAY = 24 * HOUR;

let t: TestApp;
let db: Db;
beforeAll(async () => {
  t = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  db = t.database.db;
});
afterAll(() => t.close());

// Every test has its own clock, organization and receivers. What a test leaves pending must not be
// delivered by a later test's workers (whose clocks move days ahead): its endpoints are turned off.
interface Receiver {
  port: number;
  url: (host?: string, path?: string) => string;
  requests: Received[];
  connections: () => number;
  close: () => Promise<void>;
}
const receivers: Receiver[] = [];
afterEach(async () => {
  await db.update(webhookEndpoints).set({ active: false });
  for (const receiver of receivers.splice(0)) await receiver.close();
});

interface Received {
  headers: Record<string, string>;
  body: string;
}

type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

/** A real HTTP receiver on loopback; `answer` decides each reply (by the request's number, from 1). */
async function receiver(
  answer: (n: number, request: Received) => Answer | Promise<Answer> = () => ({ status: 200 }),
): Promise<Receiver> {
  const requests: Received[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString(),
      };
      requests.push(request);
      void Promise.resolve(answer(requests.length, request)).then((reply) => {
        if (reply !== 'hang') res.writeHead(reply.status, reply.headers).end(reply.body ?? '');
      });
    });
  });
  server.on('connection', () => (connections += 1));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const self: Receiver = {
    port,
    url: (host = '127.0.0.1', path = '/hooks') => `http://${host}:${port}${path}`,
    requests,
    connections: () => connections,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  receivers.push(self);
  return self;
}

/** A resolver that answers `addresses` in turn (the last one again when they run out) and counts calls. */
function answering(...addresses: string[]): Resolve & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const address = addresses[Math.min(asked.length, addresses.length) - 1]!;
    return [{ address, family: address.includes(':') ? (6 as const) : (4 as const) }];
  };
  return Object.assign(resolve, { asked });
}

const worker = (clock: MovableClock, options: WebhookWorkerOptions = {}, allowPrivate = true) =>
  new WebhookWorker(db, { ...t.config, webhookAllowPrivate: allowPrivate }, clock, log, {
    resolve: answering('127.0.0.1'),
    ...options,
  });

/** An endpoint row as the API would write it; its clear secret is kept to verify signatures. */
async function createEndpoint(
  orgId: string,
  url: string,
  fields: { events?: string[]; previousSecret?: string; previousSecretUntil?: Date } = {},
) {
  const secret = newSigningSecret();
  const [row] = await db
    .insert(webhookEndpoints)
    .values({
      orgId,
      url,
      events: fields.events ?? ['indicator_report.submitted'],
      secret: sealSecret(t.config.piiKeyring, secret),
      previousSecret: fields.previousSecret && sealSecret(t.config.piiKeyring, fields.previousSecret),
      previousSecretUntil: fields.previousSecretUntil,
    })
    .returning();
  return { ...row!, clearSecret: secret };
}

async function queueEvent(
  orgId: string,
  at: Date,
  type: Exclude<WebhookEventType, 'ping'> = 'indicator_report.submitted',
  data: object = { indicatorReport: { id: 'f0d7c1c6-0000-4000-8000-000000000001', status: 'submitted' } },
) {
  await transaction(db, (tx) => queueWebhookEvent(tx, { orgId, type, data, at }, () => undefined));
}

const deliveriesOf = (endpointId: string) =>
  db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(webhookDeliveries.createdAt);

async function deliveryOf(endpointId: string) {
  const rows = await deliveriesOf(endpointId);
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

const endpointRow = async (id: string) =>
  (await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)))[0]!;

/** Standard Webhooks' reference verifier, judging the timestamp by the test's clock rather than the machine's. */
function verify(secret: string, request: Received, now: Date): unknown {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(now);
  try {
    return new Webhook(secret).verify(request.body, request.headers);
  } finally {
    vi.useRealTimers();
  }
}

const secondsOf = (at: Date) => String(Math.floor(at.getTime() / 1000));

describe('webhook delivery', () => {
  it('delivers the event body signed in the Standard Webhooks format, once', async () => {
    const { org } = await createTeam(t.app, db);
    const clock = new MovableClock();
    const hook = await receiver(() => ({ status: 200, body: 'thanks' }));
    // A name without DNS: the worker's resolver answers loopback, and the request still carries the name.
    const endpoint = await createEndpoint(org.id, hook.url('hook.example.test'));
    await queueEvent(org.id, clock.now());
    const [event] = await db.select().from(webhookEvents).where(eq(webhookEvents.orgId, org.id));

    clock.advance(2 * SECOND);
    expect(await worker(clock).deliverDue()).toBe(1);

    expect(hook.requests).toHaveLength(1);
    const [request] = hook.requests;
    expect(request!.body).toBe(event!.body);
    expect(request!.headers).toMatchObject({
      'webhook-id': event!.id,
      'webhook-timestamp': secondsOf(clock.now()),
      'content-type': 'application/json',
      'user-agent': 'mel-webhooks/1',
      host: `hook.example.test:${hook.port}`,
    });
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verify(endpoint.clearSecret, request!, clock.now())).toEqual({
      type: 'indicator_report.submitted',
      timestamp: new Date(clock.now().getTime() - 2 * SECOND).toISOString(),
      data: { indicatorReport: { id: 'f0d7c1c6-0000-4000-8000-000000000001', status: 'submitted' } },
    });
    expect(() =>
      verify(endpoint.clearSecret, { ...request!, body: `${request!.body} ` }, clock.now()),
    ).toThrow('No matching signature found');
    expect(() => verify(newSigningSecret(), request!, clock.now())).toThrow('No matching signature found');

    const delivery = await deliveryOf(endpoint.id);
    expect(delivery).toMatchObject({
      eventId: event!.id,
      status: 'succeeded',
      attempts: 1,
      statusCode: 200,
      response: 'thanks',
      error: null,
      claimedUntil: null,
      lastAttemptAt: clock.now(),
      deliveredAt: clock.now(),
    });
    expect(delivery.durationMs).toBeGreaterThanOrEqual(0);
    expect(delivery.durationMs).toBeLessThan(5000);

    clock.advance(DAY);
    expect(await worker(clock).deliverDue()).toBe(0);
    expect(hook.requests).toHaveLength(1);
  });

  it('sends a delivery never tried at once, even when the clock is behind the time it was queued', async () => {
    const { org } = await createTeam(t.app, db);
    const clock = new MovableClock();
    const hook = await receiver(() => ({ status: 204 }));
    const endpoint = await createEndpoint(org.id, hook.url('hook.example.test'));
    // Workflow changes stamp their events with the time of the change, not the worker's clock.
    await queueEvent(org.id, new Date(clock.now().getTime() + HOUR));
    expect(await worker(clock).deliverDue()).toBe(1);
    expect(hook.requests).toHaveLength(1);
    expect(await deliveryOf(endpoint.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('retries after a 500 with backoff, under the same webhook-id, until a 2xx', async () => {
    const { org } = await createTeam(t.app, db);
    const clock = new MovableClock();
    const hook = await receiver((n) => (n === 1 ? { status: 500, body: 'database down' } : { status: 204 }));
    const endpoint = await createEndpoint(org.id, hook.url());
    await queueEvent(org.id, clock.now());
    const first = clock.now();
    const delivering = worker(clock, { retryBaseMs: 5000 });

    expect(await delivering.deliverDue()).toBe(1);
    const failed = await deliveryOf(endpoint.id);
    expect(failed).toMatchObject({
      status: 'pending',
      attempts: 1,
      statusCode: 500,
      response: 'database down',
      error: 'HTTP 500',
      lastAttemptAt: first,
      deliveredAt: null,
      claimedUntil: null,
    });
    // Equal jitter: between half of the base delay and all of it.
    const wait = failed.nextAttemptAt.getTime() - first.getTime();
    expect(wait).toBeGreaterThanOrEqual(2500);
    expect(wait).toBeLessThanOrEqual(5000);
    expect((await endpointRow(endpoint.id)).failingSince).toEqual(first);

    // Not due before its time.
    clock.advance(wait - 1);
    expect(await delivering.deliverDue()).toBe(0);
    clock.advance(1);
    expect(await delivering.deliverDue()).toBe(1);

    const delivered = await deliveryOf(endpoint.id);
    expect(delivered).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      statusCode: 204,
      response: '',
      error: null,
      lastAttemptAt: clock.now(),
      deliveredAt: clock.now(),
    });
    expect((await endpointRow(endpoint.id)).failingSince).toBeNull();
    expect(hook.requests.map((r) => r.headers['webhook-id'])).toEqual([delivered.eventId, delivered.eventId]);
    expect(hook.requests.map((r) => r.headers['webhook-timestamp'])).toEqual([
      secondsOf(first),
      secondsOf(clock.now()),
    ]);
    expect(verify(endpoint.clearSecret, hook.requests[1]!, clock.now())).toMatchObject({
      type: 'indicator_report.submitted',
    });
  });

  it('retries after a timeout', async () => {
    const { org } = await createTeam(t.app, db);
    const clock = new MovableClock();
    const hook = await receiver((n) => (n === 1 ? 'hang' : { status: 200, body: 'ok' }));
    const endpoint = await createEndpoint(org.id, hook.url());
    await queueEvent(org.id, clock.now());
    const delivering = worker(clock, { timeoutMs: 300 });

    expect(await delivering.deliverDue()).toBe(1);
    const timedOut = await deliveryOf(endpoint.id);
    expect(timedOut).toMatchObject({
      status: 'pending',
      attempts: 1,
      statusCode: null,
      response: null,
      error: 'timeout',
    });
    expect(timedOut.durationMs).toBeGreaterThanOrEqual(290);
    expect(timedOut.durationMs).toBeLessThan(3000);

    clock.set(timedOut.nextAttemptAt);
    expect(await delivering.deliverDue()).toBe(1);
    expect(await deliveryOf(endpoint.id)).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      statusCode: 200,
      error: null,
    });
    expect(hook.requests).toHaveLength(2);
  });

  it('gives up once the next attempt would fall more than retryForMs after the event', async () => {
    const { org } = await createTeam(t.app, db);
    const clock = new MovableClock();
    const hook = await receiver(() => ({ status: 503 }));
    const endpoint = await createEndpoint(org.id, hook.url());
    await queueEvent(org.id, clock.now());
    const start = clock.now().getTime();
    const delivering = worker(clock);

    expect(await delivering.deliverDue()).toBe(1);
    clock.set(new Date(start + 2 * DAY));
    expect(await delivering.deliverDue()).toBe(1);
    expect(await deliveryOf(endpoint.id)).toMatchObject({
      status: 'pending',
      attempts: 2,
      error: 'HTTP 503',
    });

    clock.set(new Date(start + 3 * DAY - 1));
    expect(await delivering.deliverDue()).toBe(1);
    const given = await deliveryOf(endpoint.id);
    expect(given).toMatchObject({
      status: 'failed',
      attempts: 3,
      statusCode: 503,
      error: 'HTTP 503',
      claimedUntil: null,
    });
    clock.advance(DAY);
    expect(await delivering.deliverDue()).toBe(0);
    expect(hook.requests).toHaveLength(3);
    // Three days of failures do not yet turn the endpoint off.
    expect(await endpointRow(endpoint.id)).toMatchObject({ active: true, failingSince: new Date(start) });
  });

  it('signs with both secrets during a rotation, and with the new one alone after it', async () => {
    const { org } = await createTeam(t.app, db);
    const clock = new MovableClock();
    const hook = await receiver();
    const previous = newSigningSecret();
    const endpoint = await createEndpoint(org.id, hook.url(), {
      previousSecret: previous,
      previousSecretUntil: new Date(clock.now().getTime() + ROTATION_OVERLAP_MS),
    });
    await queueEvent(org.id, clock.now());
    expect(await worker(clock).deliverDue()).toBe(1);

    const during = hook.requests[0]!;
    expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    // Each secret on its own verifies: receivers still holding the old one, and those already on the new one.
    expect(verify(endpoint.clearSecret, during, clock.now())).toMatchObject({
      type: 'indicator_report.submitted',
    });
    expect(verify(previous, during, clock.now())).toMatchObject({ type: 'indicator_report.submitted' });

    clock.advance(ROTATION_OVERLAP_MS + SECOND);
    await queueEvent(org.id, clock.now());
    expect(await worker(clock).deliverDue()).toBe(1);
    const after = hook.requests[1]!;
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verify(endpoint.clearSecret, after, clock.now())).toMatchObject({
      type: 'indicator_report.submitted',
    });
    expect(() => verify(previous, after, clock.now())).toThrow('No matching signature found');
  });
});

describe('an endpoint that keeps failing', () => {
  /** The team with a second org_admin, so that every admin is seen to be told. */
  async function teamWithTwoAdmins(): Promise<Team & { secondAdmin: { email: string } }> {
    const team = await createTeam(t.app, db);
    const secondAdmin = await registerUser(t.app, { firstName: 'Bea' });
    await addMember(db, team.org.id, secondAdmin.id, 'org_admin');
    return { ...team, secondAdmin };
  }

  // Registration sent these people mail of its own: only the webhook notice counts here.
  const mailTo = async (recipients: string[]) =>
    (await db.select().from(outboxEmails).where(inArray(outboxEmails.recipient, recipients))).filter((e) =>
      e.subject.startsWith('Webhook endpoint'),
    );

  it('is turned off after five days, its pending deliveries failed and its admins emailed once', async () => {
    const team = await teamWithTwoAdmins();
    const clock = new MovableClock();
    const start = clock.now();
    const hook = await receiver(() => ({ status: 500, body: 'broken' }));
    const endpoint = await createEndpoint(team.org.id, hook.url('hook.example.test', '/in?token=abc'));
    const healthy = await receiver();
    const other = await createEndpoint(team.org.id, healthy.url());
    await queueEvent(team.org.id, clock.now());
    await queueEvent(team.org.id, clock.now());
    // One delivery per endpoint at a time; the failing one then waits out its backoff as a whole.
    expect(await worker(clock).deliverDue()).toBe(2);
    expect(await worker(clock).deliverDue()).toBe(1);
    expect(await worker(clock).deliverDue()).toBe(0);
    expect([hook.requests.length, healthy.requests.length]).toEqual([1, 2]);
    expect(await endpointRow(endpoint.id)).toMatchObject({ active: true, failingSince: start });

    clock.set(new Date(start.getTime() + 5 * DAY - SECOND));
    await queueEvent(team.org.id, clock.now());
    expect(await worker(clock, { batchSize: 1 }).deliverDue()).toBe(1);
    expect(await endpointRow(endpoint.id)).toMatchObject({ active: true, disabledReason: null });

    clock.set(new Date(start.getTime() + 5 * DAY));
    await queueEvent(team.org.id, clock.now());
    // One attempt, the oldest due: it turns the endpoint off, and with it the deliveries still waiting. (Its
    // own delivery, within a longer retry window here, is failed too but keeps the receiver's answer.)
    expect(await worker(clock, { batchSize: 1, retryForMs: 10 * DAY }).deliverDue()).toBe(1);
    expect(await endpointRow(endpoint.id)).toMatchObject({
      active: false,
      disabledReason: 'failing',
      disabledAt: clock.now(),
      failingSince: start,
    });
    const deliveries = await deliveriesOf(endpoint.id);
    expect(deliveries).toHaveLength(4);
    expect(deliveries.map((d) => d.status)).toEqual(['failed', 'failed', 'failed', 'failed']);
    const attempted = deliveries.filter((d) => d.lastAttemptAt?.getTime() === clock.now().getTime());
    expect(attempted).toHaveLength(1);
    expect(attempted[0]).toMatchObject({ error: 'HTTP 500', statusCode: 500 });
    expect(deliveries.filter((d) => d.error === 'endpoint disabled')).toHaveLength(2);
    expect(hook.requests).toHaveLength(3);

    const admins = [team.admin.email, team.secondAdmin.email];
    const emails = await mailTo([...admins, team.officer.email, team.reporter.email, team.viewer.email]);
    expect(emails.map((e) => e.recipient).sort()).toEqual([...admins].sort());
    for (const email of emails) {
      expect(email.subject).toBe(`Webhook endpoint turned off: hook.example.test:${hook.port}`);
      expect(email.body).toContain(
        `The webhook endpoint at hook.example.test:${hook.port} (${endpoint.id}) of ${team.org.name} has been turned off`,
      );
      expect(email.body).toContain(`failed since ${start.toISOString()}`);
      expect(email.body).toContain('The last attempt failed with: HTTP 500');
      expect(email.body).toContain(`${t.config.appUrl}/orgs/${team.org.id}/settings/webhooks`);
      expect(email.body).toContain(
        `PATCH /orgs/${team.org.id}/webhooks/${endpoint.id} with {"active": true}`,
      );
    }

    // Nothing more goes to it, and nobody is emailed twice; the healthy endpoint goes on (events 3 to 5).
    clock.advance(DAY);
    await queueEvent(team.org.id, clock.now());
    let sent = 0;
    for (let handled = -1; handled !== 0; sent += handled)
      handled = Math.max(await worker(clock).deliverDue(), 0);
    expect(sent).toBe(3);
    expect(hook.requests).toHaveLength(3);
    expect(healthy.requests).toHaveLength(5);
    expect(await mailTo(admins)).toHaveLength(2);
    expect(await endpointRow(other.id)).toMatchObject({ active: true, failingSince: null });
  });

  it('starts counting again after a success', async () => {
    const { org } = await createTeam(t.app, db);
    const clock = new MovableClock();
    const start = clock.now().getTime();
    let answer = 500;
    const hook = await receiver(() => ({ status: answer }));
    const endpoint = await createEndpoint(org.id, hook.url());
    const delivering = worker(clock);
    const at = async (ms: number) => {
      clock.set(new Date(start + ms));
      await queueEvent(org.id, clock.now());
      await delivering.deliverDue();
      return endpointRow(endpoint.id);
    };

    expect(await at(0)).toMatchObject({ failingSince: new Date(start) });
    answer = 200;
    expect(await at(3 * DAY)).toMatchObject({ failingSince: null, active: true });
    answer = 500;
    expect(await at(4 * DAY)).toMatchObject({ failingSince: new Date(start + 4 * DAY), active: true });
    expect(await at(6 * DAY)).toMatchObject({ failingSince: new Date(start + 4 * DAY), active: true });
    expect(await at(9 * DAY)).toMatchObject({ active: false, disabledReason: 'failing' });
  });
});

describe('what is not sent', () => {
  it('sends nothing to an inactive endpoint', async () => {
    const { org } = await createTeam(t.app, db);
    const clock = new MovableClock();
    const hook = await receiver();
    const endpoint = await createEndpoint(org.id, hook.url());
    await queueEvent(org.id, clock.now());
    await db.update(webhookEndpoints).set({ active: false }).where(eq(webhookEndpoints.id, endpoint.id));

    expect(await worker(clock).deliverDue()).toBe(0);
    expect(hook.connections()).toBe(0);
    expect(await deliveryOf(endpoint.id)).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('does not send a claimed delivery whose endpoint was turned off before its turn', async () => {
    const { org } = await createTeam(t.app, db);
    const clock = new MovableClock();
    const turnedOff = { id: '' };
    const first = await receiver(async () => {
      await db.update(webhookEndpoints).set({ active: false }).where(eq(webhookEndpoints.id, turnedOff.id));
      return { status: 200 };
    });
    const late = await receiver();
    await createEndpoint(org.id, first.url(), { events: ['period.locked'] });
    const second = await createEndpoint(org.id, late.url(), { events: ['period.unlocked'] });
    turnedOff.id = second.id;
    await queueEvent(org.id, clock.now(), 'period.locked');
    await queueEvent(org.id, new Date(clock.now().getTime() + 1), 'period.unlocked');
    clock.advance(SECOND);

    expect(await worker(clock, { concurrency: 1 }).deliverDue()).toBe(2);
    expect(first.requests).toHaveLength(1);
    expect(late.connections()).toBe(0);
    expect(await deliveryOf(second.id)).toMatchObject({ status: 'pending', deliveredAt: null });
  });

  it('delivers each delivery once with two workers claiming side by side', async () => {
    const { org } = await createTeam(t.app, db);
    const clock = new MovableClock();
    const hook = await receiver();
    const endpoint = await createEndpoint(org.id, hook.url());
    for (let i = 0; i < 12; i += 1) await queueEvent(org.id, clock.now());
    const workers = [worker(clock, { batchSize: 3 }), worker(clock, { batchSize: 3 })];

    let handled = 0;
    for (;;) {
      const counts = await Promise.all(workers.map((w) => w.deliverDue()));
      if (counts.every((n) => n === 0)) break;
      handled += counts[0]! + counts[1]!;
    }
    expect(handled).toBe(12);
    const deliveries = await deliveriesOf(endpoint.id);
    expect(deliveries).toHaveLength(12);
    expect(deliveries.every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
    const ids = hook.requests.map((r) => r.headers['webhook-id']).sort();
    expect(ids).toEqual(deliveries.map((d) => d.eventId).sort());
    expect(new Set(ids).size).toBe(12);
  });

  it('leaves a delivery whose lease ran out to the worker that took it over', async () => {
    const { org } = await createTeam(t.app, db);
    const clock = new MovableClock();
    const endpoint = await createEndpoint(org.id, 'https://hook.example.org/');
    await queueEvent(org.id, clock.now());
    const [stale] = await claimDueDeliveries(db, clock.now(), 10, 1000);
    expect(await claimDueDeliveries(db, clock.now(), 10, 1000)).toEqual([]);

    clock.advance(1001);
    const [fresh] = await claimDueDeliveries(db, clock.now(), 10, 1000);
    expect(fresh).toMatchObject({ id: stale!.id, attempts: 2 });
    const attempt = { at: clock.now(), statusCode: 200, durationMs: 5, response: 'late', error: null };
    expect(await recordDelivered(db, stale!, attempt)).toBe(false);
    expect(await deliveryOf(endpoint.id)).toMatchObject({ status: 'pending', attempts: 2, response: null });
    expect(await recordDelivered(db, fresh!, { ...attempt, response: 'mine' })).toBe(true);
    expect(await deliveryOf(endpoint.id)).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      response: 'mine',
    });
  });
});

describe('server-side request forgery', () => {
  /** Delivers one event to each url with WEBHOOK_ALLOW_PRIVATE unset; returns each delivery. */
  async function deliverTo(urls: string[], resolve: Resolve, options: WebhookWorkerOptions = {}) {
    const { org } = await createTeam(t.app, db);
    const clock = new MovableClock();
    const endpoints = [];
    for (const url of urls) endpoints.push(await createEndpoint(org.id, url));
    await queueEvent(org.id, clock.now());
    const delivering = worker(clock, { resolve, ...options }, false);
    expect(await delivering.deliverDue()).toBe(urls.length);
    const deliveries = await Promise.all(endpoints.map((e) => deliveryOf(e.id)));
    return { deliveries, clock, delivering, endpoints };
  }

  it('refuses private, loopback and link-local targets without connecting', async () => {
    const hook = await receiver();
    const port = hook.port;
    const resolve = async (hostname: string) => {
      const answers: Record<string, string> = {
        'internal.example.test': '10.0.0.5',
        'metadata.example.test': '169.254.169.254',
        'mapped.example.test': '::ffff:127.0.0.1',
        'loop.example.test': '127.0.0.1',
      };
      const address = answers[hostname] ?? '::1';
      return [{ address, family: address === '::1' ? (6 as const) : (4 as const) }];
    };
    const targets: [string, string][] = [
      [`https://internal.example.test:${port}/`, 'refused: private address 10.0.0.5'],
      [`https://metadata.example.test/latest/meta-data/`, 'refused: link local address 169.254.169.254'],
      [`https://mapped.example.test:${port}/`, 'refused: loopback address ::ffff:127.0.0.1'],
      [`https://loop.example.test:${port}/`, 'refused: loopback address 127.0.0.1'],
      [`https://localhost.example.test:${port}/`, 'refused: loopback address ::1'],
      [`https://127.0.0.1:${port}/`, 'refused: loopback address 127.0.0.1'],
      [`https://[::1]:${port}/`, 'refused: loopback address ::1'],
      [`http://127.0.0.1:${port}/`, 'refused: http is not https'],
      [`http://hook.example.test:${port}/`, 'refused: http is not https'],
    ];
    const { deliveries } = await deliverTo(
      targets.map(([url]) => url),
      resolve,
      { batchSize: targets.length },
    );
    for (const [i, delivery] of deliveries.entries()) {
      expect(delivery, targets[i]![0]).toMatchObject({
        status: 'pending',
        attempts: 1,
        statusCode: null,
        response: null,
        error: targets[i]![1],
      });
    }
    expect(hook.connections()).toBe(0);
  });

  it('refuses localhost as the system resolver answers it', async () => {
    const hook = await receiver();
    const { deliveries } = await deliverTo([`https://localhost:${hook.port}/`], systemResolve);
    expect(deliveries[0]!.error).toMatch(/^refused: loopback address (127\.0\.0\.1|::1)$/);
    expect(hook.connections()).toBe(0);
  });

  it('connects to the address it checked, resolving once per attempt (a DNS answer that changes)', async () => {
    const hook = await receiver();
    // First answer public, any later one loopback: a second lookup at connection time would reach the receiver.
    const resolve = answering('93.184.216.34', '127.0.0.1');
    const { deliveries, clock, delivering } = await deliverTo(
      [`https://rebind.example.test:${hook.port}/`],
      resolve,
      { timeoutMs: 300 },
    );
    expect(resolve.asked).toEqual(['rebind.example.test']);
    expect(deliveries[0]!.error).not.toMatch(/^refused/);
    expect(deliveries[0]!.error).not.toBe('ENOTFOUND');
    expect(deliveries[0]!.statusCode).toBeNull();
    expect(hook.connections()).toBe(0);

    clock.set(deliveries[0]!.nextAttemptAt);
    expect(await delivering.deliverDue()).toBe(1);
    expect(resolve.asked).toEqual(['rebind.example.test', 'rebind.example.test']);
    expect(await deliveryOf(deliveries[0]!.endpointId)).toMatchObject({
      attempts: 2,
      error: 'refused: loopback address 127.0.0.1',
    });
    expect(hook.connections()).toBe(0);
  });

  it('refuses http: to a host that is not loopback even when private targets are allowed', async () => {
    const { org } = await createTeam(t.app, db);
    const clock = new MovableClock();
    const hook = await receiver();
    const endpoint = await createEndpoint(org.id, hook.url('outside.example.test'));
    await queueEvent(org.id, clock.now());
    expect(await worker(clock, { resolve: answering('10.1.1.1') }).deliverDue()).toBe(1);
    expect(await deliveryOf(endpoint.id)).toMatchObject({ error: 'refused: http to non-loopback 10.1.1.1' });
    expect(hook.connections()).toBe(0);
  });

  it('does not follow a redirect', async () => {
    const { org } = await createTeam(t.app, db);
    const clock = new MovableClock();
    const elsewhere = await receiver();
    const hook = await receiver(() => ({
      status: 302,
      headers: { location: elsewhere.url() },
      body: 'moved',
    }));
    const endpoint = await createEndpoint(org.id, hook.url());
    await queueEvent(org.id, clock.now());
    expect(await worker(clock).deliverDue()).toBe(1);

    expect(hook.requests).toHaveLength(1);
    expect(elsewhere.connections()).toBe(0);
    expect(await deliveryOf(endpoint.id)).toMatchObject({
      status: 'pending',
      statusCode: 302,
      response: 'moved',
      error: 'HTTP 302',
      deliveredAt: null,
    });
  });
});

describe('the worker on its timer', () => {
  it('delivers what is queued when woken, and stops', async () => {
    const { org } = await createTeam(t.app, db);
    const clock = new MovableClock();
    const hook = await receiver();
    const endpoint = await createEndpoint(org.id, hook.url());
    const running = worker(clock, { pollIntervalMs: 60_000 });
    running.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await queueEvent(org.id, clock.now());
      running.wake();
      const deadline = Date.now() + 5000;
      while (hook.requests.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await running.stop();
    }
    expect(hook.requests).toHaveLength(1);
    expect(
      await db
        .select({ status: webhookDeliveries.status })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.endpointId, endpoint.id), eq(webhookDeliveries.status, 'succeeded'))),
    ).toHaveLength(1);
  });
});
