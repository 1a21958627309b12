import { describe, expect, it } from 'vitest';
import { assignProject, createProject } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  TIMESTAMP,
  UNAUTHORIZED,
  badRequest,
  call,
  expectError,
  expectViolations,
  notFoundBody,
  MANAGERS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { linkJson, projectIndicatorScene } from '../../../test/helpers/indicator-scenes.js';
import { act, linkIndicator, linksUrl, postIndicator, postReport } from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const { linkUrl, storedLinks, newProject, newIndicator } = projectIndicatorScene(() => ({ t, team }));

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
        refusedTo(team, user, MANAGERS),
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
      code: 'has_dependents' as const,
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
      expectError(
        await call(t.app, 'DELETE', linkUrl(project.id, indicator.id), { as: user }),
        refusedTo(team, user, MANAGERS),
      );
    }
    expectError(await call(t.app, 'DELETE', linkUrl(project.id, indicator.id)), UNAUTHORIZED);
    expect(await storedLinks(project.id)).toHaveLength(1);
  });
});
