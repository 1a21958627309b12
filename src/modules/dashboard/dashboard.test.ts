import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import {
  assignProject,
  createProject,
  createTeam,
  type Team,
  type TestUser,
} from '../../../test/helpers/factories.js';
import {
  call,
  expectError,
  MISSING_ID,
  badRequest,
  UNAUTHORIZED,
  ALL_ROLES,
  notAMember,
} from '../../../test/helpers/http.js';
import { linkIndicator } from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { postProgram, postProject } from '../../../test/helpers/programs.js';
import { entry, progress, progressScene, type Project } from '../../../test/helpers/progress-scenes.js';
import type { AggregationMethod, ProgressStatus } from '../../lib/scoring.js';
import { addDays } from '../../lib/dates.js';
import { projects } from '../projects/projects.tables.js';

let t: TestApp;
/** The current test's team: every test registers an organization of its own, so no figure is shared. */
let team: Team;
const scene = progressScene(() => ({ t, team }));
const { newIndicator, quarter, report, scenario, band } = scene;

beforeAll(async () => {
  t = await buildTestApp();
});
beforeEach(async () => {
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

const summaryUrl = (orgId: string) => `/orgs/${orgId}/dashboard-summary`;

async function summary(as: TestUser, orgId = team.org.id) {
  const res = await call(t.app, 'GET', summaryUrl(orgId), { as });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const NO_SCORES = { onTrack: 0, atRisk: 0, offTrack: 0, noTarget: 0, noData: 0 };
const usd = (budget: number, spent: number) => ({ currency: 'USD', budget, spent });

async function programOf(projectId: string): Promise<string> {
  const [row] = await t.database.db
    .select({ programId: projects.programId })
    .from(projects)
    .where(eq(projects.id, projectId));
  return row!.programId;
}

/** The dashboard entry of the program createProject made for `project` (named after it, draft, one project). */
const ownProgram = async (project: Project, fields: Record<string, unknown> = {}) => ({
  id: await programOf(project.id),
  name: `${project.name} program`,
  status: 'draft',
  projectCount: 1,
  budgetByCurrency: [usd(0, 0)],
  indicatorCompletionRate: null,
  dataQuality: expect.any(Object),
  ...fields,
});

async function addLine(projectId: string, actualAmount: number, plannedAmount = 0) {
  const res = await call(t.app, 'POST', `/orgs/${team.org.id}/projects/${projectId}/budget-lines`, {
    as: team.officer,
    body: { category: 'Staff', plannedAmount, actualAmount },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

const setProject = (id: string, fields: Partial<typeof projects.$inferInsert>) =>
  t.database.db.update(projects).set(fields).where(eq(projects.id, id));

describe('GET /orgs/:orgId/dashboard-summary', () => {
  it('is all zeros and empty lists for an organization without projects', async () => {
    expect(await summary(team.viewer)).toEqual({
      activeProjects: 0,
      totalProjects: 0,
      budgetByCurrency: [],
      indicatorScores: NO_SCORES,
      upcomingDeadlines: [],
      dataQuality: {
        ...{ expected: 0, entered: 0, reported: 0, onTime: 0, approved: 0, flagged: 0, openFlags: 0 },
        ...{ reportedRate: null, onTimeRate: null, approvedRate: null, flaggedRate: null },
      },
      programs: [],
      offTrackIndicators: [],
    });
  });

  it('counts active projects against all, and sums budgets and spending exactly per currency', async () => {
    const program = await postProgram(t.app, team.admin, team.org.id, { name: 'Water for All' });
    const project = (body: Record<string, unknown>) =>
      postProject(t.app, team.admin, team.org.id, program.id, body);
    const a = await project({ name: 'Wells A', currency: 'USD' });
    const b = await project({ name: 'Wells B', currency: 'USD', budget: 2000.25 });
    const c = await project({ name: 'Latrines C', currency: 'EUR', budget: 500.5, status: 'active' });
    await project({ name: 'Latrines D', currency: 'EUR' });
    const e = await project({ name: 'Clinic E', currency: 'GBP' });

    const patched = await call(t.app, 'PATCH', `/orgs/${team.org.id}/projects/${a.id}`, {
      as: team.admin,
      body: { budget: 1000.1, status: 'active' },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    await addLine(a.id, 100.1, 900);
    await addLine(a.id, 200.2);
    await addLine(b.id, 0.05);
    await addLine(c.id, 250.25);
    await addLine(e.id, 0.02);
    await setProject(b.id, { status: 'suspended' });
    await setProject(e.id, { status: 'completed', budget: 0.01 });

    // EUR: budget 500.50 (C) + 0 (D) = 500.50, spent 250.25 (C)
    // GBP: budget 0.01 (E), spent 0.02 (E)
    // USD: budget 1000.10 (A) + 2000.25 (B) = 3000.35, spent 100.10 + 200.20 (A) + 0.05 (B) = 300.35
    const money = [
      { currency: 'EUR', budget: 500.5, spent: 250.25 },
      { currency: 'GBP', budget: 0.01, spent: 0.02 },
      { currency: 'USD', budget: 3000.35, spent: 300.35 },
    ];
    expect(await summary(team.officer)).toEqual({
      activeProjects: 2, // A and C; B suspended, D draft, E completed
      totalProjects: 5,
      budgetByCurrency: money,
      indicatorScores: NO_SCORES,
      upcomingDeadlines: [],
      dataQuality: expect.any(Object),
      programs: [
        {
          id: program.id,
          name: 'Water for All',
          status: 'draft',
          projectCount: 5,
          budgetByCurrency: money,
          indicatorCompletionRate: null,
          dataQuality: expect.any(Object),
        },
      ],
      offTrackIndicators: [],
    });
  });

  it('lists periods due from today to today + 30 (UTC), soonest first, ties by project name', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const db = t.database.db;
    const beta = await createProject(db, team.org.id, 'Beta Wells');
    const alpha = await createProject(db, team.org.id, 'Alpha Latrines');
    const period = (project: Project, label: string, dueDate: string | null, isLocked = false) =>
      createPeriod(db, team.org.id, project.id, { label, dueDate, isLocked });
    await period(beta, 'Beta yesterday', addDays(today, -1));
    const betaToday = await period(beta, 'Beta today', today);
    const betaLast = await period(beta, 'Beta day 30', addDays(today, 30));
    await period(beta, 'Beta day 31', addDays(today, 31));
    await period(beta, 'Beta no due date', null);
    const alphaToday = await period(alpha, 'Alpha today', today);
    const alphaLocked = await period(alpha, 'Alpha day 10, locked', addDays(today, 10), true);

    const deadline = (row: { id: string; label: string }, project: Project, dueDate: string) => ({
      periodId: row.id,
      projectId: project.id,
      projectName: project.name,
      label: row.label,
      dueDate,
    });
    const body = await summary(team.admin);
    expect(body.upcomingDeadlines).toEqual([
      deadline(alphaToday, alpha, today),
      deadline(betaToday, beta, today),
      deadline(alphaLocked, alpha, addDays(today, 10)),
      deadline(betaLast, beta, addDays(today, 30)),
    ]);
    expect(body).toEqual({
      activeProjects: 0,
      totalProjects: 2,
      budgetByCurrency: [usd(0, 0)],
      indicatorScores: NO_SCORES,
      upcomingDeadlines: body.upcomingDeadlines,
      dataQuality: expect.any(Object),
      programs: [await ownProgram(alpha), await ownProgram(beta)],
      offTrackIndicators: [],
    });
  });

  it('counts indicator-project pairs per band from submitted and approved reports', async () => {
    type Row = Parameters<typeof scenario>[2][number];
    const built: { status: ProgressStatus; programId: string }[] = [];
    async function pair(
      status: ProgressStatus,
      method: AggregationMethod,
      target: number | null,
      ...rows: Row[]
    ) {
      const made = await scenario(method, target, rows);
      built.push({ status, programId: await programOf(made.project.id) });
      return made;
    }
    // rows: [quarter, value, period target, fate (approved unless told)]
    await pair('on_track', 'sum', null, [1, 45, 50], [2, 45, 50]); // 45 + 45 = 90 of 50 + 50 = 100: 90.0%
    await pair('at_risk', 'latest', 100, [1, 70, null, 'submitted']); // submitted counts: 70 of 100 = 70.0%
    await pair('at_risk', 'sum', 100, [1, 89.9]); // 89.9%
    const low = await pair('off_track', 'sum', 100, [1, 69.9]); // 69.9%, gap 100 - 69.9 = 30.1
    const drafted = await pair('off_track', 'sum', 100, [1, 30], [2, 60, null, 'draft']); // draft not counted: 30%
    const zero = await pair('off_track', 'max', 100, [1, 0]); // 0%, gap 100
    await pair('no_target', 'sum', null, [1, 10]); // no target anywhere
    await pair('no_target', 'sum', 0, [1, 10]); // link target 0
    await pair('no_target', 'average', null, [1, 10], [2, 20]);
    await pair('no_target', 'sum', 100, [1, 5, 0], [2, 5, 0]); // period targets 0 + 0 = 0 replace the link's 100
    await pair('no_data', 'sum', 100, [1, 50, null, 'draft'], [2, 60, null, 'rejected']); // nothing counted

    expect(await summary(team.viewer)).toEqual({
      activeProjects: 0,
      totalProjects: 11,
      budgetByCurrency: [usd(0, 0)],
      indicatorScores: { onTrack: 1, atRisk: 2, offTrack: 3, noTarget: 4, noData: 1 },
      upcomingDeadlines: [],
      dataQuality: expect.any(Object),
      // every scenario has a program of its own, all named alike: ordered by id
      programs: built
        .map((b) => ({
          id: b.programId,
          name: 'Clean Water program',
          status: 'draft',
          projectCount: 1,
          budgetByCurrency: [usd(0, 0)],
          indicatorCompletionRate: b.status === 'on_track' ? 100 : 0, // 1 of 1 or 0 of 1 pairs
          dataQuality: expect.any(Object),
        }))
        .sort((x, y) => (x.id < y.id ? -1 : 1)),
      offTrackIndicators: [
        entry(zero.indicator, zero.project, progress(0, 100, 0, 'off_track', 100)),
        entry(drafted.indicator, drafted.project, progress(30, 100, 30, 'off_track', 70)),
        entry(low.indicator, low.project, progress(69.9, 100, 69.9, 'off_track', 30.1)),
      ],
    });
  });

  it('lists at most 10 off-track pairs, largest gap first, shaped as GET /indicators?status=off_track', async () => {
    const db = t.database.db;
    const project = await createProject(db, team.org.id, 'Clean Water');
    const q1 = await quarter(project.id, 1);
    const indicators = [];
    // value v of target 100 for v = 0..10: v% off track, gap 100 - v; the 11th (v = 10, gap 90) is left out
    for (let v = 0; v <= 10; v++) {
      const indicator = await newIndicator({ name: `Indicator ${v}` });
      await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target: 100 });
      await report(project, indicator, q1.id, v);
      indicators.push(indicator);
    }
    const atRisk = await newIndicator();
    await linkIndicator(t.app, team.officer, team.org.id, project.id, atRisk.id, { target: 100 });
    await report(project, atRisk, q1.id, 75);

    const expected = indicators.map((indicator, v) =>
      entry(indicator, project, progress(v, 100, v, 'off_track', 100 - v)),
    );
    expect(await summary(team.officer)).toEqual({
      activeProjects: 0,
      totalProjects: 1,
      budgetByCurrency: [usd(0, 0)],
      indicatorScores: { ...NO_SCORES, offTrack: 11, atRisk: 1 },
      upcomingDeadlines: [],
      dataQuality: expect.any(Object),
      programs: [await ownProgram(project, { indicatorCompletionRate: 0 })], // 0 of 12 pairs on track
      offTrackIndicators: expected.slice(0, 10),
    });
    expect(await band('off_track', {})).toEqual(expected);
  });
});

describe('GET /orgs/:orgId/dashboard-summary: access', () => {
  /** One active project with money, a period due today and an on-track pair; the reporter assigned to it. */
  async function onlyProject() {
    const db = t.database.db;
    const today = new Date().toISOString().slice(0, 10);
    const project = await createProject(db, team.org.id, 'Clean Water');
    await assignProject(db, team.org.id, project.id, team.reporter.id);
    await setProject(project.id, { budget: 1234.56, status: 'active' });
    await addLine(project.id, 34.56);
    const due = await createPeriod(db, team.org.id, project.id, { label: 'Q9', dueDate: today });
    const indicator = await newIndicator();
    await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target: 10 });
    await report(project, indicator, due.id, 9); // 9 of 10 = 90.0%: on track
    return {
      activeProjects: 1,
      totalProjects: 1,
      budgetByCurrency: [usd(1234.56, 34.56)],
      indicatorScores: { ...NO_SCORES, onTrack: 1 },
      upcomingDeadlines: [
        { periodId: due.id, projectId: project.id, projectName: 'Clean Water', label: 'Q9', dueDate: today },
      ],
      dataQuality: expect.any(Object),
      programs: [
        // 1 of 1 pair on track
        await ownProgram(project, { budgetByCurrency: [usd(1234.56, 34.56)], indicatorCompletionRate: 100 }),
      ],
      offTrackIndicators: [],
    };
  }

  it('answers org_admin, me_officer and viewer alike, and keeps our data out of another organization', async () => {
    const ours = await onlyProject();
    for (const user of [team.admin, team.officer, team.viewer]) expect(await summary(user)).toEqual(ours);

    // The outsider's URL is their own organization: their project only, nothing of ours.
    const theirs = await createProject(t.database.db, team.outsiderOrg.id, 'Their Project');
    await setProject(theirs.id, { budget: 7, currency: 'EUR' });
    expect(await summary(team.outsider, team.outsiderOrg.id)).toEqual({
      activeProjects: 0,
      totalProjects: 1,
      budgetByCurrency: [{ currency: 'EUR', budget: 7, spent: 0 }],
      indicatorScores: NO_SCORES,
      upcomingDeadlines: [],
      dataQuality: expect.any(Object),
      programs: [await ownProgram(theirs, { budgetByCurrency: [{ currency: 'EUR', budget: 7, spent: 0 }] })],
      offTrackIndicators: [],
    });
    expect(await summary(team.admin)).toEqual(ours);
  });

  it('answers a reporter assigned to the only project with the same figures (200)', async () => {
    const ours = await onlyProject();
    expect(await summary(team.reporter)).toEqual(ours);
  });

  it('refuses no session (401), a non-member (403) and a malformed organization id (400)', async () => {
    expectError(await call(t.app, 'GET', summaryUrl(team.org.id)), UNAUTHORIZED);
    expectError(
      await call(t.app, 'GET', summaryUrl(team.org.id), { as: team.outsider }),
      notAMember(ALL_ROLES),
    );
    expectError(await call(t.app, 'GET', summaryUrl(MISSING_ID), { as: team.admin }), notAMember(ALL_ROLES));
    expectError(
      await call(t.app, 'GET', summaryUrl('not-a-uuid'), { as: team.admin }),
      badRequest('orgId must be a UUID'),
    );
  });
});
