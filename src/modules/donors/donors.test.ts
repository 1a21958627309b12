import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createOrg, registerUser, type TestUser } from '../../../test/helpers/factories.js';
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
  ALL_ROLES,
  notAMember,
  refusedTo,
} from '../../../test/helpers/http.js';
import {
  createDonor as newDonor,
  donorUrl as urlOfDonor,
  donorsUrl as urlOfDonors,
  uniqueDonorCode,
} from '../../../test/helpers/donors.js';
import { findDonorsByIds } from './donors.repo.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const CODE_TAKEN = {
  statusCode: 409,
  message: 'A donor with this code already exists',
  error: 'Conflict',
  code: 'duplicate' as const,
};

const donorsUrl = (orgId = team.org.id) => urlOfDonors(orgId);
const donorUrl = (id: string, orgId = team.org.id) => urlOfDonor(orgId, id);
const createDonor = (fields: Record<string, unknown> = {}, orgId = team.org.id, as: TestUser = team.admin) =>
  newDonor(t.app, as, orgId, fields);

/** A fresh organization with its own admin, for tests that look at a whole list. */
async function freshOrg() {
  const admin = await registerUser(t.app);
  const org = await createOrg(t.app, admin);
  return { admin, org };
}

describe('POST /orgs/:orgId/donors', () => {
  it('creates a donor with every field (201)', async () => {
    const code = uniqueDonorCode();
    const body = {
      name: 'Foreign, Commonwealth & Development Office',
      code,
      type: 'government',
      country: 'United Kingdom',
      website: 'https://www.gov.uk/fcdo',
      contactName: 'Jane Smith',
      contactEmail: 'jane.smith@fcdo.example.org',
      notes: 'Prefers quarterly narrative reports.',
    };
    const res = await call(t.app, 'POST', donorsUrl(), { as: team.admin, body });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      orgId: team.org.id,
      ...body,
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    const read = await call(t.app, 'GET', donorUrl(res.body.id), { as: team.viewer });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it('sets unsent optional fields to null and accepts explicit nulls', async () => {
    const code = uniqueDonorCode();
    const res = await call(t.app, 'POST', donorsUrl(), {
      as: team.admin,
      body: { name: 'Gates Foundation', code, type: 'private', country: null, notes: null },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      orgId: team.org.id,
      name: 'Gates Foundation',
      code,
      type: 'private',
      country: null,
      website: null,
      contactName: null,
      contactEmail: null,
      notes: null,
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
  });

  it('accepts every donor type', async () => {
    for (const type of ['bilateral', 'multilateral', 'private', 'ngo', 'government', 'other']) {
      expect((await createDonor({ type })).type).toBe(type);
    }
  });

  it('trims names, codes and contact names and normalizes the contact email', async () => {
    const code = uniqueDonorCode();
    const donor = await createDonor({
      name: '  World Bank ',
      code: ` ${code} `,
      country: ' Global ',
      contactName: ' Ana Lima ',
      contactEmail: '  Ana.Lima@WorldBank.Example.ORG ',
      website: 'http://worldbank.example.org',
    });
    expect(donor).toMatchObject({
      name: 'World Bank',
      code,
      country: 'Global',
      contactName: 'Ana Lima',
      contactEmail: 'ana.lima@worldbank.example.org',
      website: 'http://worldbank.example.org',
    });
  });

  it('requires name, code and type', async () => {
    const res = await call(t.app, 'POST', donorsUrl(), { as: team.admin, body: {} });
    expectViolations(res, 'name is required', 'code is required', 'type is required');
  });

  it('lists every violation, naming the field', async () => {
    const res = await call(t.app, 'POST', donorsUrl(), {
      as: team.admin,
      body: {
        name: '   ',
        code: '',
        type: 'bank',
        country: 5,
        website: 'ftp://files.example.org',
        contactName: '',
        contactEmail: 'not-an-email',
        notes: 3,
      },
    });
    expectViolations(
      res,
      'name should not be empty',
      'code should not be empty',
      'type must be one of bilateral, multilateral, private, ngo, government, other',
      'country must be a string',
      'website must be an http or https URL',
      'contactName should not be empty',
      'contactEmail must be an email',
      'notes must be a string',
    );
  });

  it('refuses a website that is not a URL, and over-long fields', async () => {
    const res = await call(t.app, 'POST', donorsUrl(), {
      as: team.admin,
      body: { name: 'x'.repeat(201), code: 'C'.repeat(33), type: 'ngo', website: 'not a url' },
    });
    expectViolations(
      res,
      'name must be at most 200 characters',
      'code must be at most 32 characters',
      'website must be an http or https URL',
      'website must be a valid URL',
    );
  });

  it('refuses unknown and read-only properties', async () => {
    const res = await call(t.app, 'POST', donorsUrl(), {
      as: team.admin,
      body: {
        name: 'EU',
        code: uniqueDonorCode(),
        type: 'multilateral',
        id: randomUUID(),
        orgId: team.outsiderOrg.id,
        createdAt: '2026-01-01T00:00:00.000Z',
        budget: 5,
      },
    });
    expectViolations(
      res,
      'property id should not exist',
      'property orgId should not exist',
      'property createdAt should not exist',
      'property budget should not exist',
    );
  });

  it('refuses a code already used in the organization, whatever its letter case (409)', async () => {
    const existing = await createDonor();
    for (const code of [existing.code, existing.code.toLowerCase(), ` ${existing.code} `]) {
      const res = await call(t.app, 'POST', donorsUrl(), {
        as: team.admin,
        body: { name: 'Copy', code, type: 'ngo' },
      });
      expectError(res, CODE_TAKEN);
    }
  });

  it('lets only one of two concurrent creations with codes differing in case through', async () => {
    const code = uniqueDonorCode();
    const results = await Promise.all(
      [code, code.toLowerCase(), code, code.toLowerCase()].map((c) =>
        call(t.app, 'POST', donorsUrl(), { as: team.admin, body: { name: 'Race', code: c, type: 'ngo' } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    for (const r of results.filter((r) => r.status === 409)) expect(r.body).toEqual(CODE_TAKEN);
  });

  it('allows the same code in another organization', async () => {
    const existing = await createDonor();
    const other = await createDonor({ code: existing.code }, team.outsiderOrg.id, team.outsider);
    expect(other.orgId).toBe(team.outsiderOrg.id);
  });

  it('is for org_admins only: 403 for other roles and outsiders, 401 without a session', async () => {
    const body = { name: 'UNICEF', code: uniqueDonorCode(), type: 'multilateral' };
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      expectError(await call(t.app, 'POST', donorsUrl(), { as: user, body }), refusedTo(team, user, ADMINS));
    }
    expectError(await call(t.app, 'POST', donorsUrl(), { body }), UNAUTHORIZED);
    expect((await call(t.app, 'GET', donorsUrl(), { as: team.admin })).body).not.toContainEqual(
      expect.objectContaining({ code: body.code }),
    );
  });

  it('answers 400 for an organization id that is not a UUID', async () => {
    const res = await call(t.app, 'POST', donorsUrl('not-a-uuid'), {
      as: team.admin,
      body: { name: 'UNICEF', code: uniqueDonorCode(), type: 'multilateral' },
    });
    expectError(res, badRequest('orgId must be a UUID'));
  });
});

describe('GET /orgs/:orgId/donors', () => {
  it('lists the donors by name ignoring case, then id, and pages them on request', async () => {
    const { admin, org } = await freshOrg();
    const make = async (name: string) => (await createDonor({ name }, org.id, admin)) as { id: string };
    const bravo = await make('bravo');
    const alpha = await make('Alpha');
    const twins = [await make('Charlie'), await make('Charlie')].sort((a, b) => a.id.localeCompare(b.id));
    await createDonor({ name: 'Alpha' }, team.outsiderOrg.id, team.outsider);
    const expected = [alpha, bravo, ...twins];

    const all = await call(t.app, 'GET', donorsUrl(org.id), { as: admin });
    expect(all.status).toBe(200);
    expect(all.body).toEqual(expected);

    const page = await call(t.app, 'GET', `${donorsUrl(org.id)}?page=2&limit=3`, { as: admin });
    expect(page.status).toBe(200);
    expect(page.body).toEqual({ data: [twins[1]], meta: { total: 4, page: 2, limit: 3, totalPages: 2 } });
    const first = await call(t.app, 'GET', `${donorsUrl(org.id)}?limit=2`, { as: admin });
    expect(first.body).toEqual({
      data: [alpha, bravo],
      meta: { total: 4, page: 1, limit: 2, totalPages: 2 },
    });
    const defaults = await call(t.app, 'GET', `${donorsUrl(org.id)}?page=1`, { as: admin });
    expect(defaults.body.meta).toEqual({ total: 4, page: 1, limit: 20, totalPages: 1 });
  });

  it('returns an empty array, or an empty page, for an organization without donors', async () => {
    const { admin, org } = await freshOrg();
    expect((await call(t.app, 'GET', donorsUrl(org.id), { as: admin })).body).toEqual([]);
    const page = await call(t.app, 'GET', `${donorsUrl(org.id)}?page=1&limit=5`, { as: admin });
    expect(page.body).toEqual({ data: [], meta: { total: 0, page: 1, limit: 5, totalPages: 0 } });
  });

  it('lets every role read; refuses outsiders (403) and anonymous callers (401)', async () => {
    const donor = await createDonor();
    for (const user of [team.admin, team.officer, team.reporter, team.viewer]) {
      const res = await call(t.app, 'GET', donorsUrl(), { as: user });
      expect(res.status).toBe(200);
      expect(res.body).toContainEqual(donor);
    }
    expectError(await call(t.app, 'GET', donorsUrl(), { as: team.outsider }), notAMember(ALL_ROLES));
    expectError(await call(t.app, 'GET', donorsUrl()), UNAUTHORIZED);
  });

  it('rejects bad paging parameters with 400', async () => {
    for (const [query, message] of [
      ['limit=0', 'limit must not be less than 1'],
      ['limit=101', 'limit must not be greater than 100'],
      ['page=0', 'page must not be less than 1'],
      ['page=x', 'page must be an integer'],
    ] as const) {
      expectError(
        await call(t.app, 'GET', `${donorsUrl()}?${query}`, { as: team.admin }),
        badRequest(message),
      );
    }
  });
});

describe('GET /orgs/:orgId/donors/:id', () => {
  it('returns the donor to every role', async () => {
    const donor = await createDonor({ contactName: 'Lee' });
    for (const user of [team.admin, team.officer, team.reporter, team.viewer]) {
      const res = await call(t.app, 'GET', donorUrl(donor.id), { as: user });
      expect([res.status, res.body]).toEqual([200, donor]);
    }
  });

  it("answers 404 for another organization's donor and a missing one", async () => {
    const foreign = await createDonor({}, team.outsiderOrg.id, team.outsider);
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(await call(t.app, 'GET', donorUrl(id), { as: team.admin }), notFoundBody('Donor'));
    }
  });

  it('refuses outsiders (403) and anonymous callers (401); a non-UUID id is 400', async () => {
    const donor = await createDonor();
    expectError(await call(t.app, 'GET', donorUrl(donor.id), { as: team.outsider }), notAMember(ALL_ROLES));
    expectError(await call(t.app, 'GET', donorUrl(donor.id)), UNAUTHORIZED);
    expectError(
      await call(t.app, 'GET', donorUrl('12345'), { as: team.admin }),
      badRequest('id must be a UUID'),
    );
  });
});

describe('findDonorsByIds', () => {
  it("returns id, name and code of the organization's donors among the ids, by name", async () => {
    const { admin, org } = await freshOrg();
    const zeta = await createDonor({ name: 'Zeta' }, org.id, admin);
    const beta = await createDonor({ name: 'Beta' }, org.id, admin);
    await createDonor({ name: 'Unasked' }, org.id, admin);
    const foreign = await createDonor({}, team.outsiderOrg.id, team.outsider);
    const found = await findDonorsByIds(t.database.db, org.id, [
      zeta.id,
      foreign.id,
      MISSING_ID,
      beta.id,
      zeta.id,
    ]);
    expect(found).toEqual([
      { id: beta.id, name: 'Beta', code: beta.code },
      { id: zeta.id, name: 'Zeta', code: zeta.code },
    ]);
    expect(await findDonorsByIds(t.database.db, org.id, [])).toEqual([]);
  });
});
