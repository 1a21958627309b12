import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assignProject, type TestUser } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  call,
  expectError,
  expectViolations,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  CONTRIBUTORS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { conflictBody } from '../../../test/helpers/indicator-scenes.js';
import { act, postReport, reportUrl } from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import {
  DIFFERS,
  LOCKED,
  NOT_EDITABLE,
  reportScene,
  SEX,
  UNKNOWN,
} from '../../../test/helpers/report-scenes.js';
import { projectIndicators } from '../indicators/indicators.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const { scene, newReport, patch, get, reportsOf, stored } = reportScene(() => ({ t, team }));

describe('PATCH /orgs/:orgId/indicator-reports/:id', () => {
  it('edits any subset of a draft; it stays draft', async () => {
    const s = await scene();
    const report = await newReport(s, { value: 5 });
    const res = await patch(report.id, { target: 50, narrative: 'Rains delayed two visits' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...report,
      target: 50,
      narrative: 'Rains delayed two visits',
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    const cleared = await patch(report.id, { value: null, narrative: null }, team.admin);
    expect(cleared.body).toEqual({
      ...res.body,
      value: null,
      narrative: null,
      updatedAt: expect.any(String),
    });
    expect(await get(report.id)).toEqual(cleared.body);
  });

  it('answers 200 with the report unchanged for an empty body', async () => {
    const s = await scene({ dimensions: [SEX] });
    const report = await newReport(s, { disaggregatedValues: { female: 1, male: 2 }, target: 4 });
    const before = await stored(report.id);
    const res = await patch(report.id, {});
    expect([res.status, res.body]).toEqual([200, report]);
    expect(await stored(report.id)).toEqual(before);
  });

  it('edits a rejected report, which stays rejected with its review', async () => {
    const s = await scene();
    const report = await newReport(s, { value: 5 });
    await act(t.app, team.officer, team.org.id, report.id, 'submit');
    const rejected = await act(t.app, team.admin, team.org.id, report.id, 'reject');
    const res = await patch(report.id, { value: 6, narrative: 'Recounted' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...rejected,
      value: 6,
      narrative: 'Recounted',
      status: 'rejected',
      comment: 'Please check the source',
      submittedBy: team.officer.id,
      reviewedBy: team.admin.id,
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
  });

  it('refuses submitted and approved reports (409) and changes nothing', async () => {
    const s = await scene();
    const report = await newReport(s, { value: 5 });
    await act(t.app, team.officer, team.org.id, report.id, 'submit');
    let before = await stored(report.id);
    expectError(await patch(report.id, { value: 6 }), conflictBody(NOT_EDITABLE('submitted')));
    expect(await stored(report.id)).toEqual(before);

    await act(t.app, team.officer, team.org.id, report.id, 'approve');
    before = await stored(report.id);
    for (const body of [{ value: 6 }, {}, { narrative: 'late edit' }]) {
      expectError(await patch(report.id, body, team.admin), conflictBody(NOT_EDITABLE('approved')));
    }
    expect(await stored(report.id)).toEqual(before);
  });

  it('refuses a report in a locked period (403) and changes nothing', async () => {
    const s = await scene();
    const report = await newReport(s, { value: 5 });
    const lock = await call(t.app, 'PATCH', `/orgs/${team.org.id}/reporting-periods/${s.period.id}`, {
      as: team.officer,
      body: { isLocked: true },
    });
    expect(lock.status).toBe(200);
    const before = await stored(report.id);
    for (const as of [team.officer, team.admin])
      expectError(await patch(report.id, { value: 6 }, as), LOCKED);
    expect(await stored(report.id)).toEqual(before);
  });

  it('keeps value and disaggregated values in agreement', async () => {
    const s = await scene({ dimensions: [SEX] });
    const report = await newReport(s, { disaggregatedValues: { female: 3, male: 4 } });
    expect(report.value).toBe(7);

    expectViolations(await patch(report.id, { value: 8 }), DIFFERS(7));
    expectViolations(
      await patch(report.id, { disaggregatedValues: { female: 1, other: 1 } }),
      UNKNOWN('other'),
    );
    expectViolations(await patch(report.id, { value: 3, disaggregatedValues: { female: 1 } }), DIFFERS(1));
    expect(await stored(report.id)).toMatchObject({ value: 7, disaggregatedValues: { female: 3, male: 4 } });

    const same = await patch(report.id, { value: 7, target: 10 });
    expect(same.body).toMatchObject({ value: 7, target: 10, disaggregatedValues: { female: 3, male: 4 } });
    const keep = await patch(report.id, { value: null });
    expect(keep.body).toMatchObject({ value: 7, disaggregatedValues: { female: 3, male: 4 } });

    const recomputed = await patch(report.id, { disaggregatedValues: { female: 5, male: 5 } });
    expect(recomputed.body).toMatchObject({ value: 10, disaggregatedValues: { female: 5, male: 5 } });

    const cleared = await patch(report.id, { disaggregatedValues: null });
    expect(cleared.body).toMatchObject({ value: 10, disaggregatedValues: {}, target: 10 });

    const replaced = await patch(report.id, { disaggregatedValues: { male: 2 } });
    expect(replaced.body).toMatchObject({ value: 2, disaggregatedValues: { male: 2 } });
    const withValue = await patch(report.id, { value: 12, disaggregatedValues: null });
    expect(withValue.body).toMatchObject({ value: 12, disaggregatedValues: {} });
    const free = await patch(report.id, { value: 13 });
    expect(free.body).toMatchObject({ value: 13, disaggregatedValues: {} });
    expect(await stored(report.id)).toMatchObject({ value: 13, disaggregatedValues: {} });
  });

  it('rejects body violations with 400', async () => {
    const s = await scene();
    const report = await newReport(s, { value: 5 });
    const cases: [unknown, string[]][] = [
      [{ value: '5' }, ['value must be a number']],
      [
        { status: 'approved', indicatorId: s.indicator.id },
        ['property status should not exist', 'property indicatorId should not exist'],
      ],
      [{ disaggregatedValues: { a: 'x' } }, ['disaggregatedValues.a must be a number']],
    ];
    for (const [body, messages] of cases) expectViolations(await patch(report.id, body), ...messages);
    expect(await get(report.id)).toEqual(report);
  });

  it('is for org_admin, me_officer and assigned reporters; others 403, no session 401, 404s', async () => {
    const s = await scene();
    const report = await newReport(s, { value: 5 });
    for (const as of [team.reporter, team.viewer, team.outsider]) {
      expectError(await patch(report.id, { value: 9 }, as), refusedTo(team, as, CONTRIBUTORS));
    }
    expectError(await patch(report.id, { value: 9 }, null), UNAUTHORIZED);
    expect((await stored(report.id))?.value).toBe(5);

    await assignProject(t.database.db, team.org.id, s.project.id, team.reporter.id);
    const values: [TestUser, number][] = [
      [team.admin, 6],
      [team.officer, 7],
      [team.reporter, 8],
    ];
    for (const [as, value] of values) {
      const res = await patch(report.id, { value }, as);
      expect([res.status, res.body.value]).toEqual([200, value]);
    }

    const foreign = await scene({ orgId: team.outsiderOrg.id, as: team.outsider });
    const theirs = await postReport(t.app, team.outsider, foreign.orgId, foreign.project.id, {
      indicatorId: foreign.indicator.id,
      reportingPeriodId: foreign.period.id,
      value: 1,
    });
    for (const id of [theirs.id, MISSING_ID]) {
      expectError(await patch(id, { value: 2 }, team.admin), notFoundBody('Indicator report'));
    }
    expect((await stored(theirs.id))?.value).toBe(1);
  });
});

describe('reports and the data they belong to', () => {
  it('keeps a reporting period with a report from being deleted (409); one without goes (204)', async () => {
    const s = await scene();
    await newReport(s, { value: 1 });
    const empty = await createPeriod(t.database.db, team.org.id, s.project.id, {
      label: 'Q2',
      startDate: '2026-04-01',
      endDate: '2026-06-30',
    });
    const periodUrl = (id: string) => `/orgs/${team.org.id}/reporting-periods/${id}`;
    expectError(
      await call(t.app, 'DELETE', periodUrl(s.period.id), { as: team.officer }),
      conflictBody('Reporting period has submissions'),
    );
    const gone = await call(t.app, 'DELETE', periodUrl(empty.id), { as: team.officer });
    expect(gone.status).toBe(204);
    const left = await t.database.db
      .select({ id: reportingPeriods.id })
      .from(reportingPeriods)
      .where(eq(reportingPeriods.projectId, s.project.id));
    expect(left).toEqual([{ id: s.period.id }]);
    expect(await reportsOf(s.project.id)).toHaveLength(1);
  });

  it('removes a project’s reports, links and periods with the project', async () => {
    const s = await scene({ dimensions: [SEX] });
    const report = await newReport(s, { disaggregatedValues: { female: 1 } });
    await act(t.app, team.officer, team.org.id, report.id, 'submit');
    await act(t.app, team.officer, team.org.id, report.id, 'approve');
    const res = await call(t.app, 'DELETE', `/orgs/${team.org.id}/projects/${s.project.id}`, {
      as: team.admin,
    });
    expect(res.status).toBe(204);
    expect(await reportsOf(s.project.id)).toEqual([]);
    const links = await t.database.db
      .select()
      .from(projectIndicators)
      .where(eq(projectIndicators.projectId, s.project.id));
    expect(links).toEqual([]);
    const periods = await t.database.db
      .select()
      .from(reportingPeriods)
      .where(eq(reportingPeriods.projectId, s.project.id));
    expect(periods).toEqual([]);
    expectError(
      await call(t.app, 'GET', reportUrl(team.org.id, report.id), { as: team.admin }),
      notFoundBody('Indicator report'),
    );
  });
});
