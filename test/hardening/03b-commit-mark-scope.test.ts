/**
 * Issue 36, finding 3, as the review of its fix found: a keyed request's commit mark (an async context)
 * reached the webhook worker woken from inside it (a keyed ping), whose transactions then wrote a mark
 * long answered: deliveries never recorded, sent again every lease, the endpoint's other events held.
 * A mark is active only until its request answers, and what requests wake runs outside any mark.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProject, createTeam, type Team } from '../helpers/factories.js';
import { call } from '../helpers/http.js';
import { createPeriod } from '../helpers/periods.js';
import { WebhookReceiver } from '../helpers/webhooks.js';

let t: TestApp;
let receiver: WebhookReceiver;
let team: Team;

beforeAll(async () => {
  t = await buildTestApp(
    { WEBHOOK_ALLOW_PRIVATE: 'true' },
    { webhooks: { pollIntervalMs: 100, leaseMs: 1_000 } },
  );
  receiver = new WebhookReceiver();
  await receiver.start();
  team = await createTeam(t.app, t.database.db);
});
afterAll(async () => {
  await t.close();
  await receiver.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, probe: () => boolean | Promise<boolean>, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(50);
  }
}

it('a keyed ping is delivered once, recorded, and the endpoint’s next event follows', async () => {
  const url = receiver.newUrl();
  const hook = await call(t.app, 'POST', `/orgs/${team.org.id}/webhooks`, {
    as: team.admin,
    body: { url, events: ['period.locked'], active: true },
  });
  expect(hook.status).toBe(201);
  const ping = await call(t.app, 'POST', `/orgs/${team.org.id}/webhooks/${hook.body.id}/ping`, {
    as: team.admin,
    headers: { 'idempotency-key': 'ping-1' },
  });
  expect(ping.status).toBe(202);
  const deliveries = () =>
    call(t.app, 'GET', `/orgs/${team.org.id}/webhooks/${hook.body.id}/deliveries`, { as: team.admin });
  await until('the ping recorded as succeeded', async () =>
    (await deliveries()).body.some((d: { status: string }) => d.status === 'succeeded'),
  );
  // Three leases later it was still sent once.
  await sleep(3_000);
  expect(receiver.at(url)).toHaveLength(1);

  // An event of a request without a key, delivered by the worker's own timer.
  const project = await createProject(t.database.db, team.org.id);
  const period = await createPeriod(t.database.db, team.org.id, project.id);
  const locked = await call(t.app, 'PATCH', `/orgs/${team.org.id}/reporting-periods/${period.id}`, {
    as: team.admin,
    body: { isLocked: true },
  });
  expect(locked.status).toBe(200);
  await until('the next event', () => receiver.at(url).length >= 2);
  expect(receiver.at(url).map((r) => JSON.parse(r.rawBody).type)).toEqual(['ping', 'period.locked']);
}, 30_000);
