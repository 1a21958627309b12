import bcrypt from 'bcrypt';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  buildTestAppWithMail,
  type MailTestApp,
  type TestApp,
} from '../../../test/helpers/app.js';
import { registerUser, uniqueEmail } from '../../../test/helpers/factories.js';
import { call, UNAUTHORIZED, badRequestAt, invalidTokenBody } from '../../../test/helpers/http.js';
import { linkIn, type ReceivedEmail, type TestSmtpServer } from '../../../test/helpers/smtp.js';
import { hashToken } from '../../lib/ids.js';
import { outboxEmails } from '../mail/mail.tables.js';
import { passwordResets, users } from './auth.tables.js';

let t: MailTestApp;
let smtp: TestSmtpServer;

beforeAll(async () => {
  t = await buildTestAppWithMail();
  smtp = t.smtp;
});
afterAll(() => t.close());

const LINK = 'http://app.test/reset-password?token=';
const SENT = { message: 'If an account exists for this email, a password reset link has been sent' };
const INVALID_RESET = invalidTokenBody('Invalid or expired reset token');
const INVALID_LOGIN = {
  statusCode: 401,
  message: 'Invalid email or password',
  error: 'Unauthorized',
  code: 'invalid_credentials' as const,
};
const NEW_PASSWORD = 'a brand new passphrase';

const forgot = (app: TestApp, email: string) =>
  call(app.app, 'POST', '/auth/forgot-password', { body: { email } });
const reset = (token: string, password = NEW_PASSWORD) =>
  call(t.app, 'POST', '/auth/reset-password', { body: { token, password } });
const login = (email: string, password: string) =>
  call(t.app, 'POST', '/auth/login', { body: { email, password } });
const me = (token: string) => call(t.app, 'GET', '/auth/me', { as: { token } });

/** The reset email to `address`, once it arrives (registration's verification email is another one). */
async function resetEmail(address: string): Promise<ReceivedEmail> {
  await smtp.waitFor(address);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = smtp.received.find((m) => m.to.includes(address) && m.text.includes(LINK));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no reset email to ${address}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Asks for a reset link through `app` and returns the token read from the email that arrives. */
async function resetToken(email: string, app: TestApp = t): Promise<string> {
  const res = await forgot(app, email);
  expect(res.status).toBe(202);
  const message = await resetEmail(email.trim().toLowerCase());
  const token = new URL(linkIn(message, LINK)).searchParams.get('token');
  if (!token) throw new Error('no token in the reset link');
  return token;
}

describe('POST /auth/forgot-password', () => {
  it('answers 202 and emails a reset link to the account', async () => {
    const user = await registerUser(t.app, { firstName: 'Kofi' });
    const res = await forgot(t, `  ${user.email.toUpperCase()} `);
    expect(res.status).toBe(202);
    expect(res.body).toEqual(SENT);

    const message = await resetEmail(user.email);
    expect(message.to).toEqual([user.email]);
    expect(message.raw).toMatch(/^Subject: Reset your password\r?$/m);
    expect(message.text).toContain('Hello Kofi');
    const token = new URL(linkIn(message, LINK)).searchParams.get('token')!;
    // 32 random bytes, base64url: 43 characters.
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Only its hash is stored.
    const [row] = await t.database.db.select().from(passwordResets).where(eq(passwordResets.userId, user.id));
    expect(row).toMatchObject({ tokenHash: hashToken(token), usedAt: null });
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it('gives the same answer for an unknown email and sends nothing', async () => {
    const unknown = uniqueEmail('nobody');
    const res = await forgot(t, unknown);
    expect(res.status).toBe(202);
    expect(res.body).toEqual(SENT);

    // A message queued after it arrives first-in-first-out; none was queued for the unknown address.
    const user = await registerUser(t.app);
    await resetToken(user.email);
    const queued = await t.database.db.select().from(outboxEmails).where(eq(outboxEmails.recipient, unknown));
    expect(queued).toEqual([]);
    expect(smtp.received.filter((m) => m.to.includes(unknown))).toEqual([]);
  });

  it('validates the body', async () => {
    const empty = await call(t.app, 'POST', '/auth/forgot-password', { body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual(badRequestAt(['body', '/email', 'required', 'email is required']));
    const bad = await call(t.app, 'POST', '/auth/forgot-password', { body: { email: 'nope', user: 'x' } });
    expect(bad.status).toBe(400);
    expect([...bad.body.message].sort()).toEqual([
      'email must be an email',
      'property user should not exist',
    ]);
  });
});

describe('POST /auth/reset-password', () => {
  it('sets the new password and ends every session issued before the reset', async () => {
    const user = await registerUser(t.app);
    const second = await call(t.app, 'POST', '/auth/token', {
      body: { email: user.email, password: user.password },
    });
    const token = await resetToken(user.email);
    expect((await me(user.token)).status).toBe(200);

    const res = await reset(token);
    expect(res.status).toBe(204);
    expect(res.response.body).toBe('');

    for (const old of [user.token, second.body.accessToken as string]) {
      const refused = await me(old);
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual(UNAUTHORIZED);
    }
    const oldPassword = await login(user.email, user.password);
    expect(oldPassword.status).toBe(401);
    expect(oldPassword.body).toEqual(INVALID_LOGIN);
    const fresh = await login(user.email, NEW_PASSWORD);
    expect(fresh.status).toBe(200);
    expect(fresh.body.id).toBe(user.id);
    const session = fresh.response.cookies.find((c) => c.name === 'jwt')!.value;
    expect((await me(session)).status).toBe(200);
  });

  it('accepts a token once', async () => {
    const user = await registerUser(t.app);
    const token = await resetToken(user.email);
    expect((await reset(token)).status).toBe(204);
    const again = await reset(token, 'yet another passphrase');
    expect(again.status).toBe(400);
    expect(again.body).toEqual(INVALID_RESET);
    expect((await login(user.email, NEW_PASSWORD)).status).toBe(200);
    expect((await login(user.email, 'yet another passphrase')).status).toBe(401);
  });

  it('refuses a password equal to the email or of the wrong length, leaving the token usable', async () => {
    const user = await registerUser(t.app);
    const token = await resetToken(user.email);
    const cases: [string, string, string][] = [
      [user.email, 'invalid', 'password must not be the same as the email'],
      [user.email.toUpperCase(), 'invalid', 'password must not be the same as the email'],
      ['short', 'minLength', 'password must be at least 8 characters'],
      ['x'.repeat(129), 'maxLength', 'password must be at most 128 characters'],
    ];
    for (const [password, rule, message] of cases) {
      const res = await reset(token, password);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(badRequestAt(['body', '/password', rule, message]));
    }
    expect((await login(user.email, user.password)).status).toBe(200);
    expect((await reset(token)).status).toBe(204);
  });

  it('refuses an unknown token, and names missing or unknown fields', async () => {
    const unknown = await reset('this-token-was-never-issued');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual(INVALID_RESET);

    const empty = await call(t.app, 'POST', '/auth/reset-password', { body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual(
      badRequestAt(
        ['body', '/token', 'required', 'token is required'],
        ['body', '/password', 'required', 'password is required'],
      ),
    );
    const extra = await call(t.app, 'POST', '/auth/reset-password', {
      body: { token: '', password: NEW_PASSWORD, email: 'a@b.org' },
    });
    expect(extra.status).toBe(400);
    expect([...extra.body.message].sort()).toEqual([
      'property email should not exist',
      'token should not be empty',
    ]);
  });

  it('refuses an expired token (RESET_TOKEN_TTL) and keeps the old password', async () => {
    const short = await buildTestApp({ SMTP_URL: smtp.url, RESET_TOKEN_TTL: '1s' }, { database: t.database });
    try {
      const user = await registerUser(t.app);
      const token = await resetToken(user.email, short);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      // The token was issued and never used: only its age refuses it.
      const [row] = await t.database.db
        .select()
        .from(passwordResets)
        .where(eq(passwordResets.tokenHash, hashToken(token)));
      expect(row).toMatchObject({ userId: user.id, usedAt: null });

      const res = await reset(token);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(INVALID_RESET);
      expect((await login(user.email, user.password)).status).toBe(200);
      expect((await me(user.token)).status).toBe(200);
    } finally {
      await short.close();
    }
  });
});

describe('auth rate limit (AUTH_RATE_LIMIT_MAX)', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await buildTestApp({ AUTH_RATE_LIMIT_MAX: '3' }, { database: t.database, worker: false });
  });
  afterAll(() => limited.close());

  it('refuses the 4th sign-in for one email and IP with 429 and Retry-After; another email passes', async () => {
    const [email, otherEmail] = [uniqueEmail('limited'), uniqueEmail('free')];
    const passwordHash = await bcrypt.hash('correct horse battery', 4);
    await t.database.db.insert(users).values([
      { email, passwordHash, firstName: 'L', lastName: 'M' },
      { email: otherEmail, passwordHash, firstName: 'F', lastName: 'R' },
    ]);
    const signIn = (address: string) =>
      call(limited.app, 'POST', '/auth/login', {
        body: { email: address, password: 'correct horse battery' },
      });
    for (let i = 0; i < 3; i++) expect((await signIn(email)).status).toBe(200);

    const refused = await signIn(email.toUpperCase());
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      statusCode: 429,
      message: expect.stringMatching(/^Too many requests, retry in \d+ seconds$/),
      error: 'Too Many Requests',
      code: 'rate_limited',
    });
    const seconds = /(\d+) seconds/.exec(refused.body.message as string)![1];
    expect(refused.headers['retry-after']).toBe(seconds);
    expect(refused.headers['x-ratelimit-limit']).toBe('3');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.headers['set-cookie']).toBeUndefined();
    // The count is shared by the other credential routes.
    const token = await call(limited.app, 'POST', '/auth/token', {
      body: { email, password: 'correct horse battery' },
    });
    expect(token.status).toBe(429);

    expect((await signIn(otherEmail)).status).toBe(200);
  });

  it('limits forgot-password per email whether or not the account exists', async () => {
    const unknown = uniqueEmail('nobody');
    for (let i = 0; i < 3; i++) expect((await forgot(limited, unknown)).body).toEqual(SENT);
    const refused = await forgot(limited, unknown);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/^Too many requests, retry in \d+ seconds$/);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect((await forgot(limited, uniqueEmail('other'))).status).toBe(202);
  });
});
