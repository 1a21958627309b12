import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assignProject, createProject } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  badRequest,
  call,
  expectViolations,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  ALL_ROLES,
  MANAGERS,
  notAMember,
  notAssigned,
  refusedTo,
} from '../../../test/helpers/http.js';
import { projects } from '../projects/projects.tables.js';
import { budgetLines } from './budget.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const linesUrl = (projectId: string, orgId = team.org.id) =>
  `/orgs/${orgId}/projects/${projectId}/budget-lines`;
const lineUrl = (id: string, orgId = team.org.id) => `/orgs/${orgId}/budget-lines/${id}`;

async function addLine(projectId: string, body: Record<string, unknown> = { category: 'Staff' }) {
  const res = await call(t.app, 'POST', linesUrl(projectId), { as: team.officer, body });
  expect(res.status).toBe(201);
  return res.body as { id: string; category: string };
}

const lineCount = async (projectId: string) =>
  (await t.database.db.select().from(budgetLines).where(eq(budgetLines.projectId, projectId))).length;

describe('POST /orgs/:orgId/projects/:projectId/budget-lines', () => {
  it('creates a line (201) in the project currency, with defaults of 0', async () => {
    const project = await createProject(t.database.db, team.org.id);
    await t.database.db.update(projects).set({ currency: 'KES' }).where(eq(projects.id, project.id));
    const res = await call(t.app, 'POST', linesUrl(project.id), {
      as: team.admin,
      body: { category: ' Travel ', description: 'Field visits', plannedAmount: 1500.5, actualAmount: 0.29 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      orgId: team.org.id,
      projectId: project.id,
      category: 'Travel',
      description: 'Field visits',
      plannedAmount: 1500.5,
      actualAmount: 0.29,
      currency: 'KES',
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    const bare = await call(t.app, 'POST', linesUrl(project.id), {
      as: team.officer,
      body: { category: 'Staff' },
    });
    expect(bare.status).toBe(201);
    expect(bare.body).toMatchObject({
      category: 'Staff',
      description: null,
      plannedAmount: 0,
      actualAmount: 0,
    });
  });

  it('rejects every body violation with 400 naming the field', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const cases: [unknown, string[]][] = [
      [{}, ['category is required']],
      [{ category: '   ' }, ['category should not be empty']],
      [{ category: 'x', plannedAmount: -1 }, ['plannedAmount must not be less than 0']],
      [{ category: 'x', actualAmount: '5' }, ['actualAmount must be a number']],
      [
        { category: 'x', plannedAmount: 1.005, actualAmount: 2.123 },
        ['plannedAmount must have at most 2 decimals', 'actualAmount must have at most 2 decimals'],
      ],
      [
        { category: 'x', currency: 'EUR', id: MISSING_ID },
        ['property currency should not exist', 'property id should not exist'],
      ],
      [{ category: 'x', plannedAmount: 1e13 }, ['plannedAmount must not be greater than 1000000000000']],
    ];
    for (const [body, messages] of cases) {
      expectViolations(
        await call(t.app, 'POST', linesUrl(project.id), { as: team.officer, body }),
        ...messages,
      );
    }
    const bad = await call(t.app, 'POST', linesUrl('nope'), { as: team.officer, body: { category: 'x' } });
    expect(bad.body).toEqual(badRequest('projectId must be a UUID'));
    expect(await lineCount(project.id)).toBe(0);
  });

  it('answers 404 for a project of another organization or a missing one', async () => {
    const foreign = await createProject(t.database.db, team.outsiderOrg.id);
    for (const id of [foreign.id, MISSING_ID]) {
      const res = await call(t.app, 'POST', linesUrl(id), { as: team.admin, body: { category: 'x' } });
      expect([res.status, res.body]).toEqual([404, notFoundBody('Project')]);
    }
    expect(await lineCount(foreign.id)).toBe(0);
  });

  it('is for org_admin and me_officer: others 403 (even an assigned reporter), no session 401', async () => {
    const project = await createProject(t.database.db, team.org.id);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      const res = await call(t.app, 'POST', linesUrl(project.id), { as: user, body: { category: 'x' } });
      expect([res.status, res.body]).toEqual([403, refusedTo(team, user, MANAGERS)]);
    }
    const anonymous = await call(t.app, 'POST', linesUrl(project.id), { body: { category: 'x' } });
    expect([anonymous.status, anonymous.body]).toEqual([401, UNAUTHORIZED]);
    expect(await lineCount(project.id)).toBe(0);
  });
});

describe('GET /orgs/:orgId/projects/:projectId/budget-lines', () => {
  it('lists by category then id, plain or paged', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const other = await createProject(t.database.db, team.org.id);
    await addLine(other.id, { category: 'Other project' });
    const travel = await addLine(project.id, { category: 'Travel' });
    const staffA = await addLine(project.id, { category: 'Staff' });
    const staffB = await addLine(project.id, { category: 'Staff' });
    const equipment = await addLine(project.id, { category: 'Equipment' });
    const staff = [staffA, staffB].sort((a, b) => a.id.localeCompare(b.id));

    const res = await call(t.app, 'GET', linesUrl(project.id), { as: team.viewer });
    expect(res.status).toBe(200);
    expect(res.body.map((l: { id: string }) => l.id)).toEqual([
      equipment.id,
      staff[0]!.id,
      staff[1]!.id,
      travel.id,
    ]);
    expect(res.body[0]).toEqual({ ...equipment, currency: 'USD' });

    const paged = await call(t.app, 'GET', `${linesUrl(project.id)}?page=2&limit=3`, { as: team.admin });
    expect(paged.body).toEqual({
      data: [expect.objectContaining({ id: travel.id })],
      meta: { total: 4, page: 2, limit: 3, totalPages: 2 },
    });
    const limitOnly = await call(t.app, 'GET', `${linesUrl(project.id)}?limit=101`, { as: team.admin });
    expect(limitOnly.body).toEqual(badRequest('limit must not be greater than 100'));
  });

  it('lets a reporter read assigned projects only; outsiders 403, no session 401', async () => {
    const project = await createProject(t.database.db, team.org.id);
    await addLine(project.id);
    const refused = await call(t.app, 'GET', linesUrl(project.id), { as: team.reporter });
    expect([refused.status, refused.body]).toEqual([403, notAssigned(ALL_ROLES)]);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const allowed = await call(t.app, 'GET', linesUrl(project.id), { as: team.reporter });
    expect([allowed.status, allowed.body.length]).toEqual([200, 1]);

    const outsider = await call(t.app, 'GET', linesUrl(project.id), { as: team.outsider });
    expect([outsider.status, outsider.body]).toEqual([403, notAMember(ALL_ROLES)]);
    const anonymous = await call(t.app, 'GET', linesUrl(project.id));
    expect([anonymous.status, anonymous.body]).toEqual([401, UNAUTHORIZED]);
  });

  it('answers 404 for a project of another organization', async () => {
    const foreign = await createProject(t.database.db, team.outsiderOrg.id);
    const res = await call(t.app, 'GET', linesUrl(foreign.id), { as: team.admin });
    expect([res.status, res.body]).toEqual([404, notFoundBody('Project')]);
  });
});

describe('PATCH /orgs/:orgId/budget-lines/:id', () => {
  it('changes any subset (200); null clears the description; an empty body changes nothing', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const line = await addLine(project.id, {
      category: 'Staff',
      description: 'Salaries',
      plannedAmount: 100,
    });
    const res = await call(t.app, 'PATCH', lineUrl(line.id), {
      as: team.officer,
      body: { actualAmount: 42.1, description: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...line,
      description: null,
      actualAmount: 42.1,
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    const same = await call(t.app, 'PATCH', lineUrl(line.id), { as: team.admin, body: {} });
    expect([same.status, same.body]).toEqual([200, res.body]);
  });

  it('rejects body violations with 400', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const line = await addLine(project.id);
    const cases: [unknown, string[]][] = [
      [{ category: '' }, ['category should not be empty']],
      [{ plannedAmount: 0.001 }, ['plannedAmount must have at most 2 decimals']],
      [{ description: 5 }, ['description must be a string']],
      [{ actualAmount: -0.01 }, ['actualAmount must not be less than 0']],
      [
        { projectId: project.id, createdAt: '2026-01-01T00:00:00.000Z' },
        ['property projectId should not exist', 'property createdAt should not exist'],
      ],
    ];
    for (const [body, messages] of cases) {
      expectViolations(await call(t.app, 'PATCH', lineUrl(line.id), { as: team.admin, body }), ...messages);
    }
    const bad = await call(t.app, 'PATCH', lineUrl('x'), { as: team.admin, body: {} });
    expect(bad.body).toEqual(badRequest('id must be a UUID'));
  });

  it('answers 404 for a line of another organization; others 403, no session 401', async () => {
    const foreignProject = await createProject(t.database.db, team.outsiderOrg.id);
    const [foreign] = await t.database.db
      .insert(budgetLines)
      .values({ orgId: team.outsiderOrg.id, projectId: foreignProject.id, category: 'Theirs' })
      .returning();
    for (const id of [foreign!.id, MISSING_ID]) {
      const res = await call(t.app, 'PATCH', lineUrl(id), { as: team.admin, body: { category: 'Mine' } });
      expect([res.status, res.body]).toEqual([404, notFoundBody('Budget line')]);
    }
    const [after] = await t.database.db.select().from(budgetLines).where(eq(budgetLines.id, foreign!.id));
    expect(after!.category).toBe('Theirs');

    const project = await createProject(t.database.db, team.org.id);
    const line = await addLine(project.id);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      const res = await call(t.app, 'PATCH', lineUrl(line.id), { as: user, body: { category: 'x' } });
      expect([res.status, res.body]).toEqual([403, refusedTo(team, user, MANAGERS)]);
    }
    const anonymous = await call(t.app, 'PATCH', lineUrl(line.id), { body: { category: 'x' } });
    expect([anonymous.status, anonymous.body]).toEqual([401, UNAUTHORIZED]);
  });
});

describe('DELETE /orgs/:orgId/budget-lines/:id', () => {
  it('deletes a line (204), then 404', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const line = await addLine(project.id);
    const res = await call(t.app, 'DELETE', lineUrl(line.id), { as: team.officer });
    expect([res.status, res.body]).toEqual([204, null]);
    expect(await lineCount(project.id)).toBe(0);
    const again = await call(t.app, 'DELETE', lineUrl(line.id), { as: team.officer });
    expect([again.status, again.body]).toEqual([404, notFoundBody('Budget line')]);
  });

  it('answers 404 for another organization; others 403, no session 401', async () => {
    const foreignProject = await createProject(t.database.db, team.outsiderOrg.id);
    const [foreign] = await t.database.db
      .insert(budgetLines)
      .values({ orgId: team.outsiderOrg.id, projectId: foreignProject.id, category: 'Theirs' })
      .returning();
    const res = await call(t.app, 'DELETE', lineUrl(foreign!.id), { as: team.admin });
    expect([res.status, res.body]).toEqual([404, notFoundBody('Budget line')]);
    expect(await lineCount(foreignProject.id)).toBe(1);

    const project = await createProject(t.database.db, team.org.id);
    const line = await addLine(project.id);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      const refused = await call(t.app, 'DELETE', lineUrl(line.id), { as: user });
      expect([refused.status, refused.body]).toEqual([403, refusedTo(team, user, MANAGERS)]);
    }
    const anonymous = await call(t.app, 'DELETE', lineUrl(line.id));
    expect([anonymous.status, anonymous.body]).toEqual([401, UNAUTHORIZED]);
    expect(await lineCount(project.id)).toBe(1);
  });
});
