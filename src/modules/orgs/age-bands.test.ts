import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  ADMINS,
  badRequest,
  call,
  expectError,
  MISSING_ID,
  notAMember,
  refusedTo,
  UNAUTHORIZED,
} from '../../../test/helpers/http.js';
import { useSuite } from '../../../test/helpers/suite.js';
import { organizations } from './orgs.tables.js';

const { t, team } = useSuite();

const DEFAULT = ['0-17', '18-35', '36-59', '60+', 'unknown'];
const orgUrl = (orgId = team.org.id) => `/orgs/${orgId}`;
const patchOrg = (body: unknown, as: { token: string } | null = team.admin, orgId = team.org.id) =>
  call(t.app, 'PATCH', orgUrl(orgId), { as, body });

async function storedBands(orgId = team.org.id) {
  const [row] = await t.database.db
    .select({ ageBands: organizations.ageBands })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  return row!.ageBands;
}

describe("an organization's age bands", () => {
  it('are the contract’s by default, unknown last, wherever the organization is returned', async () => {
    const one = await call(t.app, 'GET', orgUrl(), { as: team.viewer });
    expect([one.status, one.body.ageBands]).toEqual([200, DEFAULT]);
    const mine = await call(t.app, 'GET', '/orgs', { as: team.viewer });
    expect(mine.body).toEqual([{ ...one.body, role: 'viewer' }]);
    expect(await storedBands()).toBeNull();
  });

  it('are set by the org_admin, unknown added; null or the contract’s list go back to the default', async () => {
    const before = (await call(t.app, 'GET', orgUrl(), { as: team.admin })).body as Record<string, unknown>;
    const res = await patchOrg({ ageBands: ['0-4', '5-17', '18-59', '60+'] });
    expect([res.status, res.body]).toEqual([
      200,
      { ...before, ageBands: ['0-4', '5-17', '18-59', '60+', 'unknown'] },
    ]);
    expect(await storedBands()).toEqual(['0-4', '5-17', '18-59', '60+']);
    const read = await call(t.app, 'GET', orgUrl(), { as: team.reporter });
    expect(read.body).toEqual(res.body);

    // What the organization shows can be sent back as it is; other fields leave the bands be.
    const again = await patchOrg({ ageBands: res.body.ageBands, name: before.name });
    expect([again.status, again.body]).toEqual([200, res.body]);
    const single = await patchOrg({ ageBands: ['0+'] });
    expect(single.body.ageBands).toEqual(['0+', 'unknown']);

    const reset = await patchOrg({ ageBands: null });
    expect([reset.status, reset.body]).toEqual([200, before]);
    expect(await storedBands()).toBeNull();
    await patchOrg({ ageBands: ['0-9', '10+'] });
    const contract = await patchOrg({ ageBands: DEFAULT.slice(0, 4) });
    expect([contract.status, contract.body]).toEqual([200, before]);
    expect(await storedBands()).toBeNull();
  });

  it('refuses bands that do not start at 0, overlap, leave ages out, end closed or are not ranges, with 400', async () => {
    await patchOrg({ ageBands: ['0-4', '5+'] });
    const cases: [unknown, string[]][] = [
      [['5-17', '18+'], ['ageBands must start at 0']],
      [['0-17', '18-35', '30-40', '41+'], ['ageBands: 18-35 overlaps 30-40']],
      [['0-17', '18-59'], ['the last band must be open-ended, like 60+']],
      [['0-17', '18+', '60+'], ['ageBands: 18+ overlaps 60+']],
      [['0-17', '20+'], ['ageBands leave out ages 18-19, between 0-17 and 20+']],
      [['0-17', '19+'], ['ageBands leave out ages 18, between 0-17 and 19+']],
      [
        ['18-35', '0-17', '36+'],
        ['ageBands must go from the youngest to the oldest: 0-17 comes before 18-35'],
      ],
      [['0-17', '35-18', '36+'], ['ageBands: 35-18 runs backwards; write 18-35']],
      [
        ['children', '18 to 35', '60+'],
        [
          'ageBands.0 must be an age range in whole years written a-b or a+ (like 18-59 or 60+), or unknown',
          'ageBands.1 must be an age range in whole years written a-b or a+ (like 18-59 or 60+), or unknown',
        ],
      ],
      [['unknown', '0+'], ['ageBands: unknown is always added; list it last or not at all']],
      [['unknown'], ['ageBands must list at least one band, like 0+']],
      [['0-130', '200+'], ['ageBands: 200+ starts past the oldest age (130)']],
    ];
    for (const [ageBands, messages] of cases) {
      const res = await patchOrg({ ageBands });
      expect([res.status, res.body], JSON.stringify(ageBands)).toEqual([400, badRequest(...messages)]);
    }
    // The schema's own checks.
    for (const ageBands of [[], ' 0-17', [17], Array.from({ length: 21 }, (_, i) => `${i}-${i}`)]) {
      const res = await patchOrg({ ageBands });
      expect([res.status, res.body.code], JSON.stringify(ageBands)).toEqual([400, 'validation_failed']);
    }
    expect(await storedBands()).toEqual(['0-4', '5+']);
  });

  it('are changed by no other role, no stranger, no anonymous caller; an unknown organization is not theirs', async () => {
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      expectError(await patchOrg({ ageBands: ['0-9', '10+'] }, user), refusedTo(team, user, ADMINS));
    }
    // The outsider's own organization is not changed through a path naming it by another's admin.
    expectError(
      await patchOrg({ ageBands: ['0-9', '10+'] }, team.admin, team.outsiderOrg.id),
      notAMember(ADMINS),
    );
    expectError(await patchOrg({ ageBands: ['0-9', '10+'] }, team.admin, MISSING_ID), notAMember(ADMINS));
    expectError(await patchOrg({ ageBands: ['0-9', '10+'] }, null), UNAUTHORIZED);
    expect(await storedBands()).toEqual(['0-4', '5+']);
    expect(await storedBands(team.outsiderOrg.id)).toBeNull();
  });
});
