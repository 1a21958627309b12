import { describe, expect, it } from 'vitest';
import { assignProject, createProject } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  badRequest,
  call,
  expectError,
  expectViolations,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  ALL_ROLES,
  CONTRIBUTORS,
  notAMember,
  notAssigned,
  refusedTo,
} from '../../../test/helpers/http.js';
import { conflictBody } from '../../../test/helpers/indicator-scenes.js';
import {
  linkIndicator,
  postIndicator,
  postReport,
  reportsUrl,
  reportUrl,
} from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import {
  AGE,
  DIFFERS,
  LOCKED,
  reportScene,
  SEX,
  UNEQUAL,
  UNKNOWN,
} from '../../../test/helpers/report-scenes.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const { scene, create, newReport, get, reportsOf, stored } = reportScene(() => ({ t, team }));

describe('POST /orgs/:orgId/projects/:projectId/indicator-reports', () => {
  it('creates a draft (201) with nulls and no disaggregated values by default', async () => {
    const s = await scene();
    const res = await create(s, { value: 12 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      orgId: team.org.id,
      projectId: s.project.id,
      indicatorId: s.indicator.id,
      reportingPeriodId: s.period.id,
      value: 12,
      target: null,
      narrative: null,
      disaggregatedValues: {},
      status: 'draft',
      comment: null,
      submittedAt: null,
      submittedBy: null,
      reviewedAt: null,
      reviewedBy: null,
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
      flags: [],
      refusedSinceSubmitted: 0,
    });
    expect(await get(res.body.id)).toEqual(res.body);
    expect(await stored(res.body.id)).toMatchObject({ value: 12, status: 'draft', disaggregatedValues: {} });
  });

  it('accepts value null or absent, a target and a narrative (blank is null)', async () => {
    const s = await scene();
    const full = await create(s, { value: null, target: 40.5, narrative: 'Two clinics reported late' });
    expect(full.status).toBe(201);
    expect(full.body).toMatchObject({ value: null, target: 40.5, narrative: 'Two clinics reported late' });

    const q2 = await createPeriod(t.database.db, team.org.id, s.project.id, {
      label: 'Q2 2026',
      startDate: '2026-04-01',
      endDate: '2026-06-30',
    });
    const bare = await create({ ...s, period: q2 }, { narrative: '   ' });
    expect(bare.status).toBe(201);
    expect(bare.body).toMatchObject({ value: null, target: null, narrative: null, disaggregatedValues: {} });
  });

  it('sums free keys when the indicator has no disaggregations', async () => {
    const s = await scene();
    const res = await create(s, { disaggregatedValues: { north: 2.5, south: 3 } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ value: 5.5, disaggregatedValues: { north: 2.5, south: 3 } });
  });

  it('takes the total of one disaggregation as the value, agreeing with a value sent', async () => {
    const s = await scene({ dimensions: [SEX] });
    const res = await create(s, { value: 7, disaggregatedValues: { female: 3, male: 4 } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ value: 7, disaggregatedValues: { female: 3, male: 4 } });
    expect(await stored(res.body.id)).toMatchObject({
      value: 7,
      disaggregatedValues: { female: 3, male: 4 },
    });
  });

  it('takes the common total of two disaggregations; an empty one is skipped', async () => {
    const s = await scene({ dimensions: [SEX, AGE] });
    const res = await create(s, { disaggregatedValues: { female: 3, male: 4, child: 5, adult: 2 } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      value: 7,
      disaggregatedValues: { female: 3, male: 4, child: 5, adult: 2 },
    });
    const other = await scene({ dimensions: [SEX, AGE] });
    const partial = await create(other, { value: null, disaggregatedValues: { child: 1, adult: 1 } });
    expect(partial.body).toMatchObject({ value: 2, disaggregatedValues: { child: 1, adult: 1 } });
  });

  it('refuses disaggregated values that disagree (400) and writes nothing', async () => {
    const s = await scene({ dimensions: [SEX, AGE] });
    const cases: [Record<string, unknown>, string[]][] = [
      [{ disaggregatedValues: { female: 3, male: 4, child: 5, adult: 1 } }, [UNEQUAL('Sex 7, Age 6')]],
      [{ value: 8, disaggregatedValues: { female: 3, male: 4 } }, [DIFFERS(7)]],
      [{ value: 8, disaggregatedValues: { female: 3, male: 4, child: 7 } }, [DIFFERS(7)]],
      [
        { disaggregatedValues: { female: 1, other: 2, constructor: 1 } },
        [UNKNOWN('other'), UNKNOWN('constructor')],
      ],
    ];
    for (const [body, messages] of cases) expectViolations(await create(s, body), ...messages);
    expect(await reportsOf(s.project.id)).toEqual([]);
  });

  it('answers 404 for an indicator or a period of another organization', async () => {
    const s = await scene();
    const foreign = await scene({ orgId: team.outsiderOrg.id, as: team.outsider });
    for (const indicatorId of [foreign.indicator.id, MISSING_ID]) {
      expectError(await create(s, { indicatorId }), notFoundBody('Indicator'));
    }
    for (const reportingPeriodId of [foreign.period.id, MISSING_ID]) {
      expectError(await create(s, { reportingPeriodId }), notFoundBody('Reporting period'));
    }
    expect(await reportsOf(s.project.id)).toEqual([]);
  });

  it('refuses a period of another project, an unlinked and a formula indicator (400)', async () => {
    const s = await scene();
    const sibling = await scene();
    expectError(
      await create(s, { reportingPeriodId: sibling.period.id }),
      badRequest('reportingPeriodId must be a reporting period of this project'),
    );
    const unlinked = await postIndicator(t.app, team.officer, team.org.id);
    expectError(
      await create(s, { indicatorId: unlinked.id }),
      badRequest('indicatorId must be an indicator linked to the project'),
    );
    const formula = await postIndicator(t.app, team.officer, team.org.id, {
      isFormula: true,
      formula: `${s.indicator.code} * 2`,
    });
    await linkIndicator(t.app, team.officer, team.org.id, s.project.id, formula.id);
    expectError(
      await create(s, { indicatorId: formula.id, value: 3 }),
      badRequest('Formula indicators are computed and cannot receive reports'),
    );
    expect(await reportsOf(s.project.id)).toEqual([]);
  });

  it('refuses a second report for the same indicator and period (409)', async () => {
    const s = await scene();
    const first = await newReport(s, { value: 1 });
    expectError(
      await create(s, { value: 2 }, team.admin),
      conflictBody('An indicator report already exists for this indicator and reporting period'),
    );
    expect((await reportsOf(s.project.id)).map((r) => [r.id, r.value])).toEqual([[first.id, 1]]);
  });

  it('refuses a locked period (403) and writes nothing', async () => {
    const s = await scene();
    const locked = await createPeriod(t.database.db, team.org.id, s.project.id, {
      label: 'Q2 2026',
      startDate: '2026-04-01',
      endDate: '2026-06-30',
      isLocked: true,
      lockedAt: new Date(),
      lockedBy: team.officer.id,
    });
    for (const as of [team.admin, team.officer]) {
      expectError(await create({ ...s, period: locked }, { value: 1 }, as), LOCKED);
    }
    expect(await reportsOf(s.project.id)).toEqual([]);
  });

  it('rejects body violations with 400 naming the field', async () => {
    const s = await scene();
    const base = { indicatorId: s.indicator.id, reportingPeriodId: s.period.id };
    const cases: [Record<string, unknown>, string[]][] = [
      [{ ...base, value: '5' }, ['value must be a number']],
      [{ ...base, status: 'approved' }, ['property status should not exist']],
      [{ ...base, disaggregatedValues: { a: 'x' } }, ['disaggregatedValues.a must be a number']],
      [{ reportingPeriodId: s.period.id }, ['indicatorId is required']],
      [
        { ...base, indicatorId: 'nope', target: '1' },
        ['indicatorId must be a UUID', 'target must be a number'],
      ],
      [
        { ...base, narrative: 5, disaggregatedValues: [1] },
        ['narrative must be a string', 'disaggregatedValues must be an object'],
      ],
    ];
    for (const [body, messages] of cases) {
      expectViolations(
        await call(t.app, 'POST', reportsUrl(team.org.id, s.project.id), { as: team.officer, body }),
        ...messages,
      );
    }
    expect(await reportsOf(s.project.id)).toEqual([]);
  });

  it('is for org_admin, me_officer and assigned reporters; others 403, no session 401', async () => {
    const s = await scene();
    const periods = await Promise.all(
      ['Q2', 'Q3'].map((label, i) =>
        createPeriod(t.database.db, team.org.id, s.project.id, {
          label,
          startDate: `2026-0${4 + 3 * i}-01`,
          endDate: `2026-0${6 + 3 * i}-28`,
        }),
      ),
    );
    for (const as of [team.reporter, team.viewer, team.outsider]) {
      expectError(await create(s, { value: 1 }, as), refusedTo(team, as, CONTRIBUTORS));
    }
    expectError(await create(s, { value: 1 }, null), UNAUTHORIZED);
    expect(await reportsOf(s.project.id)).toEqual([]);

    await assignProject(t.database.db, team.org.id, s.project.id, team.reporter.id);
    const made = [
      await create(s, { value: 1 }, team.admin),
      await create({ ...s, period: periods[0]! }, { value: 2 }, team.officer),
      await create({ ...s, period: periods[1]! }, { value: 3 }, team.reporter),
    ];
    expect(made.map((r) => [r.status, r.body.value])).toEqual([
      [201, 1],
      [201, 2],
      [201, 3],
    ]);
  });

  it('answers 404 for a project of another organization', async () => {
    const s = await scene();
    const foreign = await createProject(t.database.db, team.outsiderOrg.id);
    expectError(await create({ ...s, project: foreign }, { value: 1 }, team.admin), notFoundBody('Project'));
    expect(await reportsOf(foreign.id)).toEqual([]);
  });
});

describe('GET /orgs/:orgId/indicator-reports/:id', () => {
  it('returns the report to every role allowed on the project', async () => {
    const s = await scene();
    const report = await newReport(s, { value: 5, narrative: 'Counted at the clinic' });
    for (const as of [team.admin, team.officer, team.viewer]) {
      const res = await call(t.app, 'GET', reportUrl(team.org.id, report.id), { as });
      expect([res.status, res.body]).toEqual([200, report]);
    }
    expectError(
      await call(t.app, 'GET', reportUrl(team.org.id, report.id), { as: team.reporter }),
      notAssigned(ALL_ROLES),
    );
    await assignProject(t.database.db, team.org.id, s.project.id, team.reporter.id);
    const assigned = await call(t.app, 'GET', reportUrl(team.org.id, report.id), { as: team.reporter });
    expect([assigned.status, assigned.body]).toEqual([200, report]);
    expectError(
      await call(t.app, 'GET', reportUrl(team.org.id, report.id), { as: team.outsider }),
      notAMember(ALL_ROLES),
    );
    expectError(await call(t.app, 'GET', reportUrl(team.org.id, report.id)), UNAUTHORIZED);
  });

  it('answers 404 for another organization’s report or a missing one, 400 for a bad id', async () => {
    const foreign = await scene({ orgId: team.outsiderOrg.id, as: team.outsider });
    const theirs = await postReport(t.app, team.outsider, foreign.orgId, foreign.project.id, {
      indicatorId: foreign.indicator.id,
      reportingPeriodId: foreign.period.id,
    });
    for (const id of [theirs.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'GET', reportUrl(team.org.id, id), { as: team.admin }),
        notFoundBody('Indicator report'),
      );
    }
    expectError(
      await call(t.app, 'GET', reportUrl(team.org.id, 'nope'), { as: team.admin }),
      badRequest('id must be a UUID'),
    );
  });
});
