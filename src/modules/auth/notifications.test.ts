import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { registerUser, type TestUser } from '../../../test/helpers/factories.js';
import type { RequestPart } from '../../errors/catalogue.js';
import { badRequestAt, call, expectError, UNAUTHORIZED } from '../../../test/helpers/http.js';
import { users } from './auth.tables.js';

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  user = await registerUser(t.app, { firstName: 'Nora', lastName: 'Notify' });
});
afterAll(() => t.close());

const me = (as: TestUser) => call(t.app, 'GET', '/auth/me', { as });
const patchMe = (as: TestUser | null, body: unknown) => call(t.app, 'PATCH', '/auth/me', { as, body });

async function storedChoice(userId: string): Promise<boolean | undefined> {
  const [row] = await t.database.db
    .select({ enabled: users.remindersEnabled })
    .from(users)
    .where(eq(users.id, userId));
  return row?.enabled;
}

describe('notification settings of the signed-in user', () => {
  it('GET /auth/me says reminders are on for a new account', async () => {
    const res = await me(user);
    expect(res.status).toBe(200);
    expect(res.body.notifications).toEqual({ reminders: true });
  });

  it('PATCH /auth/me turns reminders off and on again, answering as GET /auth/me', async () => {
    const other = await registerUser(t.app);
    const before = (await me(user)).body as Record<string, unknown>;

    const off = await patchMe(user, { notifications: { reminders: false } });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ ...before, notifications: { reminders: false } });
    expect((await me(user)).body).toEqual(off.body);
    expect(await storedChoice(user.id)).toBe(false);
    // Only the caller's own setting changed.
    expect((await me(other)).body.notifications).toEqual({ reminders: true });

    const again = await patchMe(user, { notifications: { reminders: false } });
    expect([again.status, again.body]).toEqual([200, off.body]);

    const on = await patchMe(user, { notifications: { reminders: true } });
    expect(on.status).toBe(200);
    expect(on.body).toEqual(before);
    expect(await storedChoice(user.id)).toBe(true);
  });

  it('refuses a caller without a session with 401', async () => {
    expectError(await patchMe(null, { notifications: { reminders: false } }), UNAUTHORIZED);
    const forged = await call(t.app, 'PATCH', '/auth/me', {
      headers: { authorization: 'Bearer not-a-token' },
      body: { notifications: { reminders: false } },
    });
    expect(forged.status).toBe(401);
    expect(await storedChoice(user.id)).toBe(true);
  });

  it('refuses bodies that are empty, unknown or of the wrong type with 400, changing nothing', async () => {
    const cases: [unknown, [string, string, string][]][] = [
      [{}, [['', 'minProperties', 'body must NOT have fewer than 1 properties']]],
      [
        { notifications: {} },
        [['/notifications/reminders', 'required', 'notifications.reminders is required']],
      ],
      [
        { notifications: { reminders: 'no' } },
        [['/notifications/reminders', 'type', 'notifications.reminders must be a boolean']],
      ],
      [{ notifications: null }, [['/notifications', 'type', 'notifications must be an object']]],
      [{ notifications: false }, [['/notifications', 'type', 'notifications must be an object']]],
      [
        { notifications: { reminders: false, digest: true } },
        [['/notifications/digest', 'additionalProperties', 'property notifications.digest should not exist']],
      ],
      [{ reminders: false }, [['/reminders', 'additionalProperties', 'property reminders should not exist']]],
    ];
    for (const [body, problems] of cases) {
      const res = await patchMe(user, body);
      expect([res.status, res.body], JSON.stringify(body)).toEqual([
        400,
        badRequestAt(
          ...problems.map(([path, rule, message]): [RequestPart, string, string, string] => [
            'body',
            path,
            rule,
            message,
          ]),
        ),
      ]);
    }
    expect(await storedChoice(user.id)).toBe(true);
  });
});
