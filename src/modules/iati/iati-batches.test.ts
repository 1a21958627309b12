import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildCountingTestApp } from '../../../test/helpers/app.js';
import { createProgram, createTeam, type Team } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { childrenNamed, parseXml } from '../../../test/helpers/xml.js';
import { indicatorReports } from '../indicator-reports/indicator-reports.tables.js';
import { disaggregations, indicators, projectIndicators } from '../indicators/indicators.tables.js';
import { organizations } from '../orgs/orgs.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import { projects } from '../projects/projects.tables.js';
import { PROJECT_BATCH } from './activities-document.js';

let t: Awaited<ReturnType<typeof buildCountingTestApp>>;
let team: Team;
const PROJECTS = 2 * PROJECT_BATCH + 20;
const codeOf = (n: number) => `P${String(n).padStart(4, '0')}`;
let first: { id: string };

beforeAll(async () => {
  t = await buildCountingTestApp();
  team = await createTeam(t.app, t.database.db);
  const db = t.database.db;
  const orgId = team.org.id;
  await db.update(organizations).set({ iatiRef: 'XM-DAC-41114' }).where(eq(organizations.id, orgId));
  const program = await createProgram(db, orgId);
  const rows = await db
    .insert(projects)
    .values(
      // Written out of code order: the document sorts them.
      Array.from({ length: PROJECTS }, (_, i) => ({
        orgId,
        programId: program.id,
        name: `Project ${PROJECTS - i}`,
        code: codeOf(PROJECTS - i),
        currency: 'USD',
        startDate: '2025-01-01',
        endDate: '2025-12-31',
      })),
    )
    .returning({ id: projects.id, code: projects.code });
  first = rows.find((row) => row.code === codeOf(1))!;
  const made = await db
    .insert(indicators)
    .values(
      ['REACHED', 'TRAINED', 'SCORE'].map((code) => ({
        orgId,
        name: code,
        code,
        unit: 'people',
        aggregationMethod: 'sum' as const,
      })),
    )
    .returning({ id: indicators.id });
  await db
    .insert(disaggregations)
    .values({ orgId, indicatorId: made[0]!.id, name: 'Sex', categories: ['female', 'male'] });
  await db
    .insert(projectIndicators)
    .values(
      rows.flatMap((project) =>
        made.map((indicator) => ({ orgId, projectId: project.id, indicatorId: indicator.id })),
      ),
    );
  const periods = await db
    .insert(reportingPeriods)
    .values(
      rows.flatMap((project) =>
        [1, 2, 3, 4].map((q) => ({
          orgId,
          projectId: project.id,
          label: `Q${q}`,
          startDate: `2025-${String(q * 3 - 2).padStart(2, '0')}-01`,
          endDate: `2025-${String(q * 3).padStart(2, '0')}-28`,
        })),
      ),
    )
    .returning({ id: reportingPeriods.id, projectId: reportingPeriods.projectId });
  await db.insert(indicatorReports).values(
    periods.flatMap((period) =>
      made.map((indicator, i): typeof indicatorReports.$inferInsert => ({
        orgId,
        projectId: period.projectId,
        indicatorId: indicator.id,
        reportingPeriodId: period.id,
        value: 10,
        status: 'approved',
        disaggregatedValues: i === 0 ? { female: 6, male: 4 } : {},
      })),
    ),
  );
}, 60_000);
afterAll(() => t.close());

it('writes every project once, by code, across batches, in a fixed number of statements per batch', async () => {
  let body = '';
  const all = await t.during(async () => {
    const res = await call(t.app, 'GET', `/orgs/${team.org.id}/iati/activities.xml`, { as: team.officer });
    expect(res.status).toBe(200);
    body = res.response.body;
  });
  const activities = childrenNamed(parseXml(body), 'iati-activity');
  expect(activities.map((a) => childrenNamed(a, 'iati-identifier')[0]!.text)).toEqual(
    Array.from({ length: PROJECTS }, (_, i) => `XM-DAC-41114-${codeOf(i + 1)}`),
  );
  // 3 indicators x 4 periods, each with an approved value (and 2 dimensions for the first).
  expect(body.match(/<actual /g)).toHaveLength(PROJECTS * 4 * (3 + 2));

  const one = await t.during(async () => {
    const res = await call(t.app, 'GET', `/orgs/${team.org.id}/iati/activities.xml?projectId=${first.id}`, {
      as: team.officer,
    });
    expect(childrenNamed(parseXml(res.response.body), 'iati-activity')).toHaveLength(1);
  });
  // One project: one batch (and the check that the project exists). All of them: three batches of at
  // most PROJECT_BATCH (and the check that there is a project). Whatever the number of indicators,
  // periods and reports, a batch is the same 8 statements: its projects, then 7 set-based reads.
  expect(all - one).toBe(2 * 8);
});
