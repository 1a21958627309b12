import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import {
  addMember,
  assignProject,
  createProject,
  createTeam,
  type Team,
  type TestUser,
} from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { linkIndicator } from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { postProgram, postProject } from '../../../test/helpers/programs.js';
import {
  entry,
  progress,
  progressScene,
  type Indicator,
  type Project,
} from '../../../test/helpers/progress-scenes.js';
import { projects } from '../projects/projects.tables.js';

let t: TestApp;
/** The current test's team: every test registers an organization of its own, so no figure is shared. */
let team: Team;
const { newIndicator, quarter, report } = progressScene(() => ({ t, team }));

beforeAll(async () => {
  t = await buildTestApp();
});
beforeEach(async () => {
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

async function summary(as: TestUser, orgId = team.org.id) {
  const res = await call(t.app, 'GET', `/orgs/${orgId}/dashboard-summary`, { as });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const NO_SCORES = { onTrack: 0, atRisk: 0, offTrack: 0, noTarget: 0, noData: 0 };
const money = (currency: string, budget: number, spent: number) => ({ currency, budget, spent });

const newProgram = (name: string, status = 'draft') =>
  postProgram(t.app, team.admin, team.org.id, { name, status });

async function newProject(programId: string, body: Record<string, unknown>): Promise<Project> {
  const project = await postProject(t.app, team.admin, team.org.id, programId, body);
  return { id: project.id, name: project.name };
}

async function addLine(projectId: string, actualAmount: number) {
  const res = await call(t.app, 'POST', `/orgs/${team.org.id}/projects/${projectId}/budget-lines`, {
    as: team.admin,
    body: { category: 'Supplies', actualAmount },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** A new indicator linked to the project with `target`, with one approved report of `value` (none when null). */
const q1 = new Map<string, string>();
async function pair(project: Project, value: number | null, target: number): Promise<Indicator> {
  const indicator = await newIndicator();
  await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target });
  if (value === null) return indicator;
  if (!q1.has(project.id)) q1.set(project.id, (await quarter(project.id, 1)).id);
  await report(project, indicator, q1.get(project.id)!, value);
  return indicator;
}

describe('GET /orgs/:orgId/dashboard-summary: programs', () => {
  it('lists every program by name with status, project count, money per currency and completion rate', async () => {
    const zeta = await newProgram('Zeta Health', 'active');
    const alpha = await newProgram('Alpha Water', 'active');
    const mid = await newProgram('Mid Empty');
    const beta = await newProgram('Beta Idle');
    const completed = await call(t.app, 'PATCH', `/orgs/${team.org.id}/programs/${alpha.id}`, {
      as: team.admin,
      body: { status: 'completed' },
    });
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);

    const wells = await newProject(alpha.id, {
      name: 'Wells',
      currency: 'USD',
      budget: 1000.1,
      status: 'active',
    });
    const latrines = await newProject(alpha.id, { name: 'Latrines', currency: 'EUR', budget: 2000.25 });
    await newProject(beta.id, { name: 'Storage', currency: 'USD' });
    const clinic = await newProject(zeta.id, {
      name: 'Clinic',
      currency: 'USD',
      budget: 300,
      status: 'active',
    });
    await addLine(wells.id, 10.1);
    await addLine(latrines.id, 20.2);
    await addLine(latrines.id, 0.05);

    await pair(wells, 95, 100); // 95%: on track
    await pair(wells, 80, 100); // 80%: at risk
    const behind = await pair(wells, 50, 100); // 50%: off track, gap 50
    await pair(clinic, 100, 100); // 100%: on track
    await pair(clinic, 9, 10); // 90%: on track
    await pair(clinic, null, 10); // no report: no data

    expect(await summary(team.officer)).toEqual({
      activeProjects: 2, // Wells and Clinic
      totalProjects: 4,
      budgetByCurrency: [
        money('EUR', 2000.25, 20.25), // Latrines; spent 20.20 + 0.05
        money('USD', 1300.1, 10.1), // 1000.10 (Wells) + 0 (Storage) + 300 (Clinic); spent 10.10 (Wells)
      ],
      indicatorScores: { onTrack: 3, atRisk: 1, offTrack: 1, noTarget: 0, noData: 1 },
      upcomingDeadlines: [],
      dataQuality: expect.any(Object),
      programs: [
        {
          id: alpha.id,
          name: 'Alpha Water',
          status: 'completed',
          projectCount: 2,
          budgetByCurrency: [money('EUR', 2000.25, 20.25), money('USD', 1000.1, 10.1)],
          indicatorCompletionRate: 33.3, // 1 of 3 pairs on track (all in Wells; Latrines has none)
          dataQuality: expect.any(Object),
        },
        {
          id: beta.id,
          name: 'Beta Idle',
          status: 'draft',
          projectCount: 1,
          budgetByCurrency: [money('USD', 0, 0)],
          indicatorCompletionRate: null, // a project, but no pairs
          dataQuality: expect.any(Object),
        },
        {
          id: mid.id,
          name: 'Mid Empty',
          status: 'draft',
          projectCount: 0,
          budgetByCurrency: [],
          indicatorCompletionRate: null,
          dataQuality: expect.any(Object),
        },
        {
          id: zeta.id,
          name: 'Zeta Health',
          status: 'active',
          projectCount: 1,
          budgetByCurrency: [money('USD', 300, 0)],
          indicatorCompletionRate: 66.7, // 2 of 3 pairs on track: 66.666… rounds to 66.7
          dataQuality: expect.any(Object),
        },
      ],
      offTrackIndicators: [entry(behind, wells, progress(50, 100, 50, 'off_track', 50))],
    });
  });
});

describe('GET /orgs/:orgId/dashboard-summary: reporters', () => {
  it('shows a reporter only their assigned projects, and only the programs holding them', async () => {
    const db = t.database.db;
    const today = new Date().toISOString().slice(0, 10);
    const alpha = await newProgram('Alpha', 'active');
    const beta = await newProgram('Beta');
    const mine = await newProject(alpha.id, {
      name: 'Assigned Wells',
      currency: 'USD',
      budget: 100.1,
      status: 'active',
    });
    const other = await newProject(alpha.id, {
      name: 'Other Wells',
      currency: 'USD',
      budget: 200.2,
      status: 'active',
    });
    const clinic = await newProject(beta.id, { name: 'Other Clinic', currency: 'EUR', budget: 300.3 });
    await assignProject(db, team.org.id, mine.id, team.reporter.id);
    await assignProject(db, team.org.id, other.id, team.officer.id);
    await addLine(mine.id, 1.01);
    await addLine(other.id, 2.02);
    const due = async (project: Project) => {
      const row = await createPeriod(db, team.org.id, project.id, {
        label: `${project.name} due`,
        startDate: '2027-01-01',
        endDate: '2027-03-31',
        dueDate: today,
      });
      return {
        periodId: row.id,
        projectId: project.id,
        projectName: project.name,
        label: row.label,
        dueDate: today,
      };
    };
    const [mineDue, otherDue, clinicDue] = [await due(mine), await due(other), await due(clinic)];

    await pair(mine, 95, 100); // on track
    const mineBehind = await pair(mine, 40, 100); // off track, gap 60
    const otherBehind = await pair(other, 10, 100); // off track, gap 90
    await pair(other, 75, 100); // at risk
    await pair(clinic, 100, 100); // on track

    expect(await summary(team.reporter)).toEqual({
      activeProjects: 1,
      totalProjects: 1,
      budgetByCurrency: [money('USD', 100.1, 1.01)],
      indicatorScores: { ...NO_SCORES, onTrack: 1, offTrack: 1 },
      upcomingDeadlines: [mineDue],
      dataQuality: expect.any(Object),
      programs: [
        {
          id: alpha.id,
          name: 'Alpha',
          status: 'active',
          projectCount: 1,
          budgetByCurrency: [money('USD', 100.1, 1.01)],
          indicatorCompletionRate: 50, // 1 of 2 pairs of Assigned Wells on track
          dataQuality: expect.any(Object),
        },
      ],
      offTrackIndicators: [entry(mineBehind, mine, progress(40, 100, 40, 'off_track', 60))],
    });

    // Everyone else sees the whole organization.
    expect(await summary(team.viewer)).toEqual({
      activeProjects: 2,
      totalProjects: 3,
      budgetByCurrency: [
        money('EUR', 300.3, 0),
        money('USD', 300.3, 3.03), // 100.10 + 200.20; spent 1.01 + 2.02
      ],
      indicatorScores: { ...NO_SCORES, onTrack: 2, atRisk: 1, offTrack: 2 },
      upcomingDeadlines: [mineDue, clinicDue, otherDue], // all due today: by project name
      dataQuality: expect.any(Object),
      programs: [
        {
          id: alpha.id,
          name: 'Alpha',
          status: 'active',
          projectCount: 2,
          budgetByCurrency: [money('USD', 300.3, 3.03)],
          indicatorCompletionRate: 25, // 1 of 4 pairs on track
          dataQuality: expect.any(Object),
        },
        {
          id: beta.id,
          name: 'Beta',
          status: 'draft',
          projectCount: 1,
          budgetByCurrency: [money('EUR', 300.3, 0)],
          indicatorCompletionRate: 100, // 1 of 1
          dataQuality: expect.any(Object),
        },
      ],
      offTrackIndicators: [
        entry(otherBehind, other, progress(10, 100, 10, 'off_track', 90)),
        entry(mineBehind, mine, progress(40, 100, 40, 'off_track', 60)),
      ],
    });
  });

  it('gives a reporter without assignments empty figures, even when assigned in another organization', async () => {
    const db = t.database.db;
    const program = await newProgram('Alpha');
    const project = await newProject(program.id, { name: 'Wells', currency: 'USD', budget: 50 });
    await pair(project, 10, 100);
    const foreign = await createProject(db, team.outsiderOrg.id, 'Foreign Wells');
    await db.update(projects).set({ budget: 999, status: 'active' }).where(eq(projects.id, foreign.id));
    await addMember(db, team.outsiderOrg.id, team.reporter.id, 'reporter');
    await assignProject(db, team.outsiderOrg.id, foreign.id, team.reporter.id);

    expect(await summary(team.reporter)).toEqual({
      activeProjects: 0,
      totalProjects: 0,
      budgetByCurrency: [],
      indicatorScores: NO_SCORES,
      upcomingDeadlines: [],
      dataQuality: expect.any(Object),
      programs: [],
      offTrackIndicators: [],
    });
  });
});
