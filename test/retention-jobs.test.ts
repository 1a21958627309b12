/**
 * The daily retention jobs (src/upkeep.ts) as the worker runs them: personal answers past their form's
 * retention erased, audit entries past AUDIT_RETENTION, Idempotency-Keys past their 24 hours and webhook
 * deliveries finished 30 days ago purged, the rest kept, a second run a no-op.
 */
import { eq, sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formSubmissions } from '../src/modules/forms/forms.tables.js';
import { idempotencyKeys } from '../src/modules/idempotency/idempotency.tables.js';
import { auditLog } from '../src/modules/privacy/privacy.tables.js';
import { RetentionJobs } from '../src/upkeep.js';
import { transaction } from '../src/db/client.js';
import { queueWebhookEvent } from '../src/modules/webhooks/events.js';
import { newSigningSecret, sealSecret } from '../src/modules/webhooks/secrets.js';
import {
  webhookDeliveries,
  webhookEndpoints,
  webhookEvents,
} from '../src/modules/webhooks/webhooks.tables.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createProject, createTeam, type Team } from './helpers/factories.js';
import { PERSONAL_FIELDS, personalAnswers, publishedForm, submitUrl } from './helpers/forms.js';
import { call } from './helpers/http.js';

let t: TestApp;
let team: Team;
beforeAll(async () => {
  t = await buildTestApp({}, { worker: false });
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

it('erases expired personal answers and purges old audit entries, once', async () => {
  const db = t.database.db;
  const project = await createProject(db, team.org.id);
  const form = await publishedForm(t.app, team.admin, team.org.id, {
    projectId: project.id,
    fields: PERSONAL_FIELDS,
    personalDataRetentionDays: 30,
  });
  const submit = async () => {
    const res = await call(t.app, 'POST', submitUrl(form.publicToken), {
      body: { answers: personalAnswers() },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const [old, recent] = [await submit(), await submit()];
  await db
    .update(formSubmissions)
    .set({ submittedAt: sql`now() - interval '31 days'` })
    .where(eq(formSubmissions.id, old));
  const entry = (years: number) => ({
    orgId: team.org.id,
    at: sql`now() - make_interval(years => ${years})`,
    action: 'read' as const,
    route: 'GET /orgs/:orgId/participants',
    subjectKind: 'participant' as const,
    count: 1,
  });
  await db.insert(auditLog).values([entry(3), entry(1)]);

  const jobs = new RetentionJobs(db, t.config, pino({ level: 'silent' }));
  await jobs.runOnce();

  const answers = async (id: string) =>
    (await db.select().from(formSubmissions).where(eq(formSubmissions.id, id)))[0]!;
  expect((await answers(old)).answers).not.toHaveProperty('name');
  expect((await answers(old)).personalErasedAt).toBeInstanceOf(Date);
  expect((await answers(recent)).answers).toMatchObject({ name: personalAnswers().name });
  const ages = async () =>
    (
      await db
        .select({ action: auditLog.action, old: sql<boolean>`${auditLog.at} < now() - interval '2 years'` })
        .from(auditLog)
        .where(eq(auditLog.orgId, team.org.id))
    ).map((row) => [row.action, row.old]);
  // The 3-year-old read is gone; the 1-year-old one and the retention run's own entry stay.
  expect((await ages()).sort()).toEqual([
    ['read', false],
    ['retention_erase', false],
  ]);

  await jobs.runOnce();
  expect((await ages()).length).toBe(2);
  await jobs.stop();
});

it('purges Idempotency-Keys past their 24 hours, and keeps the others replaying', async () => {
  const db = t.database.db;
  const project = await createProject(db, team.org.id);
  const form = await publishedForm(t.app, team.admin, team.org.id, {
    projectId: project.id,
    fields: PERSONAL_FIELDS,
  });
  const submit = (key: string) =>
    call(t.app, 'POST', submitUrl(form.publicToken), {
      body: { answers: personalAnswers() },
      headers: { 'idempotency-key': key },
    });
  const [expired, kept] = [`expired-${form.id}`, `kept-${form.id}`];
  expect((await submit(expired)).status).toBe(201);
  const first = await submit(kept);
  expect(first.status).toBe(201);
  await db
    .update(idempotencyKeys)
    .set({ expiresAt: sql`now() - interval '1 minute'` })
    .where(eq(idempotencyKeys.key, expired));
  const keys = async () =>
    (await db.select({ key: idempotencyKeys.key }).from(idempotencyKeys)).map((row) => row.key).sort();
  expect(await keys()).toEqual([expired, kept].sort());

  const jobs = new RetentionJobs(db, t.config, pino({ level: 'silent' }));
  await jobs.runOnce();
  expect(await keys()).toEqual([kept]);
  const replay = await submit(kept);
  expect([replay.status, replay.body, replay.headers['idempotent-replayed']]).toEqual([
    201,
    first.body,
    'true',
  ]);
  await jobs.runOnce();
  expect(await keys()).toEqual([kept]);
  await jobs.stop();
});

it('purges webhook deliveries finished more than 30 days ago, and events left without deliveries', async () => {
  const db = t.database.db;
  const [endpoint] = await db
    .insert(webhookEndpoints)
    .values({
      orgId: team.org.id,
      url: 'https://hooks.example.org/retention',
      events: ['period.locked'],
      secret: sealSecret(t.config.piiKeyring, newSigningSecret()),
    })
    .returning();
  const queue = () =>
    transaction(db, (tx) =>
      queueWebhookEvent(
        tx,
        { orgId: team.org.id, type: 'period.locked', data: { id: endpoint!.id } },
        () => undefined,
      ),
    );
  for (let i = 0; i < 4; i++) await queue();
  const rows = await db.select().from(webhookDeliveries).orderBy(webhookDeliveries.createdAt);
  const [oldDone, oldFailed, oldPending, recentDone] = rows.map((row) => row.id);
  const age = (id: string, status: 'succeeded' | 'failed' | 'pending', days: number) =>
    db
      .update(webhookDeliveries)
      .set({ status, createdAt: sql`now() - make_interval(days => ${days})` })
      .where(eq(webhookDeliveries.id, id));
  await age(oldDone!, 'succeeded', 31);
  await age(oldFailed!, 'failed', 40);
  await age(oldPending!, 'pending', 31);
  await age(recentDone!, 'succeeded', 29);
  await db.update(webhookEvents).set({ createdAt: sql`now() - interval '31 days'` });

  const jobs = new RetentionJobs(db, t.config, pino({ level: 'silent' }));
  await jobs.runOnce();
  const left = await db.select({ id: webhookDeliveries.id }).from(webhookDeliveries);
  expect(left.map((row) => row.id).sort()).toEqual([oldPending!, recentDone!].sort());
  // The purged deliveries' events went with them; the others' stay.
  expect((await db.select().from(webhookEvents)).length).toBe(2);
  await jobs.stop();
});
