/**
 * Issue 20, finding 11: linking by email through the identity provider removed every password, even one
 * whose owner had proven the address. An address is now proven by a link sent to it (verification at
 * registration, password reset, accepted invitation); linking keeps a proven password and removes only
 * an unproven one (DECISIONS.md section 3).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/lib/ids.js';
import { emailVerifications, users } from '../../src/modules/auth/auth.tables.js';
import { outboxEmails } from '../../src/modules/mail/mail.tables.js';
import { buildTestAppWithMail, type MailTestApp } from '../helpers/app.js';
import { createOrg, registerUser, uniqueEmail, type TestUser } from '../helpers/factories.js';
import { badRequest, call, UNAUTHORIZED, type Call, invalidTokenBody } from '../helpers/http.js';
import { invitedToken } from '../helpers/invitations.js';
import { authorize, startProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { linkIn, type ReceivedEmail } from '../helpers/smtp.js';

const REDIRECT_URI = 'http://api.test/auth/idp/callback';
const FRONTEND = 'http://front.test';
const VERIFY_LINK = 'http://app.test/verify-email?token=';
const RESET_LINK = 'http://app.test/reset-password?token=';
const INVALID_TOKEN = invalidTokenBody('Invalid or expired verification token');
const INVALID_LOGIN = {
  statusCode: 401,
  message: 'Invalid email or password',
  error: 'Unauthorized',
  code: 'invalid_credentials' as const,
};

let op: TestProvider;
let t: MailTestApp;

beforeAll(async () => {
  op = await startProvider(REDIRECT_URI);
  t = await buildTestAppWithMail({
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

/** The first email to `address` with a link starting with `prefix`, waiting for it to arrive. */
async function emailWith(address: string, prefix: string, nth = 1): Promise<ReceivedEmail> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = t.smtp.received.filter((m) => m.to.includes(address) && m.text.includes(prefix));
    if (found.length >= nth) return found[nth - 1]!;
    if (Date.now() > deadline) throw new Error(`no email ${nth} to ${address} with ${prefix}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const tokenIn = async (address: string, prefix: string, nth = 1) =>
  new URL(linkIn(await emailWith(address, prefix, nth), prefix)).searchParams.get('token')!;

const verify = (token: unknown) => call(t.app, 'POST', '/auth/verify-email', { body: { token } });
const login = (email: string, password: string) =>
  call(t.app, 'POST', '/auth/login', { body: { email, password } });
const me = (who: { token: string }) => call(t.app, 'GET', '/auth/me', { as: who });

/** The whole identity-provider sign-in for a verified `email`; returns the user the front end got. */
async function signInWithProvider(email: string): Promise<Record<string, unknown>> {
  op.signInAs({
    sub: `subject-${Math.random().toString(36).slice(2, 10)}`,
    email,
    email_verified: true,
    given_name: 'Grace',
    family_name: 'Hopper',
  });
  const start = await call(t.app, 'GET', '/auth/idp');
  expect(start.status).toBe(302);
  const flow = String(start.response.cookies.find((c) => c.name === 'idp_flow')?.value);
  const back = await authorize(String(start.headers.location));
  const res: Call = await call(t.app, 'GET', `${back.pathname}${back.search}`, {
    headers: { cookie: `idp_flow=${flow}` },
  });
  expect(res.status).toBe(302);
  const landing = new URL(String(res.headers.location));
  expect(landing.searchParams.get('error')).toBeNull();
  return JSON.parse(landing.searchParams.get('user')!);
}

/** After linking: the password still signs in, and the session opened before still works. */
async function expectPasswordKept(user: TestUser, password: string, session: { token: string }) {
  const linked = await signInWithProvider(user.email);
  // The redirect names the user by id only (issue 36, finding 12): no email in the URL.
  expect(linked).toMatchObject({ id: user.id });
  expect(linked).not.toHaveProperty('email');
  const again = await login(user.email, password);
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ id: user.id });
  expect((await me(session)).status).toBe(200);
}

describe('finding 11: identity-provider linking keeps a proven password', () => {
  it('keeps the password of a user who proved the address with the verification link', async () => {
    const user = await registerUser(t.app);
    expect(await verify(await tokenIn(user.email, VERIFY_LINK))).toMatchObject({ status: 204 });
    await expectPasswordKept(user, user.password, user);
  });

  it('keeps the password of a user who proved the address with a reset link', async () => {
    const user = await registerUser(t.app);
    const forgot = await call(t.app, 'POST', '/auth/forgot-password', { body: { email: user.email } });
    expect(forgot.status).toBe(202);
    const password = 'a password chosen by reset';
    const reset = await call(t.app, 'POST', '/auth/reset-password', {
      body: { token: await tokenIn(user.email, RESET_LINK), password },
    });
    expect(reset.status).toBe(204);
    const session = await login(user.email, password);
    expect(session.status).toBe(200);
    await expectPasswordKept(user, password, {
      token: session.response.cookies.find((c) => c.name === 'jwt')!.value,
    });
  });

  it('keeps the password of a user who accepted an invitation sent to the address', async () => {
    const admin = await registerUser(t.app);
    const org = await createOrg(t.app, admin);
    const user = await registerUser(t.app);
    const { token } = await invitedToken(t.app, t.smtp, admin, org.id, user.email);
    const accepted = await call(t.app, 'POST', `/invitations/${token}/accept`, { as: user });
    expect(accepted.status).toBe(200);
    expect((await me(user)).body.emailVerified).toBe(true);
    await expectPasswordKept(user, user.password, user);
  });

  it('removes an unproven password and its sessions on linking (pre-registration takeover)', async () => {
    const user = await registerUser(t.app);
    expect((await me(user)).body.emailVerified).toBe(false);
    const linked = await signInWithProvider(user.email);
    expect(linked).toMatchObject({ id: user.id });
    const refused = await login(user.email, user.password);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual(INVALID_LOGIN);
    const old = await me(user);
    expect(old.status).toBe(401);
    expect(old.body).toEqual(UNAUTHORIZED);
    const [row] = await t.database.db.select().from(users).where(eq(users.id, user.id));
    expect(row!.passwordHash).toBeNull();
  });

  it('counts a user created by the identity provider as proven (the provider verified the address)', async () => {
    const email = uniqueEmail('provider-made');
    const created = await signInWithProvider(email);
    const [row] = await t.database.db
      .select()
      .from(users)
      .where(eq(users.id, created.id as string));
    expect(row!.emailVerifiedAt).toBeInstanceOf(Date);
  });

  describe('registration', () => {
    it('emails a verification link in the same transaction as the new user, stored only as a hash', async () => {
      const user = await registerUser(t.app, { firstName: 'Kofi' });
      const [queued] = await t.database.db
        .select()
        .from(outboxEmails)
        .where(eq(outboxEmails.recipient, user.email));
      expect(queued).toMatchObject({ recipient: user.email, subject: 'Confirm your email address' });
      const message = await emailWith(user.email, VERIFY_LINK);
      expect(message.raw).toMatch(/^Subject: Confirm your email address\r?$/m);
      expect(message.text).toContain('Hello Kofi');
      const token = new URL(linkIn(message, VERIFY_LINK)).searchParams.get('token')!;
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const [row] = await t.database.db
        .select()
        .from(emailVerifications)
        .where(eq(emailVerifications.userId, user.id));
      expect(row).toMatchObject({ tokenHash: hashToken(token), usedAt: null });
      expect(JSON.stringify(row)).not.toContain(token);
      // Valid for 7 days.
      const days = (row!.expiresAt.getTime() - row!.createdAt.getTime()) / 86_400_000;
      expect(days).toBeCloseTo(7, 2);
    });

    it('sends nothing when the email is taken', async () => {
      const user = await registerUser(t.app);
      const again = await call(t.app, 'POST', '/auth/register', {
        body: { email: user.email, password: 'another password', firstName: 'X', lastName: 'Y' },
      });
      expect(again.status).toBe(409);
      const queued = await t.database.db
        .select()
        .from(outboxEmails)
        .where(eq(outboxEmails.recipient, user.email));
      expect(queued).toHaveLength(1);
    });
  });

  describe('POST /auth/verify-email', () => {
    it('answers 204 once, marks the address proven, and refuses the link the second time', async () => {
      const user = await registerUser(t.app);
      expect((await me(user)).body).toMatchObject({ id: user.id, emailVerified: false });
      const token = await tokenIn(user.email, VERIFY_LINK);
      const res = await verify(token);
      expect(res.status).toBe(204);
      expect(res.response.body).toBe('');
      expect((await me(user)).body).toMatchObject({ id: user.id, emailVerified: true });
      const reused = await verify(token);
      expect(reused.status).toBe(400);
      expect(reused.body).toEqual(INVALID_TOKEN);
    });

    it('refuses an expired link', async () => {
      const user = await registerUser(t.app);
      const token = await tokenIn(user.email, VERIFY_LINK);
      await t.database.db
        .update(emailVerifications)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(emailVerifications.tokenHash, hashToken(token)));
      const res = await verify(token);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(INVALID_TOKEN);
      expect((await me(user)).body.emailVerified).toBe(false);
    });

    it('refuses a made-up token, and validates the body', async () => {
      for (const token of ['garbage', 'A'.repeat(43), '%00']) {
        const res = await verify(token);
        expect(res.status).toBe(400);
        expect(res.body).toEqual(INVALID_TOKEN);
      }
      const missing = await call(t.app, 'POST', '/auth/verify-email', { body: {} });
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual(badRequest('token is required'));
      const extra = await call(t.app, 'POST', '/auth/verify-email', { body: { token: 'x', user: 1 } });
      expect(extra.status).toBe(400);
      expect(extra.body).toEqual(badRequest('property user should not exist'));
    });

    it('needs no session: the link may be opened in another browser', async () => {
      const user = await registerUser(t.app);
      const res = await call(t.app, 'POST', '/auth/verify-email', {
        body: { token: await tokenIn(user.email, VERIFY_LINK) },
        headers: { cookie: 'jwt=not-a-session' },
      });
      expect(res.status).toBe(204);
      expect((await me(user)).body.emailVerified).toBe(true);
    });
  });

  describe('POST /auth/resend-verification', () => {
    const SENT = {
      message: 'If your email address is not verified yet, a new verification link has been sent',
    };
    const resend = (who?: { token: string }) =>
      call(t.app, 'POST', '/auth/resend-verification', who ? { as: who } : {});

    it('answers 202 and emails a new link; either link then proves the address', async () => {
      const user = await registerUser(t.app);
      const first = await tokenIn(user.email, VERIFY_LINK);
      const res = await resend(user);
      expect(res.status).toBe(202);
      expect(res.body).toEqual(SENT);
      const second = await tokenIn(user.email, VERIFY_LINK, 2);
      expect(second).not.toBe(first);
      expect((await verify(second)).status).toBe(204);
      // Proven once: the other link has nothing left to do.
      expect((await verify(first)).body).toEqual(INVALID_TOKEN);
      expect((await me(user)).body.emailVerified).toBe(true);
    });

    it('answers 202 but sends nothing once the address is proven', async () => {
      const user = await registerUser(t.app);
      expect((await verify(await tokenIn(user.email, VERIFY_LINK))).status).toBe(204);
      const res = await resend(user);
      expect(res.status).toBe(202);
      expect(res.body).toEqual(SENT);
      const queued = await t.database.db
        .select()
        .from(outboxEmails)
        .where(eq(outboxEmails.recipient, user.email));
      expect(queued).toHaveLength(1);
    });

    it('needs a session: 401 without one', async () => {
      const res = await resend();
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHORIZED);
    });
  });
});
