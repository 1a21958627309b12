import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { assignProject, createTeam, uniqueCode, type Team } from '../../../test/helpers/factories.js';
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
import { postProgram, postProject } from '../../../test/helpers/programs.js';
import { projectMembers, projects } from './projects.tables.js';

let t: TestApp;
let team: Team;
let programId: string;

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
  programId = (await postProgram(t.app, team.admin, team.org.id)).id;
});
afterAll(() => t.close());

const projectUrl = (id: string, orgId = team.org.id) => `/orgs/${orgId}/projects/${id}`;
const patch = (id: string, body: unknown, as = team.admin) =>
  call(t.app, 'PATCH', projectUrl(id), { as, body });
const newProject = (body: Record<string, unknown> = {}) =>
  postProject(t.app, team.admin, team.org.id, programId, body);

async function storedProject(id: string) {
  const [row] = await t.database.db.select().from(projects).where(eq(projects.id, id));
  return row;
}

describe('PATCH /orgs/:orgId/projects/:id', () => {
  it('changes any subset of fields and returns the whole project', async () => {
    const project = await newProject({ location: 'Kenya', lead: 'Partner', description: 'Text' });
    const code = uniqueCode('n');
    const res = await patch(project.id, {
      name: ' Boreholes ',
      code,
      budget: 99.99,
      currency: 'EUR',
      startDate: '2026-03-01',
      endDate: '2026-03-01',
      status: 'active',
      location: null,
      lead: 'Another partner',
      description: null,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...project,
      name: 'Boreholes',
      code,
      budget: 99.99,
      currency: 'EUR',
      startDate: '2026-03-01',
      endDate: '2026-03-01',
      status: 'active',
      location: null,
      lead: 'Another partner',
      description: null,
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    expect((await call(t.app, 'GET', projectUrl(project.id), { as: team.viewer })).body).toEqual(res.body);
    const unchanged = await patch(project.id, {});
    expect(unchanged.body).toEqual({ ...res.body, updatedAt: expect.stringMatching(TIMESTAMP) });
  });

  it('allows exactly the status transitions of the contract; the current status is a no-op', async () => {
    const allowed = new Set([
      'draft>active',
      'active>suspended',
      'suspended>active',
      'active>completed',
      'suspended>completed',
      'completed>active',
    ]);
    const statuses = ['draft', 'active', 'completed', 'suspended'] as const;
    for (const from of statuses) {
      for (const to of statuses) {
        const project = await newProject({ status: from });
        const res = await patch(project.id, { status: to });
        if (from === to || allowed.has(`${from}>${to}`)) {
          expect([from, to, res.status, res.body.status]).toEqual([from, to, 200, to]);
        } else {
          expectError(res, conflictBody(`Cannot change project status from ${from} to ${to}`));
          expect((await storedProject(project.id))?.status).toBe(from);
        }
      }
    }
  });

  it('refuses a code used by another project of the organization (409); its own code is fine', async () => {
    const taken = await newProject();
    const project = await newProject();
    expectError(
      await patch(project.id, { code: taken.code }),
      conflictBody('A project with this code already exists'),
    );
    expect((await patch(project.id, { code: project.code, name: 'Same code' })).status).toBe(200);
  });

  it('checks dates against the stored ones and the currency against ISO 4217 (400)', async () => {
    const project = await newProject({ startDate: '2026-01-01', endDate: '2026-12-31' });
    const dates = 'endDate must not be before startDate';
    expectError(await patch(project.id, { endDate: '2025-12-31' }), badRequest(dates));
    // Only startDate was sent: the message names it.
    expectError(
      await patch(project.id, { startDate: '2027-01-01' }),
      badRequest('startDate must not be after endDate'),
    );
    expectError(
      await patch(project.id, { currency: 'XYZ' }),
      badRequest('currency must be an ISO 4217 currency code'),
    );
    expect(await storedProject(project.id)).toMatchObject({
      startDate: '2026-01-01',
      endDate: '2026-12-31',
      currency: 'USD',
    });
  });

  it('rejects programId, read-only and malformed fields with 400', async () => {
    const project = await newProject();
    const other = await postProgram(t.app, team.admin, team.org.id);
    expectViolations(
      await patch(project.id, {
        programId: other.id,
        id: MISSING_ID,
        createdAt: '2026-01-01T00:00:00.000Z',
        name: '',
        budget: -5,
        currency: 'eur',
        endDate: '31/12/2026',
        status: 'closed',
      }),
      'property programId should not exist',
      'property id should not exist',
      'property createdAt should not exist',
      'name should not be empty',
      'budget must not be less than 0',
      'currency must be 3 upper-case letters, an ISO 4217 currency code such as USD or KES',
      'endDate must be a valid date (YYYY-MM-DD)',
      'status must be one of draft, active, completed, suspended',
    );
    expect((await storedProject(project.id))?.programId).toBe(programId);
    // Money is kept in cents: a third decimal is refused, not rounded away.
    expectError(
      await patch(project.id, { budget: 1000.555 }),
      badRequest('budget must have at most 2 decimals'),
    );
  });

  it('answers 404 for a project of another organization or a missing one', async () => {
    const foreignProgram = await postProgram(t.app, team.outsider, team.outsiderOrg.id);
    const foreign = await postProject(t.app, team.outsider, team.outsiderOrg.id, foreignProgram.id, {
      name: 'Theirs',
    });
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(await patch(id, { name: 'Mine' }), notFoundBody('Project'));
    }
    expect((await storedProject(foreign.id))?.name).toBe('Theirs');
  });

  it('is for org_admins only: other roles (an assigned reporter too) and outsiders 403, no session 401', async () => {
    const project = await newProject();
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      expectError(await patch(project.id, { name: 'No' }, user), refusedTo(team, user, ADMINS));
    }
    expectError(await call(t.app, 'PATCH', projectUrl(project.id), { body: { name: 'No' } }), UNAUTHORIZED);
  });
});

describe('DELETE /orgs/:orgId/projects/:id', () => {
  it('deletes the project and its assignments (204), whatever its status', async () => {
    for (const status of ['draft', 'active']) {
      const project = await newProject({ status });
      await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
      const res = await call(t.app, 'DELETE', projectUrl(project.id), { as: team.admin });
      expect(res.status).toBe(204);
      expect(res.body).toBeNull();
      expect(await storedProject(project.id)).toBeUndefined();
      expect(
        await t.database.db.select().from(projectMembers).where(eq(projectMembers.projectId, project.id)),
      ).toEqual([]);
      expectError(
        await call(t.app, 'GET', projectUrl(project.id), { as: team.admin }),
        notFoundBody('Project'),
      );
      expectError(
        await call(t.app, 'DELETE', projectUrl(project.id), { as: team.admin }),
        notFoundBody('Project'),
      );
    }
  });

  it('answers 404 for a project of another organization or a missing one, and 400 for a non-UUID id', async () => {
    const foreignProgram = await postProgram(t.app, team.outsider, team.outsiderOrg.id);
    const foreign = await postProject(t.app, team.outsider, team.outsiderOrg.id, foreignProgram.id);
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(await call(t.app, 'DELETE', projectUrl(id), { as: team.admin }), notFoundBody('Project'));
    }
    expect(await storedProject(foreign.id)).toBeDefined();
    expectError(
      await call(t.app, 'DELETE', projectUrl('0'), { as: team.admin }),
      badRequest('id must be a UUID'),
    );
  });

  it('is for org_admins only: other roles and outsiders 403, no session 401', async () => {
    const project = await newProject();
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      expectError(
        await call(t.app, 'DELETE', projectUrl(project.id), { as: user }),
        refusedTo(team, user, ADMINS),
      );
    }
    expectError(await call(t.app, 'DELETE', projectUrl(project.id)), UNAUTHORIZED);
    expect(await storedProject(project.id)).toBeDefined();
  });
});
