import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { person, postActivity, prefillUrl, register } from '../../../test/helpers/activities.js';
import { assignProject, type TestUser } from '../../../test/helpers/factories.js';
import {
  badRequest,
  call,
  conflictBody,
  expectError,
  expectViolations,
  MISSING_ID,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  ALL_ROLES,
  notAMember,
  notAssigned,
} from '../../../test/helpers/http.js';
import { act, postReport } from '../../../test/helpers/indicators.js';
import {
  countingForm,
  historyOf,
  historyRows,
  historyUrl,
  recountUrl,
  submitAmount,
  type HistoryEntryJson,
} from '../../../test/helpers/report-history.js';
import {
  DIFFERS,
  LOCKED,
  NOT_EDITABLE,
  reportScene,
  SEX,
  type Scene,
} from '../../../test/helpers/report-scenes.js';
import { pgErrorCode } from '../../db/errors.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const { scene, newReport, patch, reportsOf, stored } = reportScene(() => ({ t, team }));

const history = (s: Scene, id: string, as: TestUser = team.admin) => historyOf(t.app, as, s, id);

const by = (user: TestUser) => ({
  actorId: user.id,
  actorName: `${user.firstName} ${user.lastName}`,
  submissionId: null,
});
const bySubmission = (submissionId: string) => ({ actorId: null, actorName: null, submissionId });

/** An entry as listed: numbered and timestamped by the database. */
const entry = (
  kind: string,
  actor: Pick<HistoryEntryJson, 'actorId' | 'actorName' | 'submissionId'>,
  changes: HistoryEntryJson['changes'],
  reason: string | null = null,
) => ({
  id: expect.any(Number),
  at: expect.stringMatching(TIMESTAMP),
  kind,
  ...actor,
  changes,
  reason,
  valuesHidden: false,
});

/** Oldest first: ids strictly increasing, times never going back. */
function expectWrittenInOrder(entries: HistoryEntryJson[]) {
  for (let i = 1; i < entries.length; i++) {
    expect(entries[i]!.id).toBeGreaterThan(entries[i - 1]!.id);
    expect(Date.parse(entries[i]!.at)).toBeGreaterThanOrEqual(Date.parse(entries[i - 1]!.at));
  }
}

const deleteProject = (s: Scene) =>
  call(t.app, 'DELETE', `/orgs/${s.orgId}/projects/${s.project.id}`, { as: team.admin });

const ZEROS = Object.fromEntries(
  ['female', 'male', 'other', '0-17', '18-35', '36-59', '60+', 'unknown'].map((category) => [category, 0]),
);

const prefill = (s: Scene) =>
  call(t.app, 'POST', prefillUrl(s.orgId, s.project.id), {
    as: team.officer,
    body: { indicatorId: s.indicator.id, reportingPeriodId: s.period.id },
  });

describe('GET .../indicator-reports/:id/history: what it records', () => {
  it('records the creation and each edited field, by whom, from what to what, oldest first', async () => {
    const s = await scene({ dimensions: [SEX] });
    const report = await newReport(s, { value: 5, target: 10, narrative: 'First visits' });
    for (const body of [
      { value: 6 },
      { target: 12 },
      { narrative: 'Rains delayed two visits' },
      { disaggregatedValues: { female: 2, male: 4 } }, // the value stays 6
      { disaggregatedValues: { female: 3, male: 4 }, narrative: null },
    ]) {
      expect((await patch(report.id, body, team.admin)).status).toBe(200);
    }
    const entries = await history(s, report.id);
    expect(entries).toEqual([
      entry('created', by(team.officer), {
        value: { from: null, to: 5 },
        target: { from: null, to: 10 },
        narrative: { from: null, to: 'First visits' },
        status: { from: null, to: 'draft' },
      }),
      entry('edited', by(team.admin), { value: { from: 5, to: 6 } }),
      entry('edited', by(team.admin), { target: { from: 10, to: 12 } }),
      entry('edited', by(team.admin), {
        narrative: { from: 'First visits', to: 'Rains delayed two visits' },
      }),
      entry('edited', by(team.admin), { disaggregatedValues: { from: {}, to: { female: 2, male: 4 } } }),
      entry('edited', by(team.admin), {
        value: { from: 6, to: 7 },
        disaggregatedValues: { from: { female: 2, male: 4 }, to: { female: 3, male: 4 } },
        narrative: { from: 'Rains delayed two visits', to: null },
      }),
    ]);
    expectWrittenInOrder(entries);
  });

  it('writes no entry for a PATCH that changes nothing', async () => {
    const s = await scene({ dimensions: [SEX] });
    const report = await newReport(s, { disaggregatedValues: { female: 3, male: 4 }, target: 12 });
    const before = await history(s, report.id);
    expect(before).toHaveLength(1);
    for (const body of [
      {},
      { value: 7, target: 12 },
      { narrative: '   ' }, // blank is stored as null, which it is
      { disaggregatedValues: { male: 4, female: 3 } },
    ]) {
      expect((await patch(report.id, body)).status).toBe(200);
    }
    expect(await history(s, report.id)).toEqual(before);
  });

  it('records submit, reject with its reason, approve with its comment (null without)', async () => {
    const s = await scene();
    const report = await newReport(s, { value: 5 });
    await act(t.app, team.officer, team.org.id, report.id, 'submit');
    await act(t.app, team.admin, team.org.id, report.id, 'reject'); // 'Please check the source'
    expect((await patch(report.id, { value: 4 })).status).toBe(200);
    await act(t.app, team.officer, team.org.id, report.id, 'submit');
    await act(t.app, team.admin, team.org.id, report.id, 'approve', {
      comment: ' Checked against registers ',
    });
    const entries = await history(s, report.id);
    expect(entries).toEqual([
      entry('created', by(team.officer), {
        value: { from: null, to: 5 },
        status: { from: null, to: 'draft' },
      }),
      entry('submitted', by(team.officer), { status: { from: 'draft', to: 'submitted' } }),
      entry(
        'rejected',
        by(team.admin),
        { status: { from: 'submitted', to: 'rejected' } },
        'Please check the source',
      ),
      entry('edited', by(team.officer), { value: { from: 5, to: 4 } }),
      entry('submitted', by(team.officer), { status: { from: 'rejected', to: 'submitted' } }),
      entry(
        'approved',
        by(team.admin),
        { status: { from: 'submitted', to: 'approved' } },
        'Checked against registers',
      ),
    ]);
    expectWrittenInOrder(entries);

    const plain = await newReport(await scene(), { value: 1 });
    await act(t.app, team.officer, team.org.id, plain.id, 'submit');
    await act(t.app, team.officer, team.org.id, plain.id, 'approve');
    const approved = (await historyRows(t.database.db, plain.id)).at(-1);
    expect(approved).toMatchObject({ kind: 'approved', actorId: team.officer.id, reason: null });
  });

  it('records a pre-fill by its user, and each counted submission (even of 0) by the submission, no user', async () => {
    const s = await scene();
    const activity = await postActivity(t.app, team.officer, s.orgId, s.project.id);
    await register(t.app, team.officer, s.orgId, activity.id, [
      person({ attended: true }),
      person({ attended: true }),
    ]);
    const prefilled = await prefill(s);
    expect(prefilled.status).toBe(201);
    const form = await countingForm(t.app, team.officer, s);
    const first = await submitAmount(t.app, form, 3);
    const second = await submitAmount(t.app, form, 4.5);
    const zero = await submitAmount(t.app, form, 0); // changes no value, and is a source all the same
    expect(await history(s, prefilled.body.id)).toEqual([
      entry('prefilled', by(team.officer), {
        value: { from: null, to: 2 },
        // Both breakdowns of participant counts, whether or not the indicator has disaggregations.
        disaggregatedValues: { from: {}, to: { ...ZEROS, female: 2, '18-35': 2 } },
        status: { from: null, to: 'draft' },
      }),
      entry('counted', bySubmission(first), { value: { from: 2, to: 5 } }),
      entry('counted', bySubmission(second), { value: { from: 5, to: 9.5 } }),
      entry('counted', bySubmission(zero), {}),
    ]);
    expect(await stored(prefilled.body.id)).toMatchObject({
      value: 9.5,
      prefillValue: 2,
      countedValue: 7.5,
      countedSubmissions: 3,
    });

    // A submission that finds no report creates it: its first entry is the count.
    const fresh = await scene();
    const freshForm = await countingForm(t.app, team.officer, fresh);
    const creating = await submitAmount(t.app, freshForm, 6);
    const [created] = await reportsOf(fresh.project.id);
    expect(await history(fresh, created!.id)).toEqual([
      entry('counted', bySubmission(creating), {
        value: { from: null, to: 6 },
        status: { from: null, to: 'draft' },
      }),
    ]);
  });
});

describe('GET .../indicator-reports/:id/history: paging and access', () => {
  it('is a plain array, or the envelope when paged, in the order written', async () => {
    const s = await scene();
    const report = await newReport(s, { value: 1 });
    for (const value of [2, 3, 4, 5]) expect((await patch(report.id, { value })).status).toBe(200);
    const all = await history(s, report.id);
    expect(all.map((e) => e.changes.value?.to)).toEqual([1, 2, 3, 4, 5]);
    const page = async (query: string) =>
      (await call(t.app, 'GET', `${historyUrl(s, report.id)}${query}`, { as: team.viewer })).body;
    expect(await page('?page=1&limit=2')).toEqual({
      data: all.slice(0, 2),
      meta: { total: 5, page: 1, limit: 2, totalPages: 3 },
    });
    expect(await page('?page=3&limit=2')).toEqual({
      data: all.slice(4),
      meta: { total: 5, page: 3, limit: 2, totalPages: 3 },
    });
    expect(await page('?limit=3')).toEqual({
      data: all.slice(0, 3),
      meta: { total: 5, page: 1, limit: 3, totalPages: 2 },
    });
    expectError(
      await call(t.app, 'GET', `${historyUrl(s, report.id)}?page=0`, { as: team.admin }),
      badRequest('page must not be less than 1'),
    );
  });

  it('answers for reports of the project in the path only, to members who may read it', async () => {
    const s = await scene();
    const report = await newReport(s, { value: 1 });
    const entries = await history(s, report.id);
    const other = await scene();
    const othersReport = await newReport(other, { value: 2 });
    const foreign = await scene({ orgId: team.outsiderOrg.id, as: team.outsider });
    const foreignReport = await postReport(t.app, team.outsider, foreign.orgId, foreign.project.id, {
      indicatorId: foreign.indicator.id,
      reportingPeriodId: foreign.period.id,
      value: 3,
    });
    const get = (url: string, as: TestUser | null = team.admin) => call(t.app, 'GET', url, { as });

    expectError(await get(historyUrl(s, othersReport.id)), notFoundBody('Indicator report'));
    expectError(await get(historyUrl(s, foreignReport.id)), notFoundBody('Indicator report'));
    expectError(await get(historyUrl(s, MISSING_ID)), notFoundBody('Indicator report'));
    expectError(
      await get(historyUrl({ ...foreign, orgId: team.org.id }, foreignReport.id)),
      notFoundBody('Project'),
    );
    expectError(await get(historyUrl(foreign, foreignReport.id)), notAMember(ALL_ROLES)); // not a member there
    expectError(await get(historyUrl(s, report.id), team.outsider), notAMember(ALL_ROLES));
    expectError(await get(historyUrl(s, report.id), null), UNAUTHORIZED);
    expectError(await get(historyUrl(s, report.id), team.reporter), notAssigned(ALL_ROLES));
    const bad = await get(historyUrl(s, 'not-a-uuid'));
    expect([bad.status, bad.body.message]).toEqual([400, ['id must be a UUID']]);

    expect(await history(s, report.id, team.viewer)).toEqual(entries);
    await assignProject(t.database.db, team.org.id, s.project.id, team.reporter.id);
    expect(await history(s, report.id, team.reporter)).toEqual(entries);
  });
});

describe('history of refused changes, and append-only', () => {
  it('writes no entry for a change refused with 400, 409 or 403 (locked period)', async () => {
    // Categories a pre-fill can fill, so that it gets as far as the report's status.
    const s = await scene({ dimensions: [['Sex', ['female', 'male', 'other']]] });
    const report = await newReport(s, { disaggregatedValues: { female: 1, male: 2 } });
    const post = (url: string, as = team.officer) => call(t.app, 'POST', url, { as });
    const transition = (action: 'submit' | 'approve' | 'reject', as = team.admin) =>
      call(t.app, 'PATCH', `/orgs/${team.org.id}/indicator-reports/${report.id}/${action}`, {
        as,
        ...(action === 'reject' ? { body: { comment: 'No' } } : {}),
      });

    expectViolations(await patch(report.id, { value: 8 }), DIFFERS(3));
    expectError(
      await transition('approve'),
      conflictBody('Only submitted indicator reports can be approved; this one is draft'),
    );
    await act(t.app, team.officer, team.org.id, report.id, 'submit');
    expectError(await patch(report.id, { value: 3, target: 5 }), conflictBody(NOT_EDITABLE('submitted')));
    expectError(
      await prefill(s),
      conflictBody('Only draft or rejected indicator reports can be pre-filled; this one is submitted'),
    );
    expectError(
      await post(recountUrl(s, report.id)),
      conflictBody('Only draft or rejected indicator reports can be recounted; this one is submitted'),
    );
    expectError(
      await transition('submit'),
      conflictBody('Only draft or rejected indicator reports can be submitted; this one is submitted'),
    );
    await act(t.app, team.admin, team.org.id, report.id, 'reject');
    const lock = await call(t.app, 'PATCH', `/orgs/${team.org.id}/reporting-periods/${s.period.id}`, {
      as: team.officer,
      body: { isLocked: true },
    });
    expect(lock.status).toBe(200);
    expectError(await patch(report.id, { target: 5 }), LOCKED);
    expectError(await transition('submit', team.officer), LOCKED);
    expectError(await post(recountUrl(s, report.id)), LOCKED);

    expect((await history(s, report.id)).map((e) => e.kind)).toEqual(['created', 'submitted', 'rejected']);
  });

  it('refuses UPDATE, DELETE and TRUNCATE of entries; deleting the project takes its history along', async () => {
    const s = await scene();
    const report = await newReport(s, { value: 1 });
    expect((await patch(report.id, { value: 2 })).status).toBe(200);
    const kept = await newReport(await scene(), { value: 1 });
    const rows = await historyRows(t.database.db, report.id);
    expect(rows.map((row) => row.kind)).toEqual(['created', 'edited']);

    for (const [operation, statement] of [
      [
        'UPDATE',
        sql`UPDATE indicator_report_history SET reason = 'rewritten' WHERE indicator_report_id = ${report.id}`,
      ],
      ['DELETE', sql`DELETE FROM indicator_report_history WHERE indicator_report_id = ${report.id}`],
      ['TRUNCATE', sql`TRUNCATE indicator_report_history`],
    ] as const) {
      const refused: unknown = await t.database.db.execute(statement).then(
        () => 'done',
        (err: unknown) => err,
      );
      expect(pgErrorCode(refused).code, operation).toBe('42501');
      expect(String((refused as Error).cause ?? refused)).toContain(
        `indicator_report_history is append-only: ${operation} refused`,
      );
    }
    expect(await historyRows(t.database.db, report.id)).toEqual(rows);

    expect((await deleteProject(s)).status).toBe(204);
    expect(await historyRows(t.database.db, report.id)).toEqual([]);
    expect(await historyRows(t.database.db, kept.id)).toHaveLength(1);
  });

  it('deletes a project whose reports were counted from submissions, their history with it', async () => {
    const s = await scene();
    const report = await newReport(s, { value: 1 });
    await submitAmount(t.app, await countingForm(t.app, team.officer, s), 2);
    expect((await historyRows(t.database.db, report.id)).map((row) => row.kind)).toEqual([
      'created',
      'counted',
    ]);
    const gone = await deleteProject(s);
    expect([gone.status, gone.body]).toEqual([204, null]);
    expect(await historyRows(t.database.db, report.id)).toEqual([]);
    expect(await reportsOf(s.project.id)).toEqual([]);
  });
});
