import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assignProject, createProject } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  UNAUTHORIZED,
  badRequest,
  call,
  conflictBody,
  expectError,
  expectViolations,
  notFoundBody,
  MANAGERS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { projectIndicatorScene } from '../../../test/helpers/indicator-scenes.js';
import { act, linkIndicator, postIndicator, postReport } from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { useSuite } from '../../../test/helpers/suite.js';
import { indicatorReports } from '../indicator-reports/indicator-reports.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';

const { t, team } = useSuite();
const { linkUrl, newProject, newIndicator } = projectIndicatorScene(() => ({ t, team }));

/** A project with three quarters and a linked `sum` indicator (link target 1000). */
async function scene() {
  const project = await newProject();
  const indicator = await newIndicator();
  await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target: 1000 });
  const db = t.database.db;
  const q1 = await createPeriod(db, team.org.id, project.id, { label: 'Q1 2026' });
  const q2 = await createPeriod(db, team.org.id, project.id, {
    label: 'Q2 2026',
    startDate: '2026-04-01',
    endDate: '2026-06-30',
  });
  const q3 = await createPeriod(db, team.org.id, project.id, {
    label: 'Q3 2026',
    startDate: '2026-07-01',
    endDate: '2026-09-30',
  });
  const patch = (body: unknown, as = team.officer) =>
    call(t.app, 'PATCH', linkUrl(project.id, indicator.id), { as, body });
  const stored = () =>
    db
      .select({
        periodId: indicatorReports.reportingPeriodId,
        target: indicatorReports.target,
        value: indicatorReports.value,
        status: indicatorReports.status,
      })
      .from(indicatorReports)
      .where(and(eq(indicatorReports.projectId, project.id), eq(indicatorReports.indicatorId, indicator.id)))
      .then((rows) => rows.sort((a, b) => (a.periodId < b.periodId ? -1 : 1)));
  return { project, indicator, q1, q2, q3, patch, stored };
}

const entry = (period: { id: string; label: string }, target: number | null, rest: object) => ({
  reportingPeriodId: period.id,
  label: period.label,
  target,
  indicatorReportId: expect.any(String),
  status: 'draft',
  created: false,
  ...rest,
});

describe('PATCH .../indicators/:indicatorId { periodTargets }', () => {
  it('creates draft reports holding the targets, updates drafts, and answers the link plus the periods', async () => {
    const { project, indicator, q1, q2, q3, patch, stored } = await scene();
    const draft = await postReport(t.app, team.officer, team.org.id, project.id, {
      indicatorId: indicator.id,
      reportingPeriodId: q2.id,
      value: 40,
    });
    const res = await patch({ target: 1200, periodTargets: { [q3.id]: 300.5, [q1.id]: 250, [q2.id]: 250 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ projectId: project.id, indicatorId: indicator.id, target: 1200 });
    expect(res.body.periodTargets).toEqual([
      entry(q1, 250, { created: true }),
      entry(q2, 250, { indicatorReportId: draft.id }),
      entry(q3, 300.5, { created: true }),
    ]);
    expect(await stored()).toEqual(
      [
        { periodId: q1.id, target: 250, value: null, status: 'draft' },
        { periodId: q2.id, target: 250, value: 40, status: 'draft' },
        { periodId: q3.id, target: 300.5, value: null, status: 'draft' },
      ].sort((a, b) => (a.periodId < b.periodId ? -1 : 1)),
    );
    // The created report reads as any other, with the target and no value.
    const created = await call(
      t.app,
      'GET',
      `/orgs/${team.org.id}/indicator-reports/${res.body.periodTargets[0].indicatorReportId}`,
      { as: team.viewer },
    );
    expect(created.body).toMatchObject({
      status: 'draft',
      value: null,
      target: 250,
      reportingPeriodId: q1.id,
    });

    // null clears a target and creates nothing; sending a target as it is changes nothing.
    const cleared = await patch({ periodTargets: { [q1.id]: null, [q2.id]: 250 } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.periodTargets).toEqual([entry(q1, null, {}), entry(q2, 250, {})]);
    const other = await scene();
    const none = await other.patch({ periodTargets: { [other.q1.id]: null } });
    expect(none.body.periodTargets).toEqual([
      {
        reportingPeriodId: other.q1.id,
        label: 'Q1 2026',
        target: null,
        indicatorReportId: null,
        status: null,
        created: false,
      },
    ]);
    expect(await other.stored()).toEqual([]);
    // Without periodTargets, the answer is the link as before (no periodTargets field).
    const plain = await patch({ baseline: 5 });
    expect(plain.body.periodTargets).toBeUndefined();
    expect(plain.body.target).toBe(1200);
  });

  it('reads a period id sent in capitals as the same period, and refuses one named twice', async () => {
    const { q1, patch, stored } = await scene();
    const res = await patch({ periodTargets: { [q1.id.toUpperCase()]: 50 } });
    expect([res.status, res.body.periodTargets], JSON.stringify(res.body)).toEqual([
      200,
      [entry(q1, 50, { created: true })],
    ]);
    expect((await stored()).map((row) => row.target)).toEqual([50]);
    expectViolations(
      await patch({ periodTargets: { [q1.id]: 60, [q1.id.toUpperCase()]: 70 } }),
      `periodTargets names ${q1.id} twice (in different cases)`,
    );
    expect((await stored()).map((row) => row.target)).toEqual([50]);
  });

  it('keeps a rejected report rejected; refuses (409) a submitted or approved report whose target would change', async () => {
    const { project, indicator, q1, q2, q3, patch, stored } = await scene();
    const approved = await postReport(t.app, team.officer, team.org.id, project.id, {
      indicatorId: indicator.id,
      reportingPeriodId: q1.id,
      value: 10,
      target: 100,
    });
    await act(t.app, team.officer, team.org.id, approved.id, 'submit');
    await act(t.app, team.admin, team.org.id, approved.id, 'approve');
    const rejected = await postReport(t.app, team.officer, team.org.id, project.id, {
      indicatorId: indicator.id,
      reportingPeriodId: q2.id,
      value: 10,
    });
    await act(t.app, team.officer, team.org.id, rejected.id, 'submit');
    await act(t.app, team.admin, team.org.id, rejected.id, 'reject');
    const before = await stored();

    const refused = await patch({ target: 1, periodTargets: { [q3.id]: 5, [q2.id]: 5, [q1.id]: 200 } });
    expectError(
      refused,
      conflictBody(
        `The indicator report of Q1 2026 (${q1.id}) is approved: its target can only change while draft or rejected`,
        'invalid_transition',
      ),
    );
    // All or nothing: neither the other periods nor the link changed.
    expect(await stored()).toEqual(before);
    const link = await call(t.app, 'GET', `/orgs/${team.org.id}/projects/${project.id}/indicators`, {
      as: team.viewer,
    });
    expect(link.body[0].target).toBe(1000);

    // The approved report's own target is accepted as it is.
    const ok = await patch({ periodTargets: { [q1.id]: 100, [q2.id]: 5 } });
    expect(ok.body.periodTargets).toEqual([
      entry(q1, 100, { indicatorReportId: approved.id, status: 'approved' }),
      entry(q2, 5, { indicatorReportId: rejected.id, status: 'rejected' }),
    ]);
  });

  it('refuses (403) a locked period whose target would change, naming it; an unchanged one passes', async () => {
    const { q1, q2, patch, stored } = await scene();
    await patch({ periodTargets: { [q1.id]: 50 } });
    await t.database.db
      .update(reportingPeriods)
      .set({ isLocked: true })
      .where(eq(reportingPeriods.id, q1.id));
    const before = await stored();
    expectError(await patch({ periodTargets: { [q2.id]: 5, [q1.id]: 60 } }), {
      statusCode: 403,
      message: `Reporting period is locked: Q1 2026 (${q1.id})`,
      error: 'Forbidden',
      code: 'period_locked',
    });
    expect(await stored()).toEqual(before);
    const same = await patch({ periodTargets: { [q1.id]: 50, [q2.id]: 5 } });
    expect(same.status).toBe(200);
  });

  it('answers 400 for bad numbers, keys that are not UUIDs, another project’s periods and a formula indicator', async () => {
    const { project, indicator, q1, patch, stored } = await scene();
    const otherProject = await newProject();
    const foreign = await createPeriod(t.database.db, team.org.id, otherProject.id, { label: 'Theirs' });
    expectViolations(
      await patch({ periodTargets: { [q1.id]: 'many' } }),
      `periodTargets.${q1.id} must be a number`,
    );
    expectViolations(await patch({ periodTargets: [5] }), 'periodTargets must be an object');
    const raw = `{"periodTargets":{"${q1.id}":1e309}}`;
    expectViolations(
      await call(t.app, 'PATCH', linkUrl(project.id, indicator.id), {
        as: team.officer,
        body: raw,
        headers: { 'content-type': 'application/json' },
      }),
      `periodTargets.${q1.id} must be a finite number`,
    );
    expectError(
      await patch({ periodTargets: { 'not-a-period': 5 } }),
      badRequest('periodTargets.not-a-period must be a reporting period id (a UUID)'),
    );
    expectError(
      await patch({ periodTargets: { [q1.id]: 5, [foreign.id]: 5 } }),
      badRequest(`periodTargets.${foreign.id} must be a reporting period of this project`),
    );
    const formula = await postIndicator(t.app, team.officer, team.org.id, {
      formula: '1 + 1',
      aggregationMethod: undefined,
    });
    await linkIndicator(t.app, team.officer, team.org.id, project.id, formula.id);
    expectError(
      await call(t.app, 'PATCH', linkUrl(project.id, formula.id), {
        as: team.officer,
        body: { periodTargets: { [q1.id]: 5 } },
      }),
      badRequest('periodTargets cannot be set for a formula indicator: it has no indicator reports'),
    );
    expect(await stored()).toEqual([]);
  });

  it('answers 404 for a period, a link or a project unknown here (another organization’s included)', async () => {
    const { project, indicator, q1, patch, stored } = await scene();
    const theirProject = await createProject(t.database.db, team.outsiderOrg.id);
    const theirPeriod = await createPeriod(t.database.db, team.outsiderOrg.id, theirProject.id);
    for (const id of [theirPeriod.id, MISSING_ID]) {
      expectError(await patch({ periodTargets: { [q1.id]: 5, [id]: 5 } }), notFoundBody('Reporting period'));
    }
    const foreignIndicator = await postIndicator(t.app, team.outsider, team.outsiderOrg.id);
    for (const indicatorId of [foreignIndicator.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'PATCH', linkUrl(project.id, indicatorId), {
          as: team.officer,
          body: { periodTargets: { [q1.id]: 5 } },
        }),
        notFoundBody('Project indicator'),
      );
    }
    expectError(
      await call(t.app, 'PATCH', linkUrl(theirProject.id, indicator.id), {
        as: team.officer,
        body: { periodTargets: { [q1.id]: 5 } },
      }),
      notFoundBody('Project'),
    );
    expect(await stored()).toEqual([]);
  });

  it('is for me_officer and org_admin: reporter, viewer and outsider 403; no session 401', async () => {
    const { project, q1, patch, stored } = await scene();
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await patch({ periodTargets: { [q1.id]: 5 } }, user), refusedTo(team, user, MANAGERS));
    }
    expectError(
      await call(t.app, 'PATCH', linkUrl(project.id, MISSING_ID), {
        body: { periodTargets: { [q1.id]: 5 } },
      }),
      UNAUTHORIZED,
    );
    expect(await stored()).toEqual([]);
    expect((await patch({ periodTargets: { [q1.id]: 5 } }, team.admin)).status).toBe(200);
  });
});
