import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import {
  assignProject,
  createProject,
  createTeam,
  type Team,
  type TestUser,
} from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  badRequest,
  call,
  expectError,
  expectViolations,
  FORBIDDEN,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
} from '../../../test/helpers/http.js';
import {
  act,
  indicatorCode,
  linkIndicator,
  postDisaggregation,
  postIndicator,
  postReport,
  reportsUrl,
  reportUrl,
  type IndicatorJson,
  type ReportJson,
} from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { projectIndicators } from '../indicators/indicators.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import { indicatorReports } from './indicator-reports.tables.js';

let t: TestApp;
let team: Team;

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

const LOCKED = { statusCode: 403, message: 'Reporting period is locked', error: 'Forbidden' };
const conflictBody = (message: string) => ({ statusCode: 409, message, error: 'Conflict' });
const UNKNOWN = (key: string) =>
  `disaggregatedValues.${key} is not a category of the indicator’s disaggregations`;
const DIFFERS = (total: number) => `value must equal the total of disaggregatedValues (${total})`;
const UNEQUAL = (listed: string) =>
  `disaggregatedValues: every disaggregation must add up to the same total (${listed})`;
const NOT_EDITABLE = (status: string) =>
  `Indicator report can only be edited while draft or rejected; this one is ${status}`;

interface Scene {
  orgId: string;
  project: { id: string; name: string };
  indicator: IndicatorJson;
  period: { id: string };
}

/** A project with one linked indicator (with these disaggregations) and one reporting period. */
async function scene(
  options: { dimensions?: [string, string[]][]; as?: TestUser; orgId?: string; code?: string } = {},
): Promise<Scene> {
  const orgId = options.orgId ?? team.org.id;
  const as = options.as ?? team.officer;
  const project = await createProject(t.database.db, orgId);
  const indicator = await postIndicator(t.app, as, orgId, { code: options.code ?? indicatorCode() });
  for (const [name, categories] of options.dimensions ?? []) {
    await postDisaggregation(t.app, as, orgId, indicator.id, name, categories);
  }
  await linkIndicator(t.app, as, orgId, project.id, indicator.id);
  const period = await createPeriod(t.database.db, orgId, project.id);
  return { orgId, project, indicator, period };
}

const SEX: [string, string[]] = ['Sex', ['female', 'male']];
const AGE: [string, string[]] = ['Age', ['child', 'adult']];

const create = (s: Scene, body: Record<string, unknown>, as: TestUser | null = team.officer) =>
  call(t.app, 'POST', reportsUrl(s.orgId, s.project.id), {
    as,
    body: { indicatorId: s.indicator.id, reportingPeriodId: s.period.id, ...body },
  });

const newReport = (s: Scene, body: Record<string, unknown> = {}) =>
  postReport(t.app, team.officer, s.orgId, s.project.id, {
    indicatorId: s.indicator.id,
    reportingPeriodId: s.period.id,
    ...body,
  });

const patch = (id: string, body: unknown, as: TestUser | null = team.officer) =>
  call(t.app, 'PATCH', reportUrl(team.org.id, id), { as, body });

async function get(id: string): Promise<ReportJson> {
  const res = await call(t.app, 'GET', reportUrl(team.org.id, id), { as: team.admin });
  expect(res.status).toBe(200);
  return res.body as ReportJson;
}

const reportsOf = (projectId: string) =>
  t.database.db.select().from(indicatorReports).where(eq(indicatorReports.projectId, projectId));

async function stored(id: string) {
  const [row] = await t.database.db.select().from(indicatorReports).where(eq(indicatorReports.id, id));
  return row;
}

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
      expectError(await create(s, { value: 1 }, as), FORBIDDEN);
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

describe('GET /orgs/:orgId/projects/:projectId/indicator-reports', () => {
  /** Four reports in two periods and two indicators, each in another state, created out of order. */
  async function fourReports() {
    const project = await createProject(t.database.db, team.org.id);
    // Codes whose byte order (B before a) differs from their case-insensitive order (a before B).
    const a = await postIndicator(t.app, team.officer, team.org.id, { code: indicatorCode('a') });
    const b = await postIndicator(t.app, team.officer, team.org.id, { code: indicatorCode('B') });
    for (const indicator of [a, b])
      await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id);
    const q2 = await createPeriod(t.database.db, team.org.id, project.id, {
      label: 'Q2',
      startDate: '2026-04-01',
      endDate: '2026-06-30',
    });
    const q1 = await createPeriod(t.database.db, team.org.id, project.id, { label: 'Q1' });
    const post = (indicatorId: string, reportingPeriodId: string, value: number) =>
      postReport(t.app, team.officer, team.org.id, project.id, { indicatorId, reportingPeriodId, value });
    const q2b = await post(b.id, q2.id, 4);
    const q1b = await post(b.id, q1.id, 2);
    const q2a = await post(a.id, q2.id, 3);
    const q1a = await post(a.id, q1.id, 1);
    await act(t.app, team.officer, team.org.id, q1a.id, 'submit');
    await act(t.app, team.admin, team.org.id, q1a.id, 'approve');
    await act(t.app, team.officer, team.org.id, q1b.id, 'submit');
    await act(t.app, team.officer, team.org.id, q2b.id, 'submit');
    await act(t.app, team.admin, team.org.id, q2b.id, 'reject');

    // Another project's report on the same indicator stays out of every list.
    const other = await createProject(t.database.db, team.org.id);
    await linkIndicator(t.app, team.officer, team.org.id, other.id, a.id);
    const otherPeriod = await createPeriod(t.database.db, team.org.id, other.id);
    await postReport(t.app, team.officer, team.org.id, other.id, {
      indicatorId: a.id,
      reportingPeriodId: otherPeriod.id,
      value: 9,
    });

    const reports = {
      q1a: await get(q1a.id),
      q1b: await get(q1b.id),
      q2a: await get(q2a.id),
      q2b: await get(q2b.id),
    };
    return { project, a, b, q1, q2, reports };
  }

  let data: Awaited<ReturnType<typeof fourReports>>;
  beforeAll(async () => {
    data = await fourReports();
  });

  const list = (query = '', as: TestUser | null = team.viewer) =>
    call(t.app, 'GET', `${reportsUrl(team.org.id, data.project.id)}${query}`, { as });

  it('sorts by period start, then indicator code (any case), then id', async () => {
    const { q1a, q1b, q2a, q2b } = data.reports;
    expect([q1a.status, q1b.status, q2a.status, q2b.status]).toEqual([
      'approved',
      'submitted',
      'draft',
      'rejected',
    ]);
    const res = await list();
    expect([res.status, res.body]).toEqual([200, [q1a, q1b, q2a, q2b]]);
  });

  it('filters by periodId, status and indicatorId, alone and combined', async () => {
    const { q1a, q1b, q2a, q2b } = data.reports;
    const { a, b, q1, q2 } = data;
    const cases: [string, ReportJson[]][] = [
      [`?periodId=${q1.id}`, [q1a, q1b]],
      [`?periodId=${q2.id}`, [q2a, q2b]],
      ['?status=draft', [q2a]],
      ['?status=submitted', [q1b]],
      ['?status=approved', [q1a]],
      ['?status=rejected', [q2b]],
      [`?indicatorId=${a.id}`, [q1a, q2a]],
      [`?indicatorId=${b.id}`, [q1b, q2b]],
      [`?periodId=${q2.id}&status=rejected`, [q2b]],
      [`?periodId=${q1.id}&indicatorId=${a.id}`, [q1a]],
      [`?periodId=${q2.id}&indicatorId=${a.id}&status=draft`, [q2a]],
      [`?periodId=${q1.id}&status=draft`, []],
      [`?status=approved&indicatorId=${b.id}`, []],
      [`?periodId=${MISSING_ID}`, []],
    ];
    for (const [query, expected] of cases) {
      const res = await list(query);
      expect([query, res.status, res.body]).toEqual([query, 200, expected]);
    }
  });

  it('pages with the envelope, filters included', async () => {
    const { q1b, q2a, q2b } = data.reports;
    const paged = await list('?page=2&limit=3');
    expect([paged.status, paged.body]).toEqual([
      200,
      { data: [q2b], meta: { total: 4, page: 2, limit: 3, totalPages: 2 } },
    ]);
    const filtered = await list(`?indicatorId=${data.b.id}&limit=1`);
    expect(filtered.body).toEqual({ data: [q1b], meta: { total: 2, page: 1, limit: 1, totalPages: 2 } });
    const drafts = await list('?status=draft&page=1');
    expect(drafts.body).toEqual({ data: [q2a], meta: { total: 1, page: 1, limit: 20, totalPages: 1 } });
  });

  it('rejects bad filter values with 400', async () => {
    expectViolations(await list('?periodId=nope'), 'periodId must be a UUID');
    expectViolations(
      await list('?status=done&indicatorId=1'),
      'status must be one of: draft, submitted, approved, rejected',
      'indicatorId must be a UUID',
    );
    expectViolations(await list('?limit=101'), 'limit must not be greater than 100');
  });

  it('lets viewers read; reporters only assigned projects; outsiders 403; no session 401', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const url = reportsUrl(team.org.id, project.id);
    expectError(await call(t.app, 'GET', url, { as: team.reporter }), FORBIDDEN);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const allowed = await call(t.app, 'GET', url, { as: team.reporter });
    expect([allowed.status, allowed.body]).toEqual([200, []]);
    expect((await list('', team.viewer)).status).toBe(200);
    expectError(await list('', team.outsider), FORBIDDEN);
    expectError(await list('', null), UNAUTHORIZED);
    const foreign = await createProject(t.database.db, team.outsiderOrg.id);
    expectError(
      await call(t.app, 'GET', reportsUrl(team.org.id, foreign.id), { as: team.admin }),
      notFoundBody('Project'),
    );
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
      FORBIDDEN,
    );
    await assignProject(t.database.db, team.org.id, s.project.id, team.reporter.id);
    const assigned = await call(t.app, 'GET', reportUrl(team.org.id, report.id), { as: team.reporter });
    expect([assigned.status, assigned.body]).toEqual([200, report]);
    expectError(
      await call(t.app, 'GET', reportUrl(team.org.id, report.id), { as: team.outsider }),
      FORBIDDEN,
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
      expectError(await patch(report.id, { value: 9 }, as), FORBIDDEN);
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
