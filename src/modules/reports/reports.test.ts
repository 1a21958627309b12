import { describe, expect, it } from 'vitest';
import { assignProject, type TestUser } from '../../../test/helpers/factories.js';
import {
  badRequest,
  call,
  expectError,
  expectViolations,
  MISSING_ID,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  ALL_ROLES,
  MANAGERS,
  notAMember,
  notAssigned,
  refusedTo,
} from '../../../test/helpers/http.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import {
  donorReportScene,
  donorReportsUrl,
  donorReportUrl,
  projectReportsUrl,
} from '../../../test/helpers/reports.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const scene = donorReportScene(() => ({ t, team }));
type Simple = Awaited<ReturnType<typeof scene.simpleProject>>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const post = (body: unknown, as: TestUser | null = team.officer, orgId = team.org.id) =>
  call(t.app, 'POST', donorReportsUrl(orgId), { as, body });
const postForProject = (
  projectId: string,
  body: unknown,
  as: TestUser | null = team.officer,
  orgId = team.org.id,
) => call(t.app, 'POST', projectReportsUrl(orgId, projectId), { as, body });
const reportsOf = async (projectId: string) =>
  (await call(t.app, 'GET', `${donorReportsUrl(team.org.id)}?projectId=${projectId}`, { as: team.admin }))
    .body as unknown[];

/** The provenance of a value the officer typed in and the admin approved. */
const typedAndApproved = (manual: number) => ({
  counted: 0,
  manual,
  prefill: null,
  submissions: 0,
  lastChangedAt: expect.stringMatching(TIMESTAMP),
  lastChangedBy: `${team.officer.firstName} ${team.officer.lastName}`,
  lastChangedKind: 'created',
  approvedBy: `${team.admin.firstName} ${team.admin.lastName}`,
  approvedAt: expect.stringMatching(TIMESTAMP),
});

/** The full report of the simple project over `range`, as created and not yet edited or shared. */
function fullReport(s: Simple, range: { startDate: string; endDate: string }, fields = {}) {
  return {
    id: expect.stringMatching(UUID),
    orgId: team.org.id,
    title: 'Q1 donor report',
    projectId: s.project.id,
    reportType: 'quarterly',
    ...range,
    periodIds: [s.q1.id],
    status: 'draft',
    shareToken: null,
    shareUrl: null,
    shareExpiresAt: null,
    publishedAt: null,
    createdAt: expect.stringMatching(TIMESTAMP),
    updatedAt: expect.stringMatching(TIMESTAMP),
    project: {
      id: s.project.id,
      name: 'Clean Water',
      code: s.project.code,
      programId: s.project.programId,
      programName: 'Clean Water program',
      status: 'draft',
      startDate: '2026-01-01',
      endDate: '2027-12-31',
      currency: 'USD',
      budget: 0,
      location: null,
      lead: null,
      description: null,
    },
    cover: {
      projectName: 'Clean Water',
      donors: [],
      organization: { name: team.org.name, logoUrl: null },
      period: range,
    },
    sections: {
      executiveSummary: '',
      challengesLessons: '',
      recommendations: '',
      indicators: [
        {
          indicatorId: s.indicator.id,
          indicatorName: 'Children vaccinated',
          code: s.indicator.code,
          unit: 'children',
          aggregationMethod: 'sum',
          // One approved value of 40 against the link's target 100: 40 / 100 × 100 = 40 %, below 70.
          value: 40,
          target: 100,
          baseline: null,
          progressPct: 40,
          status: 'off_track',
          // Q1 has no target of its own: none to date (the link's target is not one).
          targetToDate: null,
          progressToDatePct: null,
          statusToDate: 'no_target',
          narrative: '',
          disaggregatedValues: {},
          resultNode: null,
          provenance: typedAndApproved(40),
          inputs: null,
          periods: [
            {
              periodId: s.q1.id,
              label: 'Q1 2026',
              value: 40,
              target: null,
            },
          ],
        },
      ],
      activities: [],
      budget: { currency: 'USD', totalPlanned: 0, totalActual: 0, burnRate: null, lines: [] },
    },
    attachments: [],
    ...fields,
  };
}

describe('POST /orgs/:orgId/reports', () => {
  it('assembles a draft from periodIds (201), the range being the periods’; GET returns it', async () => {
    const s = await scene.simpleProject();
    const res = await post({
      title: '  Q1 donor report ',
      projectId: s.project.id,
      reportType: 'quarterly',
      periodIds: [s.q1.id],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual(fullReport(s, { startDate: '2026-01-01', endDate: '2026-03-31' }));
    expect(res.body.updatedAt).toBe(res.body.createdAt);
    for (const user of [team.admin, team.officer, team.viewer]) {
      const read = await call(t.app, 'GET', donorReportUrl(team.org.id, res.body.id), { as: user });
      expect([read.status, read.body]).toEqual([200, res.body]);
    }
  });

  it('assembles from startDate and endDate, with the periods overlapping the range', async () => {
    const s = await scene.simpleProject();
    const range = { startDate: '2026-02-15', endDate: '2026-06-30' };
    const res = await post({
      title: 'Q1 donor report',
      projectId: s.project.id,
      reportType: 'annual',
      ...range,
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual(fullReport(s, range, { reportType: 'annual' }));
  });

  it('refuses every body violation with 400 and creates nothing', async () => {
    const s = await scene.simpleProject();
    const base = { title: 'Q1', projectId: s.project.id, reportType: 'quarterly' };
    const range = { startDate: '2026-01-01', endDate: '2026-03-31' };
    const cases: [unknown, string[]][] = [
      [{}, ['title is required', 'projectId is required', 'reportType is required']],
      [
        { ...base, ...range, periodIds: [s.q1.id] },
        ['Send either periodIds or startDate and endDate, not both'],
      ],
      [
        { ...base, startDate: '2026-01-01', periodIds: [s.q1.id] },
        ['Send either periodIds or startDate and endDate, not both'],
      ],
      [base, ['Send either periodIds or startDate and endDate']],
      [{ ...base, startDate: '2026-01-01' }, ['endDate is required with startDate']],
      [{ ...base, endDate: '2026-03-31' }, ['startDate is required with endDate']],
      [{ ...base, startDate: '2026-03-31', endDate: '2026-01-01' }, ['endDate must not be before startDate']],
      [
        { ...base, startDate: '2026-02-30', endDate: '2026-03-31' },
        ['startDate must be a valid date (YYYY-MM-DD)'],
      ],
      [{ ...base, ...range, reportType: 'monthly' }, ['reportType must be one of quarterly, annual, ad_hoc']],
      [{ ...base, ...range, status: 'published' }, ['property status should not exist']],
      [{ ...base, ...range, title: '   ' }, ['title should not be empty']],
      [{ ...base, ...range, projectId: 'p-1' }, ['projectId must be a UUID']],
      [{ ...base, periodIds: [] }, ['periodIds must contain at least 1 items']],
      [{ ...base, periodIds: [s.q1.id, s.q1.id] }, ['periodIds must not contain duplicates']],
      [{ ...base, periodIds: ['q-1'] }, ['periodIds.0 must be a UUID']],
    ];
    for (const [body, messages] of cases) expectViolations(await post(body), ...messages);
    expect(await reportsOf(s.project.id)).toEqual([]);
  });

  it('answers 404 for an unknown or foreign period, 400 for a period of another project', async () => {
    const s = await scene.simpleProject();
    const body = (periodIds: string[]) => ({
      title: 'Q1',
      projectId: s.project.id,
      reportType: 'quarterly',
      periodIds,
    });
    const foreignProject = await scene.newProject('Theirs', team.outsiderOrg.id);
    const foreign = await createPeriod(t.database.db, team.outsiderOrg.id, foreignProject.id);
    for (const id of [MISSING_ID, foreign.id]) {
      expectError(await post(body([s.q1.id, id])), notFoundBody('Reporting period'));
    }
    const sibling = await scene.newProject('Sibling');
    const elsewhere = await createPeriod(t.database.db, team.org.id, sibling.id);
    expectError(
      await post(body([s.q1.id, elsewhere.id])),
      badRequest('periodIds.1 must be a reporting period of this project'),
    );
    expect(await reportsOf(s.project.id)).toEqual([]);
  });

  it('answers 404 for an unknown project or one of another organization', async () => {
    const foreign = await scene.newProject('Theirs', team.outsiderOrg.id);
    for (const projectId of [MISSING_ID, foreign.id]) {
      const body = {
        title: 'Q1',
        projectId,
        reportType: 'quarterly',
        startDate: '2026-01-01',
        endDate: '2026-03-31',
      };
      expectError(await post(body), notFoundBody('Project'));
    }
  });

  it('is for org_admin and me_officer: viewer and reporter 403, outsider 403, no session 401', async () => {
    const s = await scene.simpleProject();
    await assignProject(t.database.db, team.org.id, s.project.id, team.reporter.id);
    const body = { title: 'Q1', projectId: s.project.id, reportType: 'quarterly', periodIds: [s.q1.id] };
    for (const user of [team.viewer, team.reporter, team.outsider])
      expectError(await post(body, user), refusedTo(team, user, MANAGERS));
    expectError(await post(body, null), UNAUTHORIZED);
    expectError(await post(body, team.outsider, team.outsiderOrg.id), notFoundBody('Project'));
    expectError(await post(body, team.admin, 'o-1'), badRequest('orgId must be a UUID'));
    expect(await reportsOf(s.project.id)).toEqual([]);
    expect((await post(body, team.admin)).status).toBe(201);
  });
});

describe('POST /orgs/:orgId/projects/:projectId/reports', () => {
  it('assembles over a custom range; reportType defaults to ad_hoc', async () => {
    const s = await scene.simpleProject();
    const range = { startDate: '2026-01-01', endDate: '2026-04-30' };
    const res = await postForProject(s.project.id, { title: 'Q1 donor report', ...range });
    expect(res.status).toBe(201);
    expect(res.body).toEqual(fullReport(s, range, { reportType: 'ad_hoc' }));
    const typed = await postForProject(
      s.project.id,
      { title: 'Q1 donor report', ...range, reportType: 'annual' },
      team.admin,
    );
    expect(typed.status).toBe(201);
    expect(typed.body).toEqual(fullReport(s, range, { reportType: 'annual' }));
  });

  it('refuses every body violation with 400 and creates nothing', async () => {
    const s = await scene.simpleProject();
    const base = { title: 'Q1', startDate: '2026-01-01', endDate: '2026-03-31' };
    const cases: [unknown, string[]][] = [
      [{}, ['title is required', 'startDate is required', 'endDate is required']],
      [{ title: 'Q1', startDate: '2026-01-01' }, ['endDate is required']],
      [{ ...base, endDate: '2025-12-31' }, ['endDate must not be before startDate']],
      [{ ...base, reportType: 'weekly' }, ['reportType must be one of quarterly, annual, ad_hoc']],
      [{ ...base, projectId: s.project.id }, ['property projectId should not exist']],
      [{ ...base, periodIds: [s.q1.id] }, ['property periodIds should not exist']],
      [{ ...base, title: '' }, ['title should not be empty']],
      [{ ...base, title: 'x'.repeat(201) }, ['title must be at most 200 characters']],
    ];
    for (const [body, messages] of cases)
      expectViolations(await postForProject(s.project.id, body), ...messages);
    expect(await reportsOf(s.project.id)).toEqual([]);
  });

  it('answers 404 for an unknown or foreign project, 400 for a malformed id', async () => {
    const foreign = await scene.newProject('Theirs', team.outsiderOrg.id);
    const body = { title: 'Q1', startDate: '2026-01-01', endDate: '2026-03-31' };
    for (const projectId of [MISSING_ID, foreign.id]) {
      expectError(await postForProject(projectId, body), notFoundBody('Project'));
    }
    expectError(await postForProject('p-1', body), badRequest('projectId must be a UUID'));
  });

  it('is for org_admin and me_officer: viewer and reporter 403, outsider 403, no session 401', async () => {
    const s = await scene.simpleProject();
    await assignProject(t.database.db, team.org.id, s.project.id, team.reporter.id);
    const body = { title: 'Q1', startDate: '2026-01-01', endDate: '2026-03-31' };
    for (const user of [team.viewer, team.reporter, team.outsider]) {
      expectError(await postForProject(s.project.id, body, user), refusedTo(team, user, MANAGERS));
    }
    expectError(await postForProject(s.project.id, body, null), UNAUTHORIZED);
    expectError(
      await postForProject(s.project.id, body, team.outsider, team.outsiderOrg.id),
      notFoundBody('Project'),
    );
    expect(await reportsOf(s.project.id)).toEqual([]);
  });
});

describe('GET /orgs/:orgId/reports/:id', () => {
  it('lets a reporter read reports of assigned projects only; outsider 403, no session 401', async () => {
    const s = await scene.simpleProject();
    const report = await scene.reportOf(s.project.id);
    const get = (as: TestUser | null, orgId = team.org.id, id = report.id) =>
      call(t.app, 'GET', donorReportUrl(orgId, id), { as });
    expectError(await get(team.reporter), notAssigned(ALL_ROLES));
    await assignProject(t.database.db, team.org.id, s.project.id, team.reporter.id);
    const read = await get(team.reporter);
    expect([read.status, read.body]).toEqual([200, report]);
    expectError(await get(team.outsider), notAMember(ALL_ROLES));
    expectError(await get(null), UNAUTHORIZED);
    expectError(await get(team.outsider, team.outsiderOrg.id), notFoundBody('Report'));
    expectError(await get(team.admin, team.org.id, MISSING_ID), notFoundBody('Report'));
    expectError(await get(team.admin, team.org.id, 'r-1'), badRequest('id must be a UUID'));
  });
});
