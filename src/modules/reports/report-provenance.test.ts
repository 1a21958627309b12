import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { person, postActivity, prefillUrl, register } from '../../../test/helpers/activities.js';
import { addMember, registerUser, type TestUser } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import {
  act,
  indicatorCode,
  postReport,
  reportUrl,
  reportsUrl,
  type IndicatorJson,
  type ReportJson,
} from '../../../test/helpers/indicators.js';
import type { PeriodRow } from '../../../test/helpers/periods.js';
import type { Indicator, Project } from '../../../test/helpers/progress-scenes.js';
import { reportData } from '../../../test/helpers/report-data.js';
import { countingForm, historyOf, submitAmount } from '../../../test/helpers/report-history.js';
import type { Scene } from '../../../test/helpers/report-scenes.js';
import { donorReportUrl, publicReportUrl } from '../../../test/helpers/reports.js';
import { users } from '../auth/auth.tables.js';
import { reports } from './reports.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const data = reportData(() => ({ t, team }));
const { newProject, linked, quarters, assembleRange } = data;

const nameOf = (user: TestUser) => `${user.firstName} ${user.lastName}`;
const YEAR = ['2026-01-01', '2026-12-31'] as const;

/** The indicator in the period of the project, as the history helpers take it. */
const sceneOf = (project: Project, indicator: Indicator, period: PeriodRow): Scene => ({
  orgId: team.org.id,
  project,
  indicator: indicator as IndicatorJson,
  period,
});

/** Public submissions, one per household size, to a form counting them into the indicator in the period. */
async function submitSizes(s: Scene, sizes: number[]) {
  const form = await countingForm(t.app, team.officer, s);
  for (const size of sizes) await submitAmount(t.app, form, size);
}

/** The project's indicator report of the indicator in the period. */
async function indicatorReport(s: Scene) {
  const query = `?indicatorId=${s.indicator.id}&periodId=${s.period.id}`;
  const res = await call(t.app, 'GET', `${reportsUrl(s.orgId, s.project.id)}${query}`, { as: team.admin });
  expect(res.status).toBe(200);
  expect(res.body).toHaveLength(1);
  return res.body[0] as ReportJson & { reviewedAt: string | null };
}

/** When the latest history entry of `kind` of the report was written. */
async function lastAt(s: Scene, reportId: string, kind: string) {
  const entries = (await historyOf(t.app, team.admin, s, reportId)).filter((entry) => entry.kind === kind);
  expect(entries.length).toBeGreaterThan(0);
  return entries.at(-1)!.at;
}

async function edit(report: { id: string }, body: Record<string, unknown>) {
  const res = await call(t.app, 'PATCH', reportUrl(team.org.id, report.id), { as: team.officer, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/**
 * Two quarters of a project. A (summed): in Q1 household sizes 5 and 3 submitted on the public form
 * (8 counted), raised by hand to 10, submitted and approved; in Q2 a size of 4 counted, submitted, not
 * reviewed yet. B (summed): in Q1 pre-filled from the attendance of 3 people, raised by hand to 4,
 * submitted and approved. C = A * 100 / B.
 */
async function scene() {
  const project = await newProject();
  const [q1, q2] = await quarters(project, 2);
  const tag = indicatorCode('P');
  const a = await linked(project, { code: `A_${tag}`, aggregationMethod: 'sum' }, { target: 100 });
  const b = await linked(project, { code: `B_${tag}`, aggregationMethod: 'sum' });
  const c = await data.newFormula(`C_${tag}`, `A_${tag} * 100 / B_${tag}`);
  await data.link(project, c, { target: 400 });
  const aQ1 = sceneOf(project, a, q1!);
  const aQ2 = sceneOf(project, a, q2!);
  const bQ1 = sceneOf(project, b, q1!);

  await submitSizes(aQ1, [5, 3]);
  const aQ1Report = await indicatorReport(aQ1);
  await edit(aQ1Report, { value: 10 });
  await act(t.app, team.officer, team.org.id, aQ1Report.id, 'submit');
  await act(t.app, team.admin, team.org.id, aQ1Report.id, 'approve');

  const training = await postActivity(t.app, team.officer, team.org.id, project.id);
  const attending = [1, 2, 3].map(() => person({ attended: true }));
  await register(t.app, team.officer, team.org.id, training.id, attending);
  const prefilled = await call(t.app, 'POST', prefillUrl(team.org.id, project.id), {
    as: team.officer,
    body: { indicatorId: b.id, reportingPeriodId: q1!.id },
  });
  expect(prefilled.status, JSON.stringify(prefilled.body)).toBe(201);
  const bQ1Report = await indicatorReport(bQ1);
  expect(bQ1Report.value).toBe(3);
  // The pre-fill's breakdown by sex and age band no longer adds up to the value: it is cleared.
  await edit(bQ1Report, { value: 4, disaggregatedValues: null, narrative: 'One more came late.' });
  await act(t.app, team.officer, team.org.id, bQ1Report.id, 'submit');
  await act(t.app, team.admin, team.org.id, bQ1Report.id, 'approve');

  // Counted last of all: the latest change among A's values.
  await submitSizes(aQ2, [4]);
  const aQ2Report = await indicatorReport(aQ2);
  await act(t.app, team.officer, team.org.id, aQ2Report.id, 'submit');

  return {
    project,
    c,
    aQ1: { ...aQ1, id: aQ1Report.id },
    aQ2: { ...aQ2, id: aQ2Report.id },
    bQ1: { ...bQ1, id: bQ1Report.id },
  };
}

describe('report assembly: where each figure comes from (issue 24)', () => {
  it('splits each value into counted, pre-filled and manual parts, with its last change and approval', async () => {
    const s = await scene();
    const approvedB = (await indicatorReport(s.bQ1)).reviewedAt;
    const report = await assembleRange(s.project.id, ...YEAR);
    const [a, b, c] = report.sections.indicators;
    const officer = nameOf(team.officer);
    const admin = nameOf(team.admin);

    // A = 10 + 4 = 14: 8 + 4 counted from 3 submissions, 2 typed in Q1. Q2 is not approved yet, so
    // the entry names no approval; the latest change is Q2's count, made by a form submission.
    expect(a.value).toBe(14);
    expect(a.provenance).toEqual({
      counted: 12,
      manual: 2,
      prefill: null,
      submissions: 3,
      lastChangedAt: await lastAt(s.aQ2, s.aQ2.id, 'counted'),
      lastChangedBy: null,
      lastChangedKind: 'counted',
      approvedBy: null,
      approvedAt: null,
    });
    expect(a.inputs).toBeNull();
    // Per period only the values: provenance is the entry's.
    expect(a.periods.map((p: any) => [p.label, p.value, p.provenance])).toEqual([
      ['Q1 2026', 10, undefined],
      ['Q2 2026', 4, undefined],
    ]);

    // B = 4: 3 pre-filled from attendance, 1 typed; that edit is the last change.
    expect(b.provenance).toEqual({
      counted: 0,
      manual: 1,
      prefill: 3,
      submissions: 0,
      lastChangedAt: await lastAt(s.bQ1, s.bQ1.id, 'edited'),
      lastChangedBy: officer,
      lastChangedKind: 'edited',
      approvedBy: admin,
      approvedAt: approvedB,
    });

    // C = 14 × 100 / 4 = 350, from the aggregated inputs it names.
    expect([c.code, c.value, c.provenance, c.inputs]).toEqual([
      s.c.code,
      350,
      null,
      [
        { code: s.aQ1.indicator.code, value: 14 },
        { code: s.bQ1.indicator.code, value: 4 },
      ],
    ]);

    // Once Q2 is approved too, a refreshed report names the latest approval.
    await act(t.app, team.admin, team.org.id, s.aQ2.id, 'approve');
    const approvedQ2 = (await indicatorReport(s.aQ2)).reviewedAt;
    const refreshed = await call(t.app, 'POST', donorReportUrl(team.org.id, report.id, 'refresh'), {
      as: team.officer,
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.body.sections.indicators[0].provenance).toMatchObject({
      approvedBy: admin,
      approvedAt: approvedQ2,
      lastChangedKind: 'counted',
    });
  });

  it('names nobody for a change or an approval once the user who made it is gone', async () => {
    const project = await newProject();
    const [q1] = await quarters(project, 1);
    const indicator = await linked(project, { aggregationMethod: 'sum' });
    const leaver = await registerUser(t.app, { firstName: 'Lena', lastName: 'Leaver' });
    await addMember(t.database.db, team.org.id, leaver.id, 'org_admin');
    const created = await postReport(t.app, leaver, team.org.id, project.id, {
      indicatorId: indicator.id,
      reportingPeriodId: q1!.id,
      value: 7,
    });
    await act(t.app, leaver, team.org.id, created.id, 'submit');
    await act(t.app, leaver, team.org.id, created.id, 'approve');
    const before = (await assembleRange(project.id, ...YEAR)).sections.indicators[0].provenance;
    expect([before.lastChangedBy, before.approvedBy]).toEqual(['Lena Leaver', 'Lena Leaver']);

    await t.database.db.delete(users).where(eq(users.id, leaver.id));
    const after = (await assembleRange(project.id, ...YEAR)).sections.indicators[0].provenance;
    // The history keeps the time and kind of the change; the report forgets its reviewer, not the approval.
    expect(after).toEqual({
      ...before,
      lastChangedBy: null,
      approvedBy: null,
      approvedAt: before.approvedAt,
    });
  });

  it('serves a report stored before provenance was kept as it was stored', async () => {
    const s = await scene();
    const report = await assembleRange(s.project.id, ...YEAR);
    const [row] = await t.database.db.select().from(reports).where(eq(reports.id, report.id));
    const content = row!.content;
    const old = {
      ...content,
      indicators: content.indicators.map(({ provenance: _p, inputs: _i, ...entry }) => entry),
    };
    await t.database.db.update(reports).set({ content: old }).where(eq(reports.id, report.id));

    const read = await call(t.app, 'GET', donorReportUrl(team.org.id, report.id), { as: team.admin });
    expect(read.status).toBe(200);
    expect(read.body.sections.indicators).toEqual(old.indicators);
    const shared = await call(t.app, 'PATCH', donorReportUrl(team.org.id, report.id, 'share'), {
      as: team.officer,
    });
    const publicRead = await call(t.app, 'GET', publicReportUrl(shared.body.shareToken));
    expect(publicRead.status).toBe(200);
    expect(publicRead.body.sections.indicators).toEqual(old.indicators);
  });
});
