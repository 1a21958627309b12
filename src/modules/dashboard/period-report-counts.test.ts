/**
 * The read model of completeness and timeliness (`period_report_counts`, kept by migration 0036's
 * triggers): after any series of changes to reports and due dates, it holds exactly what counting the
 * reports again finds. Checked against that recount, written here apart from the triggers.
 */
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { act, linkIndicator, postIndicator, postReport } from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { useSuite } from '../../../test/helpers/suite.js';
import { rowsOf } from '../../db/client.js';
import { addDays } from '../../lib/dates.js';
import { todayUtc } from '../../lib/demographics.js';
import {
  indicatorReports,
  type IndicatorReportStatus,
} from '../indicator-reports/indicator-reports.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import type { ReportFlag } from '../quality/quality.tables.js';

const { t, team } = useSuite();
const org = () => team.org.id;
const today = todayUtc();

/** Every period of the organization whose stored counts differ from a recount of its reports. */
async function drift(): Promise<unknown[]> {
  const result = await t.database.db.execute(sql`
    WITH recount AS (
      SELECT r.org_id, r.reporting_period_id,
        count(*) FILTER (WHERE r.value IS NOT NULL)::int AS entered,
        count(*) FILTER (WHERE r.status IN ('submitted', 'approved'))::int AS reported,
        count(*) FILTER (WHERE r.status IN ('submitted', 'approved') AND (p.due_date IS NULL
          OR (r.first_submitted_at AT TIME ZONE 'UTC')::date <= p.due_date))::int AS on_time,
        count(*) FILTER (WHERE r.status = 'approved')::int AS approved,
        count(*) FILTER (WHERE r.flags <> '[]'::jsonb)::int AS flagged,
        coalesce(sum(jsonb_array_length(r.flags)) FILTER (WHERE r.status <> 'approved'), 0)::int AS open_flags
      FROM indicator_reports r
      JOIN reporting_periods p ON p.org_id = r.org_id AND p.id = r.reporting_period_id
      WHERE r.org_id = ${org()}
      GROUP BY r.org_id, r.reporting_period_id
    ),
    stored AS (SELECT * FROM period_report_counts WHERE org_id = ${org()})
    SELECT reporting_period_id AS "periodId",
      json_build_array(r.entered, r.reported, r.on_time, r.approved, r.flagged, r.open_flags) AS recount,
      json_build_array(s.entered, s.reported, s.on_time, s.approved, s.flagged, s.open_flags) AS stored
    FROM recount r FULL JOIN stored s USING (org_id, reporting_period_id)
    WHERE (coalesce(r.entered, 0), coalesce(r.reported, 0), coalesce(r.on_time, 0), coalesce(r.approved, 0),
        coalesce(r.flagged, 0), coalesce(r.open_flags, 0))
      IS DISTINCT FROM (coalesce(s.entered, 0), coalesce(s.reported, 0), coalesce(s.on_time, 0),
        coalesce(s.approved, 0), coalesce(s.flagged, 0), coalesce(s.open_flags, 0))`);
  return rowsOf(result);
}

/** A small deterministic generator (mulberry32): the same series on every run. */
function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let x = Math.imul(state ^ (state >>> 15), 1 | state);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  return { next, pick };
}

const flag = (message: string): ReportFlag => ({
  kind: 'rule',
  rule: '00000000-0000-7000-8000-000000000000',
  message,
  importance: 'low',
  justification: null,
});

describe('period_report_counts', () => {
  it('holds what a recount finds after a random series of inserts, updates, deletes and due dates', async () => {
    const { db } = t.database;
    const projects = [
      await createProject(db, org(), 'Ardent Wells'),
      await createProject(db, org(), 'Basin'),
    ];
    const indicators = [];
    for (const name of ['Wells dug', 'Wells repaired', 'Wells tested']) {
      const indicator = await postIndicator(t.app, team.admin, org(), { name });
      for (const project of projects) await linkIndicator(t.app, team.admin, org(), project.id, indicator.id);
      indicators.push(indicator);
    }
    const periods = [];
    for (const project of projects) {
      for (const [i, dueDate] of [addDays(today, -10), addDays(today, 5), null].entries()) {
        const period = await createPeriod(db, org(), project.id, {
          label: `P${i}`,
          startDate: `2026-0${i + 1}-01`,
          endDate: `2026-0${i + 1}-28`,
          dueDate,
        });
        periods.push({ ...period, projectId: project.id });
      }
    }
    const { next, pick } = random(20261129);
    const statuses: IndicatorReportStatus[] = ['draft', 'submitted', 'approved', 'rejected'];
    const days = [addDays(today, -20), addDays(today, -1), today, addDays(today, 3), addDays(today, 30)];
    const values = () => ({
      value: next() < 0.2 ? null : Math.round(next() * 100),
      status: pick(statuses),
      firstSubmittedAt: next() < 0.3 ? null : new Date(`${pick(days)}T${pick(['00:30', '23:30'])}:00Z`),
      flags: next() < 0.5 ? [] : Array.from({ length: 1 + Math.floor(next() * 3) }, (_, i) => flag(`f${i}`)),
    });
    // The worker's database is shared with other files: only this organization's reports.
    const reports = () =>
      db.select({ id: indicatorReports.id }).from(indicatorReports).where(eq(indicatorReports.orgId, org()));

    for (let step = 1; step <= 240; step++) {
      const roll = next();
      if (roll < 0.35) {
        const period = pick(periods);
        await db
          .insert(indicatorReports)
          .values({
            orgId: org(),
            projectId: period.projectId,
            indicatorId: pick(indicators).id,
            reportingPeriodId: period.id,
            ...values(),
          })
          .onConflictDoNothing();
      } else if (roll < 0.7) {
        const all = await reports();
        if (all.length > 0) {
          const change = values();
          const fields = Object.fromEntries(Object.entries(change).filter(() => next() < 0.6));
          await db
            .update(indicatorReports)
            .set({ narrative: `step ${step}`, ...fields })
            .where(eq(indicatorReports.id, pick(all).id));
        }
      } else if (roll < 0.8) {
        // Several periods' reports in one statement.
        await db
          .update(indicatorReports)
          .set({ status: pick(statuses), flags: next() < 0.5 ? [] : [flag('all')] })
          .where(eq(indicatorReports.projectId, pick(projects).id));
      } else if (roll < 0.9) {
        const all = await reports();
        if (all.length > 0) await db.delete(indicatorReports).where(eq(indicatorReports.id, pick(all).id));
      } else {
        await db
          .update(reportingPeriods)
          .set({ dueDate: next() < 0.25 ? null : pick(days) })
          .where(eq(reportingPeriods.id, pick(periods).id));
      }
      if (step % 40 === 0) expect(await drift(), `after step ${step}`).toEqual([]);
    }
    const stored = await db.execute(
      sql`SELECT count(*)::int AS n FROM period_report_counts WHERE org_id = ${org()}`,
    );
    expect(rowsOf<{ n: number }>(stored)[0]!.n).toBeGreaterThan(0);

    // A project's deletion takes its periods' counts with it; the other's stay right.
    const gone = await call(t.app, 'DELETE', `/orgs/${org()}/projects/${projects[0]!.id}`, {
      as: team.admin,
    });
    expect(gone.status, JSON.stringify(gone.body)).toBe(204);
    expect(await drift()).toEqual([]);
    const left = await db.execute(
      sql`SELECT count(*)::int AS n FROM period_report_counts WHERE project_id = ${projects[0]!.id}`,
    );
    expect(rowsOf<{ n: number }>(left)[0]!.n).toBe(0);
  });

  it('follows the service: values saved, submitted, rejected, approved, flagged by a rule, a due date moved', async () => {
    const project = await createProject(t.database.db, org(), 'Clinics');
    const seen = await postIndicator(t.app, team.admin, org(), { name: 'Patients seen' });
    const treated = await postIndicator(t.app, team.admin, org(), { name: 'Patients treated' });
    for (const indicator of [seen, treated])
      await linkIndicator(t.app, team.admin, org(), project.id, indicator.id);
    const period = await createPeriod(t.database.db, org(), project.id, { dueDate: addDays(today, 10) });
    const rule = await call(t.app, 'POST', `/orgs/${org()}/validation-rules`, {
      as: team.officer,
      body: {
        name: 'Treated within seen',
        left: treated.code,
        operator: '<=',
        right: seen.code,
        importance: 'medium',
        instruction: 'Check the register',
      },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    const counts = async () => {
      expect(await drift()).toEqual([]);
      const result = await t.database.db.execute(sql`
        SELECT entered, reported, on_time AS "onTime", approved, flagged, open_flags AS "openFlags"
        FROM period_report_counts WHERE org_id = ${org()} AND reporting_period_id = ${period.id}`);
      return rowsOf(result)[0];
    };
    const value = (indicatorId: string, v: number) =>
      postReport(t.app, team.officer, org(), project.id, {
        indicatorId,
        reportingPeriodId: period.id,
        value: v,
      });

    const seenReport = await value(seen.id, 10);
    const treatedReport = await value(treated.id, 12);
    // 12 treated of 10 seen: both flagged, both open.
    expect(await counts()).toEqual({
      entered: 2,
      reported: 0,
      onTime: 0,
      approved: 0,
      flagged: 2,
      openFlags: 2,
    });
    await act(t.app, team.officer, org(), seenReport.id, 'submit');
    expect(await counts()).toMatchObject({ reported: 1, onTime: 1 });
    await act(t.app, team.admin, org(), seenReport.id, 'reject');
    expect(await counts()).toMatchObject({ reported: 0, onTime: 0 });
    await act(t.app, team.officer, org(), seenReport.id, 'submit');
    await act(t.app, team.admin, org(), seenReport.id, 'approve');
    expect(await counts()).toEqual({
      entered: 2,
      reported: 1,
      onTime: 1,
      approved: 1,
      flagged: 2,
      openFlags: 1,
    });

    // The treated value mended: the rule holds, both flags go (the approved report's too).
    const mended = await call(t.app, 'PATCH', `/orgs/${org()}/indicator-reports/${treatedReport.id}`, {
      as: team.officer,
      body: { value: 8 },
    });
    expect(mended.status, JSON.stringify(mended.body)).toBe(200);
    expect(await counts()).toEqual({
      entered: 2,
      reported: 1,
      onTime: 1,
      approved: 1,
      flagged: 0,
      openFlags: 0,
    });

    // The due date moved before the first submission's day: it was late after all.
    const moved = await call(t.app, 'PATCH', `/orgs/${org()}/reporting-periods/${period.id}`, {
      as: team.admin,
      body: { dueDate: addDays(today, -3) },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(await counts()).toMatchObject({ reported: 1, onTime: 0 });
    const cleared = await call(t.app, 'PATCH', `/orgs/${org()}/reporting-periods/${period.id}`, {
      as: team.admin,
      body: { dueDate: null },
    });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(await counts()).toMatchObject({ reported: 1, onTime: 1 });
  });
});
