import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { call } from '../../../test/helpers/http.js';
import { act } from '../../../test/helpers/indicators.js';
import type { PeriodRow } from '../../../test/helpers/periods.js';
import type { Indicator, Project } from '../../../test/helpers/progress-scenes.js';
import { reportData } from '../../../test/helpers/report-data.js';
import { donorReportUrl } from '../../../test/helpers/reports.js';
import { useSuite } from '../../../test/helpers/suite.js';
import { reports } from './reports.tables.js';

const { t, team } = useSuite();
const data = reportData(() => ({ t, team }));
const { newProject, linked, link, value, quarters, assemblePeriods, assembleRange } = data;

/** Sets the periods' targets through the link; the ids of the reports holding them, by period. */
async function setTargets(project: Project, indicator: Indicator, targets: [PeriodRow, number][]) {
  const res = await call(
    t.app,
    'PATCH',
    `/orgs/${team.org.id}/projects/${project.id}/indicators/${indicator.id}`,
    {
      as: team.officer,
      body: { periodTargets: Object.fromEntries(targets.map(([period, target]) => [period.id, target])) },
    },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return new Map<string, string>(
    (res.body.periodTargets as { reportingPeriodId: string; indicatorReportId: string }[]).map((p) => [
      p.reportingPeriodId,
      p.indicatorReportId,
    ]),
  );
}

/** Gives the draft report holding a period's target a value, then submits (and approves) it. */
async function fill(reportId: string, value: number, fate: 'submitted' | 'approved' = 'approved') {
  const res = await call(t.app, 'PATCH', `/orgs/${team.org.id}/indicator-reports/${reportId}`, {
    as: team.officer,
    body: { value },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await act(t.app, team.officer, team.org.id, reportId, 'submit');
  if (fate === 'approved') await act(t.app, team.admin, team.org.id, reportId, 'approve');
}

type Entry = Record<string, unknown> & { code: string };
const figures = (entry: Entry) => ({
  value: entry.value,
  target: entry.target,
  progressPct: entry.progressPct,
  status: entry.status,
  targetToDate: entry.targetToDate,
  progressToDatePct: entry.progressToDatePct,
  statusToDate: entry.statusToDate,
});

describe('an assembled report’s targets to date', () => {
  it('sum: adds the included periods’ targets, drafts’ included; the contract’s figures stay as they were', async () => {
    const project = await newProject();
    const indicator = await linked(project, { aggregationMethod: 'sum' }, { target: 650 });
    const [q1, q2, q3, q4] = await quarters(project);
    const held = await setTargets(project, indicator, [
      [q1!, 100],
      [q2!, 150],
      [q3!, 200],
      [q4!, 200],
    ]);
    await fill(held.get(q1!.id)!, 90);
    await fill(held.get(q2!.id)!, 120, 'submitted');

    // Half a year: 210 of 100 + 150 on both bases.
    const half = await assemblePeriods(project.id, [q1!.id, q2!.id]);
    expect(figures(half.sections.indicators[0])).toEqual({
      value: 210,
      target: 250,
      progressPct: 84,
      status: 'at_risk',
      targetToDate: 250,
      progressToDatePct: 84,
      statusToDate: 'at_risk',
    });
    // The year: the contract counts the targets of submitted and approved reports (250), the target to
    // date every period's (650, Q3 and Q4 still drafts): 210 / 650 = 32.3 %.
    const year = await assembleRange(project.id, '2026-01-01', '2026-12-31');
    expect(figures(year.sections.indicators[0])).toEqual({
      value: 210,
      target: 250,
      progressPct: 84,
      status: 'at_risk',
      targetToDate: 650,
      progressToDatePct: 32.3,
      statusToDate: 'off_track',
    });
  });

  it('average averages the targets, latest takes the latest period’s; null when a period has none', async () => {
    const project = await newProject();
    const average = await linked(project, { aggregationMethod: 'average' }, { target: 100 });
    const latest = await linked(project, { aggregationMethod: 'latest' }, { target: 100 });
    const [q1, q2, q3] = await quarters(project, 3);
    const avg = await setTargets(project, average, [
      [q1!, 60],
      [q2!, 80],
    ]);
    await fill(avg.get(q1!.id)!, 54);
    await fill(avg.get(q2!.id)!, 72);
    const last = await setTargets(project, latest, [
      [q1!, 50],
      [q2!, 70],
    ]);
    await fill(last.get(q1!.id)!, 40);
    await fill(last.get(q2!.id)!, 63);
    // Q3 has a value but no target.
    await value(project, average, q3!, { value: 90 });

    const report = await assemblePeriods(project.id, [q1!.id, q2!.id]);
    const byCode = new Map((report.sections.indicators as Entry[]).map((e) => [e.code, e]));
    // average: 63 against the latest period's 80 (78.8 %, at risk); to date against (60 + 80) / 2 = 70: 90 %.
    expect(figures(byCode.get(average.code)!)).toEqual({
      value: 63,
      target: 80,
      progressPct: 78.8,
      status: 'at_risk',
      targetToDate: 70,
      progressToDatePct: 90,
      statusToDate: 'on_track',
    });
    // latest: Q2's 63 of Q2's 70 on both bases.
    expect(figures(byCode.get(latest.code)!)).toEqual({
      value: 63,
      target: 70,
      progressPct: 90,
      status: 'on_track',
      targetToDate: 70,
      progressToDatePct: 90,
      statusToDate: 'on_track',
    });

    // With Q3, which has no target: none to date; the contract's figures as ever (latest target 80 kept).
    const three = await assemblePeriods(project.id, [q1!.id, q2!.id, q3!.id]);
    const entry = (three.sections.indicators as Entry[]).find((e) => e.code === average.code)!;
    expect(figures(entry)).toEqual({
      value: 72,
      target: 80,
      progressPct: 90,
      status: 'on_track',
      targetToDate: null,
      progressToDatePct: null,
      statusToDate: 'no_target',
    });
  });

  it('gives a formula indicator none, and an old snapshot without the fields nulls', async () => {
    const project = await newProject();
    const input = await linked(project, { aggregationMethod: 'sum' });
    const formula = await data.newIndicator({ formula: `${input.code} * 2`, aggregationMethod: undefined });
    await link(project, formula, { target: 10 });
    const [q1] = await quarters(project, 1);
    const held = await setTargets(project, input, [[q1!, 4]]);
    await fill(held.get(q1!.id)!, 4);
    const report = await assemblePeriods(project.id, [q1!.id]);
    const byCode = new Map((report.sections.indicators as Entry[]).map((e) => [e.code, e]));
    expect(figures(byCode.get(formula.code)!)).toMatchObject({
      value: 8,
      target: 10,
      targetToDate: null,
      progressToDatePct: null,
      statusToDate: 'no_target',
    });
    expect(figures(byCode.get(input.code)!)).toMatchObject({ targetToDate: 4, progressToDatePct: 100 });

    // A snapshot stored before the to-date figures existed: served with null.
    await t.database.db
      .update(reports)
      .set({
        content: sql`jsonb_set(${reports.content}, '{indicators}', (
          SELECT jsonb_agg(e - 'targetToDate' - 'progressToDatePct' - 'statusToDate')
          FROM jsonb_array_elements(${reports.content} -> 'indicators') e))`,
      })
      .where(eq(reports.id, report.id));
    const old = await call(t.app, 'GET', donorReportUrl(team.org.id, report.id), { as: team.viewer });
    expect(old.status).toBe(200);
    for (const entry of old.body.sections.indicators as Entry[]) {
      expect([entry.targetToDate, entry.progressToDatePct, entry.statusToDate]).toEqual([null, null, null]);
      expect(entry.status).toBe(byCode.get(entry.code)!.status);
    }
  });

  it('is what the shared page shows, saying so; without targets to date it shows the contract’s', async () => {
    const project = await newProject();
    const average = await linked(project, { aggregationMethod: 'average' }, { target: 100 });
    const plain = await linked(project, { aggregationMethod: 'sum' }, { target: 50 });
    const [q1, q2] = await quarters(project, 2);
    const held = await setTargets(project, average, [
      [q1!, 60],
      [q2!, 80],
    ]);
    await fill(held.get(q1!.id)!, 54);
    await fill(held.get(q2!.id)!, 72);
    await value(project, plain, q1!, { value: 20 });
    const report = await assemblePeriods(project.id, [q1!.id, q2!.id]);
    const token = (
      await call(t.app, 'PATCH', donorReportUrl(team.org.id, report.id, 'share'), { as: team.officer })
    ).body.shareToken as string;
    const page = await call(t.app, 'GET', `/r/${token}`);
    expect(page.status).toBe(200);
    const html = page.body as string;
    expect(html).toContain('data-basis-note');
    expect(html).toMatch(
      /Targets and progress marked “to date” are against the targets of the reporting periods/,
    );
    const cardOf = (code: string) => {
      const start = html.indexOf(`<article class="card" data-indicator="${code}">`);
      return html.slice(start, html.indexOf('</article>', start));
    };
    // The average indicator: 70 to date, 90 % on track (the contract says 78.8 % at risk).
    expect(cardOf(average.code)).toMatch(
      /data-target>\s*70<br \/><span class="hint" data-basis="to-date">to date/,
    );
    expect(cardOf(average.code)).toContain('<span class="pct">90%</span>');
    expect(cardOf(average.code)).toContain('aria-label="90% of target to date"');
    expect(cardOf(average.code)).not.toContain('78.8');
    // The other has no targets to date: the contract's 20 of 50, 40 %, off track.
    expect(cardOf(plain.code)).toMatch(/data-target>\s*50\s*<\/dd>/);
    expect(cardOf(plain.code)).toContain('<span class="pct">40%</span>');
    expect(cardOf(plain.code)).toContain('band-off_track');
  });
});
