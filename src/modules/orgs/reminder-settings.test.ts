import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { registerUser, uniqueCode } from '../../../test/helpers/factories.js';
import type { RequestPart } from '../../errors/catalogue.js';
import {
  badRequestAt,
  call,
  expectError,
  UNAUTHORIZED,
  ADMINS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { organizations } from './orgs.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const orgUrl = () => `/orgs/${team.org.id}`;
const patchOrg = (body: unknown, as = team.admin) => call(t.app, 'PATCH', orgUrl(), { as, body });

async function storedSettings(orgId: string) {
  const [row] = await t.database.db
    .select({ days: organizations.reminderDaysBefore, overdue: organizations.overdueReminder })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  return row;
}

describe("an organization's deadline reminder settings", () => {
  it('default to 7 and 1 days before and an overdue reminder, wherever the organization is returned', async () => {
    const owner = await registerUser(t.app);
    const created = await call(t.app, 'POST', '/orgs', {
      as: owner,
      body: { name: 'Reminded NGO', code: uniqueCode() },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ reminderDaysBefore: [7, 1], overdueReminder: true });

    const one = await call(t.app, 'GET', `/orgs/${created.body.id}`, { as: owner });
    expect([one.status, one.body]).toEqual([200, created.body]);
    const mine = await call(t.app, 'GET', '/orgs', { as: owner });
    expect(mine.body).toEqual([{ ...created.body, role: 'org_admin' }]);
  });

  it('are changed by the org_admin: days stored from the most to the fewest, other fields kept', async () => {
    const before = (await call(t.app, 'GET', orgUrl(), { as: team.viewer })).body as Record<string, unknown>;
    const res = await patchOrg({ reminderDaysBefore: [1, 14, 3], overdueReminder: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...before, reminderDaysBefore: [14, 3, 1], overdueReminder: false });
    expect(await storedSettings(team.org.id)).toEqual({ days: [14, 3, 1], overdue: false });
    // Every member reads them.
    const read = await call(t.app, 'GET', orgUrl(), { as: team.reporter });
    expect(read.body).toEqual(res.body);

    // Each field on its own leaves the other be.
    const onlyOverdue = await patchOrg({ overdueReminder: true });
    expect(onlyOverdue.body).toMatchObject({ reminderDaysBefore: [14, 3, 1], overdueReminder: true });
    const onlyDays = await patchOrg({ reminderDaysBefore: [90, 1, 2, 3, 4, 5, 6, 7, 8, 10] });
    expect(onlyDays.body).toMatchObject({
      reminderDaysBefore: [90, 10, 8, 7, 6, 5, 4, 3, 2, 1],
      overdueReminder: true,
    });
    // No reminders before the due date.
    const none = await patchOrg({ reminderDaysBefore: [] });
    expect(none.body).toMatchObject({ reminderDaysBefore: [], overdueReminder: true });
    expect(await storedSettings(team.org.id)).toEqual({ days: [], overdue: true });

    const back = await patchOrg({ reminderDaysBefore: [7, 1] });
    expect(back.body).toEqual(before);
  });

  it('refuses days that are not 1 to 90, repeated, fractional or more than 10, with 400', async () => {
    const before = await storedSettings(team.org.id);
    const cases: [unknown, [string, string, string][]][] = [
      [
        { reminderDaysBefore: [0] },
        [['/reminderDaysBefore/0', 'minimum', 'reminderDaysBefore.0 must not be less than 1']],
      ],
      [
        { reminderDaysBefore: [7, 91] },
        [['/reminderDaysBefore/1', 'maximum', 'reminderDaysBefore.1 must not be greater than 90']],
      ],
      [
        { reminderDaysBefore: [-1] },
        [['/reminderDaysBefore/0', 'minimum', 'reminderDaysBefore.0 must not be less than 1']],
      ],
      [
        { reminderDaysBefore: [1.5] },
        [['/reminderDaysBefore/0', 'type', 'reminderDaysBefore.0 must be an integer']],
      ],
      [
        { reminderDaysBefore: ['7'] },
        [['/reminderDaysBefore/0', 'type', 'reminderDaysBefore.0 must be an integer']],
      ],
      [
        { reminderDaysBefore: [7, 1, 7] },
        [['/reminderDaysBefore', 'uniqueItems', 'reminderDaysBefore must not contain duplicates']],
      ],
      [
        { reminderDaysBefore: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] },
        [['/reminderDaysBefore', 'maxItems', 'reminderDaysBefore must contain at most 10 items']],
      ],
      [
        { reminderDaysBefore: null },
        [['/reminderDaysBefore', 'type', 'reminderDaysBefore must be an array']],
      ],
      [{ reminderDaysBefore: 7 }, [['/reminderDaysBefore', 'type', 'reminderDaysBefore must be an array']]],
      [{ overdueReminder: 'yes' }, [['/overdueReminder', 'type', 'overdueReminder must be a boolean']]],
      [{ overdueReminder: null }, [['/overdueReminder', 'type', 'overdueReminder must be a boolean']]],
    ];
    for (const [body, problems] of cases) {
      const res = await patchOrg(body);
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
    expect(await storedSettings(team.org.id)).toEqual(before);
  });

  it('are changed by no other role, no stranger and no anonymous caller', async () => {
    const before = await storedSettings(team.org.id);
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      expectError(
        await patchOrg({ reminderDaysBefore: [2], overdueReminder: false }, user),
        refusedTo(team, user, ADMINS),
      );
    }
    const anonymous = await call(t.app, 'PATCH', orgUrl(), { body: { reminderDaysBefore: [2] } });
    expectError(anonymous, UNAUTHORIZED);
    expect(await storedSettings(team.org.id)).toEqual(before);
  });
});
