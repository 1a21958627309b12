import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq, inArray, sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, openTestDatabase } from '../../../test/helpers/app.js';
import { registerUser, uniqueEmail } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { linkIn, TestSmtpServer } from '../../../test/helpers/smtp.js';
import { loadConfig } from '../../config.js';
import { transaction, type Database, type Db } from '../../db/client.js';
import { MovableClock, systemClock } from '../../lib/clock.js';
import { queueEmail } from './mail.service.js';
import { outboxEmails } from './mail.tables.js';
import { createMailTransport, type SendEmail } from './mail.transport.js';
import { OutboxWorker } from './outbox-worker.js';

const log = pino({ level: 'silent' });
const fast = { pollIntervalMs: 20, retryBaseMs: 50 };
const HOUR = 60 * 60 * 1000;

// The file's own database (test/helpers/app.ts): on PostgreSQL a real pool, so workers really race.
let database: Database;
let db: Db;
beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
});
afterAll(() => database.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` returns a value (not undefined), failing after `timeoutMs`. */
async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The outbox row to `recipient`, or the one with `subject` (a registered user also got a verification email). */
const rowFor = async (recipient: string, subject?: string) =>
  (await db.select().from(outboxEmails).where(eq(outboxEmails.recipient, recipient))).find(
    (row) => subject === undefined || row.subject === subject,
  );
const RESET = 'Reset your password';
const resetsTo = (smtp: TestSmtpServer, address: string) =>
  smtp.received.filter((m) => m.to.includes(address) && m.raw.includes(`Subject: ${RESET}`));

const messageIdOf = (raw: string) => /^Message-ID:\s*<([^@>]+)@mel\.local>/im.exec(raw)?.[1];

const testConfig = (env: Record<string, string>) =>
  loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-signing',
    DATA_DIR: path.join(tmpdir(), `mel-mail-${randomUUID()}`),
    ...env,
  });

describe('outbox delivery across workers', () => {
  it('delivers each of 40 queued emails exactly once with two workers racing', async () => {
    const smtp = new TestSmtpServer();
    await smtp.start();
    const config = testConfig({ SMTP_URL: smtp.url });
    const transports = [createMailTransport(config, log), createMailTransport(config, log)];
    const sentBy: string[][] = [[], []];
    const workers = transports.map((transport, i) => {
      const send: SendEmail = async (email) => {
        await transport.send(email);
        sentBy[i]!.push(email.id);
      };
      return new OutboxWorker(db, send, systemClock, log, { ...fast, batchSize: 5 });
    });

    const recipients = Array.from({ length: 40 }, (_, i) => uniqueEmail(`race${i}`));
    for (const [i, recipient] of recipients.entries()) {
      await queueEmail(db, { recipient, subject: `Message ${i}`, body: `Body of message ${i}` });
    }
    for (const worker of workers) worker.start();
    try {
      await eventually('every email sent', async () => {
        const rows = await db.select().from(outboxEmails).where(inArray(outboxEmails.recipient, recipients));
        return rows.every((r) => r.status === 'sent') ? rows : undefined;
      });
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      for (const transport of transports) transport.close();
      await smtp.stop();
    }

    const rows = await db.select().from(outboxEmails).where(inArray(outboxEmails.recipient, recipients));
    expect(rows).toHaveLength(40);
    for (const row of rows) {
      expect(row).toMatchObject({ status: 'sent', attempts: 1, lastError: null, claimedUntil: null });
      expect(row.sentAt).toBeInstanceOf(Date);
    }

    const deliveredIds = smtp.received.map((m) => messageIdOf(m.raw));
    const perId = new Map<string, number>();
    for (const id of deliveredIds) perId.set(id!, (perId.get(id!) ?? 0) + 1);
    expect(smtp.received).toHaveLength(40);
    expect([...perId.keys()].sort()).toEqual(rows.map((r) => r.id).sort());
    expect([...perId.values()].every((n) => n === 1)).toBe(true);
    expect([...sentBy[0]!, ...sentBy[1]!].sort()).toEqual(rows.map((r) => r.id).sort());

    for (const row of rows) {
      const message = smtp.received.find((m) => messageIdOf(m.raw) === row.id)!;
      expect(message.to).toEqual([row.recipient]);
      expect(message.raw).toContain(`Subject: ${row.subject}`);
      expect(message.text).toContain(row.body);
    }
  });

  it('takes over a message whose worker died (lease expired) but leaves a live claim alone', async () => {
    const [crashed, live] = [uniqueEmail('crashed'), uniqueEmail('live')];
    await queueEmail(db, { recipient: crashed, subject: 'Crashed', body: 'x' });
    await queueEmail(db, { recipient: live, subject: 'Live', body: 'y' });
    const clock = new MovableClock();
    await db
      .update(outboxEmails)
      .set({ attempts: 1, nextAttemptAt: clock.now(), claimedUntil: new Date(clock.now().getTime() - 1000) })
      .where(eq(outboxEmails.recipient, crashed));
    await db
      .update(outboxEmails)
      .set({ attempts: 1, nextAttemptAt: clock.now(), claimedUntil: new Date(clock.now().getTime() + HOUR) })
      .where(eq(outboxEmails.recipient, live));

    const sent: string[] = [];
    const worker = new OutboxWorker(db, async (email) => void sent.push(email.recipient), clock, log, fast);
    await worker.deliverDue();
    // The poll that took over the expired claim saw the live one too and skipped it.
    expect(sent.filter((r) => r === crashed || r === live)).toEqual([crashed]);
    expect(await rowFor(crashed)).toMatchObject({ status: 'sent', attempts: 2 });
    expect(await rowFor(live)).toMatchObject({ status: 'pending', attempts: 1, sentAt: null });
  });

  it('renews the claims of its batch while an earlier send takes long, and sends each once', async () => {
    const [slow, late] = [uniqueEmail('slow'), uniqueEmail('late')];
    await queueEmail(db, { recipient: slow, subject: 'Slow', body: 'x' });
    await queueEmail(db, { recipient: late, subject: 'Late', body: 'y' });
    const sent: string[] = [];
    // A 300 ms lease and a first send that takes two: the second message's claim is kept meanwhile.
    const worker = new OutboxWorker(
      db,
      async (email) => {
        sent.push(email.recipient);
        if (email.recipient === slow) await sleep(600);
      },
      systemClock,
      log,
      { ...fast, leaseMs: 300, batchSize: 2 },
    );
    expect(await worker.deliverDue()).toBe(2);
    expect(sent.filter((r) => r === slow || r === late)).toEqual([slow, late]);
    expect(await rowFor(slow)).toMatchObject({ status: 'sent', attempts: 1 });
    expect(await rowFor(late)).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('does not send a message whose claim was lost while earlier sends of its batch took long', async () => {
    const [slow, late] = [uniqueEmail('slow'), uniqueEmail('late')];
    await queueEmail(db, { recipient: slow, subject: 'Slow', body: 'x' });
    await queueEmail(db, { recipient: late, subject: 'Late', body: 'y' });
    const sent: string[] = [];
    // While the first send runs, the second message's claim runs out (as when renewals cannot reach the
    // database): it is left for the next claim instead of being sent twice.
    const worker = new OutboxWorker(
      db,
      async (email) => {
        sent.push(email.recipient);
        if (email.recipient !== slow) return;
        await db
          .update(outboxEmails)
          .set({ claimedUntil: sql`now() - interval '1 second'` })
          .where(eq(outboxEmails.recipient, late));
        await sleep(600);
      },
      systemClock,
      log,
      { ...fast, leaseMs: 300, batchSize: 2 },
    );
    const handled = await worker.deliverDue();
    expect(handled).toBe(2);
    expect(sent.filter((r) => r === slow || r === late)).toEqual([slow]);
    expect(await rowFor(slow)).toMatchObject({ status: 'sent' });
    expect(await rowFor(late)).toMatchObject({ status: 'pending', attempts: 1, sentAt: null });

    await worker.deliverDue();
    expect(sent.filter((r) => r === late)).toEqual([late]);
    expect(await rowFor(late)).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('gives up after maxAttempts and marks the message failed with the last error', async () => {
    const recipient = uniqueEmail('doomed');
    await queueEmail(db, { recipient, subject: 'Doomed', body: 'z' });
    let tries = 0;
    const clock = new MovableClock();
    const worker = new OutboxWorker(
      db,
      async (email) => {
        if (email.recipient !== recipient) return;
        tries += 1;
        throw new Error(`mailbox unavailable (try ${tries})`);
      },
      clock,
      log,
      { retryBaseMs: HOUR, maxAttempts: 3 },
    );
    await worker.deliverDue();
    // Not due again until the clock reaches its retry: an hour, then two.
    clock.advance(HOUR - 1);
    await worker.deliverDue();
    expect(tries).toBe(1);
    clock.advance(1);
    await worker.deliverDue();
    expect(await rowFor(recipient)).toMatchObject({ status: 'pending', attempts: 2 });
    clock.advance(2 * HOUR);
    await worker.deliverDue();
    expect(tries).toBe(3);
    expect(await rowFor(recipient)).toMatchObject({
      status: 'failed',
      attempts: 3,
      lastError: 'mailbox unavailable (try 3)',
      sentAt: null,
    });
  });
});

describe('outbox with the app', () => {
  it('retries through an SMTP outage and delivers the reset email exactly once', async () => {
    const smtp = new TestSmtpServer();
    await smtp.start();
    // The retry waits an hour of the app's clock, moved by the test once the mail server is back.
    const clock = new MovableClock();
    const t = await buildTestApp(
      { SMTP_URL: smtp.url },
      { database: database, clock, worker: { pollIntervalMs: 20, retryBaseMs: HOUR } },
    );
    try {
      const user = await registerUser(t.app);
      await smtp.stop();

      const res = await call(t.app, 'POST', '/auth/forgot-password', { body: { email: user.email } });
      expect(res.status).toBe(202);
      const failing = await eventually('a failed attempt recorded', async () => {
        const row = await rowFor(user.email, RESET);
        return row && row.attempts > 0 && row.lastError ? row : undefined;
      });
      expect(failing.status).toBe('pending');
      expect(failing.lastError).toMatch(/ECONNREFUSED/);
      expect(failing.sentAt).toBeNull();
      expect(resetsTo(smtp, user.email)).toEqual([]);

      await smtp.start();
      clock.advance(HOUR);
      t.app.outbox.wake();
      const email = await eventually('the reset email', async () => resetsTo(smtp, user.email)[0]);
      const row = await eventually('the row marked sent', async () => {
        const current = await rowFor(user.email, RESET);
        return current?.status === 'sent' ? current : undefined;
      });
      expect(row.attempts).toBeGreaterThan(1);
      expect(row.lastError).toBeNull();
      expect(row.sentAt).toBeInstanceOf(Date);
      expect(resetsTo(smtp, user.email)).toHaveLength(1);
      expect(messageIdOf(email.raw)).toBe(row.id);
      expect(email.raw).toContain('Subject: Reset your password');
      expect(linkIn(email, 'http://app.test/reset-password?token=')).toMatch(/\?token=[\w-]+$/);
    } finally {
      await t.close();
      await smtp.stop();
    }
  });

  it('writes an .eml file under DATA_DIR/mail when SMTP_URL is not set', async () => {
    const t = await buildTestApp({}, { database: database, worker: fast });
    try {
      expect(t.config.smtpUrl).toBeNull();
      const user = await registerUser(t.app);
      const res = await call(t.app, 'POST', '/auth/forgot-password', { body: { email: user.email } });
      expect(res.status).toBe(202);
      const row = await eventually('the row marked sent', async () => {
        const current = await rowFor(user.email, RESET);
        return current?.status === 'sent' ? current : undefined;
      });
      const folder = path.join(t.config.dataDir, 'mail');
      // The reset email, and the verification email of the registration before it.
      const rows = await db.select().from(outboxEmails).where(eq(outboxEmails.recipient, user.email));
      expect(rows).toHaveLength(2);
      expect(readdirSync(folder).sort()).toEqual(rows.map((r) => `${r.id}.eml`).sort());
      const eml = readFileSync(path.join(folder, `${row.id}.eml`), 'utf8');
      expect(eml).toMatch(new RegExp(`^To: ${user.email}$`, 'm'));
      expect(eml).toMatch(/^Subject: Reset your password$/m);
      expect(eml).toMatch(/^From: MEL <no-reply@localhost>$/m);
      expect(messageIdOf(eml)).toBe(row.id);
      const text = eml
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      expect(text).toMatch(/http:\/\/app\.test\/reset-password\?token=[\w-]+/);
    } finally {
      await t.close();
    }
  });

  it('never sends an email queued in a transaction that rolled back', async () => {
    const t = await buildTestApp({}, { database: database, worker: fast });
    try {
      const [rolledBack, committed] = [uniqueEmail('rolled-back'), uniqueEmail('committed')];
      await expect(
        transaction(db, async (tx) => {
          await queueEmail(tx, { recipient: rolledBack, subject: 'Never', body: 'never sent' });
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');
      await transaction(db, (tx) => queueEmail(tx, { recipient: committed, subject: 'Sent', body: 'ok' }));
      t.app.outbox.wake();

      const row = await eventually('the committed email sent', async () => {
        const current = await rowFor(committed);
        return current?.status === 'sent' ? current : undefined;
      });
      expect(await rowFor(rolledBack)).toBeUndefined();
      const folder = path.join(t.config.dataDir, 'mail');
      expect(readdirSync(folder)).toEqual([`${row.id}.eml`]);
      for (const file of readdirSync(folder)) {
        expect(readFileSync(path.join(folder, file), 'utf8')).not.toContain(rolledBack);
      }
    } finally {
      await t.close();
    }
  });

  it('leaves delivery to a separate worker when built with worker: false', async () => {
    const t = await buildTestApp({}, { database: database, worker: false });
    try {
      const user = await registerUser(t.app);
      const res = await call(t.app, 'POST', '/auth/forgot-password', { body: { email: user.email } });
      expect(res.status).toBe(202);
      expect(await rowFor(user.email, RESET)).toMatchObject({ status: 'pending', attempts: 0 });

      const transport = createMailTransport(t.config, log);
      const worker = new OutboxWorker(db, transport.send, systemClock, log, fast);
      expect(await worker.deliverDue()).toBeGreaterThanOrEqual(1);
      transport.close();
      const row = await rowFor(user.email, RESET);
      expect(row).toMatchObject({ status: 'sent', attempts: 1 });
      expect(existsSync(path.join(t.config.dataDir, 'mail', `${row!.id}.eml`))).toBe(true);
    } finally {
      await t.close();
    }
  });
});
