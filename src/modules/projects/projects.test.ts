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
  ADMINS,
  ALL_ROLES,
  notAMember,
  notAssigned,
  refusedTo,
} from '../../../test/helpers/http.js';
import { postProgram, postProject } from '../../../test/helpers/programs.js';
import { projects } from './projects.tables.js';

let t: TestApp;
let team: Team;
let programId: string;

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
  programId = (await postProgram(t.app, team.admin, team.org.id)).id;
});
afterAll(() => t.close());

const listUrl = (program = programId, orgId = team.org.id) => `/orgs/${orgId}/programs/${program}/projects`;
const projectUrl = (id: string, orgId = team.org.id) => `/orgs/${orgId}/projects/${id}`;
const required = () => ({
  name: 'Wells',
  code: uniqueCode('w'),
  startDate: '2026-01-01',
  endDate: '2027-12-31',
  currency: 'KES',
});

describe('POST /orgs/:orgId/programs/:programId/projects', () => {
  it('creates a project (201) with defaults from the required fields only', async () => {
    const body = required();
    const res = await call(t.app, 'POST', listUrl(), { as: team.admin, body });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      orgId: team.org.id,
      programId,
      ...body,
      description: null,
      budget: 0,
      status: 'draft',
      location: null,
      lead: null,
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    expect((await call(t.app, 'GET', projectUrl(res.body.id), { as: team.viewer })).body).toEqual(res.body);
  });

  it('stores every optional field, the budget as a number with two decimals', async () => {
    const body = {
      ...required(),
      name: '  School meals ',
      code: ` ${uniqueCode('m')} `,
      budget: 125000.5,
      location: 'Kenya',
      lead: 'Partner NGO',
      description: 'Meals for 40 schools',
      status: 'active',
    };
    const res = await call(t.app, 'POST', listUrl(), { as: team.admin, body });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'School meals',
      code: body.code.trim(),
      budget: 125000.5,
      location: 'Kenya',
      lead: 'Partner NGO',
      description: 'Meals for 40 schools',
      status: 'active',
    });
  });

  it('refuses a code already used in the organization with 409, but not one used by another organization', async () => {
    const first = await postProject(t.app, team.admin, team.org.id, programId);
    const other = await postProgram(t.app, team.admin, team.org.id);
    const res = await call(t.app, 'POST', listUrl(other.id), {
      as: team.admin,
      body: { ...required(), code: first.code },
    });
    expectError(res, {
      statusCode: 409,
      message: 'A project with this code already exists',
      error: 'Conflict',
      code: 'duplicate',
    });

    const theirProgram = await postProgram(t.app, team.outsider, team.outsiderOrg.id);
    const elsewhere = await call(t.app, 'POST', listUrl(theirProgram.id, team.outsiderOrg.id), {
      as: team.outsider,
      body: { ...required(), code: first.code },
    });
    expect(elsewhere.status).toBe(201);
  });

  it('rejects every rule violation with 400 naming the field', async () => {
    const cases: [unknown, string[]][] = [
      [
        {},
        [
          'name is required',
          'code is required',
          'startDate is required',
          'endDate is required',
          'currency is required',
        ],
      ],
      [
        { ...required(), currency: 'usd' },
        ['currency must be 3 upper-case letters, an ISO 4217 currency code such as USD or KES'],
      ],
      [{ ...required(), currency: 'ABC' }, ['currency must be an ISO 4217 currency code']],
      [
        { ...required(), currency: 'ZZZ', startDate: '2026-05-01', endDate: '2026-04-01' },
        ['endDate must not be before startDate', 'currency must be an ISO 4217 currency code'],
      ],
      [{ ...required(), budget: -1 }, ['budget must not be less than 0']],
      [{ ...required(), budget: '100' }, ['budget must be a number']],
      [{ ...required(), status: 'paused' }, ['status must be one of draft, active, completed, suspended']],
      [{ ...required(), startDate: '2026-02-29' }, ['startDate must be a valid date (YYYY-MM-DD)']],
      [{ ...required(), code: '  ' }, ['code should not be empty']],
      [
        { ...required(), programId, id: MISSING_ID, orgId: team.org.id },
        [
          'property programId should not exist',
          'property id should not exist',
          'property orgId should not exist',
        ],
      ],
    ];
    for (const [body, messages] of cases) {
      expectViolations(await call(t.app, 'POST', listUrl(), { as: team.admin, body }), ...messages);
    }
  });

  it('answers 404 Program not found for a program of another organization or a missing one', async () => {
    const foreign = await postProgram(t.app, team.outsider, team.outsiderOrg.id);
    for (const id of [foreign.id, MISSING_ID]) {
      const body = required();
      expectError(await call(t.app, 'POST', listUrl(id), { as: team.admin, body }), notFoundBody('Program'));
      expect(await t.database.db.select().from(projects).where(eq(projects.code, body.code))).toEqual([]);
    }
    expectError(
      await call(t.app, 'POST', listUrl('p'), { as: team.admin, body: required() }),
      badRequest('programId must be a UUID'),
    );
  });

  it('is for org_admins only: other roles and outsiders 403, no session 401', async () => {
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      expectError(
        await call(t.app, 'POST', listUrl(), { as: user, body: required() }),
        refusedTo(team, user, ADMINS),
      );
    }
    expectError(await call(t.app, 'POST', listUrl(), { body: required() }), UNAUTHORIZED);
  });
});

describe('GET /orgs/:orgId/programs/:programId/projects', () => {
  it('lists the program’s projects by name then id, paged on request; a reporter sees assigned ones only', async () => {
    const program = await postProgram(t.app, team.admin, team.org.id);
    const zed = await postProject(t.app, team.admin, team.org.id, program.id, { name: 'Zed' });
    const amber = await postProject(t.app, team.admin, team.org.id, program.id, { name: 'Amber' });
    const twins = [
      await postProject(t.app, team.admin, team.org.id, program.id, { name: 'Mid' }),
      await postProject(t.app, team.admin, team.org.id, program.id, { name: 'Mid' }),
    ].sort((a, b) => a.id.localeCompare(b.id));
    await postProject(t.app, team.admin, team.org.id, programId, { name: 'Other program' });
    const expected = [amber, ...twins, zed];

    for (const user of [team.admin, team.officer, team.viewer]) {
      const res = await call(t.app, 'GET', listUrl(program.id), { as: user });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(expected);
    }
    const paged = await call(t.app, 'GET', `${listUrl(program.id)}?page=2&limit=3`, { as: team.viewer });
    expect(paged.body).toEqual({ data: [zed], meta: { total: 4, page: 2, limit: 3, totalPages: 2 } });

    expect((await call(t.app, 'GET', listUrl(program.id), { as: team.reporter })).body).toEqual([]);
    await assignProject(t.database.db, team.org.id, zed.id, team.reporter.id);
    const mine = await call(t.app, 'GET', `${listUrl(program.id)}?limit=10`, { as: team.reporter });
    expect(mine.body).toEqual({ data: [zed], meta: { total: 1, page: 1, limit: 10, totalPages: 1 } });
  });

  it('answers 404 for a program of another organization or a missing one', async () => {
    const foreign = await postProgram(t.app, team.outsider, team.outsiderOrg.id);
    await postProject(t.app, team.outsider, team.outsiderOrg.id, foreign.id);
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(await call(t.app, 'GET', listUrl(id), { as: team.reporter }), notFoundBody('Program'));
    }
  });

  it('refuses outsiders (403), no session (401) and bad paging (400)', async () => {
    expectError(await call(t.app, 'GET', listUrl(), { as: team.outsider }), notAMember(ALL_ROLES));
    expectError(await call(t.app, 'GET', listUrl()), UNAUTHORIZED);
    expectError(
      await call(t.app, 'GET', `${listUrl()}?page=0`, { as: team.admin }),
      badRequest('page must not be less than 1'),
    );
  });
});

describe('GET /orgs/:orgId/projects/:id', () => {
  it('returns the project to every role; to a reporter only when assigned', async () => {
    const project = await postProject(t.app, team.admin, team.org.id, programId, { budget: 10 });
    for (const user of [team.admin, team.officer, team.viewer]) {
      const res = await call(t.app, 'GET', projectUrl(project.id), { as: user });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(project);
    }
    expectError(
      await call(t.app, 'GET', projectUrl(project.id), { as: team.reporter }),
      notAssigned(ALL_ROLES),
    );
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    expect((await call(t.app, 'GET', projectUrl(project.id), { as: team.reporter })).body).toEqual(project);
  });

  it('answers 404 (not 403) for a project of another organization, even to a reporter', async () => {
    const foreignProgram = await postProgram(t.app, team.outsider, team.outsiderOrg.id);
    const foreign = await postProject(t.app, team.outsider, team.outsiderOrg.id, foreignProgram.id);
    for (const user of [team.admin, team.reporter]) {
      for (const id of [foreign.id, MISSING_ID]) {
        expectError(await call(t.app, 'GET', projectUrl(id), { as: user }), notFoundBody('Project'));
      }
    }
    expectError(
      await call(t.app, 'GET', projectUrl('zz'), { as: team.admin }),
      badRequest('id must be a UUID'),
    );
  });

  it('refuses outsiders (403) and no session (401)', async () => {
    const project = await postProject(t.app, team.admin, team.org.id, programId);
    expectError(
      await call(t.app, 'GET', projectUrl(project.id), { as: team.outsider }),
      notAMember(ALL_ROLES),
    );
    expectError(await call(t.app, 'GET', projectUrl(project.id)), UNAUTHORIZED);
  });
});
