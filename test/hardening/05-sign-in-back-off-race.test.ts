/**
 * Issue 36, finding 5: the per-account sign-in back-off was bypassed by concurrency. Each attempt read the
 * failure count, waited, then checked the password, so 20 concurrent guesses after 8 failures were all
 * checked within about 2 s. Now each attempt reserves its turn in one statement before it is checked; one
 * that would have to wait longer than the longest back-off (10 s) is refused with the rate limit's 429,
 * unchecked and uncounted. Two instances share one database here, as they share the count in production.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginFailures } from '../../src/modules/auth/auth.tables.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { registerUser } from '../helpers/factories.js';
import { call, type Call } from '../helpers/http.js';

const INVALID_LOGIN = {
  statusCode: 401,
  message: 'Invalid email or password',
  error: 'Unauthorized',
  code: 'invalid_credentials' as const,
};

let first: TestApp;
let second: TestApp;

beforeAll(async () => {
  first = await buildTestApp();
  second = await buildTestApp({}, { database: first.database, worker: false });
});
afterAll(async () => {
  await second?.close();
  await first?.close();
});

const db = () => first.database.db;
const failuresOf = async (email: string) =>
  (await db().select().from(loginFailures).where(eq(loginFailures.email, email)))[0]?.failures;

/** Sign-in by login and token in turn, through either instance. */
function attempt(i: number, email: string, password: string): Promise<Call> {
  const app = (i % 2 ? second : first).app;
  return call(app, 'POST', i % 3 ? '/auth/login' : '/auth/token', { body: { email, password } });
}

/** The refusal: the rate limit's 429 body, and a Retry-After in whole seconds that its message repeats. */
function expectRefused(res: Call) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    statusCode: 429,
    message: expect.stringMatching(/^Too many requests, retry in \d+ seconds$/),
    error: 'Too Many Requests',
    code: 'rate_limited',
  });
  const seconds = Number(res.headers['retry-after']);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(res.body.message).toBe(`Too many requests, retry in ${seconds} seconds`);
}

/** The first `count` answers of the calls, in the order they came. */
function firstAnswers(calls: Promise<Call>[], count: number): Promise<Call[]> {
  const answered: Call[] = [];
  return new Promise((resolve, reject) => {
    for (const c of calls) {
      c.then((res) => answered.push(res) === count && resolve([...answered]), reject);
    }
  });
}

// Concurrently: each test waits out back-offs of an email of its own.
describe.concurrent('finding 5: concurrent guesses cannot skip the sign-in back-off', () => {
  it('checks few of 20 concurrent wrong passwords after 8 failures; the rest and the right password are refused unchecked', async () => {
    const user = await registerUser(first.app);
    // 8 failures, the last 2 s ago: the 2 s back-off they call for has just been served.
    await db()
      .insert(loginFailures)
      .values({ email: user.email, failures: 8, lastFailedAt: sql`now() - interval '2 seconds'` });

    const guesses = Array.from({ length: 20 }, (_, i) => attempt(i, user.email, `wrong guess ${i}`));
    // Before the owner comes: at most the guesses the back-off lets through were checked.
    const early = await firstAnswers(guesses, 18);
    expect(early.filter((res) => res.status === 401).length).toBeLessThanOrEqual(3);
    // The owner, while the guesses hold the account's next turns: refused like them, never checked.
    expectRefused(await attempt(1, user.email, user.password));

    const answers = await Promise.all(guesses);
    const checked = answers.filter((res) => res.status === 401);
    const refused = answers.filter((res) => res.status === 429);
    expect(checked.length + refused.length).toBe(20);
    expect(checked.length).toBeGreaterThanOrEqual(1);
    expect(checked.length).toBeLessThanOrEqual(3);
    for (const res of checked) expect(res.body).toEqual(INVALID_LOGIN);
    for (const res of refused) expectRefused(res);
    // Only the checked guesses count: a refused one costs the account nothing more.
    expect(await failuresOf(user.email)).toBe(8 + checked.length);

    // The back-off served (its clock moved past, not waited out): the right password signs in and resets.
    await db()
      .update(loginFailures)
      .set({ lastFailedAt: sql`now() - interval '30 seconds'` })
      .where(eq(loginFailures.email, user.email));
    const signedIn = await attempt(1, user.email, user.password);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.id).toBe(user.id);
    expect(await failuresOf(user.email)).toBeUndefined();
    const next = await attempt(0, user.email, 'a wrong guess');
    expect(next.status).toBe(401);
    expect(next.body).toEqual(INVALID_LOGIN);
    expect(await failuresOf(user.email)).toBe(1);
  });

  it('slows an unknown email alike: a burst is refused the same way, so the answer tells nothing', async () => {
    const email = `nobody-${Math.random().toString(36).slice(2)}@example.org`;
    await db()
      .insert(loginFailures)
      .values({ email, failures: 8, lastFailedAt: sql`now() - interval '2 seconds'` });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => attempt(i, email, 'a guess')));
    const checked = answers.filter((res) => res.status === 401);
    expect(checked.length).toBeGreaterThanOrEqual(1);
    expect(checked.length).toBeLessThanOrEqual(3);
    for (const res of checked) expect(res.body).toEqual(INVALID_LOGIN);
    for (const res of answers.filter((r) => r.status !== 401)) expectRefused(res);
    expect(await failuresOf(email)).toBe(8 + checked.length);
  });

  it('keeps the first five attempts free: five concurrent ones on a fresh account are all checked at once', async () => {
    const user = await registerUser(first.app);
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => attempt(i, user.email, 'a typo')));
    expect(answers.map((res) => res.status)).toEqual([401, 401, 401, 401, 401]);
    expect(await failuresOf(user.email)).toBe(5);
  });
});
