import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { registerUser, uniqueCode } from '../../../test/helpers/factories.js';
import {
  ADMINS,
  badRequestAt,
  call,
  expectError,
  MISSING_ID,
  notAMember,
  refusedTo,
  UNAUTHORIZED,
} from '../../../test/helpers/http.js';
import { useSuite } from '../../../test/helpers/suite.js';
import { showsQualityNotes } from './orgs.repo.js';
import { organizations } from './orgs.tables.js';

const { t, team } = useSuite();

const orgUrl = (orgId = team.org.id) => `/orgs/${orgId}`;
const patchOrg = (body: unknown, as = team.admin, orgId = team.org.id) =>
  call(t.app, 'PATCH', orgUrl(orgId), { as, body });

async function stored(orgId = team.org.id) {
  const [row] = await t.database.db
    .select({ showQualityNotes: organizations.showQualityNotes })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  return row?.showQualityNotes;
}

describe("an organization's showQualityNotes", () => {
  it('is false for a new organization, wherever the organization is answered', async () => {
    const owner = await registerUser(t.app);
    const created = await call(t.app, 'POST', '/orgs', {
      as: owner,
      body: { name: 'Careful NGO', code: uniqueCode() },
    });
    expect([created.status, created.body.showQualityNotes]).toEqual([201, false]);
    const one = await call(t.app, 'GET', orgUrl(created.body.id), { as: owner });
    expect([one.status, one.body]).toEqual([200, created.body]);
    const mine = await call(t.app, 'GET', '/orgs', { as: owner });
    expect(mine.body).toEqual([{ ...created.body, role: 'org_admin' }]);
    expect(await showsQualityNotes(t.database.db, created.body.id)).toBe(false);
  });

  it('is turned on and off by the org_admin, keeping the other settings', async () => {
    const before = (await call(t.app, 'GET', orgUrl(), { as: team.viewer })).body as Record<string, unknown>;
    const on = await patchOrg({ showQualityNotes: true });
    expect([on.status, on.body]).toEqual([200, { ...before, showQualityNotes: true }]);
    expect(await stored()).toBe(true);
    expect(await showsQualityNotes(t.database.db, team.org.id)).toBe(true);
    const read = await call(t.app, 'GET', orgUrl(), { as: team.reporter });
    expect(read.body).toEqual(on.body);

    const renamed = await patchOrg({ name: before.name });
    expect(renamed.body.showQualityNotes).toBe(true);
    const off = await patchOrg({ showQualityNotes: false });
    expect([off.status, off.body]).toEqual([200, before]);
    expect(await showsQualityNotes(t.database.db, team.org.id)).toBe(false);
  });

  it('refuses anything but a boolean with 400 and keeps the setting', async () => {
    for (const value of ['true', null, 1, {}]) {
      expectError(
        await patchOrg({ showQualityNotes: value }),
        badRequestAt(['body', '/showQualityNotes', 'type', 'showQualityNotes must be a boolean']),
      );
    }
    expect(await stored()).toBe(false);
  });

  it('is changed by no other role, no stranger and no anonymous caller', async () => {
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      expectError(await patchOrg({ showQualityNotes: true }, user), refusedTo(team, user, ADMINS));
    }
    expectError(await call(t.app, 'PATCH', orgUrl(), { body: { showQualityNotes: true } }), UNAUTHORIZED);
    expect(await stored()).toBe(false);
  });

  it('of another organization, or one that does not exist, is out of reach (403, as for any organization)', async () => {
    for (const orgId of [team.outsiderOrg.id, MISSING_ID]) {
      expectError(await patchOrg({ showQualityNotes: true }, team.admin, orgId), notAMember(ADMINS));
    }
    expect(await stored(team.outsiderOrg.id)).toBe(false);
    expect(await showsQualityNotes(t.database.db, MISSING_ID)).toBe(false);
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await call(t.app, 'GET', '/api/openapi.json')).body;
    const description = doc.components.schemas.OrganizationUpdate.properties.showQualityNotes.description;
    expect(description).toContain('(default false)');
    expect(doc.paths['/orgs/{orgId}'].patch.description).toContain('`showQualityNotes: true`');
  });
});
