import { SignJWT } from 'jose';
import { v7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { registerUser, uniqueCode, uniqueEmail } from '../../../test/helpers/factories.js';
import {
  call,
  sessionCookie,
  UNAUTHORIZED,
  TIMESTAMP,
  badRequest,
  expectError,
  expectViolations,
} from '../../../test/helpers/http.js';
import { b64, claimsOf, jwtCookie, part, withCookie } from '../../../test/helpers/sessions.js';
import { users } from './auth.tables.js';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const WEEK = 604_800;
const PASSWORD = 'correct horse battery';
const INVALID_LOGIN = {
  statusCode: 401,
  message: 'Invalid email or password',
  error: 'Unauthorized',
  code: 'invalid_credentials' as const,
};

const COOKIE = ['HttpOnly', `Max-Age=${WEEK}`, 'Path=/', 'SameSite=Lax'];
const login = (email: string, password: string) =>
  call(t.app, 'POST', '/auth/login', { body: { email, password } });
const me = (token: string) => call(t.app, 'GET', '/auth/me', { as: { token } });
const register = (fields: Record<string, unknown> = {}, app = t.app) =>
  call(app, 'POST', '/auth/register', {
    body: { email: uniqueEmail(), password: PASSWORD, firstName: 'A', lastName: 'B', ...fields },
  });

describe('POST /auth/register', () => {
  it('creates the account: 201 user, a session cookie with the contract attributes', async () => {
    const email = uniqueEmail();
    const res = await register({ email, firstName: 'Amina', lastName: 'Okafor' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      email,
      firstName: 'Amina',
      lastName: 'Okafor',
      createdAt: expect.stringMatching(TIMESTAMP),
    });
    const cookie = jwtCookie(res);
    expect(cookie.attributes).toEqual(COOKIE);
    expect(claimsOf(cookie.value).sub).toBe(res.body.id);
    const mine = await call(t.app, 'GET', '/auth/me', withCookie(cookie.value));
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual({
      ...res.body,
      emailVerified: false,
      memberships: [],
      notifications: { reminders: true },
      locale: null,
    });
  });

  it('marks the cookie Secure when BASE_URL is https', async () => {
    const https = await buildTestApp({ BASE_URL: 'https://api.test' }, { database: t.database });
    try {
      const res = await register({}, https.app);
      expect(res.status).toBe(201);
      expect(jwtCookie(res).attributes).toEqual([...COOKIE, 'Secure']);
    } finally {
      await https.close();
    }
  });

  it('trims and lower-cases the email; the same address in another case is a 409', async () => {
    const email = uniqueEmail('mixed');
    const res = await register({ email: `  ${email.toUpperCase()} ` });
    expect(res.status).toBe(201);
    expect(res.body.email).toBe(email);
    expect(claimsOf(sessionCookie(res)!).email).toBe(email);

    const again = await register({ email: ` ${email.replace(/^m/, 'M')}`, password: 'another password' });
    expectError(again, {
      statusCode: 409,
      message: 'A user with this email already exists',
      error: 'Conflict',
      code: 'duplicate',
    });
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  it('accepts passwords of 8 and 128 characters and refuses 7 and 129', async () => {
    expect((await register({ password: 'x'.repeat(8) })).status).toBe(201);
    expect((await register({ password: 'x'.repeat(128) })).status).toBe(201);
    expectError(
      await register({ password: 'x'.repeat(7) }),
      badRequest('password must be at least 8 characters'),
    );
    expectError(
      await register({ password: 'x'.repeat(129) }),
      badRequest('password must be at most 128 characters'),
    );
  });

  it('refuses a password equal to the email, however it is typed', async () => {
    const email = uniqueEmail();
    for (const password of [email, email.toUpperCase()]) {
      const res = await register({ email: email.toUpperCase(), password });
      expectError(res, badRequest('password must not be the same as the email'));
    }
    expectError(await login(email, email), INVALID_LOGIN);
  });

  it('names each missing field, and refuses unknown properties, bad emails and empty names', async () => {
    const empty = await call(t.app, 'POST', '/auth/register', { body: {} });
    expectError(
      empty,
      badRequest(
        'email is required',
        'password is required',
        'firstName is required',
        'lastName is required',
      ),
    );
    const bad = await register({ email: 'not-an-email', firstName: '', role: 'org_admin' });
    expectViolations(
      bad,
      'email must be an email',
      'firstName should not be empty',
      'property role should not exist',
    );
  });

  it('refuses names made only of spaces, which would be stored empty once trimmed', async () => {
    const res = await register({ firstName: '   ', lastName: ' ' });
    expectViolations(res, 'firstName should not be empty', 'lastName should not be empty');
  });
});

describe('POST /auth/login', () => {
  it('returns the user and sets the session cookie', async () => {
    const user = await registerUser(t.app);
    const res = await login(` ${user.email.toUpperCase()}`, user.password);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: user.id,
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      createdAt: expect.stringMatching(TIMESTAMP),
    });
    const cookie = jwtCookie(res);
    expect(cookie.attributes).toEqual(COOKIE);
    expect(claimsOf(cookie.value)).toMatchObject({ sub: user.id, organizationId: null, role: null });
    expect((await me(cookie.value)).status).toBe(200);
  });

  it('gives the same 401 body for a wrong password and an unknown email, and sets no cookie', async () => {
    const user = await registerUser(t.app);
    const wrong = await login(user.email, 'not the password');
    const unknown = await login(uniqueEmail('nobody'), user.password);
    for (const res of [wrong, unknown]) {
      expectError(res, INVALID_LOGIN);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('refuses an account without a password (created through the identity provider)', async () => {
    const email = uniqueEmail('idp');
    await t.database.db.insert(users).values({ email, passwordHash: null, firstName: 'I', lastName: 'P' });
    const res = await call(t.app, 'POST', '/auth/login', { body: { email, password: PASSWORD } });
    expectError(res, INVALID_LOGIN);
  });

  it('validates the body', async () => {
    const res = await call(t.app, 'POST', '/auth/login', { body: { email: 'x', remember: true } });
    expectViolations(
      res,
      'email must be an email',
      'password is required',
      'property remember should not exist',
    );
  });
});

describe('session token', () => {
  it('carries exactly sub, email, organizationId, role, iat, exp, jti; HS256; org set after POST /orgs', async () => {
    const user = await registerUser(t.app);
    expect(part(user.token, 0)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = claimsOf(user.token);
    // Exactly these claims: toStrictEqual fails on any other.
    expect(claims).toStrictEqual({
      sub: user.id,
      email: user.email,
      organizationId: null,
      role: null,
      iat: expect.any(Number),
      exp: (claims.iat as number) + WEEK,
      jti: expect.stringMatching(UUID),
    });

    const org = await call(t.app, 'POST', '/orgs', {
      as: user,
      body: { name: 'N', code: uniqueCode() },
    });
    expect(org.status).toBe(201);
    const after = claimsOf(sessionCookie(org)!);
    expect(after).toMatchObject({ sub: user.id, organizationId: org.body.id, role: 'org_admin' });
    expect(after.jti).not.toBe(claims.jti);

    // A later sign-in lands in that organization too.
    const again = await login(user.email, user.password);
    expect(claimsOf(sessionCookie(again)!)).toMatchObject({ organizationId: org.body.id, role: 'org_admin' });
  });

  it('refuses tokens signed with another secret, with alg none, with another algorithm, or mangled', async () => {
    const user = await registerUser(t.app);
    const claims = { ...claimsOf(user.token), jti: v7() };
    const sign = (secret: string, alg: string) =>
      new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).sign(new TextEncoder().encode(secret));
    const forged = [
      await sign('another-secret-that-is-long-enough-for-hs256-signing', 'HS256'),
      await sign(t.config.jwtSecret, 'HS512'),
      `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`,
      `${user.token.slice(0, -2)}xx`,
      'not-a-jwt',
    ];
    for (const token of forged) {
      const bearer = await me(token);
      expectError(bearer, UNAUTHORIZED);
      expect((await call(t.app, 'GET', '/auth/me', withCookie(token))).body).toEqual(UNAUTHORIZED);
    }
    // The same claims signed with the right key are accepted, so only the signature was at fault.
    expect((await me(await sign(t.config.jwtSecret, 'HS256'))).status).toBe(200);
  });

  it('expires after JWT_EXPIRY: cookie Max-Age and expiresIn follow it, then the token is refused', async () => {
    const short = await buildTestApp({ JWT_EXPIRY: '2s' }, { database: t.database });
    try {
      const email = uniqueEmail();
      const res = await register({ email }, short.app);
      const cookie = jwtCookie(res);
      expect(cookie.attributes).toContain('Max-Age=2');
      const token = await call(short.app, 'POST', '/auth/token', { body: { email, password: PASSWORD } });
      expect(token.body.expiresIn).toBe(2);
      expect((await call(short.app, 'GET', '/auth/me', withCookie(cookie.value))).status).toBe(200);

      await new Promise((resolve) => setTimeout(resolve, 2100));
      for (const value of [cookie.value, token.body.accessToken as string]) {
        const expired = await call(short.app, 'GET', '/auth/me', { as: { token: value } });
        expectError(expired, UNAUTHORIZED);
      }
    } finally {
      await short.close();
    }
  });
});
