import { DAY, LOCKED_PERIODS, PERIODS } from './calendar.js';
import type { Cell } from './bulk.js';
import { BIG, TYPICAL, type ProjectSeed, type Seeding } from './model.js';
import { BUDGET_CATEGORIES, CURRENCIES, DISTRICTS, personName } from './names.js';
import { capitalize } from './organization.js';
import { apportion, type Random } from './random.js';

const PROJECTS_CREATED = Date.UTC(2024, 4, 1);

/** Projects with their periods, budget lines and assigned reporters. */
export async function seedProjects(s: Seeding): Promise<void> {
  const random = s.random('projects');
  const rows: Cell[][] = [];
  for (let index = 0; index < s.plan.projects; index += 1) {
    const programIndex = index === BIG ? 0 : index % s.programs.length;
    const { theme } = s.programs[programIndex]!;
    const district = random.pick(DISTRICTS);
    const created = PROJECTS_CREATED + index * 40 * 60_000;
    const big = index === BIG;
    const project: ProjectSeed = {
      index,
      id: s.ids.at(created),
      code: big ? 'BIG' : `${theme.short}-${String(index).padStart(4, '0')}`,
      name: big
        ? `${theme.name} Flagship: ${district.name} and Neighbouring Districts`
        : `${capitalize(random.pick(theme.services))} for ${random.pick(theme.groups)} in ${district.name}`,
      programIndex,
      district,
      currency: big ? 'USD' : random.weighted(CURRENCIES),
      status:
        index <= TYPICAL + 1
          ? 'active'
          : random.weighted([
              ['active', 80],
              ['completed', 8],
              ['suspended', 6],
              ['draft', 6],
            ] as const),
      periodIds: [],
      links: [],
      reporters: [],
    };
    s.projects.push(project);
    const budget = big ? 25_000_000 : random.int(80, 4000) * 1000;
    const lead = personName(random);
    rows.push([
      project.id,
      s.orgId,
      s.programs[programIndex]!.id,
      project.name,
      project.code,
      `Delivers ${theme.services.join(' and ')} with ${theme.groups.join(', ')} in ${district.name} district.`,
      budget,
      project.currency,
      random.pick(['2024-06-01', '2024-06-15', '2024-07-01']),
      random.pick(['2026-06-30', '2026-12-31', '2027-06-30', '2027-12-31']),
      project.status,
      `${district.name}, ${district.country}`,
      lead,
      new Date(created),
      new Date(created),
    ]);
  }
  await s.writer.insert(
    'projects',
    [
      ['id', 'uuid'],
      ['org_id', 'uuid'],
      ['program_id', 'uuid'],
      ['name', 'text'],
      ['code', 'text'],
      ['description', 'text'],
      ['budget', 'numeric'],
      ['currency', 'text'],
      ['start_date', 'date'],
      ['end_date', 'date'],
      ['status', 'project_status'],
      ['location', 'text'],
      ['lead', 'text'],
      ['created_at', 'timestamptz'],
      ['updated_at', 'timestamptz'],
    ],
    rows.length,
    rows,
  );
  await seedAssignments(s, random);
  await seedBudgetLines(
    s,
    random,
    rows.map((row) => row[6] as number),
  );
  await seedPeriods(s, random);
}

/** Reporters see only their projects: each gets a handful, the first ones the big and typical one too. */
async function seedAssignments(s: Seeding, random: Random): Promise<void> {
  const reporters = s.users.filter((user) => user.role === 'reporter');
  const rows: Cell[][] = [];
  reporters.forEach((reporter, r) => {
    const chosen = new Set(random.sample(s.projects, random.int(2, 8)));
    if (r < 3) chosen.add(s.projects[BIG]!).add(s.projects[TYPICAL]!);
    for (const project of chosen) {
      project.reporters.push(reporter);
      rows.push([s.orgId, project.id, reporter.id, new Date(PROJECTS_CREATED + 30 * DAY + r * 60_000)]);
    }
  });
  await s.writer.insert(
    'project_members',
    [
      ['org_id', 'uuid'],
      ['project_id', 'uuid'],
      ['user_id', 'uuid'],
      ['assigned_at', 'timestamptz'],
    ],
    rows.length,
    rows,
  );
}

const BURN: Record<ProjectSeed['status'], [number, number]> = {
  draft: [0, 0],
  active: [0.3, 0.9],
  suspended: [0.2, 0.6],
  completed: [0.9, 1.05],
};

/** Three to six lines per project adding up to its budget, spent according to how far it got. */
async function seedBudgetLines(s: Seeding, random: Random, budgets: number[]): Promise<void> {
  function* lines(): Generator<Cell[]> {
    for (const project of s.projects) {
      const categories = random.sample(BUDGET_CATEGORIES, random.int(3, 6));
      const cents = apportion(
        budgets[project.index]! * 100,
        categories.map(() => random.between(0.5, 2)),
      );
      const [low, high] = BURN[project.status];
      for (const [i, category] of categories.entries()) {
        const time = PROJECTS_CREATED + project.index * 40 * 60_000 + (i + 1) * 60_000;
        const planned = cents[i]! / 100;
        const actual = Math.round(planned * random.between(low, high) * 100) / 100;
        yield [
          s.ids.at(time),
          s.orgId,
          project.id,
          category,
          `${category} for ${project.code}`,
          planned,
          actual,
          new Date(time),
          new Date(time),
        ];
      }
    }
  }
  await s.writer.insert(
    'budget_lines',
    [
      ['id', 'uuid'],
      ['org_id', 'uuid'],
      ['project_id', 'uuid'],
      ['category', 'text'],
      ['description', 'text'],
      ['planned_amount', 'numeric'],
      ['actual_amount', 'numeric'],
      ['created_at', 'timestamptz'],
      ['updated_at', 'timestamptz'],
    ],
    s.projects.length * 4,
    lines(),
  );
}

/** 24 monthly periods per project; the oldest twelve were reviewed and locked a month after they ended. */
async function seedPeriods(s: Seeding, random: Random): Promise<void> {
  const lockers = [s.admin, ...s.users.filter((user) => user.role === 'me_officer')];
  function* periods(): Generator<Cell[]> {
    for (const project of s.projects) {
      const created = PROJECTS_CREATED + project.index * 40 * 60_000 + 20 * DAY;
      for (const [i, period] of PERIODS.entries()) {
        const id = s.ids.at(created + i * 1000);
        project.periodIds.push(id);
        const locked = i < LOCKED_PERIODS;
        const lockedAt = locked ? new Date(period.end + random.int(25, 45) * DAY + random.int(0, DAY)) : null;
        yield [
          id,
          s.orgId,
          project.id,
          period.label,
          period.startDate,
          period.endDate,
          period.dueDate,
          locked,
          lockedAt,
          locked ? random.pick(lockers).id : null,
          new Date(created + i * 1000),
          lockedAt ?? new Date(created + i * 1000),
        ];
      }
    }
  }
  await s.writer.insert(
    'reporting_periods',
    [
      ['id', 'uuid'],
      ['org_id', 'uuid'],
      ['project_id', 'uuid'],
      ['label', 'text'],
      ['start_date', 'date'],
      ['end_date', 'date'],
      ['due_date', 'date'],
      ['is_locked', 'bool'],
      ['locked_at', 'timestamptz'],
      ['locked_by', 'uuid'],
      ['created_at', 'timestamptz'],
      ['updated_at', 'timestamptz'],
    ],
    s.projects.length * PERIODS.length,
    periods(),
  );
}
