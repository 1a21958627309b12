import { createServer } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createOrg, registerUser, uniqueEmail } from '../../../test/helpers/factories.js';
import { call, TIMESTAMP, type Call } from '../../../test/helpers/http.js';
import {
  authorize,
  startProvider,
  type ProviderAccount,
  type TestProvider,
} from '../../../test/helpers/oidc-provider.js';
import { claimsOf, jwtCookie, withCookie } from '../../../test/helpers/sessions.js';
import { externalIdentities, users } from './auth.tables.js';

const REDIRECT_URI = 'http://api.test/auth/idp/callback';
const FRONTEND = 'http://front.test';
const INVALID_LOGIN = {
  statusCode: 401,
  message: 'Invalid email or password',
  error: 'Unauthorized',
  code: 'invalid_credentials' as const,
};

let op: TestProvider;
let t: TestApp;

const oidcEnv = (issuer: string) => ({
  OIDC_ISSUER: issuer,
  OIDC_CLIENT_ID: op.clientId,
  OIDC_CLIENT_SECRET: op.clientSecret,
  OIDC_REDIRECT_URI: REDIRECT_URI,
  FRONTEND_URL: FRONTEND,
});

beforeAll(async () => {
  op = await startProvider(REDIRECT_URI);
  t = await buildTestApp(oidcEnv(op.issuer));
});
afterAll(async () => {
  await t?.close();
  await op?.close();
});

let counter = 0;
function account(overrides: Partial<ProviderAccount> = {}): ProviderAccount {
  counter += 1;
  return {
    sub: `subject-${counter}-${Math.random().toString(36).slice(2, 8)}`,
    email: uniqueEmail('idp'),
    email_verified: true,
    given_name: 'Grace',
    family_name: 'Hopper',
    ...overrides,
  };
}

function setCookies(res: Call): string[] {
  const raw = res.headers['set-cookie'];
  return Array.isArray(raw) ? raw : raw ? [raw] : [];
}

function flowCookieOf(res: Call): string {
  const line = setCookies(res).find((c) => c.startsWith('idp_flow='));
  if (!line) throw new Error('no idp_flow cookie set');
  return line.slice('idp_flow='.length).split(';')[0]!;
}

/** GET /auth/idp: the provider's authorization URL and the flow cookie. */
async function begin() {
  const res = await call(t.app, 'GET', '/auth/idp');
  expect(res.status).toBe(302);
  return { res, location: new URL(String(res.headers.location)), flow: flowCookieOf(res) };
}

/** The provider's redirect back, handed to the app's callback with the given flow cookie. */
function callback(back: URL, flow: string | null) {
  return call(t.app, 'GET', `${back.pathname}${back.search}`, {
    headers: flow === null ? {} : { cookie: `idp_flow=${flow}` },
  });
}

/**
 * Where the callback sent the browser: the front end's /auth/callback with `user` (its id only) or `error`.
 * The user is what the front end then reads from GET /auth/me with the cookie set.
 */
async function landing(res: Call): Promise<{ user?: Record<string, unknown>; error?: string | null }> {
  expect(res.status).toBe(302);
  const to = new URL(String(res.headers.location));
  expect(`${to.origin}${to.pathname}`).toBe(`${FRONTEND}/auth/callback`);
  const named = to.searchParams.get('user');
  if (!named) return { error: to.searchParams.get('error') };
  const { id, createdAt } = JSON.parse(named) as Record<string, unknown>;
  expect(JSON.parse(named)).toEqual({ id, createdAt });
  const me = await call(t.app, 'GET', '/auth/me', withCookie(jwtCookie(res).value));
  expect(me.status).toBe(200);
  const { email, firstName, lastName } = me.body as Record<string, unknown>;
  expect(me.body).toMatchObject({ id, createdAt });
  return { user: { id, email, firstName, lastName, createdAt } };
}

/** The whole flow for one account at the provider (null: the user denies). */
async function signIn(who: ProviderAccount | null) {
  op.signInAs(who);
  const { flow, location } = await begin();
  const back = await authorize(location.href);
  const res = await callback(back, flow);
  return { res, back, flow, ...(await landing(res)) };
}

const usersWithEmail = (email: string) => t.database.db.select().from(users).where(eq(users.email, email));
const identitiesOf = (userId: string) =>
  t.database.db.select().from(externalIdentities).where(eq(externalIdentities.userId, userId));

function expectNoSession(res: Call) {
  expect(setCookies(res).some((c) => c.startsWith('jwt='))).toBe(false);
}

describe('GET /auth/idp', () => {
  it('redirects to the provider with code flow, PKCE S256, state and nonce, kept in a short-lived HttpOnly cookie', async () => {
    const { res, location, flow } = await begin();
    expect(`${location.origin}`).toBe(op.issuer);
    const params = location.searchParams;
    expect(params.get('response_type')).toBe('code');
    expect(params.get('client_id')).toBe(op.clientId);
    expect(params.get('redirect_uri')).toBe(REDIRECT_URI);
    expect(params.get('scope')).toBe('openid email profile');
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(params.get('nonce')).toMatch(/^[A-Za-z0-9_-]{20,}$/);

    const line = setCookies(res).find((c) => c.startsWith('idp_flow='))!;
    const attributes = line
      .split(';')
      .slice(1)
      .map((a) => a.trim())
      .sort();
    expect(attributes).toEqual(['HttpOnly', 'Max-Age=600', 'Path=/auth/idp/callback', 'SameSite=Lax']);
    // The flow is signed, and neither the verifier nor anything else is readable as a session.
    expect(flow.split('.')).toHaveLength(3);
    expect(JSON.stringify(claimsOf(flow))).not.toContain(params.get('code_challenge')!);
    expectNoSession(res);
    const again = await begin();
    expect(again.location.searchParams.get('state')).not.toBe(params.get('state'));
  });

  it('sends the browser back with error=provider_unavailable when the provider cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const away = await buildTestApp(oidcEnv(`http://127.0.0.1:${port}`), {
      database: t.database,
      worker: false,
    });
    try {
      const res = await call(away.app, 'GET', '/auth/idp');
      expect(await landing(res)).toEqual({ error: 'provider_unavailable' });
      expect(setCookies(res)).toEqual([]);
    } finally {
      await away.close();
    }
  });

  it('marks the flow cookie Secure when BASE_URL is https', async () => {
    const https = await buildTestApp(
      { ...oidcEnv(op.issuer), BASE_URL: 'https://api.test' },
      { database: t.database, worker: false },
    );
    try {
      const res = await call(https.app, 'GET', '/auth/idp');
      expect(res.status).toBe(302);
      expect(setCookies(res).find((c) => c.startsWith('idp_flow='))).toContain('Secure');
    } finally {
      await https.close();
    }
  });
});

describe('GET /auth/idp/callback', () => {
  it('creates a user without a password, sets the session cookie and sends the user to the front end', async () => {
    const who = account({ email: uniqueEmail('New.Person').toUpperCase() });
    const email = who.email.toLowerCase();
    const { res, user } = await signIn(who);
    expect(user).toEqual({
      id: expect.any(String),
      email,
      firstName: 'Grace',
      lastName: 'Hopper',
      createdAt: expect.stringMatching(TIMESTAMP),
    });
    const cookie = jwtCookie(res);
    expect(cookie.attributes).toEqual(['HttpOnly', 'Max-Age=604800', 'Path=/', 'SameSite=Lax']);
    expect(claimsOf(cookie.value)).toMatchObject({ sub: user!.id, email, organizationId: null, role: null });
    expect(setCookies(res).find((c) => c.startsWith('idp_flow='))).toMatch(
      /Max-Age=0|Expires=Thu, 01 Jan 1970/,
    );

    const mine = await call(t.app, 'GET', '/auth/me', withCookie(cookie.value));
    expect(mine.status).toBe(200);
    // The provider verified the address: the account starts with it proven.
    expect(mine.body).toEqual({
      ...user,
      emailVerified: true,
      memberships: [],
      notifications: { reminders: true },
      locale: null,
    });

    const [row] = await usersWithEmail(email);
    expect(row!.passwordHash).toBeNull();
    expect(await identitiesOf(user!.id as string)).toEqual([
      { issuer: op.issuer, subject: who.sub, userId: user!.id, email, createdAt: expect.any(Date) },
    ]);
    // No password: password sign-in is refused like a wrong password.
    const login = await call(t.app, 'POST', '/auth/login', {
      body: { email, password: 'correct horse battery' },
    });
    expect(login.status).toBe(401);
    expect(login.body).toEqual(INVALID_LOGIN);
  });

  it('finds the same user on the next sign-in, by subject even after the email changed at the provider', async () => {
    const who = account();
    const first = await signIn(who);
    const second = await signIn(who);
    expect(second.user).toEqual(first.user);
    const changed = await signIn({ ...who, email: uniqueEmail('renamed') });
    expect(changed.user).toEqual(first.user);
    expect(await usersWithEmail(who.email)).toHaveLength(1);
    expect(await identitiesOf(first.user!.id as string)).toHaveLength(1);
  });

  it('links an existing user by email; a password set before is removed with its sessions; the session lands in their org', async () => {
    const member = await registerUser(t.app, { firstName: 'Ada', lastName: 'Lovelace' });
    const org = await createOrg(t.app, member);
    const before = await call(t.app, 'POST', '/auth/token', {
      body: { email: member.email, password: member.password },
    });
    expect(before.status).toBe(200);
    const { res, user } = await signIn(account({ email: member.email.toUpperCase(), given_name: 'Other' }));
    expect(user).toMatchObject({
      id: member.id,
      email: member.email,
      firstName: 'Ada',
      lastName: 'Lovelace',
    });
    const session = jwtCookie(res).value;
    expect(claimsOf(session)).toMatchObject({ sub: member.id, organizationId: org.id, role: 'org_admin' });
    expect(await identitiesOf(member.id)).toHaveLength(1);
    expect(await usersWithEmail(member.email)).toHaveLength(1);

    // Registration never proved the email: whoever chose that password loses it and its sessions.
    const [row] = await usersWithEmail(member.email);
    expect(row!.passwordHash).toBeNull();
    const login = await call(t.app, 'POST', '/auth/login', {
      body: { email: member.email, password: member.password },
    });
    expect(login.status).toBe(401);
    expect(login.body).toEqual(INVALID_LOGIN);
    const old = await call(t.app, 'GET', '/auth/me', { as: { token: before.body.accessToken } });
    expect(old.status).toBe(401);
    const mine = await call(t.app, 'GET', '/auth/me', withCookie(session));
    expect(mine.status).toBe(200);
    expect(mine.body.memberships).toHaveLength(1);

    // A later sign-in finds them by subject and changes nothing more.
    const again = await signIn(
      account({ sub: (await identitiesOf(member.id))[0]!.subject, email: member.email }),
    );
    expect(again.user).toMatchObject({ id: member.id });
  });

  it('leaves other password users alone', async () => {
    const bystander = await registerUser(t.app);
    await signIn(account());
    const login = await call(t.app, 'POST', '/auth/login', {
      body: { email: bystander.email, password: bystander.password },
    });
    expect(login.status).toBe(200);
    expect((await call(t.app, 'GET', '/auth/me', { as: bystander })).status).toBe(200);
  });

  it('takes the names from `name` when given and family names are missing', async () => {
    const { user } = await signIn(account({ given_name: undefined, family_name: undefined }));
    // The test provider derives `name` from given and family names: without them only the email is left.
    expect(user).toMatchObject({ firstName: expect.stringMatching(/^idp-/), lastName: '' });
  });

  it('refuses an unverified email: error=email_not_verified, no user, no session', async () => {
    const who = account({ email_verified: false });
    const { res, error } = await signIn(who);
    expect(error).toBe('email_not_verified');
    expectNoSession(res);
    expect(await usersWithEmail(who.email)).toEqual([]);
  });

  it('passes on a denied consent: error=access_denied, no session', async () => {
    const { res, error } = await signIn(null);
    expect(error).toBe('access_denied');
    expectNoSession(res);
  });

  it('refuses a state that does not match the flow: error=invalid_state, no user', async () => {
    const who = account();
    op.signInAs(who);
    const { flow, location } = await begin();
    const back = await authorize(location.href);
    back.searchParams.set('state', 'forged-state-value-0123456789');
    const res = await callback(back, flow);
    expect(await landing(res)).toEqual({ error: 'invalid_state' });
    expectNoSession(res);
    expect(await usersWithEmail(who.email)).toEqual([]);
  });

  it("refuses a callback without the flow cookie, with another flow's cookie, or with a forged one", async () => {
    const who = account();
    op.signInAs(who);
    const { flow, location } = await begin();
    const other = await begin();
    const back = await authorize(location.href);
    // The other flow's cookie with this flow's state put in: its signature no longer matches.
    const [header, , signature] = other.flow.split('.');
    const payload = { ...claimsOf(other.flow), state: back.searchParams.get('state') };
    const forged = `${header}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;
    for (const cookie of [null, other.flow, forged, 'not-a-jwt']) {
      const res = await callback(back, cookie);
      expect(await landing(res)).toEqual({ error: 'invalid_state' });
      expectNoSession(res);
    }
    expect(await usersWithEmail(who.email)).toEqual([]);
    // The right cookie still completes the flow: the code was not spent by the refused attempts.
    expect((await landing(await callback(back, flow))).user).toMatchObject({ email: who.email });
  });

  it('refuses a replayed code: error=invalid_grant, no second session', async () => {
    const { back, flow, user } = await signIn(account());
    expect(user).toBeDefined();
    const replay = await callback(back, flow);
    expect(await landing(replay)).toEqual({ error: 'invalid_grant' });
    expectNoSession(replay);
  });

  it('refuses a callback without a code', async () => {
    op.signInAs(account());
    const { flow, location } = await begin();
    const back = await authorize(location.href);
    back.searchParams.delete('code');
    const res = await callback(back, flow);
    expect((await landing(res)).error).toMatch(/^[a-z_]+$/);
    expectNoSession(res);
  });
});
