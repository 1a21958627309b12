import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { addMember, createOrg, registerUser, uniqueEmail } from '../../../test/helpers/factories.js';
import {
  call,
  UNAUTHORIZED,
  TIMESTAMP,
  badRequest,
  expectError,
  forbiddenBody,
} from '../../../test/helpers/http.js';
import { claimsOf, jwtCookie, withCookie } from '../../../test/helpers/sessions.js';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const WEEK = 604_800;
const PASSWORD = 'correct horse battery';
const INVALID_LOGIN = {
  statusCode: 401,
  message: 'Invalid email or password',
  error: 'Unauthorized',
  code: 'invalid_credentials' as const,
};

const me = (token: string) => call(t.app, 'GET', '/auth/me', { as: { token } });

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
      expectError(res, forbiddenBody(undefined, 'not_a_member'));
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
      // Registration alone does not prove the address (DECISIONS.md section 3).
      emailVerified: false,
      memberships: [
        { organization: { id: own.id, name: 'Own NGO', code: own.code, logoUrl: null }, role: 'org_admin' },
        {
          organization: { id: other.id, name: 'Partner NGO', code: other.code, logoUrl: null },
          role: 'reporter',
        },
      ],
      notifications: { reminders: true },
      locale: null,
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
        code: 'not_found',
      });
    }
  });
});
