/**
 * Issue 36, finding 12: the identity provider's success redirect carried the user's email and names in its
 * URL (`{FRONTEND_URL}/auth/callback?user={...}`), so they stayed in browser history and in the logs of
 * every proxy on the way. Now the redirect names the user by id only; the front end reads the rest from
 * `GET /auth/me` with the cookie the callback set. Failures still carry `error=<code>`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { registerUser, uniqueEmail } from '../helpers/factories.js';
import { call, TIMESTAMP, type Call } from '../helpers/http.js';
import {
  authorize,
  startProvider,
  type ProviderAccount,
  type TestProvider,
} from '../helpers/oidc-provider.js';
import { jwtCookie, withCookie } from '../helpers/sessions.js';

const REDIRECT_URI = 'http://api.test/auth/idp/callback';
const FRONTEND = 'http://front.test';

let op: TestProvider;
let t: TestApp;

beforeAll(async () => {
  op = await startProvider(REDIRECT_URI);
  t = await buildTestApp({
    OIDC_ISSUER: op.issuer,
    OIDC_CLIENT_ID: op.clientId,
    OIDC_CLIENT_SECRET: op.clientSecret,
    OIDC_REDIRECT_URI: REDIRECT_URI,
    FRONTEND_URL: FRONTEND,
  });
});
afterAll(async () => {
  await t?.close();
  await op?.close();
});

/** The whole flow at the provider for one account (null: the user denies); the callback's answer. */
async function signIn(who: ProviderAccount | null): Promise<Call> {
  op.signInAs(who);
  const start = await call(t.app, 'GET', '/auth/idp');
  expect(start.status).toBe(302);
  const flow = String(start.headers['set-cookie']).match(/idp_flow=([^;]+)/)![1]!;
  const back = await authorize(String(start.headers.location));
  return call(t.app, 'GET', `${back.pathname}${back.search}`, { headers: { cookie: `idp_flow=${flow}` } });
}

/** Where the browser is sent: the front end's /auth/callback, and the URL's text decoded for searching. */
function landing(res: Call): { to: URL; text: string } {
  expect(res.status).toBe(302);
  const to = new URL(String(res.headers.location));
  expect(`${to.origin}${to.pathname}`).toBe(`${FRONTEND}/auth/callback`);
  return { to, text: decodeURIComponent(to.href.replaceAll('+', ' ')).toLowerCase() };
}

describe('finding 12: the identity provider redirect carries no personal data', () => {
  it('sends a new user to the front end by id only; GET /auth/me gives their email and names', async () => {
    const email = uniqueEmail('Idp.Private');
    const res = await signIn({
      sub: `subject-${Math.random().toString(36).slice(2)}`,
      email,
      email_verified: true,
      given_name: 'Hedwig',
      family_name: 'Kiesewetter',
    });
    const { to, text } = landing(res);
    for (const personal of [
      email.toLowerCase(),
      email.split('@')[0]!.toLowerCase(),
      'hedwig',
      'kiesewetter',
    ]) {
      expect(text).not.toContain(personal);
    }
    // The parameter the contract names stays, with what identifies nobody outside the service.
    expect([...to.searchParams.keys()]).toEqual(['user']);
    const named = JSON.parse(to.searchParams.get('user')!) as Record<string, unknown>;
    expect(named).toEqual({ id: expect.any(String), createdAt: expect.stringMatching(TIMESTAMP) });

    const me = await call(t.app, 'GET', '/auth/me', withCookie(jwtCookie(res).value));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: named.id,
      email: email.toLowerCase(),
      firstName: 'Hedwig',
      lastName: 'Kiesewetter',
      createdAt: named.createdAt,
    });
  });

  it('names nobody when an existing account is linked by email either', async () => {
    const member = await registerUser(t.app, { firstName: 'Ottilie', lastName: 'Wunderlich' });
    const res = await signIn({
      sub: `subject-${Math.random().toString(36).slice(2)}`,
      email: member.email,
      email_verified: true,
      given_name: 'Someone',
      family_name: 'Else',
    });
    const { to, text } = landing(res);
    for (const personal of [member.email.toLowerCase(), 'ottilie', 'wunderlich', 'someone']) {
      expect(text).not.toContain(personal);
    }
    expect(JSON.parse(to.searchParams.get('user')!)).toEqual({
      id: member.id,
      createdAt: expect.stringMatching(TIMESTAMP),
    });
  });

  it('still sends failures to the front end with error=<code> and nothing else', async () => {
    const { to } = landing(await signIn(null));
    expect([...to.searchParams.entries()]).toEqual([['error', 'access_denied']]);
  });
});
