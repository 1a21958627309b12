/**
 * Issue 36, finding 14 (third part): a worker restarted after a kill waited out the dead worker's lease
 * (30 s for a webhook delivery, 5 minutes for an email) before delivering what it held. A worker "dies"
 * here as a killed process does: its database handle stops working mid-delivery (nothing it does reaches
 * the database any more) and its connection to the receiver breaks, leaving its claim as it was. The next
 * worker must deliver within a few seconds; and a live worker whose delivery takes longer than the lease
 * must not see it delivered a second time meanwhile by another worker.
 */
import http, { type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { transaction, type Db } from '../../src/db/client.js';
import { systemClock } from '../../src/lib/clock.js';
import { queueEmail } from '../../src/modules/mail/mail.service.js';
import { outboxEmails } from '../../src/modules/mail/mail.tables.js';
import { OutboxWorker, type OutboxWorkerOptions } from '../../src/modules/mail/outbox-worker.js';
import { WebhookWorker, type WebhookWorkerOptions } from '../../src/modules/webhooks/delivery-worker.js';
import { queueWebhookEvent } from '../../src/modules/webhooks/events.js';
import { newSigningSecret, sealSecret } from '../../src/modules/webhooks/secrets.js';
import { webhookDeliveries, webhookEndpoints } from '../../src/modules/webhooks/webhooks.tables.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTeam, uniqueEmail } from '../helpers/factories.js';

const log = pino({ level: 'silent' });
/** "Within a few seconds": a restarted worker must have delivered by then. */
const RESUMED_WITHIN_MS = 8_000;

let t: TestApp;
let db: Db;
let orgId: string;
const workers: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  t = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' }, { worker: false });
  db = t.database.db;
  orgId = (await createTeam(t.app, db)).org.id;
});
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop();
  // What a test leaves pending is no later test's to deliver.
  await db.update(webhookEndpoints).set({ active: false });
});
afterAll(() => t.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms: number) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not ${what} within ${ms} ms`);
    await sleep(25);
  }
}

/**
 * The database as a process sees it until it is killed: the same database through a handle that fails
 * every statement once `kill` is called (a transaction already open runs on, as on a dying socket).
 */
function killable(database: Db): { db: Db; kill(): void } {
  let killed = false;
  const client = (database as unknown as { $client: object }).$client;
  const dead = () => Promise.reject(new Error('the process was killed'));
  const proxy = new Proxy(client, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        killed && ['query', 'connect', 'exec', 'transaction'].includes(String(property))
          ? dead()
          : (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  });
  const handle =
    client instanceof pg.Pool ? drizzlePg(proxy as pg.Pool) : drizzlePglite(proxy as unknown as PGlite);
  return { db: handle, kill: () => void (killed = true) };
}

/** A receiver on loopback: `answer` decides each request (by its number, from 1); `hang` holds it open. */
async function receiver(answer: (n: number) => { delayMs: number } | 'hang') {
  const ids: string[] = [];
  const held: ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      ids.push(String(req.headers['webhook-id']));
      const reply = answer(ids.length);
      if (reply === 'hang') return void held.push(res);
      setTimeout(() => res.writeHead(204).end(), reply.delayMs);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    ids,
    /** Breaks the held connections, as the kernel does when the sending process dies. */
    cut: () => held.splice(0).forEach((res) => res.socket?.destroy()),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** An endpoint to `url` with one delivery waiting; resolves to the endpoint's id. */
async function pendingDelivery(url: string): Promise<string> {
  const [endpoint] = await db
    .insert(webhookEndpoints)
    .values({
      orgId,
      url,
      events: ['indicator_report.submitted'],
      secret: sealSecret(t.config.piiKeyring, newSigningSecret()),
    })
    .returning({ id: webhookEndpoints.id });
  await transaction(db, (tx) =>
    queueWebhookEvent(
      tx,
      {
        orgId,
        type: 'indicator_report.submitted',
        data: { indicatorReport: { id: 'f0d7c1c6-0000-4000-8000-000000000014', status: 'submitted' } },
        at: new Date(),
      },
      () => undefined,
    ),
  );
  return endpoint!.id;
}

const deliveryOf = async (endpointId: string) =>
  (await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId)))[0]!;

function webhookWorker(on: Db, options: WebhookWorkerOptions = {}) {
  const worker = new WebhookWorker(on, { ...t.config, webhookAllowPrivate: true }, systemClock, log, {
    pollIntervalMs: 50,
    ...options,
  });
  workers.push(worker);
  worker.start();
  return worker;
}

function outboxWorker(on: Db, send: (recipient: string) => Promise<void>, options: OutboxWorkerOptions = {}) {
  const worker = new OutboxWorker(on, (email) => send(email.recipient), systemClock, log, {
    pollIntervalMs: 50,
    ...options,
  });
  workers.push(worker);
  worker.start();
  return worker;
}

const emailTo = async (recipient: string) =>
  (await db.select().from(outboxEmails).where(eq(outboxEmails.recipient, recipient)))[0]!;

describe('webhook deliveries', () => {
  it('are delivered within a few seconds by the next worker when the one that claimed them dies', async () => {
    const hook = await receiver((n) => (n === 1 ? 'hang' : { delayMs: 0 }));
    try {
      const endpointId = await pendingDelivery(hook.url);
      const dying = killable(db);
      webhookWorker(dying.db);
      await until('sent by the first worker', () => (hook.ids.length > 0 ? true : undefined), 5_000);
      dying.kill();
      hook.cut();
      const killedAt = Date.now();
      webhookWorker(db);
      await until(
        'delivered by the next worker',
        async () => ((await deliveryOf(endpointId)).status === 'succeeded' ? true : undefined),
        RESUMED_WITHIN_MS,
      );
      expect(Date.now() - killedAt).toBeLessThan(RESUMED_WITHIN_MS);
      expect(hook.ids).toHaveLength(2);
      expect(await deliveryOf(endpointId)).toMatchObject({
        status: 'succeeded',
        attempts: 2,
        statusCode: 204,
      });
    } finally {
      await hook.close();
    }
  });

  it('are sent once while a live worker waits on a receiver slower than the lease', async () => {
    // Each answer takes three leases; two workers poll side by side.
    const hook = await receiver(() => ({ delayMs: 1_500 }));
    try {
      const endpointId = await pendingDelivery(hook.url);
      webhookWorker(db, { leaseMs: 500 });
      webhookWorker(db, { leaseMs: 500 });
      await until('sent', () => (hook.ids.length > 0 ? true : undefined), 5_000);
      // Past the first answer, and long enough for another worker to take the claim three times over.
      await sleep(2_500);
      expect(hook.ids).toHaveLength(1);
      expect(await deliveryOf(endpointId)).toMatchObject({ status: 'succeeded', attempts: 1 });
    } finally {
      await hook.close();
    }
  });
});

describe('outbox emails', () => {
  it('are sent within a few seconds by the next worker when the one that claimed them dies', async () => {
    const recipient = uniqueEmail('orphaned');
    await queueEmail(db, { recipient, subject: 'Orphaned', body: 'x' });
    const dying = killable(db);
    let sending: ((err: Error) => void) | null = null;
    outboxWorker(dying.db, (to) =>
      to === recipient ? new Promise((_, reject) => (sending = reject)) : Promise.resolve(),
    );
    await until('sent by the first worker', () => (sending ? true : undefined), 5_000);
    dying.kill();
    sending!(new Error('the process was killed'));
    const killedAt = Date.now();
    const sent: string[] = [];
    outboxWorker(db, async (to) => void sent.push(to));
    await until(
      'sent by the next worker',
      async () => ((await emailTo(recipient)).status === 'sent' ? true : undefined),
      RESUMED_WITHIN_MS,
    );
    expect(Date.now() - killedAt).toBeLessThan(RESUMED_WITHIN_MS);
    expect(sent.filter((to) => to === recipient)).toEqual([recipient]);
    expect(await emailTo(recipient)).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('are sent once while a live worker waits on a mail server slower than the lease', async () => {
    const recipient = uniqueEmail('slow');
    await queueEmail(db, { recipient, subject: 'Slow', body: 'y' });
    const sent: string[] = [];
    const slowly = async (to: string) => {
      sent.push(to);
      if (to === recipient) await sleep(1_500);
    };
    outboxWorker(db, slowly, { leaseMs: 500 });
    outboxWorker(db, slowly, { leaseMs: 500 });
    await until('sent', () => (sent.includes(recipient) ? true : undefined), 5_000);
    await sleep(2_500);
    expect(sent.filter((to) => to === recipient)).toEqual([recipient]);
    expect(await emailTo(recipient)).toMatchObject({ status: 'sent', attempts: 1 });
  });
});
