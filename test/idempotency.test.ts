/**
 * Idempotency-Key (issue 23): a retry with the same key and request gets the first answer again and
 * changes nothing; another request with the key is 422; a retry while the first runs is 409. The public
 * submission retried ten times at once with one key is stored and counted once.
 */
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activities, participants } from '../src/modules/activities/activities.tables.js';
import { formSubmissions } from '../src/modules/forms/forms.tables.js';
import { takeOverSecondsFor } from '../src/http/pipeline/idempotency.js';
import { idempotencyKeys } from '../src/modules/idempotency/idempotency.tables.js';
import { activitiesUrl, person, registrationsUrl } from './helpers/activities.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createProject, createTeam, uniqueCode, type TestUser, type Team } from './helpers/factories.js';
import { multipart } from './helpers/files.js';
import {
  answers,
  formTargets,
  formUrl,
  postForm,
  publishedForm,
  submitUrl,
  type FormJson,
} from './helpers/forms.js';
import { call, sessionCookie, TEST_APP_URL, type Call } from './helpers/http.js';
import { reportsUrl } from './helpers/indicators.js';

let t: TestApp;
let team: Team;
let projectId: string;

beforeAll(async () => {
  t = await buildTestApp({}, { worker: false });
  team = await createTeam(t.app, t.database.db);
  projectId = (await createProject(t.database.db, team.org.id)).id;
});
afterAll(() => t.close());

const newKey = () => `retry-${randomUUID()}`;
const activity = (title = 'Hygiene training') => ({ title, startDate: '2026-02-01', endDate: '2026-02-03' });

function postActivity(key: string | undefined, body: object = activity(), as: TestUser = team.officer) {
  return call(t.app, 'POST', activitiesUrl(team.org.id, projectId), {
    as,
    body,
    headers: key === undefined ? {} : { 'idempotency-key': key },
  });
}

async function activitiesTitled(title: string): Promise<number> {
  const rows = await t.database.db
    .select()
    .from(activities)
    .where(and(eq(activities.projectId, projectId), eq(activities.title, title)));
  return rows.length;
}

/** The stored key of a caller: where tests move time or state by hand. */
const keyRow = (key: string) => eq(idempotencyKeys.key, key);

const REUSED = {
  statusCode: 422,
  message: 'Idempotency-Key was used with another request',
  error: 'Unprocessable Entity',
  code: 'idempotency_conflict',
};
const RUNNING = {
  statusCode: 409,
  message: 'A request with this Idempotency-Key is still running',
  error: 'Conflict',
  code: 'idempotency_in_progress',
};

function expectReplayOf(replay: Call, first: Call): void {
  expect(replay.status).toBe(first.status);
  expect(replay.response.body).toBe(first.response.body);
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.headers['content-type']).toBe(first.headers['content-type']);
  expect(replay.headers.location).toBe(first.headers.location);
}

describe('a retried create', () => {
  it('answers the same status and body again, marked replayed, and creates nothing twice', async () => {
    const title = `Training ${randomUUID()}`;
    const key = newKey();
    const first = await postActivity(key, activity(title));
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    for (let i = 0; i < 3; i++) expectReplayOf(await postActivity(key, activity(title)), first);
    expect(await activitiesTitled(title)).toBe(1);
    // The same body with its keys in another order is the same request.
    const reordered = { endDate: '2026-02-03', startDate: '2026-02-01', title };
    expectReplayOf(await postActivity(key, reordered), first);
    // The client application on APP_URL may read the header.
    const fromApp = await call(t.app, 'POST', activitiesUrl(team.org.id, projectId), {
      as: team.officer,
      body: activity(title),
      headers: { 'idempotency-key': key, origin: TEST_APP_URL },
    });
    expectReplayOf(fromApp, first);
    expect(String(fromApp.headers['access-control-expose-headers'])).toContain('Idempotent-Replayed');
  });

  it('without the header creates again, as before', async () => {
    const title = `Training ${randomUUID()}`;
    expect((await postActivity(undefined, activity(title))).status).toBe(201);
    expect((await postActivity(undefined, activity(title))).status).toBe(201);
    expect(await activitiesTitled(title)).toBe(2);
  });

  it('keeps an answer that refused (a 4xx) and replays it', async () => {
    const key = newKey();
    const code = uniqueCode('donor');
    const donor = (name: string) =>
      call(t.app, 'POST', `/orgs/${team.org.id}/donors`, {
        as: team.admin,
        body: { name, code, type: 'private' },
        headers: { 'idempotency-key': name === 'Second' ? key : newKey() },
      });
    expect((await donor('First')).status).toBe(201);
    const refused = await donor('Second');
    expect(refused.status).toBe(409);
    expectReplayOf(await donor('Second'), refused);
  });

  it('is 422 for another body, another path or another route with the key, and changes nothing', async () => {
    const title = `Training ${randomUUID()}`;
    const key = newKey();
    expect((await postActivity(key, activity(title))).status).toBe(201);

    const other = await postActivity(key, activity(`${title} (renamed)`));
    expect([other.status, other.body]).toEqual([422, REUSED]);
    const otherProject = await createProject(t.database.db, team.org.id);
    const elsewhere = await call(t.app, 'POST', activitiesUrl(team.org.id, otherProject.id), {
      as: team.officer,
      body: activity(title),
      headers: { 'idempotency-key': key },
    });
    expect([elsewhere.status, elsewhere.body]).toEqual([422, REUSED]);
    const anotherRoute = await call(
      t.app,
      'POST',
      `/orgs/${team.org.id}/projects/${projectId}/budget-lines`,
      {
        as: team.officer,
        body: { category: 'Training', description: 'Venue' },
        headers: { 'idempotency-key': key },
      },
    );
    expect([anotherRoute.status, anotherRoute.body]).toEqual([422, REUSED]);
    expect(await activitiesTitled(title)).toBe(1);
    expect(await activitiesTitled(`${title} (renamed)`)).toBe(0);
  });

  it('keeps callers apart: two users with one key each get their own answer', async () => {
    const title = `Training ${randomUUID()}`;
    const key = newKey();
    const byOfficer = await postActivity(key, activity(title), team.officer);
    const byAdmin = await postActivity(key, activity(title), team.admin);
    expect([byOfficer.status, byAdmin.status]).toEqual([201, 201]);
    expect(byAdmin.headers['idempotent-replayed']).toBeUndefined();
    expect(byAdmin.body.id).not.toBe(byOfficer.body.id);
    expectReplayOf(await postActivity(key, activity(title), team.officer), byOfficer);
    expectReplayOf(await postActivity(key, activity(title), team.admin), byAdmin);
    expect(await activitiesTitled(title)).toBe(2);
  });

  it('refuses a malformed key with a 400 naming the header, before anything runs', async () => {
    const title = `Training ${randomUUID()}`;
    for (const key of ['', 'x'.repeat(256), 'with space', 'caf\u00e9']) {
      const res = await postActivity(key, activity(title));
      expect([res.status, res.body.message], JSON.stringify(key)).toEqual([
        400,
        ['Idempotency-Key must be 1 to 255 visible characters'],
      ]);
      expect(res.body.details).toEqual([
        {
          in: 'header',
          path: '/idempotency-key',
          rule: 'pattern',
          message: 'Idempotency-Key must be 1 to 255 visible characters',
        },
      ]);
    }
    expect(await activitiesTitled(title)).toBe(0);
    // 255 visible characters, any of them, are a key.
    const longest = `${'~!'.repeat(127)}${randomUUID().slice(0, 1)}`;
    expect((await postActivity(longest, activity(title))).status).toBe(201);
  });

  it('is ignored by the public POSTs that take no key (sign-in)', async () => {
    const res = await call(t.app, 'POST', '/auth/login', {
      body: { email: team.viewer.email, password: team.viewer.password },
      headers: { 'idempotency-key': 'not a key' },
    });
    expect(res.status).toBe(200);
  });
});

describe('a key whose first request still runs', () => {
  it('is 409 with Retry-After, and a claim older than the request timeout is taken over', async () => {
    const title = `Training ${randomUUID()}`;
    const key = newKey();
    const first = await postActivity(key, activity(title));
    expect(first.status).toBe(201);
    // As if that request were still running (or its process had died mid-request).
    await t.database.db.update(idempotencyKeys).set({ state: 'running' }).where(keyRow(key));

    const running = await postActivity(key, activity(title));
    expect([running.status, running.body]).toEqual([409, RUNNING]);
    expect(running.headers['retry-after']).toBe('1');
    expect(await activitiesTitled(title)).toBe(1);

    const seconds = takeOverSecondsFor(t.config.timeouts.requestSeconds) + 1;
    await t.database.db
      .update(idempotencyKeys)
      .set({ createdAt: sql`now() - make_interval(secs => ${seconds})` })
      .where(keyRow(key));
    const again = await postActivity(key, activity(title));
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await activitiesTitled(title)).toBe(2);
    expectReplayOf(await postActivity(key, activity(title)), again);
  });

  it('is 409 while a multipart submission is still arriving, then replays its answer', async () => {
    const form = await publishedForm(t.app, team.officer, team.org.id, {
      projectId: (await createProject(t.database.db, team.org.id)).id,
    });
    const key = newKey();
    const { body, headers } = multipart([{ name: 'data', value: JSON.stringify({ answers: answers() }) }]);
    const stream = new PassThrough();
    stream.write(body.subarray(0, 20));
    const held = t.app.inject({
      method: 'POST',
      url: submitUrl(form.publicToken),
      headers: { ...headers, 'idempotency-key': key },
      payload: stream,
    });
    await until(
      async () => (await t.database.db.select().from(idempotencyKeys).where(keyRow(key))).length > 0,
    );

    const retry = await t.app.inject({
      method: 'POST',
      url: submitUrl(form.publicToken),
      headers: { ...headers, 'idempotency-key': key },
      payload: body,
    });
    expect([retry.statusCode, retry.json()]).toEqual([409, RUNNING]);
    stream.end(body.subarray(20));
    const first = await held;
    expect(first.statusCode, first.body).toBe(201);
    expect(await submissionsOf(form)).toBe(1);

    // A multipart body is not compared (the route reads it itself): another one with the key is a retry.
    const other = multipart([
      { name: 'data', value: JSON.stringify({ answers: answers({ name: 'Baraka' }) }) },
    ]);
    const replay = await t.app.inject({
      method: 'POST',
      url: submitUrl(form.publicToken),
      headers: { ...other.headers, 'idempotency-key': key },
      payload: other.body,
    });
    expect([replay.statusCode, replay.body, replay.headers['idempotent-replayed']]).toEqual([
      201,
      first.body,
      'true',
    ]);
    // JSON after multipart is another request.
    const json = await submitJson(form, key);
    expect([json.status, json.body]).toEqual([422, REUSED]);
    expect(await submissionsOf(form)).toBe(1);
  });
});

describe('answers that are not kept', () => {
  it('a refused multipart submission (its body is not compared) runs again when retried', async () => {
    const form = await publishedForm(t.app, team.officer, team.org.id, {
      projectId: (await createProject(t.database.db, team.org.id)).id,
    });
    const key = newKey();
    const send = (given: Record<string, unknown>) => {
      const { body, headers } = multipart([{ name: 'data', value: JSON.stringify({ answers: given }) }]);
      return t.app.inject({
        method: 'POST',
        url: submitUrl(form.publicToken),
        headers: { ...headers, 'idempotency-key': key },
        payload: body,
      });
    };
    const refused = await send(answers({ name: undefined }));
    expect([refused.statusCode, refused.json().message]).toEqual([400, ['answers.name is required']]);
    const stored = await send(answers());
    expect([stored.statusCode, stored.headers['idempotent-replayed']]).toEqual([201, undefined]);
    const replay = await send(answers({ name: 'Baraka' }));
    expect([replay.statusCode, replay.body, replay.headers['idempotent-replayed']]).toEqual([
      201,
      stored.body,
      'true',
    ]);
    expect(await submissionsOf(form)).toBe(1);
  });

  it('a failed If-Match precondition is not kept: the retry with the current ETag runs', async () => {
    const form = await postForm(t.app, team.officer, team.org.id, {
      projectId: (await createProject(t.database.db, team.org.id)).id,
    });
    const key = newKey();
    const publish = (ifMatch: string) =>
      call(t.app, 'POST', formUrl(team.org.id, form.id, 'publish'), {
        as: team.officer,
        headers: { 'idempotency-key': key, 'if-match': ifMatch },
      });
    const stale = await publish('"not-the-current-one"');
    expect(stale.status).toBe(412);
    const current = await call(t.app, 'GET', formUrl(team.org.id, form.id), { as: team.officer });
    const published = await publish(current.headers.etag as string);
    expect([published.status, published.body.isPublished]).toEqual([200, true]);
    expectReplayOf(await publish(current.headers.etag as string), published);
  });

  it('a 500 releases the key, so the retry runs again', async () => {
    const title = `Training ${randomUUID()}`;
    const key = newKey();
    const { db } = t.database;
    await db.execute(sql`ALTER TABLE activities RENAME TO activities_away`);
    let failed: Call;
    try {
      failed = await postActivity(key, activity(title));
    } finally {
      await db.execute(sql`ALTER TABLE activities_away RENAME TO activities`);
    }
    expect(failed.status).toBe(500);
    expect(await db.select().from(idempotencyKeys).where(keyRow(key))).toEqual([]);
    const retried = await postActivity(key, activity(title));
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expectReplayOf(await postActivity(key, activity(title)), retried);
    expect(await activitiesTitled(title)).toBe(1);
  });

  it('an expired key runs again, as a new one', async () => {
    const title = `Training ${randomUUID()}`;
    const key = newKey();
    const first = await postActivity(key, activity(title));
    expect(first.status).toBe(201);
    // Kept 24 hours from the answer.
    const [row] = await t.database.db.select().from(idempotencyKeys).where(keyRow(key));
    const kept = row!.expiresAt.getTime() - Date.now();
    expect(kept).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(kept).toBeLessThanOrEqual(24 * 3600_000);

    await t.database.db
      .update(idempotencyKeys)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(keyRow(key));
    const again = await postActivity(key, activity(title));
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body.id).not.toBe(first.body.id);
    expect(await activitiesTitled(title)).toBe(2);
  });
});

describe('what is kept of an answer', () => {
  it('keeps no personal data: a replayed registration is the answer as a viewer reads it, also after erasure', async () => {
    const activityId = (await postActivity(undefined)).body.id as string;
    const phone = `+254 7${String(Date.now()).slice(-8)}`;
    const key = newKey();
    const registerOnce = () =>
      call(t.app, 'POST', registrationsUrl(team.org.id, activityId), {
        as: team.officer,
        body: { participants: [person({ phone, firstName: 'Wanjiru', dateOfBirth: '1990-05-01' })] },
        headers: { 'idempotency-key': key },
      });
    const first = await registerOnce();
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body[0].participant.phone).toBe(phone);
    const participantId = first.body[0].participant.id as string;

    const replay = await registerOnce();
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const { participant: replayed, ...registration } = replay.body[0];
    const { participant: original, ...firstRegistration } = first.body[0];
    expect(registration).toEqual(firstRegistration);
    expect(replayed).toEqual({
      ...original,
      firstName: null,
      lastName: null,
      dateOfBirth: null,
      age: null,
      phone: null,
      nationalId: null,
      ageBand: original.ageBand,
    });
    const people = await t.database.db
      .select()
      .from(participants)
      .where(and(eq(participants.orgId, team.org.id), eq(participants.firstName, 'Wanjiru')));
    expect(people).toHaveLength(1);

    const [row] = await t.database.db.select().from(idempotencyKeys).where(keyRow(key));
    expect(row!.body).toMatch(/^v1\.[0-9a-f]{16}\./);
    expect(JSON.stringify(row)).not.toContain(phone.replace(/\D/g, '').slice(-8));
    expect(row!.fingerprint).toMatch(/^[0-9a-f]{64}$/);

    const erased = await call(t.app, 'POST', `/orgs/${team.org.id}/participants/${participantId}/erase`, {
      as: team.admin,
      body: { reason: 'Asked to be forgotten' },
    });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    const afterErasure = await registerOnce();
    expect(afterErasure.status).toBe(201);
    expect(afterErasure.response.body).not.toContain('Wanjiru');
    expect(afterErasure.response.body).not.toContain(phone);
  });

  it('keeps a household member without name and age', async () => {
    const activityId = (await postActivity(undefined)).body.id as string;
    const registered = await call(t.app, 'POST', registrationsUrl(team.org.id, activityId), {
      as: team.officer,
      body: { participants: [person()] },
    });
    const participantId = registered.body[0].participant.id as string;
    const key = newKey();
    const add = () =>
      call(t.app, 'POST', `/orgs/${team.org.id}/participants/${participantId}/household-members`, {
        as: team.officer,
        body: { name: 'Baraka Otieno', relationship: 'child', sex: 'male', age: 9 },
        headers: { 'idempotency-key': key },
      });
    const first = await add();
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.name).toBe('Baraka Otieno');
    const replay = await add();
    expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(replay.body).toEqual({ ...first.body, name: null, age: null });
  });

  it('never keeps a session cookie: a replayed POST /orgs answers without one', async () => {
    const key = newKey();
    const body = { name: 'Retry Relief', code: uniqueCode() };
    const create = () =>
      call(t.app, 'POST', '/orgs', { as: team.viewer, body, headers: { 'idempotency-key': key } });
    const first = await create();
    expect(first.status).toBe(201);
    expect(sessionCookie(first)).toBeTruthy();
    const replay = await create();
    expectReplayOf(replay, first);
    expect(replay.headers['set-cookie']).toBeUndefined();
    const [row] = await t.database.db.select().from(idempotencyKeys).where(keyRow(key));
    expect(JSON.stringify(row)).not.toContain(sessionCookie(first)!);
  });
});

describe('the public submission retried with one key', () => {
  it('is stored and counted once when ten retries arrive at once', async () => {
    const targets = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const form = await publishedForm(t.app, team.officer, team.org.id, {
      projectId: targets.project.id,
      indicatorId: targets.indicator.id,
      reportingPeriodId: targets.period.id,
      valueFieldKey: 'household_size',
    });
    const key = newKey();
    const given = answers({ household_size: 7 });
    const results = await Promise.all(Array.from({ length: 10 }, () => submitJson(form, key, given)));

    const first = results.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(first).toHaveLength(1);
    for (const res of results) {
      if (res.status === 409) expect(res.body).toEqual(RUNNING);
      else expectReplayOrFirst(res, first[0]!);
    }
    expect(await submissionsOf(form)).toBe(1);
    expect(await reportValue(targets)).toBe(7);

    // Every later retry is a replay; nothing moves.
    const later = await Promise.all(Array.from({ length: 10 }, () => submitJson(form, key, given)));
    for (const res of later) expectReplayOf(res, first[0]!);
    expect(await submissionsOf(form)).toBe(1);
    expect(await reportValue(targets)).toBe(7);

    // The key belongs to the form: another form's respondent may use the same one.
    const otherForm = await publishedForm(t.app, team.officer, team.org.id, {
      projectId: targets.project.id,
    });
    const elsewhere = await submitJson(otherForm, key, given);
    expect([elsewhere.status, elsewhere.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect(await submissionsOf(otherForm)).toBe(1);
  });
});

function expectReplayOrFirst(res: Call, first: Call): void {
  if (res === first) return;
  expectReplayOf(res, first);
}

function submitJson(form: FormJson, key: string, given: Record<string, unknown> = answers()) {
  return call(t.app, 'POST', submitUrl(form.publicToken), {
    body: { answers: given },
    headers: { 'idempotency-key': key },
  });
}

async function submissionsOf(form: FormJson): Promise<number> {
  const rows = await t.database.db.select().from(formSubmissions).where(eq(formSubmissions.formId, form.id));
  return rows.length;
}

async function reportValue(targets: Awaited<ReturnType<typeof formTargets>>): Promise<number | null> {
  const query = `?indicatorId=${targets.indicator.id}&periodId=${targets.period.id}`;
  const res = await call(t.app, 'GET', `${reportsUrl(team.org.id, targets.project.id)}${query}`, {
    as: team.admin,
  });
  expect(res.status).toBe(200);
  expect(res.body).toHaveLength(1);
  return res.body[0].value as number | null;
}

/** Polls until `done` holds (a request under way has reached a point), for at most five seconds. */
async function until(done: () => Promise<boolean>): Promise<void> {
  for (let waited = 0; waited < 5000; waited += 20) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('timed out waiting');
}

describe('what takes no key', () => {
  it('signing out one session with a key used for another still ends it', async () => {
    const email = `${randomUUID()}@example.org`;
    const password = 'a long enough password';
    const registered = await call(t.app, 'POST', '/auth/register', {
      body: { email, password, firstName: 'Neema', lastName: 'Mrisho' },
    });
    expect(registered.status).toBe(201);
    const tokenOf = async () => {
      const res = await call(t.app, 'POST', '/auth/token', { body: { email, password } });
      expect(res.status).toBe(200);
      return res.body.accessToken as string;
    };
    const [first, second] = [await tokenOf(), await tokenOf()];
    const logout = (token: string) =>
      call(t.app, 'POST', '/auth/logout', {
        headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'sign-out' },
      });
    expect((await logout(first)).status).toBe(204);
    const again = await logout(second);
    expect(again.status).toBe(204);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    const me = await call(t.app, 'GET', '/auth/me', { headers: { authorization: `Bearer ${second}` } });
    expect(me.status).toBe(401);
  });

  it('keeps nothing for a public submission to a form that does not exist, nor for a token its route refuses', async () => {
    const before = (await t.database.db.select().from(idempotencyKeys)).length;
    const unknown = await call(t.app, 'POST', submitUrl('no-such-form-token'), {
      body: { answers: {} },
      headers: { 'idempotency-key': newKey() },
    });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
    const long = await call(t.app, 'POST', submitUrl('x'.repeat(1500)), {
      body: { answers: {} },
      headers: { 'idempotency-key': newKey() },
    });
    expect(long.status).toBeLessThan(500);
    const nul = await call(t.app, 'POST', '/forms/public/abc%00def/submit', {
      body: { answers: {} },
      headers: { 'idempotency-key': newKey() },
    });
    expect(nul.status).toBeLessThan(500);
    expect((await t.database.db.select().from(idempotencyKeys)).length).toBe(before);
  });
});
