import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import {
  createOrg,
  createTeam,
  registerUser,
  type Team,
  type TestUser,
} from '../../../test/helpers/factories.js';
import {
  badRequestAt,
  call,
  conflictBody,
  expectError,
  expectViolations,
  MISSING_ID,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  ADMINS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { transaction } from '../../db/client.js';
import { MovableClock } from '../../lib/clock.js';
import { open } from '../../lib/sealed-values.js';
import { queueWebhookEvent, WEBHOOK_EVENT_TYPES } from './events.js';
import { webhookDeliveries, webhookEndpoints, webhookEvents } from './webhooks.tables.js';

const clock = new MovableClock();
/** WEBHOOK_ALLOW_PRIVATE off (the default): the refusals. */
let t: TestApp;
/** WEBHOOK_ALLOW_PRIVATE=true: http to loopback, private addresses. */
let permissive: TestApp;
let team: Team;
/** Each test's own organization (an organization holds 20 endpoints at most). */
let org: { id: string };
let admin: TestUser;

beforeAll(async () => {
  // One after the other: on PostgreSQL each clones the template database, which takes one copy at a time.
  t = await buildTestApp({}, { clock });
  permissive = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' }, { clock });
  team = await createTeam(t.app, t.database.db);
});
beforeEach(async () => {
  ({ org, admin } = await freshOrg());
});
afterAll(() => Promise.all([t?.close(), permissive?.close()]));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const DAY_MS = 24 * 60 * 60 * 1000;

const webhooksUrl = (orgId = org.id) => `/orgs/${orgId}/webhooks`;
const webhookUrl = (id: string, orgId = org.id) => `/orgs/${orgId}/webhooks/${id}`;

async function createEndpoint(
  fields: Record<string, unknown> = {},
  options: { orgId?: string; as?: TestUser } = {},
) {
  const res = await call(t.app, 'POST', webhooksUrl(options.orgId), {
    as: options.as ?? admin,
    body: { url: 'https://hooks.example.org/mel', events: ['member.invited'], ...fields },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string } & Record<string, unknown>;
}

/** An organization of its own with its admin: each test counts and lists only its own endpoints. */
async function freshOrg() {
  const admin = await registerUser(t.app);
  const org = await createOrg(t.app, admin);
  return { admin, org };
}

/** An event of `type` queued as a committed change would queue it, at `at`. */
const queue = (orgId: string, at: Date, type: (typeof WEBHOOK_EVENT_TYPES)[number] = 'member.invited') =>
  transaction(t.database.db, (tx) =>
    queueWebhookEvent(tx, { orgId, type, data: { id: MISSING_ID }, at }, () => undefined),
  );

async function deliveriesOf(endpointId: string) {
  return t.database.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(webhookDeliveries.createdAt);
}

describe('POST /orgs/:orgId/webhooks', () => {
  it('creates an endpoint and shows its secret once (201)', async () => {
    const res = await call(t.app, 'POST', webhooksUrl(), {
      as: admin,
      body: {
        url: 'https://hooks.example.org/mel?source=mel',
        events: ['indicator_report.submitted', 'period.locked'],
        description: '  Data warehouse  ',
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      url: 'https://hooks.example.org/mel?source=mel',
      events: ['indicator_report.submitted', 'period.locked'],
      description: 'Data warehouse',
      active: true,
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
      secretRotatedUntil: null,
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
      secret: expect.stringMatching(SECRET),
    });
    expect(res.headers.location).toBe(`http://api.test${webhookUrl(res.body.id)}`);

    const { secret, ...endpoint } = res.body;
    const read = await call(t.app, 'GET', webhookUrl(res.body.id), { as: admin });
    expect([read.status, read.body]).toEqual([200, endpoint]);

    // Sealed at rest: the stored value is not the secret and opens to it.
    const [row] = await t.database.db
      .select({ secret: webhookEndpoints.secret })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, res.body.id));
    expect(row!.secret).not.toContain(secret.slice(6));
    expect(open(t.config.piiKeyring, row!.secret)).toBe(secret);
  });

  it('gives each endpoint a secret of its own', async () => {
    const [a, b] = await Promise.all([createEndpoint(), createEndpoint()]);
    expect(a.secret).not.toBe(b.secret);
  });

  it('takes description as null when left out or blank, and an inactive endpoint as off since now', async () => {
    expect((await createEndpoint()).description).toBeNull();
    expect((await createEndpoint({ description: '   ' })).description).toBeNull();
    expect((await createEndpoint({ description: null })).description).toBeNull();
    const off = await createEndpoint({ active: false });
    expect(off).toMatchObject({ active: false, disabledReason: null, disabledAt: clock.now().toISOString() });
  });

  it('accepts every event type', async () => {
    const endpoint = await createEndpoint({ events: [...WEBHOOK_EVENT_TYPES] });
    expect(endpoint.events).toEqual([...WEBHOOK_EVENT_TYPES]);
  });

  it('answers a replay under the same Idempotency-Key with the same secret', async () => {
    const key = `create-webhook-${Math.random()}`;
    const first = await call(t.app, 'POST', webhooksUrl(), {
      as: admin,
      headers: { 'idempotency-key': key },
      body: { url: 'https://hooks.example.org/replay', events: ['member.joined'] },
    });
    const replay = await call(t.app, 'POST', webhooksUrl(), {
      as: admin,
      headers: { 'idempotency-key': key },
      body: { url: 'https://hooks.example.org/replay', events: ['member.joined'] },
    });
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(SECRET);
    expect([replay.status, replay.headers['idempotent-replayed'], replay.body]).toEqual([
      201,
      'true',
      first.body,
    ]);
  });
});

describe('validation', () => {
  const post = (body: Record<string, unknown>, app = t) =>
    call(app.app, 'POST', webhooksUrl(), {
      as: admin,
      body: { url: 'https://hooks.example.org/mel', events: ['member.invited'], ...body },
    });
  const urlRefused = (message: string) => badRequestAt(['body', '/url', 'invalid', message]);
  const SPECIAL = 'url must not point to a private, loopback or otherwise special address';

  it('requires url and events and refuses unknown fields', async () => {
    const res = await call(t.app, 'POST', webhooksUrl(), {
      as: admin,
      body: { secret: 'whsec_mine', active: 'yes' },
    });
    expectViolations(
      res,
      'url is required',
      'events is required',
      'property secret should not exist',
      'active must be a boolean',
    );
  });

  it('refuses a url that is not absolute, or too long', async () => {
    expectViolations(await post({ url: 'not a url' }), 'url must be a valid URL');
    expectViolations(await post({ url: '/hooks/mel' }), 'url must be a valid URL');
    const long = `https://hooks.example.org/${'a'.repeat(2049 - 'https://hooks.example.org/'.length)}`;
    expectViolations(await post({ url: long }), 'url must be at most 2048 characters');
  });

  it('refuses http and other schemes', async () => {
    for (const url of [
      'http://hooks.example.org/mel',
      'ftp://hooks.example.org/mel',
      'http://127.0.0.1:8080/',
    ]) {
      expectError(await post({ url }), urlRefused('url must use https'));
    }
  });

  it('refuses a user name or password in the url', async () => {
    for (const url of ['https://user:pass@hooks.example.org/mel', 'https://token@hooks.example.org/mel']) {
      expectError(await post({ url }), urlRefused('url must not contain a user name or password'));
    }
  });

  it('refuses IP addresses that are not public, and localhost', async () => {
    for (const url of [
      'https://10.0.0.1/mel',
      'https://192.168.1.20:8443/mel',
      'https://127.0.0.1/mel',
      'https://0x7f.1/mel',
      'https://2130706433/mel',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/',
      'https://0.0.0.0/',
      'https://[::1]/mel',
      'https://[fd00::1]/mel',
      'https://[fe80::1]/mel',
      'https://[::ffff:10.0.0.1]/mel',
      'https://localhost/mel',
      'https://LOCALHOST./mel',
      'https://api.localhost/mel',
    ]) {
      expectError(await post({ url }), urlRefused(SPECIAL));
    }
  });

  it('accepts public IP addresses and host names', async () => {
    for (const url of [
      'https://93.184.215.14/mel',
      'https://[2606:4700::1111]/mel',
      'https://hooks.example.org:8443/',
    ]) {
      expect((await post({ url })).status).toBe(201);
    }
  });

  it('refuses unknown, duplicate, ping and no events', async () => {
    const oneOf = `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`;
    expectViolations(await post({ events: ['project.created'] }), `events.0 ${oneOf}`);
    expectViolations(await post({ events: ['member.invited', 'ping'] }), `events.1 ${oneOf}`);
    expectViolations(await post({ events: [] }), 'events must contain at least 1 items');
    expectViolations(
      await post({ events: ['member.invited', 'member.joined', 'member.invited'] }),
      'events must not contain duplicates',
    );
    expectViolations(await post({ events: 'member.invited' }), 'events must be an array');
  });

  it('refuses a description over 500 characters', async () => {
    expectViolations(
      await post({ description: 'x'.repeat(501) }),
      'description must be at most 500 characters',
    );
    expect((await post({ description: 'x'.repeat(500) })).status).toBe(201);
  });

  it('with WEBHOOK_ALLOW_PRIVATE=true, takes http to loopback and private addresses', async () => {
    const owner = await registerUser(permissive.app);
    const own = await createOrg(permissive.app, owner);
    const postOpen = (url: string) =>
      call(permissive.app, 'POST', webhooksUrl(own.id), {
        as: owner,
        body: { url, events: ['member.invited'] },
      });
    for (const url of [
      'http://127.0.0.1:4000/hook',
      'http://127.1.2.3/hook',
      'http://localhost:4000/hook',
      'http://[::1]:4000/hook',
      'https://10.0.0.1/hook',
      'https://localhost/hook',
    ]) {
      const res = await postOpen(url);
      expect([url, res.status]).toEqual([url, 201]);
    }
    for (const url of ['http://10.0.0.1/hook', 'http://hooks.example.org/hook', 'ftp://127.0.0.1/hook']) {
      expectError(await postOpen(url), urlRefused('url must use https, or http to a loopback address'));
    }
    expectError(
      await postOpen('http://user:pw@127.0.0.1/hook'),
      urlRefused('url must not contain a user name or password'),
    );
  });

  it('checks the url of a PATCH the same way', async () => {
    const endpoint = await createEndpoint();
    const res = await call(t.app, 'PATCH', webhookUrl(endpoint.id), {
      as: admin,
      body: { url: 'https://192.168.0.10/hook' },
    });
    expectError(res, urlRefused(SPECIAL));
    const invalid = await call(t.app, 'PATCH', webhookUrl(endpoint.id), {
      as: admin,
      body: { events: [], secret: 'x' },
    });
    expectViolations(invalid, 'events must contain at least 1 items', 'property secret should not exist');
  });
});

describe('the limit of 20 endpoints', () => {
  it('refuses the 21st endpoint with 409, even when they arrive together', async () => {
    const answers = await Promise.all(
      Array.from({ length: 21 }, (_, i) =>
        call(t.app, 'POST', webhooksUrl(org.id), {
          as: admin,
          body: { url: `https://hooks.example.org/${i}`, events: ['member.joined'] },
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(20);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused).toHaveLength(1);
    expectError(
      refused[0]!,
      conflictBody('An organization can have at most 20 webhook endpoints', 'conflict'),
    );

    // A deleted endpoint makes room again.
    const first = answers.find((a) => a.status === 201)!.body;
    expect((await call(t.app, 'DELETE', webhookUrl(first.id, org.id), { as: admin })).status).toBe(204);
    await createEndpoint({}, { orgId: org.id, as: admin });
  });
});

describe('GET /orgs/:orgId/webhooks', () => {
  it('lists the endpoints newest first, without secrets, plain or paged', async () => {
    const created = [];
    for (const i of [1, 2, 3])
      created.push(
        await createEndpoint({ url: `https://hooks.example.org/${i}` }, { orgId: org.id, as: admin }),
      );
    const expected = created.reverse().map(({ secret: _secret, ...endpoint }) => endpoint);

    const all = await call(t.app, 'GET', webhooksUrl(org.id), { as: admin });
    expect([all.status, all.body]).toEqual([200, expected]);

    const page = await call(t.app, 'GET', `${webhooksUrl(org.id)}?page=2&limit=2`, { as: admin });
    expect(page.body).toEqual({ data: [expected[2]], meta: { total: 3, page: 2, limit: 2, totalPages: 2 } });
  });

  it('is empty for an organization without endpoints', async () => {
    expect((await call(t.app, 'GET', webhooksUrl(org.id), { as: admin })).body).toEqual([]);
  });
});

describe('PATCH /orgs/:orgId/webhooks/:id', () => {
  it('changes url, events and description, and clears the description with null', async () => {
    const endpoint = await createEndpoint({ description: 'Warehouse' });
    const res = await call(t.app, 'PATCH', webhookUrl(endpoint.id), {
      as: admin,
      body: { url: 'https://hooks.example.org/v2', events: ['report.published', 'member.joined'] },
    });
    const { secret: _secret, ...before } = endpoint;
    expect([res.status, res.body]).toEqual([
      200,
      {
        ...before,
        url: 'https://hooks.example.org/v2',
        events: ['report.published', 'member.joined'],
        updatedAt: expect.stringMatching(TIMESTAMP),
      },
    ]);
    const cleared = await call(t.app, 'PATCH', webhookUrl(endpoint.id), {
      as: admin,
      body: { description: null },
    });
    expect(cleared.body.description).toBeNull();
    const trimmed = await call(t.app, 'PATCH', webhookUrl(endpoint.id), {
      as: admin,
      body: { description: ' BI tool ' },
    });
    expect(trimmed.body.description).toBe('BI tool');

    const unchanged = await call(t.app, 'PATCH', webhookUrl(endpoint.id), { as: admin, body: {} });
    expect([unchanged.status, unchanged.body]).toEqual([200, trimmed.body]);
  });

  it('turning an endpoint off fails its pending deliveries and only those', async () => {
    const endpoint = await createEndpoint({ events: ['member.joined'] });
    const now = clock.now();
    await queue(org.id, new Date(now.getTime() - 3000), 'member.joined');
    await queue(org.id, new Date(now.getTime() - 2000), 'member.joined');
    const [done, waiting] = await deliveriesOf(endpoint.id);
    await t.database.db
      .update(webhookDeliveries)
      .set({ status: 'succeeded', attempts: 1, statusCode: 204, deliveredAt: now, lastAttemptAt: now })
      .where(eq(webhookDeliveries.id, done!.id));

    const res = await call(t.app, 'PATCH', webhookUrl(endpoint.id), {
      as: admin,
      body: { active: false },
    });
    expect([res.status, res.body]).toEqual([
      200,
      expect.objectContaining({
        active: false,
        disabledReason: null,
        disabledAt: now.toISOString(),
        failingSince: null,
      }),
    ]);

    const rows = await deliveriesOf(endpoint.id);
    expect(rows.map((r) => [r.id, r.status, r.error])).toEqual([
      [done!.id, 'succeeded', null],
      [waiting!.id, 'failed', 'endpoint disabled'],
    ]);

    // Off again changes nothing: disabledAt keeps the time it was turned off.
    clock.advance(60_000);
    const again = await call(t.app, 'PATCH', webhookUrl(endpoint.id), {
      as: admin,
      body: { active: false },
    });
    expect(again.body.disabledAt).toBe(now.toISOString());

    // An inactive endpoint is not sent new events.
    await queue(org.id, clock.now(), 'member.joined');
    expect(await deliveriesOf(endpoint.id)).toHaveLength(2);
  });

  it('turning a disabled endpoint on clears why, since when, and its failing streak', async () => {
    const endpoint = await createEndpoint();
    const then = new Date(clock.now().getTime() - 6 * DAY_MS);
    await t.database.db
      .update(webhookEndpoints)
      .set({ active: false, disabledReason: 'failing', disabledAt: clock.now(), failingSince: then })
      .where(eq(webhookEndpoints.id, endpoint.id));
    const read = await call(t.app, 'GET', webhookUrl(endpoint.id), { as: admin });
    expect(read.body).toMatchObject({
      active: false,
      disabledReason: 'failing',
      disabledAt: clock.now().toISOString(),
      failingSince: then.toISOString(),
    });

    const res = await call(t.app, 'PATCH', webhookUrl(endpoint.id), {
      as: admin,
      body: { active: true },
    });
    expect([res.status, res.body]).toEqual([
      200,
      {
        ...read.body,
        active: true,
        disabledReason: null,
        disabledAt: null,
        failingSince: null,
        updatedAt: expect.stringMatching(TIMESTAMP),
      },
    ]);
  });

  it('answers 404 for an endpoint that does not exist', async () => {
    expectError(
      await call(t.app, 'PATCH', webhookUrl(MISSING_ID), { as: admin, body: { active: true } }),
      notFoundBody('Webhook endpoint'),
    );
  });
});

describe('DELETE /orgs/:orgId/webhooks/:id', () => {
  it('deletes the endpoint with its deliveries (204)', async () => {
    const endpoint = await createEndpoint({ events: ['period.unlocked'] });
    await queue(org.id, clock.now(), 'period.unlocked');
    expect(await deliveriesOf(endpoint.id)).toHaveLength(1);

    const res = await call(t.app, 'DELETE', webhookUrl(endpoint.id), { as: admin });
    expect([res.status, res.body]).toEqual([204, null]);
    expect(await deliveriesOf(endpoint.id)).toEqual([]);
    expectError(
      await call(t.app, 'GET', webhookUrl(endpoint.id), { as: admin }),
      notFoundBody('Webhook endpoint'),
    );
    expectError(
      await call(t.app, 'DELETE', webhookUrl(endpoint.id), { as: admin }),
      notFoundBody('Webhook endpoint'),
    );
  });
});

describe('POST /orgs/:orgId/webhooks/:id/rotate-secret', () => {
  it('gives a new secret; the replaced one signs beside it for 24 hours, and only the last replaced one', async () => {
    const endpoint = await createEndpoint();
    const rotate = () => call(t.app, 'POST', `${webhookUrl(endpoint.id)}/rotate-secret`, { as: admin });
    const storedSecrets = async () => {
      const [row] = await t.database.db
        .select()
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.id, endpoint.id));
      const keyring = t.config.piiKeyring;
      return {
        secret: open(keyring, row!.secret),
        previous: row!.previousSecret && open(keyring, row!.previousSecret),
        until: row!.previousSecretUntil?.toISOString(),
      };
    };

    const first = await rotate();
    const until = new Date(clock.now().getTime() + DAY_MS).toISOString();
    const { secret: _created, ...before } = endpoint;
    expect([first.status, first.body]).toEqual([
      200,
      {
        ...before,
        secretRotatedUntil: until,
        updatedAt: expect.stringMatching(TIMESTAMP),
        secret: expect.stringMatching(SECRET),
      },
    ]);
    expect(first.body.secret).not.toBe(endpoint.secret);
    expect(await storedSecrets()).toEqual({ secret: first.body.secret, previous: endpoint.secret, until });

    const { secret: _new, ...shown } = first.body;
    expect((await call(t.app, 'GET', webhookUrl(endpoint.id), { as: admin })).body).toEqual(shown);

    clock.advance(60 * 60 * 1000);
    const second = await rotate();
    const secondUntil = new Date(clock.now().getTime() + DAY_MS).toISOString();
    expect(second.body).toMatchObject({
      secretRotatedUntil: secondUntil,
      secret: expect.stringMatching(SECRET),
    });
    expect(await storedSecrets()).toEqual({
      secret: second.body.secret,
      previous: first.body.secret,
      until: secondUntil,
    });

    // The overlap over, no previous secret is shown as signing.
    clock.advance(DAY_MS);
    expect(
      (await call(t.app, 'GET', webhookUrl(endpoint.id), { as: admin })).body.secretRotatedUntil,
    ).toBeNull();
  });

  it('answers 404 for an endpoint that does not exist', async () => {
    expectError(
      await call(t.app, 'POST', `${webhookUrl(MISSING_ID)}/rotate-secret`, { as: admin }),
      notFoundBody('Webhook endpoint'),
    );
  });
});

describe('GET /orgs/:orgId/webhooks/:id/deliveries', () => {
  it('lists deliveries newest first, by status, plain or paged', async () => {
    const endpoint = await createEndpoint({ events: ['participant.registered'] });
    const base = clock.now().getTime();
    for (const ago of [3000, 2000, 1000]) await queue(org.id, new Date(base - ago), 'participant.registered');
    const [oldest, middle, newest] = await deliveriesOf(endpoint.id);
    const attempt = new Date(base - 500);
    await t.database.db
      .update(webhookDeliveries)
      .set({
        status: 'succeeded',
        attempts: 2,
        statusCode: 200,
        durationMs: 42,
        response: 'ok',
        lastAttemptAt: attempt,
        deliveredAt: attempt,
      })
      .where(eq(webhookDeliveries.id, oldest!.id));
    await t.database.db
      .update(webhookDeliveries)
      .set({
        status: 'failed',
        attempts: 9,
        statusCode: 500,
        durationMs: 7,
        response: 'boom',
        error: 'HTTP 500',
        lastAttemptAt: attempt,
      })
      .where(eq(webhookDeliveries.id, middle!.id));

    const item = (row: typeof oldest) => ({
      id: row!.id,
      eventId: row!.eventId,
      eventType: 'participant.registered',
      status: 'pending',
      attempts: 0,
      statusCode: null,
      durationMs: null,
      response: null,
      error: null,
      lastAttemptAt: null,
      nextAttemptAt: row!.nextAttemptAt.toISOString(),
      deliveredAt: null,
      createdAt: row!.createdAt.toISOString(),
    });
    const expected = [
      item(newest),
      {
        ...item(middle),
        status: 'failed',
        attempts: 9,
        statusCode: 500,
        durationMs: 7,
        response: 'boom',
        error: 'HTTP 500',
        lastAttemptAt: attempt.toISOString(),
        nextAttemptAt: null,
      },
      {
        ...item(oldest),
        status: 'succeeded',
        attempts: 2,
        statusCode: 200,
        durationMs: 42,
        response: 'ok',
        lastAttemptAt: attempt.toISOString(),
        deliveredAt: attempt.toISOString(),
        nextAttemptAt: null,
      },
    ];
    const url = `${webhookUrl(endpoint.id)}/deliveries`;
    const all = await call(t.app, 'GET', url, { as: admin });
    expect([all.status, all.body]).toEqual([200, expected]);

    for (const [status, items] of [
      ['pending', [expected[0]]],
      ['failed', [expected[1]]],
      ['succeeded', [expected[2]]],
    ] as const) {
      expect((await call(t.app, 'GET', `${url}?status=${status}`, { as: admin })).body).toEqual(items);
    }

    const page = await call(t.app, 'GET', `${url}?page=1&limit=2`, { as: admin });
    expect(page.body).toEqual({
      data: expected.slice(0, 2),
      meta: { total: 3, page: 1, limit: 2, totalPages: 2 },
    });
    const filtered = await call(t.app, 'GET', `${url}?status=failed&page=1&limit=2`, { as: admin });
    expect(filtered.body).toEqual({
      data: [expected[1]],
      meta: { total: 1, page: 1, limit: 2, totalPages: 1 },
    });

    expectError(
      await call(t.app, 'GET', `${url}?status=lost`, { as: admin }),
      badRequestAt(['query', '/status', 'enum', 'status must be one of pending, succeeded, failed']),
    );
  });

  it('does not list the deliveries of the organization’s other endpoints', async () => {
    const [a, b] = [
      await createEndpoint({ events: ['report.published'] }),
      await createEndpoint({ events: ['period.locked'] }),
    ];
    await queue(org.id, clock.now(), 'report.published');
    const list = await call(t.app, 'GET', `${webhookUrl(b.id)}/deliveries`, { as: admin });
    expect(list.body).toEqual([]);
    expect((await call(t.app, 'GET', `${webhookUrl(a.id)}/deliveries`, { as: admin })).body).toHaveLength(1);
  });

  it('answers 404 for an endpoint that does not exist', async () => {
    expectError(
      await call(t.app, 'GET', `${webhookUrl(MISSING_ID)}/deliveries`, { as: admin }),
      notFoundBody('Webhook endpoint'),
    );
  });
});

describe('POST /orgs/:orgId/webhooks/:id/deliveries/:deliveryId/redeliver', () => {
  it('queues a new pending delivery of the same event, due now; the old one keeps its record (202)', async () => {
    const endpoint = await createEndpoint({ events: ['indicator_report.approved'] });
    await queue(org.id, new Date(clock.now().getTime() - DAY_MS), 'indicator_report.approved');
    const [earlier] = await deliveriesOf(endpoint.id);
    await t.database.db
      .update(webhookDeliveries)
      .set({ status: 'failed', attempts: 12, error: 'timeout', lastAttemptAt: clock.now() })
      .where(eq(webhookDeliveries.id, earlier!.id));
    const wake = vi.spyOn(t.app.webhooks, 'wake');

    const res = await call(t.app, 'POST', `${webhookUrl(endpoint.id)}/deliveries/${earlier!.id}/redeliver`, {
      as: admin,
    });
    const now = clock.now().toISOString();
    expect([res.status, res.body]).toEqual([
      202,
      {
        id: expect.stringMatching(UUID),
        eventId: earlier!.eventId,
        eventType: 'indicator_report.approved',
        status: 'pending',
        attempts: 0,
        statusCode: null,
        durationMs: null,
        response: null,
        error: null,
        lastAttemptAt: null,
        nextAttemptAt: now,
        deliveredAt: null,
        createdAt: now,
      },
    ]);
    expect(res.body.id).not.toBe(earlier!.id);
    expect(wake).toHaveBeenCalledOnce();
    wake.mockRestore();

    const list = await call(t.app, 'GET', `${webhookUrl(endpoint.id)}/deliveries`, { as: admin });
    expect(list.body.map((d: { id: string; status: string }) => [d.id, d.status])).toEqual([
      [res.body.id, 'pending'],
      [earlier!.id, 'failed'],
    ]);
  });

  it('answers 404 for a delivery of another endpoint, or none', async () => {
    const [a, b] = [await createEndpoint({ events: ['form_submission.created'] }), await createEndpoint()];
    await queue(org.id, clock.now(), 'form_submission.created');
    const [ofA] = await deliveriesOf(a.id);
    for (const deliveryId of [ofA!.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'POST', `${webhookUrl(b.id)}/deliveries/${deliveryId}/redeliver`, {
          as: admin,
        }),
        notFoundBody('Webhook delivery'),
      );
    }
    expectError(
      await call(t.app, 'POST', `${webhookUrl(MISSING_ID)}/deliveries/${ofA!.id}/redeliver`, {
        as: admin,
      }),
      notFoundBody('Webhook endpoint'),
    );
  });

  it('answers 409 when the endpoint is not active', async () => {
    const endpoint = await createEndpoint({ events: ['member.invited'] });
    await queue(org.id, clock.now(), 'member.invited');
    const [delivery] = await deliveriesOf(endpoint.id);
    await call(t.app, 'PATCH', webhookUrl(endpoint.id), { as: admin, body: { active: false } });
    expectError(
      await call(t.app, 'POST', `${webhookUrl(endpoint.id)}/deliveries/${delivery!.id}/redeliver`, {
        as: admin,
      }),
      conflictBody('Webhook endpoint is not active', 'invalid_transition'),
    );
    expect(await deliveriesOf(endpoint.id)).toHaveLength(1);
  });
});

describe('POST /orgs/:orgId/webhooks/:id/ping', () => {
  it('queues a ping event for this endpoint alone (202)', async () => {
    const endpoint = await createEndpoint({ events: [...WEBHOOK_EVENT_TYPES] }, { orgId: org.id, as: admin });
    const other = await createEndpoint({ events: [...WEBHOOK_EVENT_TYPES] }, { orgId: org.id, as: admin });
    const wake = vi.spyOn(t.app.webhooks, 'wake');

    const res = await call(t.app, 'POST', `${webhookUrl(endpoint.id, org.id)}/ping`, { as: admin });
    const now = clock.now();
    expect([res.status, res.body]).toEqual([
      202,
      {
        id: expect.stringMatching(UUID),
        eventId: expect.stringMatching(UUID),
        eventType: 'ping',
        status: 'pending',
        attempts: 0,
        statusCode: null,
        durationMs: null,
        response: null,
        error: null,
        lastAttemptAt: null,
        nextAttemptAt: now.toISOString(),
        deliveredAt: null,
        createdAt: now.toISOString(),
      },
    ]);
    expect(wake).toHaveBeenCalledOnce();
    wake.mockRestore();

    const [event] = await t.database.db
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.orgId, org.id), eq(webhookEvents.id, res.body.eventId)));
    expect(event!.type).toBe('ping');
    expect(JSON.parse(event!.body)).toEqual({
      type: 'ping',
      timestamp: now.toISOString(),
      data: { webhookId: endpoint.id },
    });
    expect(await deliveriesOf(other.id)).toEqual([]);
    const listed = await call(t.app, 'GET', `${webhookUrl(endpoint.id, org.id)}/deliveries`, { as: admin });
    expect(listed.body).toEqual([res.body]);
  });

  it('answers 409 when the endpoint is not active, 404 when there is none', async () => {
    const endpoint = await createEndpoint({ active: false });
    expectError(
      await call(t.app, 'POST', `${webhookUrl(endpoint.id)}/ping`, { as: admin }),
      conflictBody('Webhook endpoint is not active', 'invalid_transition'),
    );
    expect(await deliveriesOf(endpoint.id)).toEqual([]);
    expectError(
      await call(t.app, 'POST', `${webhookUrl(MISSING_ID)}/ping`, { as: admin }),
      notFoundBody('Webhook endpoint'),
    );
  });
});

describe('access', () => {
  let endpoint: { id: string };
  let deliveryId: string;
  const body = { url: 'https://hooks.example.org/x', events: ['member.invited'] };
  const routes = (id: string, delivery: string, orgId = team.org.id) =>
    [
      ['GET', webhooksUrl(orgId), undefined],
      ['POST', webhooksUrl(orgId), body],
      ['GET', webhookUrl(id, orgId), undefined],
      ['PATCH', webhookUrl(id, orgId), { description: 'mine now' }],
      ['DELETE', webhookUrl(id, orgId), undefined],
      ['POST', `${webhookUrl(id, orgId)}/rotate-secret`, undefined],
      ['GET', `${webhookUrl(id, orgId)}/deliveries`, undefined],
      ['POST', `${webhookUrl(id, orgId)}/deliveries/${delivery}/redeliver`, undefined],
      ['POST', `${webhookUrl(id, orgId)}/ping`, undefined],
    ] as const;

  beforeAll(async () => {
    endpoint = await createEndpoint({ events: ['member.invited'] }, { orgId: team.org.id, as: team.admin });
    await queue(team.org.id, clock.now(), 'member.invited');
    deliveryId = (await deliveriesOf(endpoint.id))[0]!.id;
  });

  it('answers 401 without a session', async () => {
    for (const [method, url, payload] of routes(endpoint.id, deliveryId)) {
      const res = await call(t.app, method, url, { body: payload });
      expect([method, url, res.status, res.body]).toEqual([method, url, 401, UNAUTHORIZED]);
    }
  });

  it('answers 403 to every role but org_admin, and to members of other organizations', async () => {
    for (const as of [team.officer, team.reporter, team.viewer, team.outsider]) {
      for (const [method, url, payload] of routes(endpoint.id, deliveryId)) {
        const res = await call(t.app, method, url, { as, body: payload });
        expect([method, url, res.status, res.body]).toEqual([method, url, 403, refusedTo(team, as, ADMINS)]);
      }
    }
  });

  it('answers 404 for another organization’s endpoint or delivery, through one’s own organization', async () => {
    const own = await createEndpoint({}, { orgId: team.outsiderOrg.id, as: team.outsider });
    const scoped = routes(endpoint.id, deliveryId, team.outsiderOrg.id).filter(([, url]) =>
      url.includes(endpoint.id),
    );
    for (const [method, url, payload] of scoped) {
      const res = await call(t.app, method, url, { as: team.outsider, body: payload });
      expect([method, url, res.status, res.body]).toEqual([
        method,
        url,
        404,
        notFoundBody('Webhook endpoint'),
      ]);
    }
    // The outsider's own endpoint with this organization's delivery.
    expectError(
      await call(
        t.app,
        'POST',
        `${webhookUrl(own.id, team.outsiderOrg.id)}/deliveries/${deliveryId}/redeliver`,
        {
          as: team.outsider,
        },
      ),
      notFoundBody('Webhook delivery'),
    );
    // Nothing changed here.
    const read = await call(t.app, 'GET', webhookUrl(endpoint.id, team.org.id), { as: team.admin });
    expect(read.body).toMatchObject({ description: null, active: true });
    expect(await deliveriesOf(endpoint.id)).toHaveLength(1);
  });
});
