import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { assignProject, createTeam, type Team, type TestUser } from '../../../test/helpers/factories.js';
import {
  badRequest,
  call,
  expectError,
  MISSING_ID,
  notFoundBody,
  UNAUTHORIZED,
  ALL_ROLES,
  notAMember,
  notAssigned,
} from '../../../test/helpers/http.js';
import {
  donorReportScene,
  donorReportsUrl,
  donorReportUrl,
  listItem,
} from '../../../test/helpers/reports.js';
import { reports } from './reports.tables.js';

let t: TestApp;
let team: Team;

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

// Each test works in an organization of its own, so an unfiltered list shows only that test's reports.
const scene = donorReportScene(() => ({ t, team }));
const ownTeam = async () => (team = await createTeam(t.app, t.database.db));

const list = (query = '', as: TestUser | null = team.admin, orgId = team.org.id) =>
  call(t.app, 'GET', `${donorReportsUrl(orgId)}${query}`, { as });

async function setCreatedAt(id: string, createdAt: string) {
  await t.database.db
    .update(reports)
    .set({ createdAt: new Date(createdAt) })
    .where(eq(reports.id, id));
}

describe('GET /orgs/:orgId/reports', () => {
  it('lists newest first (ties by id), items with projectName and no sections, plain or paged', async () => {
    await ownTeam();
    const water = await scene.simpleProject('Clean Water');
    const seeds = await scene.simpleProject('Dry Season Seeds');
    const oldest = await scene.reportOf(water.project.id, { title: 'Oldest' });
    const newest = await scene.reportOf(seeds.project.id, { title: 'Newest' });
    const tiedA = await scene.reportOf(water.project.id, { title: 'Tied A' });
    const tiedB = await scene.reportOf(water.project.id, { title: 'Tied B' });
    await setCreatedAt(oldest.id, '2026-05-01T08:00:00.000Z');
    await setCreatedAt(newest.id, '2026-05-03T08:00:00.000Z');
    await setCreatedAt(tiedA.id, '2026-05-02T08:00:00.000Z');
    await setCreatedAt(tiedB.id, '2026-05-02T08:00:00.000Z');
    await scene.share(oldest.id);
    const names = { [water.project.id]: 'Clean Water', [seeds.project.id]: 'Dry Season Seeds' };
    const item = async (id: string) => {
      const report = await scene.read(id);
      return listItem(report, names[report.projectId]!);
    };
    const tied = [tiedA.id, tiedB.id].sort().reverse();
    const expected = [
      await item(newest.id),
      await item(tied[0]!),
      await item(tied[1]!),
      await item(oldest.id),
    ];
    expect(expected[3]).toMatchObject({
      createdAt: '2026-05-01T08:00:00.000Z',
      shareUrl: `http://app.test/r/${expected[3]!.shareToken}`,
    });

    for (const user of [team.admin, team.officer, team.viewer]) {
      const res = await list('', user);
      expect([res.status, res.body]).toEqual([200, expected]);
    }
    const paged = await list('?page=2&limit=2');
    expect([paged.status, paged.body]).toEqual([
      200,
      { data: expected.slice(2), meta: { total: 4, page: 2, limit: 2, totalPages: 2 } },
    ]);
  });

  it('narrows to a project and to a status, the two together', async () => {
    await ownTeam();
    const water = await scene.simpleProject('Clean Water');
    const seeds = await scene.simpleProject('Dry Season Seeds');
    const draft = await scene.reportOf(water.project.id, { title: 'Draft' });
    const other = await scene.reportOf(seeds.project.id, { title: 'Other project' });
    const published = await scene.reportOf(water.project.id, { title: 'Published' });
    const res = await call(t.app, 'PATCH', donorReportUrl(team.org.id, published.id), {
      as: team.officer,
      body: { status: 'published' },
    });
    expect(res.status).toBe(200);
    const [d, o, p] = [
      listItem(draft, 'Clean Water'),
      listItem(other, 'Dry Season Seeds'),
      listItem(res.body, 'Clean Water'),
    ];

    const cases: [string, unknown][] = [
      [`?projectId=${water.project.id}`, [p, d]],
      [`?projectId=${seeds.project.id}`, [o]],
      ['?status=published', [p]],
      ['?status=draft', [o, d]],
      [`?status=draft&projectId=${water.project.id}`, [d]],
      [`?status=published&projectId=${seeds.project.id}`, []],
      [
        `?status=published&projectId=${water.project.id}&limit=1`,
        { data: [p], meta: { total: 1, page: 1, limit: 1, totalPages: 1 } },
      ],
    ];
    for (const [query, body] of cases) {
      const found = await list(query, team.viewer);
      expect([query, found.status, found.body]).toEqual([query, 200, body]);
    }
  });

  it("shows a reporter only the reports of projects assigned to them; others see every project's", async () => {
    await ownTeam();
    const assigned = await scene.simpleProject('Assigned');
    const unassigned = await scene.simpleProject('Unassigned');
    await assignProject(t.database.db, team.org.id, assigned.project.id, team.reporter.id);
    const mine = await scene.reportOf(assigned.project.id);
    const theirs = await scene.reportOf(unassigned.project.id);
    await setCreatedAt(mine.id, '2026-05-01T08:00:00.000Z');
    await setCreatedAt(theirs.id, '2026-05-02T08:00:00.000Z');
    const mineItem = listItem(await scene.read(mine.id), 'Assigned');
    const theirsItem = listItem(await scene.read(theirs.id), 'Unassigned');

    expect((await list('', team.reporter)).body).toEqual([mineItem]);
    expect((await list('?limit=5', team.reporter)).body).toEqual({
      data: [mineItem],
      meta: { total: 1, page: 1, limit: 5, totalPages: 1 },
    });
    expect((await list(`?projectId=${assigned.project.id}`, team.reporter)).body).toEqual([mineItem]);
    for (const user of [team.viewer, team.officer, team.admin]) {
      expect((await list('', user)).body).toEqual([theirsItem, mineItem]);
    }
  });

  it('answers 401 without a session, 403 to an outsider, 400 for a malformed query', async () => {
    await ownTeam();
    expectError(await list('', null), UNAUTHORIZED);
    expectError(await list('', team.outsider), notAMember(ALL_ROLES));
    expectError(await list('', team.admin, 'o-1'), badRequest('orgId must be a UUID'));
    const cases: [string, string][] = [
      ['?projectId=p-1', 'projectId must be a UUID'],
      ['?status=archived', 'status must be one of draft, published'],
      ['?limit=101', 'limit must not be greater than 100'],
      ['?page=0', 'page must not be less than 1'],
    ];
    for (const [query, message] of cases) expectError(await list(query), badRequest(message));
  });

  // As the forms and indicators lists do: a projectId filter names a project of the organization the
  // caller may read (DECISIONS.md: "keep it consistent with the rest").
  it('answers 404 for an unknown or foreign projectId filter, 403 to a reporter for an unassigned one', async () => {
    await ownTeam();
    const s = await scene.simpleProject();
    await scene.reportOf(s.project.id);
    expectError(await list(`?projectId=${MISSING_ID}`), notFoundBody('Project'));
    expectError(
      await list(`?projectId=${s.project.id}`, team.outsider, team.outsiderOrg.id),
      notFoundBody('Project'),
    );
    expectError(await list(`?projectId=${s.project.id}`, team.reporter), notAssigned(ALL_ROLES));
  });
});
