import { SignJWT } from 'jose';
import { v7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import {
  addMember,
  createOrg,
  registerUser,
  uniqueCode,
  uniqueEmail,
} from '../../../test/helpers/factories.js';
import {
  call,
  FORBIDDEN,
  sessionCookie,
  UNAUTHORIZED,
  type Call,
  TIMESTAMP,
} from '../../../test/helpers/http.js';
import { users } from './auth.tables.js';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const WEEK = 604_800;
const PASSWORD = 'correct horse battery';
const INVALID_LOGIN = { statusCode: 401, message: 'Invalid email or password', error: 'Unauthorized' };
const badRequest = (...message: string[]) => ({ statusCode: 400, message, error: 'Bad Request' });

const part = (token: string, index: number) =>
  JSON.parse(Buffer.from(token.split('.')[index]!, 'base64url').toString()) as Record<string, unknown>;
const claimsOf = (token: string) => part(token, 1);
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const withCookie = (token: string) => ({ headers: { cookie: `jwt=${token}` } });

/** The raw `Set-Cookie` line for `jwt`, split into its value and its sorted attributes. */
function jwtCookie(res: Call): { value: string; attributes: string[] } {
  const raw = res.headers['set-cookie'];
  const line = (Array.isArray(raw) ? raw : raw ? [raw] : []).find((c) => c.startsWith('jwt='));
  if (!line) throw new Error('no jwt cookie set');
  const [pair, ...attributes] = line.split(';').map((s) => s.trim());
  return { value: pair!.slice('jwt='.length), attributes: attributes.sort() };
}

const COOKIE = ['HttpOnly', `Max-Age=${WEEK}`, 'Path=/', 'SameSite=Lax'];
const login = (email: string, password: string) =>
  call(t.app, 'POST', '/auth/login', { body: { email, password } });
const me = (token: string) => call(t.app, 'GET', '/auth/me', { as: { token } });
const register = (fields: Record<string, unknown> = {}, app = t.app) =>
  call(app, 'POST', '/auth/register', {
    body: { email: uniqueEmail(), password: PASSWORD, firstName: 'A', lastName: 'B', ...fields },
  });

/** A 400 listing exactly these messages, in any order. */
function expectViolations(res: Call, ...messages: string[]): void {
  expect(res.status).toBe(400);
  expect({ ...res.body, message: [...res.body.message].sort() }).toEqual(badRequest(...messages.sort()));
}

/** Status and the whole error body at once. */
function expectError(res: Call, body: { statusCode: number; message: unknown; error: string }): void {
  expect([res.status, res.body]).toEqual([body.statusCode, body]);
}

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
    expect(mine.body).toEqual({ ...res.body, memberships: [] });
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

describe('POST /auth/token', () => {
  it('exchanges email and password for a bearer token that works without a cookie', async () => {
    const user = await registerUser(t.app);
    const res = await call(t.app, 'POST', '/auth/token', {
      body: { email: user.email.toUpperCase(), password: user.password },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: WEEK });
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(claimsOf(res.body.accessToken)).toMatchObject({ sub: user.id, email: user.email });
    const mine = await me(res.body.accessToken);
    expect(mine.status).toBe(200);
    expect(mine.body.id).toBe(user.id);
  });

  it('gives the login 401 for a wrong password or an unknown email', async () => {
    const user = await registerUser(t.app);
    for (const body of [
      { email: user.email, password: 'wrong password' },
      { email: uniqueEmail('nobody'), password: user.password },
    ]) {
      const res = await call(t.app, 'POST', '/auth/token', { body });
      expectError(res, INVALID_LOGIN);
    }
  });

  it('refuses incomplete, mixed and malformed bodies with 400', async () => {
    const user = await registerUser(t.app);
    const org = await createOrg(t.app, user);
    const cases: [object, string[]][] = [
      [{ email: user.email }, ['password is required']],
      [{ password: user.password }, ['email is required']],
      [{}, ['email is required', 'password is required']],
      [
        { email: user.email, password: user.password, organizationId: org.id },
        ['send either email and password, or organizationId'],
      ],
      [{ organizationId: 'nope' }, ['organizationId must be a UUID']],
      [{ organizationId: org.id, role: 'org_admin' }, ['property role should not exist']],
    ];
    for (const [body, message] of cases) {
      const res = await call(t.app, 'POST', '/auth/token', { as: user, body });
      expectError(res, badRequest(...message));
    }
  });

  it('switches the current organization, with the role read from the membership', async () => {
    const user = await registerUser(t.app);
    const first = await createOrg(t.app, user, 'First');
    const owner = await registerUser(t.app);
    const partner = await createOrg(t.app, owner, 'Partner');
    await addMember(t.database.db, partner.id, user.id, 'viewer');

    const bearer = await call(t.app, 'POST', '/auth/token', { as: user, body: { organizationId: first.id } });
    expect(bearer.status).toBe(200);
    expect(bearer.body).toEqual({ accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: WEEK });
    expect(claimsOf(bearer.body.accessToken)).toMatchObject({
      sub: user.id,
      email: user.email,
      organizationId: first.id,
      role: 'org_admin',
    });
    // A bearer session gets no cookie; a cookie session has its cookie re-issued.
    expect(bearer.headers['set-cookie']).toBeUndefined();
    const viaCookie = await call(t.app, 'POST', '/auth/token', {
      ...withCookie(bearer.body.accessToken),
      body: { organizationId: partner.id },
    });
    expect(viaCookie.status).toBe(200);
    const cookie = jwtCookie(viaCookie);
    expect(cookie.value).toBe(viaCookie.body.accessToken);
    expect(claimsOf(cookie.value)).toMatchObject({ organizationId: partner.id, role: 'viewer' });
  });

  it('refuses an organization the caller is not a member of (403) and a switch without session (401)', async () => {
    const user = await registerUser(t.app);
    const stranger = await registerUser(t.app);
    const org = await createOrg(t.app, stranger);
    for (const organizationId of [org.id, '00000000-0000-4000-8000-000000000000']) {
      const res = await call(t.app, 'POST', '/auth/token', { as: user, body: { organizationId } });
      expectError(res, FORBIDDEN);
    }
    const anonymous = await call(t.app, 'POST', '/auth/token', { body: { organizationId: org.id } });
    expectError(anonymous, UNAUTHORIZED);
  });
});

describe('POST /auth/logout', () => {
  it('answers 204, clears the cookie and revokes only the presented token', async () => {
    const user = await registerUser(t.app);
    const other = await call(t.app, 'POST', '/auth/token', {
      body: { email: user.email, password: PASSWORD },
    });
    const res = await call(t.app, 'POST', '/auth/logout', { as: user });
    expect(res.status).toBe(204);
    expect(res.response.body).toBe('');
    const cleared = jwtCookie(res);
    expect(cleared.value).toBe('');
    expect(cleared.attributes).toEqual(
      expect.arrayContaining(['Max-Age=0', 'Expires=Thu, 01 Jan 1970 00:00:00 GMT', 'Path=/', 'HttpOnly']),
    );

    for (const presented of [{ as: user }, withCookie(user.token)]) {
      const refused = await call(t.app, 'GET', '/auth/me', presented);
      expectError(refused, UNAUTHORIZED);
    }
    const again = await call(t.app, 'POST', '/auth/logout', { as: user });
    expect(again.body).toEqual(UNAUTHORIZED);
    expect((await me(other.body.accessToken as string)).status).toBe(200);
  });

  it('revokes a cookie session', async () => {
    const user = await registerUser(t.app);
    const res = await call(t.app, 'POST', '/auth/logout', withCookie(user.token));
    expect(res.status).toBe(204);
    expect((await me(user.token)).body).toEqual(UNAUTHORIZED);
  });
});

describe('GET /auth/me', () => {
  it('returns the user and their memberships, by bearer or by cookie', async () => {
    const user = await registerUser(t.app, { firstName: 'Meera', lastName: 'Das' });
    const own = await createOrg(t.app, user, 'Own NGO');
    const owner = await registerUser(t.app);
    const other = await createOrg(t.app, owner, 'Partner NGO');
    await addMember(t.database.db, other.id, user.id, 'reporter');

    const expected = {
      id: user.id,
      email: user.email,
      firstName: 'Meera',
      lastName: 'Das',
      createdAt: expect.stringMatching(TIMESTAMP),
      memberships: [
        { organization: { id: own.id, name: 'Own NGO', code: own.code, logoUrl: null }, role: 'org_admin' },
        {
          organization: { id: other.id, name: 'Partner NGO', code: other.code, logoUrl: null },
          role: 'reporter',
        },
      ],
    };
    const bearer = await me(user.token);
    expect(bearer.status).toBe(200);
    expect(bearer.body).toEqual(expected);
    const cookie = await call(t.app, 'GET', '/auth/me', withCookie(user.token));
    expect(cookie.status).toBe(200);
    expect(cookie.body).toEqual(expected);
  });

  it('needs a session (as does logout)', async () => {
    expectError(await call(t.app, 'GET', '/auth/me'), UNAUTHORIZED);
    expectError(await call(t.app, 'POST', '/auth/logout'), UNAUTHORIZED);
  });
});

describe('GET /auth/idp', () => {
  it('answers 404 while external sign-in is not configured', async () => {
    for (const url of ['/auth/idp', '/auth/idp/callback?code=x&state=y']) {
      const res = await call(t.app, 'GET', url);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        statusCode: 404,
        message: 'External sign-in is not configured',
        error: 'Not Found',
      });
    }
  });
});
