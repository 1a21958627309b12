import { and, desc, eq, like } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, openTestDatabase, type TestApp } from '../../../test/helpers/app.js';
import { createTeam, registerUser, uniqueEmail, type Team } from '../../../test/helpers/factories.js';
import {
  badRequest,
  call,
  conflictBody,
  expectError,
  sessionCookie,
  TIMESTAMP,
  type Call,
} from '../../../test/helpers/http.js';
import { expireInvitation, invite, INVITATION_LINK } from '../../../test/helpers/invitations.js';
import { authorize, startProvider, type TestProvider } from '../../../test/helpers/oidc-provider.js';
import type { Database } from '../../db/client.js';
import { outboxEmails } from '../mail/mail.tables.js';
import { users } from './auth.tables.js';

/**
 * REGISTRATION: who gets a new account, by POST /auth/register and by a first sign-in through the identity
 * provider. Four apps on one database: the default (open), invite, domains, and the default again with
 * external sign-in (the restricted ones have it too).
 */

const REDIRECT_URI = 'http://api.test/auth/idp/callback';
const FRONTEND = 'http://front.test';
const INVITE_ONLY =
  'New accounts are by invitation only: ask an administrator of your organization to invite this email ' +
  'address, then follow the link in the invitation email. If you already have an account, sign in.';
const DOMAINS_ONLY =
  'New accounts need an email address at ngo.org or partner.org: use your address at one of these ' +
  'domains, or ask an administrator of your organization for an invitation. If you already have an ' +
  'account, sign in.';
const closed = (message: string) => ({
  statusCode: 403,
  message,
  error: 'Forbidden',
  code: 'registration_closed' as const,
});

let database: Database;
let op: TestProvider;
let open: TestApp;
let byInvitation: TestApp;
let byDomain: TestApp;
let team: Team;

beforeAll(async () => {
  database = await openTestDatabase();
  op = await startProvider(REDIRECT_URI);
  const oidc = {
    OIDC_ISSUER: op.issuer,
    OIDC_CLIENT_ID: op.clientId,
    OIDC_CLIENT_SECRET: op.clientSecret,
    OIDC_REDIRECT_URI: REDIRECT_URI,
    FRONTEND_URL: FRONTEND,
  };
  open = await buildTestApp(oidc, { database, worker: false });
  byInvitation = await buildTestApp({ ...oidc, REGISTRATION: 'invite' }, { database, worker: false });
  byDomain = await buildTestApp(
    { ...oidc, REGISTRATION: 'domains', REGISTRATION_DOMAINS: 'ngo.org,Partner.org' },
    { database, worker: false },
  );
  team = await createTeam(open.app, database.db);
});
afterAll(async () => {
  for (const t of [open, byInvitation, byDomain]) await t?.close();
  await database?.close();
  await op?.close();
});

const person = (email: string) => ({
  email,
  password: 'correct horse battery',
  firstName: 'Nia',
  lastName: 'New',
});
const register = (app: FastifyInstance, email: string) =>
  call(app, 'POST', '/auth/register', { body: person(email) });
const accountsOf = (email: string) =>
  database.db.select({ id: users.id }).from(users).where(eq(users.email, email.toLowerCase()));

/** The token of the last invitation emailed to `email` (read from the outbox). */
async function invitationTokenOf(email: string): Promise<string> {
  const [mail] = await database.db
    .select({ body: outboxEmails.body })
    .from(outboxEmails)
    .where(and(eq(outboxEmails.recipient, email), like(outboxEmails.body, `%${INVITATION_LINK}%`)))
    .orderBy(desc(outboxEmails.createdAt))
    .limit(1);
  const token = mail?.body.match(/\/invitations\/([\w-]+)/)?.[1];
  if (!token) throw new Error(`no invitation emailed to ${email}`);
  return token;
}

/** A 201 with the user and a session cookie. */
function expectRegistered(res: Call, email: string) {
  expect([res.status, res.body]).toEqual([
    201,
    {
      id: expect.any(String),
      email: email.toLowerCase(),
      firstName: 'Nia',
      lastName: 'New',
      createdAt: expect.stringMatching(TIMESTAMP),
    },
  ]);
  expect(sessionCookie(res)).toBeDefined();
}

function expectRefused(res: Call, message: string) {
  expectError(res, closed(message));
  expect(sessionCookie(res)).toBeUndefined();
}

describe('REGISTRATION=open (the default)', () => {
  it('registers any address, as before', async () => {
    const email = uniqueEmail('anyone');
    expectRegistered(await register(open.app, email), email);
  });
});

describe('REGISTRATION=invite: POST /auth/register', () => {
  it('refuses an address without an invitation with 403 registration_closed, making no account', async () => {
    const email = uniqueEmail('stranger');
    expectRefused(await register(byInvitation.app, email), INVITE_ONLY);
    expect(await accountsOf(email)).toEqual([]);
  });

  it('registers an invited address (in any case), and the invitation is then accepted as on the invitation page', async () => {
    const email = uniqueEmail('invited');
    await invite(open.app, team.admin, team.org.id, email, 'me_officer');
    const res = await register(byInvitation.app, email.toUpperCase());
    expectRegistered(res, email);
    const token = await invitationTokenOf(email);
    const accepted = await call(byInvitation.app, 'POST', `/invitations/${token}/accept`, {
      as: { token: sessionCookie(res)! },
    });
    expect([accepted.status, accepted.body.role]).toEqual([200, 'me_officer']);
    expect(accepted.body.organization.id).toBe(team.org.id);
    // Accepted, the invitation opens registration no more: the address is answered as any uninvited one.
    expectRefused(await register(byInvitation.app, email), INVITE_ONLY);
  });

  it('does not count an expired or a revoked invitation', async () => {
    const expired = uniqueEmail('expired');
    const late = await invite(open.app, team.admin, team.org.id, expired);
    await expireInvitation(database.db, late.id);
    expectRefused(await register(byInvitation.app, expired), INVITE_ONLY);

    const revoked = uniqueEmail('revoked');
    const withdrawn = await invite(open.app, team.admin, team.org.id, revoked);
    const deleted = await call(open.app, 'DELETE', `/orgs/${team.org.id}/invitations/${withdrawn.id}`, {
      as: team.admin,
    });
    expect(deleted.status).toBe(204);
    expectRefused(await register(byInvitation.app, revoked), INVITE_ONLY);
    expect([...(await accountsOf(expired)), ...(await accountsOf(revoked))]).toEqual([]);
  });

  it('answers an address that has an account but no invitation as any other: 403, not 409', async () => {
    const existing = await registerUser(open.app);
    expectRefused(await register(byInvitation.app, existing.email), INVITE_ONLY);
    // Existing accounts sign in as before.
    const login = await call(byInvitation.app, 'POST', '/auth/login', {
      body: { email: existing.email, password: existing.password },
    });
    expect([login.status, login.body.id]).toEqual([200, existing.id]);
  });

  it('answers 409 to an invited address that has an account already', async () => {
    const existing = await registerUser(open.app);
    await invite(open.app, team.admin, team.org.id, existing.email);
    expectError(
      await register(byInvitation.app, existing.email),
      conflictBody('A user with this email already exists'),
    );
  });

  it('checks the body first: a bad request is 400 whether or not the address is invited', async () => {
    const res = await call(byInvitation.app, 'POST', '/auth/register', {
      body: { ...person(uniqueEmail('bad')), password: 'short' },
    });
    expectError(res, badRequest('password must be at least 8 characters'));
    const same = uniqueEmail('same');
    expectError(
      await call(byInvitation.app, 'POST', '/auth/register', { body: { ...person(same), password: same } }),
      badRequest('password must not be the same as the email'),
    );
  });
});

describe('REGISTRATION=domains: POST /auth/register', () => {
  it('registers addresses at the listed domains, whatever their case', async () => {
    for (const email of [uniqueEmail('staff').replace('example.org', 'ngo.org'), 'Field.Lead@PARTNER.org']) {
      expectRegistered(await register(byDomain.app, email), email);
    }
  });

  it('refuses other domains, subdomains and look-alikes with 403 registration_closed', async () => {
    for (const domain of ['gmail.com', 'mail.ngo.org', 'ngo.org.example.com', 'myngo.org']) {
      const email = `someone-${Math.random().toString(36).slice(2, 8)}@${domain}`;
      expectRefused(await register(byDomain.app, email), DOMAINS_ONLY);
      expect(await accountsOf(email)).toEqual([]);
    }
  });

  it('registers an invited address outside the domains', async () => {
    const email = uniqueEmail('consultant');
    await invite(open.app, team.admin, team.org.id, email);
    expectRegistered(await register(byDomain.app, email), email);
  });

  it('names a single domain as such', async () => {
    const single = await buildTestApp(
      { REGISTRATION: 'domains', REGISTRATION_DOMAINS: 'ngo.org' },
      { database, worker: false },
    );
    try {
      expectRefused(
        await register(single.app, uniqueEmail('x')),
        'New accounts need an email address at ngo.org: use your address at that domain, or ask an ' +
          'administrator of your organization for an invitation. If you already have an account, sign in.',
      );
    } finally {
      await single.close();
    }
  });
});

describe('a first sign-in through the identity provider', () => {
  let counter = 0;
  /** The whole flow at `app` for a new subject with `email`; where the browser lands, and the cookie. */
  async function signIn(app: FastifyInstance, email: string) {
    counter += 1;
    op.signInAs({ sub: `policy-${counter}-${Date.now()}`, email, email_verified: true, given_name: 'Ida' });
    const start = await call(app, 'GET', '/auth/idp');
    expect(start.status).toBe(302);
    const flow = String(start.headers['set-cookie']).match(/idp_flow=([^;]+)/)![1]!;
    const back = await authorize(String(start.headers.location));
    const res = await call(app, 'GET', `${back.pathname}${back.search}`, {
      headers: { cookie: `idp_flow=${flow}` },
    });
    expect(res.status).toBe(302);
    const to = new URL(String(res.headers.location));
    expect(`${to.origin}${to.pathname}`).toBe(`${FRONTEND}/auth/callback`);
    return { error: to.searchParams.get('error'), session: sessionCookie(res) };
  }

  it('under invite, creates no account for an address without an invitation: error=registration_closed', async () => {
    const email = uniqueEmail('idp-stranger');
    expect(await signIn(byInvitation.app, email)).toEqual({
      error: 'registration_closed',
      session: undefined,
    });
    expect(await accountsOf(email)).toEqual([]);
  });

  it('under invite, creates the account of an invited address, and signs existing accounts in', async () => {
    const email = uniqueEmail('idp-invited');
    await invite(open.app, team.admin, team.org.id, email);
    const invited = await signIn(byInvitation.app, email);
    expect([invited.error, typeof invited.session]).toEqual([null, 'string']);
    expect(await accountsOf(email)).toHaveLength(1);

    const existing = await registerUser(open.app);
    const linked = await signIn(byInvitation.app, existing.email);
    expect([linked.error, typeof linked.session]).toEqual([null, 'string']);
    expect(await accountsOf(existing.email)).toEqual([{ id: existing.id }]);
  });

  it('under domains, creates accounts at the domains only', async () => {
    const staff = `idp-${Date.now()}@ngo.org`;
    expect((await signIn(byDomain.app, staff)).error).toBeNull();
    expect(await accountsOf(staff)).toHaveLength(1);
    const outsider = uniqueEmail('idp-outsider');
    expect(await signIn(byDomain.app, outsider)).toEqual({
      error: 'registration_closed',
      session: undefined,
    });
    expect(await accountsOf(outsider)).toEqual([]);
  });

  it('under open, creates any account, as before', async () => {
    const email = uniqueEmail('idp-open');
    expect((await signIn(open.app, email)).error).toBeNull();
    expect(await accountsOf(email)).toHaveLength(1);
  });
});

describe('the OpenAPI document', () => {
  it('states the rule and its 403 on POST /auth/register, and the error code of the callback', async () => {
    const doc = (await call(byInvitation.app, 'GET', '/api/openapi.json')).body;
    const route = doc.paths['/auth/register'].post;
    expect(route.description).toContain('`invite` only an address holding an open invitation');
    expect(route.description).toContain('subdomains are not included');
    expect(route.responses['403'].description).toContain('registration_closed');
    expect(doc.paths['/auth/idp/callback'].get.description).toContain('`registration_closed`');
  });
});
