import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createDonor as newDonor, donorUrl as urlOfDonor } from '../../../test/helpers/donors.js';
import { type TestUser } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  badRequest,
  call,
  expectError,
  expectViolations,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  ADMINS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { programDonors, programs } from '../programs/programs.tables.js';
import { donors } from './donors.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const CODE_TAKEN = {
  statusCode: 409,
  message: 'A donor with this code already exists',
  error: 'Conflict',
  code: 'duplicate' as const,
};

const donorUrl = (id: string, orgId = team.org.id) => urlOfDonor(orgId, id);
const createDonor = (fields: Record<string, unknown> = {}, orgId = team.org.id, as: TestUser = team.admin) =>
  newDonor(t.app, as, orgId, fields);
const patch = (id: string, body: unknown, as: TestUser = team.admin) =>
  call(t.app, 'PATCH', donorUrl(id), { as, body });

const FULL = {
  country: 'Norway',
  website: 'https://norad.example.no',
  contactName: 'Ola Nordmann',
  contactEmail: 'ola@norad.example.no',
  notes: 'Multi-year framework agreement.',
};

describe('PATCH /orgs/:orgId/donors/:id', () => {
  it('changes only the fields sent and moves updatedAt', async () => {
    const donor = await createDonor({ name: 'Norad', type: 'government', ...FULL });
    const res = await patch(donor.id, { name: 'Norad (NO)', type: 'bilateral', notes: 'Renewed in 2026.' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...donor,
      name: 'Norad (NO)',
      type: 'bilateral',
      notes: 'Renewed in 2026.',
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(donor.updatedAt));
    expect(res.body.createdAt).toBe(donor.createdAt);
    expect((await call(t.app, 'GET', donorUrl(donor.id), { as: team.viewer })).body).toEqual(res.body);
  });

  it('clears the optional fields with null', async () => {
    const donor = await createDonor(FULL);
    const cleared = { country: null, website: null, contactName: null, contactEmail: null, notes: null };
    const res = await patch(donor.id, cleared);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...donor, ...cleared, updatedAt: expect.stringMatching(TIMESTAMP) });
  });

  it('sets optional fields, trimming text and normalizing the email', async () => {
    const donor = await createDonor();
    const res = await patch(donor.id, {
      code: ` ${donor.code}x `,
      country: ' Kenya ',
      website: 'http://donor.example.org/about',
      contactName: ' Wanjiru ',
      contactEmail: ' Wanjiru@Donor.Example.ORG',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      code: `${donor.code}x`,
      country: 'Kenya',
      website: 'http://donor.example.org/about',
      contactName: 'Wanjiru',
      contactEmail: 'wanjiru@donor.example.org',
    });
  });

  it('returns the donor unchanged for an empty body', async () => {
    const donor = await createDonor(FULL);
    const res = await patch(donor.id, {});
    expect([res.status, res.body]).toEqual([200, donor]);
  });

  it("refuses another donor's code in any letter case (409) but lets a donor re-case its own", async () => {
    const taken = await createDonor();
    const donor = await createDonor();
    for (const code of [taken.code, taken.code.toLowerCase()]) {
      expectError(await patch(donor.id, { code, name: 'Renamed' }), CODE_TAKEN);
    }
    expect((await call(t.app, 'GET', donorUrl(donor.id), { as: team.admin })).body).toEqual(donor);

    const recased = await patch(donor.id, { code: donor.code.toLowerCase() });
    expect([recased.status, recased.body.code]).toEqual([200, donor.code.toLowerCase()]);
    const same = await patch(taken.id, { code: taken.code });
    expect([same.status, same.body.code]).toEqual([200, taken.code]);
  });

  it('ignores codes of other organizations', async () => {
    const foreign = await createDonor({}, team.outsiderOrg.id, team.outsider);
    const donor = await createDonor();
    const res = await patch(donor.id, { code: foreign.code });
    expect([res.status, res.body.code]).toEqual([200, foreign.code]);
  });

  it('refuses null for required fields, bad values and read-only or unknown properties', async () => {
    const donor = await createDonor();
    expectViolations(
      await patch(donor.id, { name: null, code: null, type: null }),
      'name must be a string',
      'code must be a string',
      'type must be a string',
      'type must be one of bilateral, multilateral, private, ngo, government, other',
    );
    expectViolations(
      await patch(donor.id, {
        name: ' ',
        type: 'foundation',
        website: 'mailto:x@example.org',
        contactEmail: 'nobody',
        country: '',
        notes: 'n'.repeat(10_001),
      }),
      'name should not be empty',
      'type must be one of bilateral, multilateral, private, ngo, government, other',
      'website must be an http or https URL',
      'contactEmail must be an email',
      'country should not be empty',
      'notes must be at most 10000 characters',
    );
    expectViolations(
      await patch(donor.id, { id: MISSING_ID, orgId: team.outsiderOrg.id, updatedAt: null, extra: 1 }),
      'property id should not exist',
      'property orgId should not exist',
      'property updatedAt should not exist',
      'property extra should not exist',
    );
    expect((await call(t.app, 'GET', donorUrl(donor.id), { as: team.admin })).body).toEqual(donor);
  });

  it("answers 404 for another organization's donor and a missing one; 400 for a non-UUID id", async () => {
    const foreign = await createDonor({}, team.outsiderOrg.id, team.outsider);
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(await patch(id, { name: 'Taken over' }), notFoundBody('Donor'));
    }
    const still = await call(t.app, 'GET', donorUrl(foreign.id, team.outsiderOrg.id), { as: team.outsider });
    expect(still.body).toEqual(foreign);
    expectError(await patch('nope', { name: 'x' }), badRequest('id must be a UUID'));
  });

  it('is for org_admins only: 403 for other roles and outsiders, 401 without a session', async () => {
    const donor = await createDonor();
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      expectError(await patch(donor.id, { name: 'Hijacked' }, user), refusedTo(team, user, ADMINS));
    }
    expectError(await call(t.app, 'PATCH', donorUrl(donor.id), { body: { name: 'x' } }), UNAUTHORIZED);
    expect((await call(t.app, 'GET', donorUrl(donor.id), { as: team.admin })).body).toEqual(donor);
  });
});

describe('DELETE /orgs/:orgId/donors/:id', () => {
  it('deletes the donor (204); it is gone from reads and the list', async () => {
    const donor = await createDonor();
    const res = await call(t.app, 'DELETE', donorUrl(donor.id), { as: team.admin });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expectError(await call(t.app, 'GET', donorUrl(donor.id), { as: team.admin }), notFoundBody('Donor'));
    const list = await call(t.app, 'GET', `/orgs/${team.org.id}/donors`, { as: team.admin });
    expect(list.body.map((d: { id: string }) => d.id)).not.toContain(donor.id);
    expectError(await call(t.app, 'DELETE', donorUrl(donor.id), { as: team.admin }), notFoundBody('Donor'));
  });

  it('detaches the donor from its programs, keeping the programs and their other donors', async () => {
    const db = t.database.db;
    const leaving = await createDonor();
    const staying = await createDonor();
    const [program] = await db
      .insert(programs)
      .values({ orgId: team.org.id, name: 'Resilience', startDate: '2026-01-01', endDate: '2028-12-31' })
      .returning();
    await db.insert(programDonors).values([
      { orgId: team.org.id, programId: program!.id, donorId: leaving.id },
      { orgId: team.org.id, programId: program!.id, donorId: staying.id },
    ]);

    expect((await call(t.app, 'DELETE', donorUrl(leaving.id), { as: team.admin })).status).toBe(204);
    const links = await db
      .select({ donorId: programDonors.donorId })
      .from(programDonors)
      .where(and(eq(programDonors.orgId, team.org.id), eq(programDonors.programId, program!.id)));
    expect(links).toEqual([{ donorId: staying.id }]);
    const kept = await db.select({ id: programs.id }).from(programs).where(eq(programs.id, program!.id));
    expect(kept).toEqual([{ id: program!.id }]);
  });

  it("answers 404 for another organization's donor and a missing one, and leaves them alone", async () => {
    const foreign = await createDonor({}, team.outsiderOrg.id, team.outsider);
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(await call(t.app, 'DELETE', donorUrl(id), { as: team.admin }), notFoundBody('Donor'));
    }
    const rows = await t.database.db.select({ id: donors.id }).from(donors).where(eq(donors.id, foreign.id));
    expect(rows).toEqual([{ id: foreign.id }]);
    expectError(
      await call(t.app, 'DELETE', donorUrl('x'), { as: team.admin }),
      badRequest('id must be a UUID'),
    );
  });

  it('is for org_admins only: 403 for other roles and outsiders, 401 without a session', async () => {
    const donor = await createDonor();
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      expectError(
        await call(t.app, 'DELETE', donorUrl(donor.id), { as: user }),
        refusedTo(team, user, ADMINS),
      );
    }
    expectError(await call(t.app, 'DELETE', donorUrl(donor.id)), UNAUTHORIZED);
    expect((await call(t.app, 'GET', donorUrl(donor.id), { as: team.admin })).body).toEqual(donor);
  });
});
