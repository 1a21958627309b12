import { beforeAll, describe, expect, it } from 'vitest';
import { assignProject, createProject, type TestUser } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  call,
  expectError,
  expectViolations,
  notFoundBody,
  UNAUTHORIZED,
  ALL_ROLES,
  notAMember,
  notAssigned,
} from '../../../test/helpers/http.js';
import {
  act,
  indicatorCode,
  linkIndicator,
  postIndicator,
  postReport,
  reportsUrl,
  type ReportJson,
} from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { reportScene } from '../../../test/helpers/report-scenes.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const { get } = reportScene(() => ({ t, team }));

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
      'status must be one of draft, submitted, approved, rejected',
      'indicatorId must be a UUID',
    );
    expectViolations(await list('?limit=101'), 'limit must not be greater than 100');
  });

  it('lets viewers read; reporters only assigned projects; outsiders 403; no session 401', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const url = reportsUrl(team.org.id, project.id);
    expectError(await call(t.app, 'GET', url, { as: team.reporter }), notAssigned(ALL_ROLES));
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const allowed = await call(t.app, 'GET', url, { as: team.reporter });
    expect([allowed.status, allowed.body]).toEqual([200, []]);
    expect((await list('', team.viewer)).status).toBe(200);
    expectError(await list('', team.outsider), notAMember(ALL_ROLES));
    expectError(await list('', null), UNAUTHORIZED);
    const foreign = await createProject(t.database.db, team.outsiderOrg.id);
    expectError(
      await call(t.app, 'GET', reportsUrl(team.org.id, foreign.id), { as: team.admin }),
      notFoundBody('Project'),
    );
  });
});
