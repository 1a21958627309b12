import type { FastifyRequest } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../config.js';
import { Sessions } from './session.js';

const config = loadConfig({
  NODE_ENV: 'test',
  JWT_SECRET: 'a-test-secret-of-at-least-32-characters',
  JWT_EXPIRY: '60',
});
const subject = { userId: 'u1', email: 'a@example.org', organizationId: null, role: null };
const bearer = (token: string) =>
  ({ headers: { authorization: `Bearer ${token}` }, cookies: {} }) as unknown as FastifyRequest;

afterEach(() => {
  vi.useRealTimers();
});

describe('Sessions.read with verified tokens remembered', () => {
  it('refuses a token it verified before once the token has expired', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-26T10:00:00Z'));
    const sessions = new Sessions(config);
    const { accessToken } = await sessions.issue(subject);
    expect((await sessions.read(bearer(accessToken)))?.claims.sub).toBe('u1');
    vi.setSystemTime(new Date('2026-11-26T10:00:59Z'));
    expect((await sessions.read(bearer(accessToken)))?.claims.sub).toBe('u1');
    vi.setSystemTime(new Date('2026-11-26T10:01:01Z'));
    expect(await sessions.read(bearer(accessToken))).toBeNull();
  });

  it('refuses a token whose signature does not hold, however often it is presented', async () => {
    const sessions = new Sessions(config);
    const { accessToken } = await sessions.issue(subject);
    const [header, payload, signature] = accessToken.split('.');
    const forged = `${header}.${payload}.${signature!.slice(0, -2)}${signature!.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await sessions.read(bearer(accessToken)))?.claims.sub).toBe('u1');
    for (let i = 0; i < 3; i++) expect(await sessions.read(bearer(forged))).toBeNull();
    const other = new Sessions(
      loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'another-secret-of-at-least-32-characters' }),
    );
    expect(await other.read(bearer(accessToken))).toBeNull();
  });
});
