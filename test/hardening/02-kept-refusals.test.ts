/**
 * Issue 36, finding 2: a refused public submission with an `Idempotency-Key` kept its whole (16 MB) error
 * answer for 24 hours: four requests grew the database by 88 MB. Of the public form scope only a 201 is
 * kept now, and of any request that committed nothing, no answer over KEPT_ANSWER_MAX_BYTES (its claim is
 * released instead). An answer to a write that committed is always kept.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/client.js';
import { transaction } from '../../src/db/client.js';
import type { Session } from '../../src/http/pipeline/access.js';
import {
  KEPT_ANSWER_MAX_BYTES,
  registerIdempotency,
  type IdempotencyKeys,
} from '../../src/http/pipeline/idempotency.js';
import { idempotencyKeys } from '../../src/modules/idempotency/idempotency.tables.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProject, createTeam, type Team } from '../helpers/factories.js';
import { answers, publishedForm, submitUrl, type FormJson } from '../helpers/forms.js';

let t: TestApp;
let team: Team;
let form: FormJson;

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
  const project = await createProject(t.database.db, team.org.id);
  form = await publishedForm(t.app, team.admin, team.org.id, { projectId: project.id });
});
afterAll(() => t.close());

const keptFor = (token: string) =>
  t.database.db
    .select()
    .from(idempotencyKeys)
    .where(eq(idempotencyKeys.scope, `form:${token}`));

const submit = (key: string, payload: unknown) =>
  t.app.inject({
    method: 'POST',
    url: submitUrl(form.publicToken),
    headers: { 'idempotency-key': key, 'content-type': 'application/json' },
    payload: JSON.stringify(payload),
  });

describe('public submissions with a key', () => {
  it('four refused bodies leave nothing kept, and the same key runs again', async () => {
    for (const key of ['r1', 'r2', 'r3', 'r4']) {
      const res = await submit(key, { answers: { name: 'x'.repeat(600_000) } });
      expect(res.statusCode).toBe(400);
    }
    expect(await keptFor(form.publicToken)).toEqual([]);
    // Not a replay of the refusal, and not a 422 for another body: the key is free.
    const ok = await submit('r1', { answers: answers() });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.headers['idempotent-replayed']).toBeUndefined();
    const kept = await keptFor(form.publicToken);
    expect(kept.map((row) => [row.key, row.state, row.status])).toEqual([['r1', 'completed', 201]]);
    const again = await submit('r1', { answers: answers() });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().id).toBe(ok.json().id);
  });

  it('a 404 (an unknown token) keeps nothing either', async () => {
    const unknown = '0190f5f4-0000-7000-8000-000000000000';
    const res = await t.app.inject({
      method: 'POST',
      url: submitUrl(unknown),
      headers: { 'idempotency-key': 'nf-1' },
      payload: { answers: answers() },
    });
    expect(res.statusCode).toBe(404);
    expect(
      await t.database.db.select().from(idempotencyKeys).where(like(idempotencyKeys.key, 'nf-%')),
    ).toEqual([]);
  });
});

/** Keys that record what the hook asks of them; `mark` says the claim is still this request's. */
function recordingKeys() {
  const calls: string[] = [];
  const keys: IdempotencyKeys = {
    claim: async () => ({ kind: 'claimed', claimId: 'c1' }),
    mark: async () => {
      calls.push('mark');
      return true;
    },
    complete: async (_db, _request, _claim, answer) => void calls.push(`complete ${answer.status}`),
    release: async () => void calls.push('release'),
  };
  return { keys, calls };
}

async function appWith(keys: IdempotencyKeys, db: Db): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.decorateRequest('session', null);
  app.decorateRequest('member', null);
  app.addHook('onRequest', async (request) => {
    request.session = { userId: 'u1' } as Session;
  });
  registerIdempotency(app, db, keys, { takeOverSeconds: 300 });
  const big = 'x'.repeat(KEPT_ANSWER_MAX_BYTES + 1);
  // A refusal that committed nothing, and a success whose write committed, both over the size.
  app.post('/refused', { config: { access: 'signed-in', idempotency: 'user' } }, async (_request, reply) =>
    reply.status(409).send({ message: big }),
  );
  app.post('/created', { config: { access: 'signed-in', idempotency: 'user' } }, async (_request, reply) => {
    await transaction(db, async () => undefined);
    return reply.status(201).send({ message: big });
  });
  app.post('/small', { config: { access: 'signed-in', idempotency: 'user' } }, async (_request, reply) =>
    reply.status(409).send({ message: 'small' }),
  );
  await app.ready();
  return app;
}

describe('the size of a kept answer', () => {
  const keyed = (app: FastifyInstance, url: string) =>
    app.inject({ method: 'POST', url, headers: { 'idempotency-key': 'k' }, payload: {} });

  it(`a refusal over ${KEPT_ANSWER_MAX_BYTES} bytes is not kept: its claim is released`, async () => {
    const { keys, calls } = recordingKeys();
    const app = await appWith(keys, t.database.db);
    expect((await keyed(app, '/refused')).statusCode).toBe(409);
    expect(calls).toEqual(['release']);
    await app.close();
  });

  it('a small refusal is kept as before', async () => {
    const { keys, calls } = recordingKeys();
    const app = await appWith(keys, t.database.db);
    expect((await keyed(app, '/small')).statusCode).toBe(409);
    expect(calls).toEqual(['complete 409']);
    await app.close();
  });

  it('the answer to a committed write is kept whatever its size, marked in its transaction first', async () => {
    const { keys, calls } = recordingKeys();
    const app = await appWith(keys, t.database.db);
    expect((await keyed(app, '/created')).statusCode).toBe(201);
    expect(calls).toEqual(['mark', 'complete 201']);
    await app.close();
  });
});

describe('a key whose write committed and whose answer is not recorded', () => {
  async function answerTo(lost: boolean) {
    const keys: IdempotencyKeys = {
      ...recordingKeys().keys,
      claim: async () => ({ kind: 'committed', lost }),
    };
    const app = await appWith(keys, t.database.db);
    const res = await app.inject({
      method: 'POST',
      url: '/created',
      headers: { 'idempotency-key': 'k' },
      payload: {},
    });
    await app.close();
    return res;
  }

  it('is still running (Retry-After: 1) while its answer may yet be recorded', async () => {
    const res = await answerTo(false);
    expect(res.statusCode).toBe(409);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json().code).toBe('idempotency_in_progress');
  });

  it('past the take-over time: 409 idempotency_answer_lost, no Retry-After, never run again', async () => {
    const res = await answerTo(true);
    expect(res.statusCode).toBe(409);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.json()).toMatchObject({
      code: 'idempotency_answer_lost',
      message: expect.stringContaining('read the resource instead of retrying'),
    });
  });
});
