import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { assignProject, createProject, createTeam, type Team } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  TIMESTAMP,
  UNAUTHORIZED,
  FORBIDDEN,
  badRequest,
  call,
  expectError,
  expectViolations,
  notFoundBody,
} from '../../../test/helpers/http.js';
import {
  act,
  indicatorCode,
  linkIndicator,
  linksUrl,
  postIndicator,
  postReport,
} from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { projectIndicators } from './indicators.tables.js';

let t: TestApp;
let team: Team;

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

const linkUrl = (projectId: string, indicatorId: string, orgId = team.org.id) =>
  `${linksUrl(orgId, projectId)}/${indicatorId}`;

/** The project's link rows as stored, oldest indicator id first. */
const storedLinks = (projectId: string) =>
  t.database.db
    .select({
      indicatorId: projectIndicators.indicatorId,
      target: projectIndicators.target,
      baseline: projectIndicators.baseline,
      baselineYear: projectIndicators.baselineYear,
    })
    .from(projectIndicators)
    .where(eq(projectIndicators.projectId, projectId))
    .orderBy(asc(projectIndicators.indicatorId));

const newProject = () => createProject(t.database.db, team.org.id);
const newIndicator = (body: Record<string, unknown> = {}) =>
  postIndicator(t.app, team.officer, team.org.id, body) as Promise<Record<string, unknown> & { id: string }>;

/** A link as every route returns it. */
const linkJson = (
  projectId: string,
  indicator: Record<string, unknown> & { id: string },
  values: { target?: number | null; baseline?: number | null; baselineYear?: number | null } = {},
) => ({
  projectId,
  indicatorId: indicator.id,
  target: null,
  baseline: null,
  baselineYear: null,
  ...values,
  createdAt: expect.stringMatching(TIMESTAMP),
  updatedAt: expect.stringMatching(TIMESTAMP),
  indicator,
});

describe('POST /orgs/:orgId/projects/:projectId/indicators', () => {
  it('links an indicator (201) with its target and baseline and the whole indicator', async () => {
    const project = await newProject();
    const indicator = await newIndicator({ description: 'Under-fives', dataSource: 'Clinic registers' });
    const res = await call(t.app, 'POST', linksUrl(team.org.id, project.id), {
      as: team.officer,
      body: { indicatorId: indicator.id, target: 1200.5, baseline: -3, baselineYear: 2025 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual(
      linkJson(project.id, indicator, { target: 1200.5, baseline: -3, baselineYear: 2025 }),
    );
    expect(await storedLinks(project.id)).toEqual([
      { indicatorId: indicator.id, target: 1200.5, baseline: -3, baselineYear: 2025 },
    ]);
  });

  it('defaults target, baseline and baselineYear to null; org_admin may link too', async () => {
    const project = await newProject();
    const indicator = await newIndicator();
    const res = await call(t.app, 'POST', linksUrl(team.org.id, project.id), {
      as: team.admin,
      body: { indicatorId: indicator.id },
    });
    expect([res.status, res.body]).toEqual([201, linkJson(project.id, indicator)]);
    const explicit = await newIndicator();
    const nulls = await call(t.app, 'POST', linksUrl(team.org.id, project.id), {
      as: team.admin,
      body: { indicatorId: explicit.id, target: null, baseline: null, baselineYear: null },
    });
    expect([nulls.status, nulls.body]).toEqual([201, linkJson(project.id, explicit)]);
  });

  it('links a formula indicator', async () => {
    const project = await newProject();
    const girls = await newIndicator({ code: indicatorCode('GIRLS') });
    const boys = await newIndicator({ code: indicatorCode('BOYS') });
    const total = await newIndicator({
      code: indicatorCode('TOTAL'),
      aggregationMethod: undefined,
      formula: `${girls.code as string} + ${boys.code as string}`,
    });
    expect(total).toMatchObject({ isFormula: true, aggregationMethod: null });
    const res = await call(t.app, 'POST', linksUrl(team.org.id, project.id), {
      as: team.officer,
      body: { indicatorId: total.id, target: 300 },
    });
    expect([res.status, res.body]).toEqual([201, linkJson(project.id, total, { target: 300 })]);
  });

  it('refuses a second link of the same indicator (409) and keeps the first', async () => {
    const project = await newProject();
    const indicator = await newIndicator();
    await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target: 10 });
    const res = await call(t.app, 'POST', linksUrl(team.org.id, project.id), {
      as: team.officer,
      body: { indicatorId: indicator.id, target: 99 },
    });
    expectError(res, {
      statusCode: 409,
      message: 'Indicator is already linked to the project',
      error: 'Conflict',
    });
    expect(await storedLinks(project.id)).toEqual([
      { indicatorId: indicator.id, target: 10, baseline: null, baselineYear: null },
    ]);
  });

  it('links the same indicator to several projects', async () => {
    const [first, second] = [await newProject(), await newProject()];
    const indicator = await newIndicator();
    await linkIndicator(t.app, team.officer, team.org.id, first.id, indicator.id, { target: 1 });
    const res = await call(t.app, 'POST', linksUrl(team.org.id, second.id), {
      as: team.officer,
      body: { indicatorId: indicator.id, target: 2 },
    });
    expect([res.status, res.body]).toEqual([201, linkJson(second.id, indicator, { target: 2 })]);
  });

  it('answers 404 for an indicator of another organization or a missing one', async () => {
    const project = await newProject();
    const foreign = await postIndicator(t.app, team.outsider, team.outsiderOrg.id);
    for (const indicatorId of [foreign.id, MISSING_ID]) {
      const res = await call(t.app, 'POST', linksUrl(team.org.id, project.id), {
        as: team.officer,
        body: { indicatorId },
      });
      expectError(res, notFoundBody('Indicator'));
    }
    expect(await storedLinks(project.id)).toEqual([]);
  });

  it('answers 404 for a project of another organization or a missing one', async () => {
    const foreign = await createProject(t.database.db, team.outsiderOrg.id);
    const indicator = await newIndicator();
    for (const projectId of [foreign.id, MISSING_ID]) {
      const res = await call(t.app, 'POST', linksUrl(team.org.id, projectId), {
        as: team.officer,
        body: { indicatorId: indicator.id },
      });
      expectError(res, notFoundBody('Project'));
    }
    expect(await storedLinks(foreign.id)).toEqual([]);
  });

  it('rejects every body violation with 400 naming the field', async () => {
    const project = await newProject();
    const { id } = await newIndicator();
    const cases: [unknown, string[]][] = [
      [{ indicatorId: id, target: '5' }, ['target must be a number']],
      [{ indicatorId: id, baseline: '5' }, ['baseline must be a number']],
      [{ indicatorId: id, baselineYear: 2020.5 }, ['baselineYear must be an integer']],
      [
        { indicatorId: id, baselineYear: 1.5 },
        ['baselineYear must be an integer', 'baselineYear must not be less than 1900'],
      ],
      [{ indicatorId: id, baselineYear: 1800 }, ['baselineYear must not be less than 1900']],
      [{ indicatorId: id, baselineYear: 2300 }, ['baselineYear must not be greater than 2200']],
      [{ indicatorId: id, unit: 'kg' }, ['property unit should not exist']],
      [{ indicatorId: id, projectId: project.id }, ['property projectId should not exist']],
      [{ target: 5 }, ['indicatorId is required']],
      [{ indicatorId: 'not-a-uuid' }, ['indicatorId must be a UUID']],
      [
        { indicatorId: 42, target: true, extra: 1 },
        ['indicatorId must be a string', 'target must be a number', 'property extra should not exist'],
      ],
    ];
    for (const [body, messages] of cases) {
      expectViolations(
        await call(t.app, 'POST', linksUrl(team.org.id, project.id), { as: team.officer, body }),
        ...messages,
      );
    }
    const badPath = await call(t.app, 'POST', linksUrl(team.org.id, 'nope'), {
      as: team.officer,
      body: { indicatorId: id },
    });
    expect([badPath.status, badPath.body]).toEqual([400, badRequest('projectId must be a UUID')]);
    expect(await storedLinks(project.id)).toEqual([]);
  });

  it('is for me_officer and org_admin: an assigned reporter, a viewer, an outsider 403; no session 401', async () => {
    const project = await newProject();
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const indicator = await newIndicator();
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      const res = await call(t.app, 'POST', linksUrl(team.org.id, project.id), {
        as: user,
        body: { indicatorId: indicator.id },
      });
      expectError(res, FORBIDDEN);
    }
    const anonymous = await call(t.app, 'POST', linksUrl(team.org.id, project.id), {
      body: { indicatorId: indicator.id },
    });
    expectError(anonymous, UNAUTHORIZED);
    expect(await storedLinks(project.id)).toEqual([]);
  });
});

describe('GET /orgs/:orgId/projects/:projectId/indicators', () => {
  /** Three links whose codes sort differently with and without case: a_, B_, c_. */
  async function threeLinks() {
    const project = await newProject();
    const tag = indicatorCode('L');
    const c = await newIndicator({ code: `c_${tag}` });
    const a = await newIndicator({ code: `a_${tag}` });
    const b = await newIndicator({ code: `B_${tag}` });
    await linkIndicator(t.app, team.officer, team.org.id, project.id, c.id, { target: 3 });
    await linkIndicator(t.app, team.officer, team.org.id, project.id, a.id, {
      target: 1,
      baselineYear: 2020,
    });
    await linkIndicator(t.app, team.officer, team.org.id, project.id, b.id, { baseline: 2 });
    // Another project's link never shows.
    await linkIndicator(t.app, team.officer, team.org.id, (await newProject()).id, a.id);
    const expected = [
      linkJson(project.id, a, { target: 1, baselineYear: 2020 }),
      linkJson(project.id, b, { baseline: 2 }),
      linkJson(project.id, c, { target: 3 }),
    ];
    return { project, expected };
  }

  it('lists the links by code whatever its case, to every role that reads the project', async () => {
    const { project, expected } = await threeLinks();
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    for (const user of [team.admin, team.officer, team.reporter, team.viewer]) {
      const res = await call(t.app, 'GET', linksUrl(team.org.id, project.id), { as: user });
      expect([res.status, res.body]).toEqual([200, expected]);
    }
  });

  it('pages with the envelope', async () => {
    const { project, expected } = await threeLinks();
    const first = await call(t.app, 'GET', `${linksUrl(team.org.id, project.id)}?limit=2`, {
      as: team.viewer,
    });
    expect([first.status, first.body]).toEqual([
      200,
      { data: expected.slice(0, 2), meta: { total: 3, page: 1, limit: 2, totalPages: 2 } },
    ]);
    const second = await call(t.app, 'GET', `${linksUrl(team.org.id, project.id)}?page=2&limit=2`, {
      as: team.viewer,
    });
    expect(second.body).toEqual({
      data: expected.slice(2),
      meta: { total: 3, page: 2, limit: 2, totalPages: 2 },
    });
    const beyond = await call(t.app, 'GET', `${linksUrl(team.org.id, project.id)}?page=3&limit=2`, {
      as: team.viewer,
    });
    expect(beyond.body).toEqual({ data: [], meta: { total: 3, page: 3, limit: 2, totalPages: 2 } });
    const tooMany = await call(t.app, 'GET', `${linksUrl(team.org.id, project.id)}?limit=101`, {
      as: team.viewer,
    });
    expect(tooMany.body).toEqual(badRequest('limit must not be greater than 100'));
  });

  it('gives an empty array for a project without links', async () => {
    const project = await newProject();
    const res = await call(t.app, 'GET', linksUrl(team.org.id, project.id), { as: team.officer });
    expect([res.status, res.body]).toEqual([200, []]);
  });

  it('refuses a reporter the projects not assigned to them (403), an outsider (403), no session (401)', async () => {
    const { project } = await threeLinks();
    expectError(
      await call(t.app, 'GET', linksUrl(team.org.id, project.id), { as: team.reporter }),
      FORBIDDEN,
    );
    expectError(
      await call(t.app, 'GET', linksUrl(team.org.id, project.id), { as: team.outsider }),
      FORBIDDEN,
    );
    expectError(await call(t.app, 'GET', linksUrl(team.org.id, project.id)), UNAUTHORIZED);
  });

  it('answers 404 for a project of another organization or a missing one', async () => {
    const foreign = await createProject(t.database.db, team.outsiderOrg.id);
    for (const projectId of [foreign.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'GET', linksUrl(team.org.id, projectId), { as: team.viewer }),
        notFoundBody('Project'),
      );
    }
  });
});

describe('PATCH /orgs/:orgId/projects/:projectId/indicators/:indicatorId', () => {
  async function linked(values: Record<string, unknown> = { target: 100, baseline: 10, baselineYear: 2024 }) {
    const project = await newProject();
    const indicator = await newIndicator();
    await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, values);
    const [link] = (await call(t.app, 'GET', linksUrl(team.org.id, project.id), { as: team.officer }))
      .body as Record<string, unknown>[];
    return { project, indicator, link: link! };
  }

  it('edits any subset and keeps the rest', async () => {
    const { project, indicator, link } = await linked();
    const target = await call(t.app, 'PATCH', linkUrl(project.id, indicator.id), {
      as: team.officer,
      body: { target: 150.25 },
    });
    expect([target.status, target.body]).toEqual([
      200,
      { ...link, target: 150.25, updatedAt: expect.stringMatching(TIMESTAMP) },
    ]);
    const baseline = await call(t.app, 'PATCH', linkUrl(project.id, indicator.id), {
      as: team.admin,
      body: { baseline: 0, baselineYear: 2200 },
    });
    expect([baseline.status, baseline.body]).toEqual([
      200,
      linkJson(project.id, indicator, { target: 150.25, baseline: 0, baselineYear: 2200 }),
    ]);
    expect(baseline.body.createdAt).toBe(link.createdAt);
    expect(await storedLinks(project.id)).toEqual([
      { indicatorId: indicator.id, target: 150.25, baseline: 0, baselineYear: 2200 },
    ]);
  });

  it('clears fields sent as null', async () => {
    const { project, indicator } = await linked();
    const res = await call(t.app, 'PATCH', linkUrl(project.id, indicator.id), {
      as: team.officer,
      body: { target: null, baselineYear: null },
    });
    expect([res.status, res.body]).toEqual([200, linkJson(project.id, indicator, { baseline: 10 })]);
    expect(await storedLinks(project.id)).toEqual([
      { indicatorId: indicator.id, target: null, baseline: 10, baselineYear: null },
    ]);
  });

  it('answers an empty body with the link unchanged', async () => {
    const { project, indicator, link } = await linked();
    const res = await call(t.app, 'PATCH', linkUrl(project.id, indicator.id), {
      as: team.officer,
      body: {},
    });
    expect([res.status, res.body]).toEqual([200, link]);
  });

  it('answers 404 for an indicator not linked to the project, of another organization, or missing', async () => {
    const { project } = await linked();
    const unlinked = await newIndicator();
    const foreign = await postIndicator(t.app, team.outsider, team.outsiderOrg.id);
    for (const indicatorId of [unlinked.id, foreign.id, MISSING_ID]) {
      for (const body of [{ target: 5 }, {}]) {
        expectError(
          await call(t.app, 'PATCH', linkUrl(project.id, indicatorId), { as: team.officer, body }),
          notFoundBody('Project indicator'),
        );
      }
    }
  });

  it('answers 404 for a project of another organization or a missing one', async () => {
    const { indicator } = await linked();
    const foreign = await createProject(t.database.db, team.outsiderOrg.id);
    for (const projectId of [foreign.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'PATCH', linkUrl(projectId, indicator.id), {
          as: team.officer,
          body: { target: 1 },
        }),
        notFoundBody('Project'),
      );
    }
  });

  it('rejects body violations with 400 and changes nothing', async () => {
    const { project, indicator } = await linked();
    const cases: [unknown, string[]][] = [
      [{ target: '5' }, ['target must be a number']],
      [{ baseline: 'low' }, ['baseline must be a number']],
      [{ baselineYear: 2020.5 }, ['baselineYear must be an integer']],
      [{ baselineYear: 1899 }, ['baselineYear must not be less than 1900']],
      [{ baselineYear: 2201 }, ['baselineYear must not be greater than 2200']],
      [{ indicatorId: indicator.id }, ['property indicatorId should not exist']],
      [{ createdAt: '2026-01-01T00:00:00.000Z' }, ['property createdAt should not exist']],
    ];
    for (const [body, messages] of cases) {
      expectViolations(
        await call(t.app, 'PATCH', linkUrl(project.id, indicator.id), { as: team.officer, body }),
        ...messages,
      );
    }
    const badPath = await call(t.app, 'PATCH', linkUrl(project.id, 'nope'), {
      as: team.officer,
      body: { target: 1 },
    });
    expect([badPath.status, badPath.body]).toEqual([400, badRequest('indicatorId must be a UUID')]);
    expect(await storedLinks(project.id)).toEqual([
      { indicatorId: indicator.id, target: 100, baseline: 10, baselineYear: 2024 },
    ]);
  });

  it('is for me_officer and org_admin: an assigned reporter, a viewer, an outsider 403; no session 401', async () => {
    const { project, indicator } = await linked();
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(
        await call(t.app, 'PATCH', linkUrl(project.id, indicator.id), { as: user, body: { target: 1 } }),
        FORBIDDEN,
      );
    }
    expectError(
      await call(t.app, 'PATCH', linkUrl(project.id, indicator.id), { body: { target: 1 } }),
      UNAUTHORIZED,
    );
    expect(await storedLinks(project.id)).toEqual([
      { indicatorId: indicator.id, target: 100, baseline: 10, baselineYear: 2024 },
    ]);
  });
});

describe('DELETE /orgs/:orgId/projects/:projectId/indicators/:indicatorId', () => {
  it('unlinks (204): the link is gone and a second unlink is 404', async () => {
    const project = await newProject();
    const [kept, dropped] = [await newIndicator(), await newIndicator()];
    await linkIndicator(t.app, team.officer, team.org.id, project.id, kept.id);
    await linkIndicator(t.app, team.officer, team.org.id, project.id, dropped.id);
    const res = await call(t.app, 'DELETE', linkUrl(project.id, dropped.id), { as: team.officer });
    expect([res.status, res.body]).toEqual([204, null]);
    expect(await storedLinks(project.id)).toEqual([
      { indicatorId: kept.id, target: null, baseline: null, baselineYear: null },
    ]);
    const list = await call(t.app, 'GET', linksUrl(team.org.id, project.id), { as: team.officer });
    expect(list.body).toEqual([linkJson(project.id, kept)]);
    expectError(
      await call(t.app, 'DELETE', linkUrl(project.id, dropped.id), { as: team.admin }),
      notFoundBody('Project indicator'),
    );
    // The indicator itself stays, and may be linked again.
    await linkIndicator(t.app, team.admin, team.org.id, project.id, dropped.id, { target: 7 });
  });

  it('answers 404 for an indicator not linked, of another organization or missing, and a foreign project', async () => {
    const project = await newProject();
    const linked = await newIndicator();
    await linkIndicator(t.app, team.officer, team.org.id, project.id, linked.id);
    const unlinked = await newIndicator();
    const foreign = await postIndicator(t.app, team.outsider, team.outsiderOrg.id);
    for (const indicatorId of [unlinked.id, foreign.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'DELETE', linkUrl(project.id, indicatorId), { as: team.officer }),
        notFoundBody('Project indicator'),
      );
    }
    const foreignProject = await createProject(t.database.db, team.outsiderOrg.id);
    for (const projectId of [foreignProject.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'DELETE', linkUrl(projectId, linked.id), { as: team.officer }),
        notFoundBody('Project'),
      );
    }
    expect(await storedLinks(project.id)).toHaveLength(1);
  });

  it('refuses (409) while the project has reports of the indicator, whatever their status', async () => {
    const project = await newProject();
    const indicator = await newIndicator();
    await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target: 50 });
    const draftPeriod = await createPeriod(t.database.db, team.org.id, project.id);
    await postReport(t.app, team.officer, team.org.id, project.id, {
      indicatorId: indicator.id,
      reportingPeriodId: draftPeriod.id,
    });
    const refused = {
      statusCode: 409,
      message: 'Indicator has indicator reports in this project',
      error: 'Conflict',
    };
    expectError(
      await call(t.app, 'DELETE', linkUrl(project.id, indicator.id), { as: team.officer }),
      refused,
    );

    const approvedPeriod = await createPeriod(t.database.db, team.org.id, project.id, {
      label: 'Q2 2026',
      startDate: '2026-04-01',
      endDate: '2026-06-30',
    });
    const report = await postReport(t.app, team.officer, team.org.id, project.id, {
      indicatorId: indicator.id,
      reportingPeriodId: approvedPeriod.id,
      value: 12,
    });
    await act(t.app, team.officer, team.org.id, report.id, 'submit');
    await act(t.app, team.admin, team.org.id, report.id, 'approve');
    expectError(await call(t.app, 'DELETE', linkUrl(project.id, indicator.id), { as: team.admin }), refused);
    expect(await storedLinks(project.id)).toEqual([
      { indicatorId: indicator.id, target: 50, baseline: null, baselineYear: null },
    ]);
  });

  it('allows the unlink when only another project has reports of the indicator', async () => {
    const [reported, other] = [await newProject(), await newProject()];
    const indicator = await newIndicator();
    await linkIndicator(t.app, team.officer, team.org.id, reported.id, indicator.id);
    await linkIndicator(t.app, team.officer, team.org.id, other.id, indicator.id);
    const period = await createPeriod(t.database.db, team.org.id, reported.id);
    await postReport(t.app, team.officer, team.org.id, reported.id, {
      indicatorId: indicator.id,
      reportingPeriodId: period.id,
      value: 3,
    });
    const res = await call(t.app, 'DELETE', linkUrl(other.id, indicator.id), { as: team.officer });
    expect(res.status).toBe(204);
    expect(await storedLinks(other.id)).toEqual([]);
    expect(await storedLinks(reported.id)).toHaveLength(1);
  });

  it('is for me_officer and org_admin: an assigned reporter, a viewer, an outsider 403; no session 401', async () => {
    const project = await newProject();
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const indicator = await newIndicator();
    await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await call(t.app, 'DELETE', linkUrl(project.id, indicator.id), { as: user }), FORBIDDEN);
    }
    expectError(await call(t.app, 'DELETE', linkUrl(project.id, indicator.id)), UNAUTHORIZED);
    expect(await storedLinks(project.id)).toHaveLength(1);
  });
});
