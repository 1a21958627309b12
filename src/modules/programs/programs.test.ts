import { describe, expect, it } from 'vitest';
import { assignProject, createTeam, insertDonor } from '../../../test/helpers/factories.js';
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
import { postProgram, postProject, programsUrl } from '../../../test/helpers/programs.js';
import { programs } from './programs.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const url = (orgId = team.org.id) => programsUrl(orgId);
const summary = (d: { id: string; name: string; code: string }) => ({ id: d.id, name: d.name, code: d.code });

describe('POST /orgs/:orgId/programs', () => {
  it('creates a program (201) with defaults, and with donors sorted by name', async () => {
    const res = await call(t.app, 'POST', url(), {
      as: team.admin,
      body: { name: '  Clean Water  ', startDate: '2026-01-01', endDate: '2026-01-01' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      orgId: team.org.id,
      name: 'Clean Water',
      description: null,
      startDate: '2026-01-01',
      endDate: '2026-01-01',
      status: 'draft',
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
      donors: [],
      projects: [],
    });

    const zeta = await insertDonor(t.database.db, team.org.id, 'Zeta Fund');
    const alpha = await insertDonor(t.database.db, team.org.id, 'Alpha Trust');
    const full = await call(t.app, 'POST', url(), {
      as: team.admin,
      body: {
        name: 'Schools',
        description: 'Five years',
        startDate: '2026-01-01',
        endDate: '2030-12-31',
        status: 'active',
        donorIds: [zeta.id, alpha.id],
      },
    });
    expect(full.status).toBe(201);
    expect(full.body).toMatchObject({
      description: 'Five years',
      status: 'active',
      donors: [summary(alpha), summary(zeta)],
      projects: [],
    });
    const got = await call(t.app, 'GET', `${url()}/${full.body.id}`, { as: team.viewer });
    expect(got.body).toEqual(full.body);
  });

  it('answers 404 Donor not found for a donor of another organization or a missing one, creating nothing', async () => {
    const own = await insertDonor(t.database.db, team.org.id);
    const foreign = await insertDonor(t.database.db, team.outsiderOrg.id);
    for (const donorId of [foreign.id, MISSING_ID]) {
      const name = `Refused ${donorId}`;
      const res = await call(t.app, 'POST', url(), {
        as: team.admin,
        body: { name, startDate: '2026-01-01', endDate: '2026-12-31', donorIds: [own.id, donorId] },
      });
      expectError(res, notFoundBody('Donor'));
      const rows = await t.database.db.select().from(programs);
      expect(rows.filter((p) => p.name === name)).toEqual([]);
    }
  });

  it('rejects every rule violation with 400 naming the field', async () => {
    const cases: [unknown, string[]][] = [
      [{}, ['name is required', 'startDate is required', 'endDate is required']],
      [
        { name: '   ', startDate: '2026-02-30', endDate: 'soon' },
        [
          'name should not be empty',
          'startDate must be a valid date (YYYY-MM-DD)',
          'endDate must be a valid date (YYYY-MM-DD)',
        ],
      ],
      [
        { name: 'X', startDate: '2026-05-01', endDate: '2026-04-30' },
        ['endDate must not be before startDate'],
      ],
      [
        { name: 'X', startDate: '2026-01-01', endDate: '2026-12-31', status: 'closed' },
        ['status must be one of draft, active, completed'],
      ],
      [
        { name: 'X', startDate: '2026-01-01', endDate: '2026-12-31', donorIds: [MISSING_ID, MISSING_ID] },
        ['donorIds must not contain duplicates'],
      ],
      [
        { name: 'X', startDate: '2026-01-01', endDate: '2026-12-31', donorIds: ['nope'] },
        ['donorIds.0 must be a UUID'],
      ],
      [
        { name: 'X', startDate: '2026-01-01', endDate: '2026-12-31', id: MISSING_ID, orgId: team.org.id },
        ['property id should not exist', 'property orgId should not exist'],
      ],
      [{ name: 5, startDate: '2026-01-01', endDate: '2026-12-31' }, ['name must be a string']],
    ];
    for (const [body, messages] of cases) {
      expectViolations(await call(t.app, 'POST', url(), { as: team.admin, body }), ...messages);
    }
  });

  it('is for org_admins only: other roles and outsiders 403, no session 401', async () => {
    const body = { name: 'Nope', startDate: '2026-01-01', endDate: '2026-12-31' };
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      expectError(await call(t.app, 'POST', url(), { as: user, body }), refusedTo(team, user, ADMINS));
    }
    expectError(await call(t.app, 'POST', url(), { body }), UNAUTHORIZED);
  });
});

describe('GET /orgs/:orgId/programs', () => {
  it('lists newest first with donors and project counts, in one page or many', async () => {
    const own = await createTeam(t.app, t.database.db);
    const donor = await insertDonor(t.database.db, own.org.id, 'Gates');
    const first = await postProgram(t.app, own.admin, own.org.id, { name: 'First', donorIds: [donor.id] });
    const second = await postProgram(t.app, own.admin, own.org.id, { name: 'Second' });
    const third = await postProgram(t.app, own.admin, own.org.id, { name: 'Third' });
    const assigned = await postProject(t.app, own.admin, own.org.id, first.id, { name: 'A' });
    await postProject(t.app, own.admin, own.org.id, first.id, { name: 'B' });
    await assignProject(t.database.db, own.org.id, assigned.id, own.reporter.id);

    const res = await call(t.app, 'GET', url(own.org.id), { as: own.viewer });
    expect(res.status).toBe(200);
    const item = (p: typeof first, projectCount: number, donors: unknown[] = []) => {
      const fields: Record<string, unknown> = { ...p };
      delete fields.projects;
      return { ...fields, donors, projectCount };
    };
    expect(res.body).toEqual([item(third, 0), item(second, 0), item(first, 2, [summary(donor)])]);

    const paged = await call(t.app, 'GET', `${url(own.org.id)}?page=2&limit=2`, { as: own.officer });
    expect(paged.body).toEqual({
      data: [item(first, 2, [summary(donor)])],
      meta: { total: 3, page: 2, limit: 2, totalPages: 2 },
    });

    // A reporter reads every program but counts only the projects assigned to them.
    const asReporter = await call(t.app, 'GET', `${url(own.org.id)}?limit=1&page=3`, { as: own.reporter });
    expect(asReporter.body.data).toEqual([item(first, 1, [summary(donor)])]);
  });

  it('orders programs created in the same instant by id', async () => {
    const own = await createTeam(t.app, t.database.db);
    const at = new Date('2026-03-01T00:00:00.000Z');
    const rows = await t.database.db
      .insert(programs)
      .values(
        ['X', 'Y', 'Z'].map((name) => ({
          orgId: own.org.id,
          name,
          startDate: '2026-01-01',
          endDate: '2026-12-31',
          createdAt: at,
        })),
      )
      .returning();
    const res = await call(t.app, 'GET', url(own.org.id), { as: own.admin });
    expect(res.body.map((p: { id: string }) => p.id)).toEqual(rows.map((r) => r.id).sort());
  });

  it('returns an empty array, or an empty envelope when paged', async () => {
    const own = await createTeam(t.app, t.database.db);
    expect((await call(t.app, 'GET', url(own.org.id), { as: own.admin })).body).toEqual([]);
    expect((await call(t.app, 'GET', `${url(own.org.id)}?page=1`, { as: own.admin })).body).toEqual({
      data: [],
      meta: { total: 0, page: 1, limit: 20, totalPages: 0 },
    });
  });

  it('refuses outsiders (403), no session (401) and bad paging (400)', async () => {
    expectError(await call(t.app, 'GET', url(), { as: team.outsider }), notAMember(ALL_ROLES));
    expectError(await call(t.app, 'GET', url()), UNAUTHORIZED);
    expectError(
      await call(t.app, 'GET', `${url()}?limit=101`, { as: team.admin }),
      badRequest('limit must not be greater than 100'),
    );
    expectError(
      await call(t.app, 'GET', '/orgs/nope/programs', { as: team.admin }),
      badRequest('orgId must be a UUID'),
    );
  });
});

describe('GET /orgs/:orgId/programs/:id', () => {
  it('returns the program with its donors and projects sorted by name; a reporter sees assigned projects only', async () => {
    const program = await postProgram(t.app, team.admin, team.org.id);
    const water = await postProject(t.app, team.admin, team.org.id, program.id, { name: 'Water' });
    const boreholes = await postProject(t.app, team.admin, team.org.id, program.id, {
      name: 'Boreholes',
      status: 'active',
    });
    await assignProject(t.database.db, team.org.id, water.id, team.reporter.id);
    for (const user of [team.admin, team.officer, team.viewer]) {
      const res = await call(t.app, 'GET', `${url()}/${program.id}`, { as: user });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...program,
        projects: [
          { id: boreholes.id, name: 'Boreholes', status: 'active' },
          { id: water.id, name: 'Water', status: 'draft' },
        ],
      });
    }
    const asReporter = await call(t.app, 'GET', `${url()}/${program.id}`, { as: team.reporter });
    expect(asReporter.body.projects).toEqual([{ id: water.id, name: 'Water', status: 'draft' }]);
  });

  it('answers 404 for a program of another organization or a missing one; 400 for a non-UUID id', async () => {
    const foreign = await postProgram(t.app, team.outsider, team.outsiderOrg.id);
    for (const user of [team.admin, team.reporter]) {
      for (const id of [foreign.id, MISSING_ID]) {
        expectError(await call(t.app, 'GET', `${url()}/${id}`, { as: user }), notFoundBody('Program'));
      }
    }
    expectError(
      await call(t.app, 'GET', `${url()}/abc`, { as: team.admin }),
      badRequest('id must be a UUID'),
    );
  });

  it('refuses outsiders (403) and no session (401)', async () => {
    const program = await postProgram(t.app, team.admin, team.org.id);
    expectError(
      await call(t.app, 'GET', `${url()}/${program.id}`, { as: team.outsider }),
      notAMember(ALL_ROLES),
    );
    expectError(await call(t.app, 'GET', `${url()}/${program.id}`), UNAUTHORIZED);
  });
});

describe('GET /orgs/:orgId/programs/:id/donors', () => {
  it('lists the full donors by name, paged on request, to every role', async () => {
    const b = await insertDonor(t.database.db, team.org.id, 'Beta');
    const a = await insertDonor(t.database.db, team.org.id, 'Alpha');
    await insertDonor(t.database.db, team.org.id, 'Not linked');
    const program = await postProgram(t.app, team.admin, team.org.id, { donorIds: [b.id, a.id] });
    const full = (d: typeof a) => ({
      id: d.id,
      orgId: team.org.id,
      name: d.name,
      code: d.code,
      type: 'bilateral',
      country: null,
      website: null,
      contactName: null,
      contactEmail: null,
      notes: null,
      createdAt: d.createdAt.toISOString(),
      updatedAt: d.updatedAt.toISOString(),
    });
    for (const user of [team.admin, team.officer, team.reporter, team.viewer]) {
      const res = await call(t.app, 'GET', `${url()}/${program.id}/donors`, { as: user });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([full(a), full(b)]);
    }
    const paged = await call(t.app, 'GET', `${url()}/${program.id}/donors?limit=1&page=2`, {
      as: team.viewer,
    });
    expect(paged.body).toEqual({ data: [full(b)], meta: { total: 2, page: 2, limit: 1, totalPages: 2 } });
  });

  it('answers 404 for another organization’s program, 403 to outsiders and 401 without a session', async () => {
    const foreign = await postProgram(t.app, team.outsider, team.outsiderOrg.id);
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'GET', `${url()}/${id}/donors`, { as: team.admin }),
        notFoundBody('Program'),
      );
    }
    const program = await postProgram(t.app, team.admin, team.org.id);
    expectError(
      await call(t.app, 'GET', `${url()}/${program.id}/donors`, { as: team.outsider }),
      notAMember(ALL_ROLES),
    );
    expectError(await call(t.app, 'GET', `${url()}/${program.id}/donors`), UNAUTHORIZED);
  });
});
