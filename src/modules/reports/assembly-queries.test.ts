import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCountingTestApp } from '../../../test/helpers/app.js';
import { createProject, createTeam, type Team } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { indicatorCode } from '../../../test/helpers/indicators.js';
import { orgReportsUrl, projectReportsUrl } from '../../../test/helpers/report-data.js';
import { newId } from '../../lib/ids.js';
import { activities, activityParticipants, participants } from '../activities/activities.tables.js';
import { budgetLines } from '../budget/budget.tables.js';
import { indicatorReports } from '../indicator-reports/indicator-reports.tables.js';
import { indicators, projectIndicators } from '../indicators/indicators.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';

let t: Awaited<ReturnType<typeof buildCountingTestApp>>;
let team: Team;

beforeAll(async () => {
  t = await buildCountingTestApp();
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

const pad = (n: number) => String(n).padStart(2, '0');
const lastDay = (month: number) => new Date(Date.UTC(2026, month, 0)).getUTCDate();

/**
 * A project filled directly: `indicatorCount` summed indicators, `monthCount` monthly periods of 2026,
 * indicator i reporting i + m in month m (0-based) against a period target of 10, and `activityCount`
 * activities in the months, each with 3 people registered of whom 2 attended.
 */
async function bulkProject(indicatorCount: number, monthCount: number, activityCount: number) {
  const db = t.database.db;
  const orgId = team.org.id;
  const project = await createProject(db, orgId, `Bulk ${indicatorCount}`);
  const tag = indicatorCode('Q');
  const indicatorRows = await db
    .insert(indicators)
    .values(
      Array.from({ length: indicatorCount }, (_, i) => ({
        orgId,
        name: `Indicator ${i}`,
        code: `${tag}_${pad(i)}`,
        unit: 'people',
        aggregationMethod: 'sum' as const,
      })),
    )
    .returning();
  await db
    .insert(projectIndicators)
    .values(indicatorRows.map((row) => ({ orgId, projectId: project.id, indicatorId: row.id, target: 1 })));
  const periodRows = await db
    .insert(reportingPeriods)
    .values(
      Array.from({ length: monthCount }, (_, m) => ({
        orgId,
        projectId: project.id,
        label: `M${m + 1} 2026`,
        startDate: `2026-${pad(m + 1)}-01`,
        endDate: `2026-${pad(m + 1)}-${lastDay(m + 1)}`,
      })),
    )
    .returning();
  await db.insert(indicatorReports).values(
    indicatorRows.flatMap((row, i) =>
      periodRows.map((p, m) => ({
        orgId,
        projectId: project.id,
        indicatorId: row.id,
        reportingPeriodId: p.id,
        value: i + m,
        target: 10,
        status: m % 2 === 0 ? ('approved' as const) : ('submitted' as const),
        submittedAt: new Date('2026-06-15T12:00:00.000Z'),
      })),
    ),
  );
  const activityRows = await db
    .insert(activities)
    .values(
      Array.from({ length: activityCount }, (_, j) => ({
        orgId,
        projectId: project.id,
        title: `Activity ${j}`,
        startDate: `2026-${pad((j % 12) + 1)}-10`,
        endDate: `2026-${pad((j % 12) + 1)}-11`,
      })),
    )
    .returning();
  const people = activityRows.flatMap(() =>
    [0, 1, 2].map(() => ({
      id: newId(),
      orgId,
      firstName: 'Wanjiru',
      lastName: 'Kamau',
      sex: 'female' as const,
      village: 'Kisumu',
      district: 'Kisumu',
    })),
  );
  await db.insert(participants).values(people);
  await db.insert(activityParticipants).values(
    people.map((person, k) => ({
      orgId,
      activityId: activityRows[Math.floor(k / 3)]!.id,
      participantId: person.id,
      attended: k % 3 !== 2,
    })),
  );
  await db.insert(budgetLines).values({
    orgId,
    projectId: project.id,
    category: 'Staff',
    plannedAmount: 1000,
    actualAmount: 250,
  });
  return { project, periodIds: periodRows.map((p) => p.id) };
}

/** The statements one request took, and its response. */
async function counted(method: 'POST', url: string, body: Record<string, unknown>) {
  let res: Awaited<ReturnType<typeof call>> | undefined;
  const statements = await t.during(async () => {
    res = await call(t.app, method, url, { as: team.officer, body });
  });
  expect(res!.status, JSON.stringify(res!.body)).toBe(201);
  return { statements, body: res!.body };
}

describe('report assembly: a fixed number of SQL statements', () => {
  it('assembles 50 indicators × 12 periods and 200 activities in as many statements as 1 × 1 × 1', async () => {
    const big = await bulkProject(50, 12, 200);
    const small = await bulkProject(1, 1, 1);
    const year = { title: 'Annual', startDate: '2026-01-01', endDate: '2026-12-31' };

    const bigRange = await counted('POST', projectReportsUrl(team.org.id, big.project.id), year);
    const smallRange = await counted('POST', projectReportsUrl(team.org.id, small.project.id), year);
    expect(bigRange.statements).toBeGreaterThan(0);
    // 13: the crossed disaggregations and the periods' targets (targets to date) are a statement each.
    expect(bigRange.statements).toBeLessThanOrEqual(13);
    expect(smallRange.statements).toBe(bigRange.statements);

    const chosen = (p: { project: { id: string }; periodIds: string[] }) => ({
      title: 'Chosen',
      reportType: 'annual',
      projectId: p.project.id,
      periodIds: p.periodIds,
    });
    const bigChosen = await counted('POST', orgReportsUrl(team.org.id), chosen(big));
    const smallChosen = await counted('POST', orgReportsUrl(team.org.id), chosen(small));
    expect(smallChosen.statements).toBe(bigChosen.statements);
    expect(bigChosen.statements).toBeLessThanOrEqual(13);

    // No period overlaps 2030: the values submitted in the range are read instead.
    const later = { title: 'Later', startDate: '2030-01-01', endDate: '2030-12-31' };
    const bigLater = await counted('POST', projectReportsUrl(team.org.id, big.project.id), later);
    const smallLater = await counted('POST', projectReportsUrl(team.org.id, small.project.id), later);
    expect(smallLater.statements).toBe(bigLater.statements);
    expect(bigLater.statements).toBeLessThanOrEqual(12);

    // The numbers at scale: indicator i sums i + 0 + ... + i + 11 = 12i + 66 against 12 × 10 = 120,
    // so progressPct = (12i + 66) / 120 × 100 = 10i + 55.
    for (const report of [bigRange.body, bigChosen.body]) {
      const entries = report.sections.indicators;
      expect(entries).toHaveLength(50);
      expect(entries.map((e: any) => [e.value, e.target, e.progressPct])).toEqual(
        Array.from({ length: 50 }, (_, i) => [12 * i + 66, 120, 10 * i + 55]),
      );
      expect(entries.map((e: any) => e.status).slice(0, 5)).toEqual([
        'off_track', // 55
        'off_track', // 65
        'at_risk', // 75
        'at_risk', // 85
        'on_track', // 95
      ]);
      expect(entries[7].periods.map((p: any) => p.value)).toEqual(
        Array.from({ length: 12 }, (_, m) => 7 + m),
      );
      // 200 activities of 3 registrations, 2 attended each: 600 and 400 in all.
      const activityRows = report.sections.activities;
      expect(activityRows).toHaveLength(200);
      const total = (key: string) => activityRows.reduce((n: number, a: any) => n + a[key], 0);
      expect([total('participantCount'), total('attendedCount')]).toEqual([600, 400]);
      expect(activityRows.every((a: any) => a.participantCount === 3 && a.attendedCount === 2)).toBe(true);
      // 250 of 1000 → 25%
      expect(report.sections.budget).toMatchObject({ totalPlanned: 1000, totalActual: 250, burnRate: 25 });
    }
    expect(bigLater.body.periodIds).toEqual([]);
    expect(bigLater.body.sections.activities).toEqual([]);
  });
});
