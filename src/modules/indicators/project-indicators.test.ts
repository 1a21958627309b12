import { describe, expect, it } from 'vitest';
import { assignProject, createProject } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  UNAUTHORIZED,
  badRequest,
  call,
  expectError,
  expectViolations,
  notFoundBody,
  ALL_ROLES,
  MANAGERS,
  notAMember,
  notAssigned,
  refusedTo,
} from '../../../test/helpers/http.js';
import { linkJson, projectIndicatorScene } from '../../../test/helpers/indicator-scenes.js';
import { indicatorCode, linkIndicator, linksUrl, postIndicator } from '../../../test/helpers/indicators.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const { storedLinks, newProject, newIndicator } = projectIndicatorScene(() => ({ t, team }));

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
      code: 'duplicate',
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
      expectError(res, refusedTo(team, user, MANAGERS));
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
      notAssigned(ALL_ROLES),
    );
    expectError(
      await call(t.app, 'GET', linksUrl(team.org.id, project.id), { as: team.outsider }),
      notAMember(ALL_ROLES),
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
