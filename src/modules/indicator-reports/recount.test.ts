import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assignProject, type TestUser } from '../../../test/helpers/factories.js';
import {
  call,
  conflictBody,
  expectError,
  MISSING_ID,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  MANAGERS,
  notAMember,
  refusedTo,
} from '../../../test/helpers/http.js';
import { act, postReport } from '../../../test/helpers/indicators.js';
import { countingForm, historyOf, recountUrl, submitAmount } from '../../../test/helpers/report-history.js';
import { LOCKED, reportScene, type Scene } from '../../../test/helpers/report-scenes.js';
import { indicatorReports } from './indicator-reports.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const { scene, newReport, patch, get, reportsOf, stored } = reportScene(() => ({ t, team }));

const NOTHING_UNCOUNTED = { submissions: 0, amount: 0, byReason: {}, takenIn: false };

const recount = (s: Scene, id: string, as: TestUser | null = team.officer) =>
  call(t.app, 'POST', recountUrl(s, id), { as });

/** A report counted from public submissions of these amounts (it is created by the first). */
async function countedReport(amounts: number[]) {
  const s = await scene();
  const form = await countingForm(t.app, team.officer, s);
  for (const amount of amounts) await submitAmount(t.app, form, amount);
  const [report] = await reportsOf(s.project.id);
  return { s, id: report!.id };
}

/** Makes the stored counted part wrong, as a report whose counting went astray would have it. */
const drift = (id: string, countedValue: number, countedSubmissions: number) =>
  t.database.db
    .update(indicatorReports)
    .set({ countedValue, countedSubmissions })
    .where(eq(indicatorReports.id, id));

const lastEntry = async (s: Scene, id: string) => (await historyOf(t.app, team.admin, s, id)).at(-1);

const recounted = (user: TestUser, changes: Record<string, unknown>) => ({
  id: expect.any(Number),
  at: expect.stringMatching(TIMESTAMP),
  kind: 'recounted',
  actorId: user.id,
  actorName: `${user.firstName} ${user.lastName}`,
  submissionId: null,
  changes,
  reason: null,
  valuesHidden: false,
});

describe('POST .../indicator-reports/:id/recount', () => {
  it('moves the value by exactly the drift of the counted part, keeps the manual part, records it', async () => {
    const { s, id } = await countedReport([3, 4]);
    expect(await stored(id)).toMatchObject({ value: 7, countedValue: 7, countedSubmissions: 2 });
    expect((await patch(id, { value: 10 })).status).toBe(200); // 3 typed in on top of the 7 counted
    await drift(id, 2, 1);
    const before = await get(id);

    const res = await recount(s, id, team.admin);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      report: { ...before, value: 15, updatedAt: expect.stringMatching(TIMESTAMP) },
      counted: { from: 2, to: 7 },
      submissions: { from: 1, to: 2 },
      value: { from: 10, to: 15 },
      uncounted: NOTHING_UNCOUNTED,
      dryRun: false,
    });
    expect(await get(id)).toEqual(res.body.report);
    expect(await stored(id)).toMatchObject({ value: 15, countedValue: 7, countedSubmissions: 2 });
    expect(await lastEntry(s, id)).toEqual(recounted(team.admin, { value: { from: 10, to: 15 } }));

    // Counted too much: the value comes down.
    await drift(id, 9, 3);
    const down = await recount(s, id);
    expect([down.status, down.body.report.value, down.body.counted, down.body.submissions]).toEqual([
      200,
      13,
      { from: 9, to: 7 },
      { from: 3, to: 2 },
    ]);
    expect(await lastEntry(s, id)).toEqual(recounted(team.officer, { value: { from: 15, to: 13 } }));
  });

  it('records a recount that finds nothing off, and leaves the value (a rounding difference is none)', async () => {
    // Counted one at a time in float8: 2.5 + 0.1 + 0.2 = 2.8000000000000003; summed exactly: 2.8.
    const { s, id } = await countedReport([2.5, 0.1, 0.2]);
    const before = await stored(id);
    expect(before).toMatchObject({ value: 2.5 + 0.1 + 0.2, countedValue: 2.5 + 0.1 + 0.2 });
    const res = await recount(s, id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      report: await get(id),
      counted: { from: before!.countedValue, to: before!.countedValue },
      submissions: { from: 3, to: 3 },
      value: { from: before!.value, to: before!.value },
      uncounted: NOTHING_UNCOUNTED,
      dryRun: false,
    });
    expect(await stored(id)).toMatchObject({ value: before!.value, countedValue: before!.countedValue });
    expect(await lastEntry(s, id)).toEqual(recounted(team.officer, {}));

    // Nothing ever counted: typed-in values stay, null ones too.
    for (const value of [5, null]) {
      const other = await scene();
      const report = await newReport(other, { value });
      const typed = await recount(other, report.id, team.admin);
      expect([typed.status, typed.body.report.value, typed.body.counted, typed.body.submissions]).toEqual([
        200,
        value,
        { from: 0, to: 0 },
        { from: 0, to: 0 },
      ]);
      expect(await lastEntry(other, report.id)).toEqual(recounted(team.admin, {}));
    }
  });

  it('recounts a rejected report, which stays rejected; refuses submitted and approved ones (409)', async () => {
    const { s, id } = await countedReport([1]);
    await act(t.app, team.officer, team.org.id, id, 'submit');
    const refused = (status: string) =>
      conflictBody(`Only draft or rejected indicator reports can be recounted; this one is ${status}`);
    const submitted = await stored(id);
    expectError(await recount(s, id), refused('submitted'));
    expect(await stored(id)).toEqual(submitted);

    await act(t.app, team.admin, team.org.id, id, 'reject');
    await drift(id, 0, 0);
    const res = await recount(s, id);
    expect([res.status, res.body.report.status, res.body.report.value]).toEqual([200, 'rejected', 2]);

    await drift(id, 0, 0);
    await act(t.app, team.officer, team.org.id, id, 'submit');
    await act(t.app, team.admin, team.org.id, id, 'approve');
    const approved = await stored(id);
    expectError(await recount(s, id, team.admin), refused('approved'));
    expect(await stored(id)).toEqual(approved);
    const kinds = (await historyOf(t.app, team.admin, s, id)).map((e) => e.kind);
    expect(kinds).toEqual(['counted', 'submitted', 'rejected', 'recounted', 'submitted', 'approved']);
  });

  it('refuses a report in a locked period (403) and changes nothing', async () => {
    const { s, id } = await countedReport([1]);
    await drift(id, 0, 0);
    const lock = await call(t.app, 'PATCH', `/orgs/${team.org.id}/reporting-periods/${s.period.id}`, {
      as: team.officer,
      body: { isLocked: true },
    });
    expect(lock.status).toBe(200);
    const before = await stored(id);
    for (const as of [team.officer, team.admin]) expectError(await recount(s, id, as), LOCKED);
    expect(await stored(id)).toEqual(before);
    expect((await historyOf(t.app, team.admin, s, id)).map((e) => e.kind)).toEqual(['counted']);
  });

  it('is for org_admins and me_officers of the org, on reports of the project in the path', async () => {
    const { s, id } = await countedReport([1]);
    await drift(id, 0, 0);
    await assignProject(t.database.db, team.org.id, s.project.id, team.reporter.id);
    const other = await scene();
    const othersReport = await newReport(other, { value: 2 });
    const foreign = await scene({ orgId: team.outsiderOrg.id, as: team.outsider });
    const foreignReport = await postReport(t.app, team.outsider, foreign.orgId, foreign.project.id, {
      indicatorId: foreign.indicator.id,
      reportingPeriodId: foreign.period.id,
      value: 3,
    });
    const before = await stored(id);

    for (const as of [team.reporter, team.viewer, team.outsider])
      expectError(await recount(s, id, as), refusedTo(team, as, MANAGERS));
    expectError(await recount(s, id, null), UNAUTHORIZED);
    expectError(await recount(foreign, foreignReport.id, team.admin), notAMember(MANAGERS));
    expectError(await recount(s, othersReport.id), notFoundBody('Indicator report'));
    expectError(await recount(s, foreignReport.id), notFoundBody('Indicator report'));
    expectError(await recount(s, MISSING_ID), notFoundBody('Indicator report'));
    expectError(await recount({ ...foreign, orgId: team.org.id }, foreignReport.id), notFoundBody('Project'));
    const bad = await recount(s, 'not-a-uuid');
    expect([bad.status, bad.body.message]).toEqual([400, ['id must be a UUID']]);
    expect(await stored(id)).toEqual(before);
    expect(await stored(othersReport.id)).toMatchObject({ value: 2 });

    expect((await recount(s, id, team.admin)).body.counted).toEqual({ from: 0, to: 1 });
  });
});
