import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Db } from '../../db/client.js';
import type { Session } from './access.js';
import { registerIdempotency, RELEASE_RETRY_MS, type IdempotencyKeys } from './idempotency.js';

/** Keys whose release fails while `down` (the database out of reach), recording every attempt. */
function flakyKeys() {
  const state = { down: true, releases: 0, released: [] as string[] };
  const keys: IdempotencyKeys = {
    claim: async () => ({ kind: 'claimed', claimId: 'claim-1' }),
    mark: async () => true,
    complete: async () => undefined,
    release: async (_db, _request, claimId) => {
      state.releases += 1;
      if (state.down)
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      state.released.push(claimId);
    },
  };
  return { keys, state };
}

async function appWith(keys: IdempotencyKeys, takeOverSeconds = 300): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.decorateRequest('session', null);
  app.addHook('onRequest', async (request) => {
    request.session = { userId: 'u1' } as Session;
  });
  registerIdempotency(app, {} as Db, keys, { takeOverSeconds });
  app.post('/things', { config: { access: 'signed-in', idempotency: 'user' } }, async () => {
    throw Object.assign(new Error('Connection terminated unexpectedly'), { statusCode: 503 });
  });
  await app.ready();
  return app;
}

const keyed = (app: FastifyInstance) =>
  app.inject({ method: 'POST', url: '/things', headers: { 'idempotency-key': 'k-1' }, payload: { a: 1 } });

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** Fake clocks, and retries at exactly RELEASE_RETRY_MS (no added spread). */
function fakeTime() {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.spyOn(Math, 'random').mockReturnValue(0);
}

describe('a keyed request whose claim could not be released', () => {
  it('is released in the background once the database answers again', async () => {
    fakeTime();
    const { keys, state } = flakyKeys();
    const app = await appWith(keys);
    expect((await keyed(app)).statusCode).toBe(503);
    expect(state.releases).toBe(1);

    await vi.advanceTimersByTimeAsync(RELEASE_RETRY_MS);
    expect(state.releases).toBe(2);
    state.down = false;
    await vi.advanceTimersByTimeAsync(RELEASE_RETRY_MS);
    expect(state.releases).toBe(3);
    expect(state.released).toEqual(['claim-1']);
    // Released once: nothing more is tried.
    await vi.advanceTimersByTimeAsync(10 * RELEASE_RETRY_MS);
    expect(state.releases).toBe(3);
    await app.close();
  });

  it('is left for a take-over once that time has passed, and no longer tried when the app closes', async () => {
    fakeTime();
    const { keys, state } = flakyKeys();
    const app = await appWith(keys, 12);
    await keyed(app);
    await vi.advanceTimersByTimeAsync(60_000);
    // At 0 s, then 5 s and 10 s (a retry might come up to 6 s later); the claim can be taken over at 12 s.
    expect(state.releases).toBe(3);

    const other = flakyKeys();
    const closing = await appWith(other.keys);
    await keyed(closing);
    await closing.close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(other.state.releases).toBe(1);
    await app.close();
  });
});
