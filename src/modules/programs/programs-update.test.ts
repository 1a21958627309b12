import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { insertDonor } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  badRequest,
  call,
  expectError,
  expectViolations,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  conflictBody,
  ADMINS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { postProgram, postProject, programsUrl } from '../../../test/helpers/programs.js';
import { donors } from '../donors/donors.tables.js';
import { projects } from '../projects/projects.tables.js';
import { programDonors, programs } from './programs.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const programUrl = (id: string, orgId = team.org.id) => `${programsUrl(orgId)}/${id}`;
const summary = (d: { id: string; name: string; code: string }) => ({ id: d.id, name: d.name, code: d.code });

const patch = (id: string, body: unknown, as = team.admin) =>
  call(t.app, 'PATCH', programUrl(id), { as, body });

async function linkedDonorIds(programId: string) {
  const rows = await t.database.db
    .select({ donorId: programDonors.donorId })
    .from(programDonors)
    .where(eq(programDonors.programId, programId));
  return rows.map((r) => r.donorId).sort();
}

describe('PATCH /orgs/:orgId/programs/:id', () => {
  it('changes any subset of fields and returns the whole program', async () => {
    const program = await postProgram(t.app, team.admin, team.org.id, { description: 'Old' });
    const project = await postProject(t.app, team.admin, team.org.id, program.id, { name: 'Wells' });
    const res = await patch(program.id, {
      name: ' Water for all ',
      description: null,
      startDate: '2026-06-01',
      endDate: '2029-05-31',
      status: 'active',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...program,
      name: 'Water for all',
      description: null,
      startDate: '2026-06-01',
      endDate: '2029-05-31',
      status: 'active',
      updatedAt: expect.stringMatching(TIMESTAMP),
      donors: [],
      projects: [{ id: project.id, name: 'Wells', status: 'draft' }],
    });
    expect(res.body.updatedAt > program.createdAt).toBe(true);
    expect((await call(t.app, 'GET', programUrl(program.id), { as: team.viewer })).body).toEqual(res.body);

    const empty = await patch(program.id, {});
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ name: 'Water for all', status: 'active' });
  });

  it('replaces the whole donor set with donorIds: adds new, removes missing, [] clears', async () => {
    const [a, b, c] = await Promise.all(
      ['Alpha', 'Beta', 'Gamma'].map((name) => insertDonor(t.database.db, team.org.id, name)),
    );
    const program = await postProgram(t.app, team.admin, team.org.id, { donorIds: [a!.id, b!.id] });
    const res = await patch(program.id, { donorIds: [c!.id, b!.id] });
    expect(res.status).toBe(200);
    expect(res.body.donors).toEqual([summary(b!), summary(c!)]);
    expect(await linkedDonorIds(program.id)).toEqual([b!.id, c!.id].sort());

    const cleared = await patch(program.id, { donorIds: [] });
    expect(cleared.body.donors).toEqual([]);
    expect(await linkedDonorIds(program.id)).toEqual([]);
    // The donors themselves stay.
    expect(await t.database.db.select().from(donors).where(eq(donors.id, a!.id))).toHaveLength(1);
  });

  it('answers 404 Donor not found for a donor of another organization, changing nothing', async () => {
    const own = await insertDonor(t.database.db, team.org.id);
    const foreign = await insertDonor(t.database.db, team.outsiderOrg.id);
    const program = await postProgram(t.app, team.admin, team.org.id, { name: 'Kept', donorIds: [own.id] });
    for (const donorId of [foreign.id, MISSING_ID]) {
      expectError(await patch(program.id, { name: 'Changed', donorIds: [donorId] }), notFoundBody('Donor'));
    }
    const after = await call(t.app, 'GET', programUrl(program.id), { as: team.admin });
    expect(after.body).toMatchObject({ name: 'Kept', donors: [summary(own)] });
  });

  it('allows exactly the status transitions of the contract; the current status is a no-op', async () => {
    const allowed = new Set(['draft>active', 'active>completed', 'completed>active']);
    const statuses = ['draft', 'active', 'completed'] as const;
    for (const from of statuses) {
      for (const to of statuses) {
        const program = await postProgram(t.app, team.admin, team.org.id, { status: from });
        const res = await patch(program.id, { status: to });
        if (from === to || allowed.has(`${from}>${to}`)) {
          expect([from, to, res.status, res.body.status]).toEqual([from, to, 200, to]);
        } else {
          expectError(res, conflictBody(`Cannot change program status from ${from} to ${to}`));
        }
      }
    }
  });

  it('checks endDate >= startDate against the stored dates too', async () => {
    const program = await postProgram(t.app, team.admin, team.org.id, {
      startDate: '2026-01-01',
      endDate: '2026-12-31',
    });
    const message = 'endDate must not be before startDate';
    expectError(await patch(program.id, { endDate: '2025-12-31' }), badRequest(message));
    expectError(
      await patch(program.id, { startDate: '2027-01-01' }),
      badRequest('startDate must not be after endDate'),
    );
    expectError(
      await patch(program.id, { startDate: '2026-03-01', endDate: '2026-02-28' }),
      badRequest(message),
    );
    const ok = await patch(program.id, { startDate: '2027-01-01', endDate: '2027-01-01' });
    expect(ok.status).toBe(200);
  });

  it('rejects unknown, read-only and malformed fields with 400', async () => {
    const program = await postProgram(t.app, team.admin, team.org.id);
    expectViolations(
      await patch(program.id, {
        id: MISSING_ID,
        orgId: team.org.id,
        createdAt: '2026-01-01T00:00:00.000Z',
        projects: [],
        name: '',
        endDate: '2026-13-01',
        status: 'archived',
        donorIds: 'x',
      }),
      'property id should not exist',
      'property orgId should not exist',
      'property createdAt should not exist',
      'property projects should not exist',
      'name should not be empty',
      'endDate must be a valid date (YYYY-MM-DD)',
      'status must be one of draft, active, completed',
      'donorIds must be an array',
    );
    expectError(
      await call(t.app, 'PATCH', programUrl('x'), { as: team.admin, body: {} }),
      badRequest('id must be a UUID'),
    );
  });

  it('answers 404 for a program of another organization or a missing one', async () => {
    const foreign = await postProgram(t.app, team.outsider, team.outsiderOrg.id, { name: 'Theirs' });
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(await patch(id, { name: 'Mine' }), notFoundBody('Program'));
    }
    const [row] = await t.database.db.select().from(programs).where(eq(programs.id, foreign.id));
    expect(row?.name).toBe('Theirs');
  });

  it('is for org_admins only: other roles and outsiders 403, no session 401', async () => {
    const program = await postProgram(t.app, team.admin, team.org.id);
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      expectError(await patch(program.id, { name: 'No' }, user), refusedTo(team, user, ADMINS));
    }
    expectError(await call(t.app, 'PATCH', programUrl(program.id), { body: { name: 'No' } }), UNAUTHORIZED);
  });
});

describe('DELETE /orgs/:orgId/programs/:id', () => {
  it('deletes the program with its projects and donor links (204); the donors stay', async () => {
    const donor = await insertDonor(t.database.db, team.org.id);
    const program = await postProgram(t.app, team.admin, team.org.id, { donorIds: [donor.id] });
    const draft = await postProject(t.app, team.admin, team.org.id, program.id);
    const done = await postProject(t.app, team.admin, team.org.id, program.id, { status: 'completed' });
    const res = await call(t.app, 'DELETE', programUrl(program.id), { as: team.admin });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expectError(
      await call(t.app, 'GET', programUrl(program.id), { as: team.admin }),
      notFoundBody('Program'),
    );
    for (const id of [draft.id, done.id]) {
      expect(await t.database.db.select().from(projects).where(eq(projects.id, id))).toEqual([]);
    }
    expect(await linkedDonorIds(program.id)).toEqual([]);
    expect(await t.database.db.select().from(donors).where(eq(donors.id, donor.id))).toHaveLength(1);
    expectError(
      await call(t.app, 'DELETE', programUrl(program.id), { as: team.admin }),
      notFoundBody('Program'),
    );
  });

  it('refuses with 409 while a project is active, and deletes once none is', async () => {
    const program = await postProgram(t.app, team.admin, team.org.id);
    const project = await postProject(t.app, team.admin, team.org.id, program.id, { status: 'active' });
    await postProject(t.app, team.admin, team.org.id, program.id);
    expectError(
      await call(t.app, 'DELETE', programUrl(program.id), { as: team.admin }),
      conflictBody('Program has active projects'),
    );
    expect((await call(t.app, 'GET', programUrl(program.id), { as: team.admin })).body.projects).toHaveLength(
      2,
    );

    const suspended = await call(t.app, 'PATCH', `/orgs/${team.org.id}/projects/${project.id}`, {
      as: team.admin,
      body: { status: 'suspended' },
    });
    expect(suspended.status).toBe(200);
    expect((await call(t.app, 'DELETE', programUrl(program.id), { as: team.admin })).status).toBe(204);
  });

  it('never deletes a project activated at the same moment: one of the two requests loses', async () => {
    for (let round = 0; round < 5; round++) {
      const program = await postProgram(t.app, team.admin, team.org.id);
      const project = await postProject(t.app, team.admin, team.org.id, program.id);
      const [removed, activated] = await Promise.all([
        call(t.app, 'DELETE', programUrl(program.id), { as: team.admin }),
        call(t.app, 'PATCH', `/orgs/${team.org.id}/projects/${project.id}`, {
          as: team.admin,
          body: { status: 'active' },
        }),
      ]);
      const outcome = [removed.status, activated.status];
      expect([
        [204, 404],
        [409, 200],
      ]).toContainEqual(outcome);
      if (removed.status === 409) expect(removed.body).toEqual(conflictBody('Program has active projects'));
    }
  });

  it('answers 404 for a program of another organization or a missing one, and 400 for a non-UUID id', async () => {
    const foreign = await postProgram(t.app, team.outsider, team.outsiderOrg.id);
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(await call(t.app, 'DELETE', programUrl(id), { as: team.admin }), notFoundBody('Program'));
    }
    expect(await t.database.db.select().from(programs).where(eq(programs.id, foreign.id))).toHaveLength(1);
    expectError(
      await call(t.app, 'DELETE', programUrl('1'), { as: team.admin }),
      badRequest('id must be a UUID'),
    );
  });

  it('is for org_admins only: other roles and outsiders 403, no session 401', async () => {
    const program = await postProgram(t.app, team.admin, team.org.id);
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      expectError(
        await call(t.app, 'DELETE', programUrl(program.id), { as: user }),
        refusedTo(team, user, ADMINS),
      );
    }
    expectError(await call(t.app, 'DELETE', programUrl(program.id)), UNAUTHORIZED);
    expect(await t.database.db.select().from(programs).where(eq(programs.id, program.id))).toHaveLength(1);
  });
});
