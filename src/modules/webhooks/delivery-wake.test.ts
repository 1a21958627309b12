import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createTeam } from '../../../test/helpers/factories.js';
import { answers, countingFormFor, formTargets, submitUrl } from '../../../test/helpers/forms.js';
import { call } from '../../../test/helpers/http.js';
import { WebhookReceiver } from '../../../test/helpers/webhooks.js';

// A poll a minute apart: a delivery that waited for it would not arrive within the test's timeout.
const POLL_MS = 60_000;

let t: TestApp;
let receiver: WebhookReceiver;
beforeAll(async () => {
  t = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' }, { webhooks: { pollIntervalMs: POLL_MS } });
  receiver = new WebhookReceiver();
  await receiver.start();
});
afterAll(async () => {
  await t.close();
  await receiver.stop();
});

it("sends a counted submission's webhook once it commits, long before the next poll", async () => {
  const team = await createTeam(t.app, t.database.db);
  const url = receiver.newUrl();
  const created = await call(t.app, 'POST', `/orgs/${team.org.id}/webhooks`, {
    as: team.admin,
    body: { url, events: ['form_submission.created'] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const targets = await formTargets(t.app, t.database.db, team.officer, team.org.id);
  const form = await countingFormFor(t.app, team.officer, team.org.id, targets);

  const submittedAt = Date.now();
  const submitted = await call(t.app, 'POST', submitUrl(form.publicToken), { body: { answers: answers() } });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);

  while (receiver.at(url).length === 0 && Date.now() - submittedAt < POLL_MS / 6) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const [request] = receiver.at(url);
  expect(request, 'no webhook within a sixth of the poll interval').toBeDefined();
  expect(JSON.parse(request!.rawBody)).toMatchObject({
    type: 'form_submission.created',
    data: { id: submitted.body.id },
  });
});
