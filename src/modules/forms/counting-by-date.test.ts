import { readFile } from 'node:fs/promises';
import { eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assignProject, createProject } from '../../../test/helpers/factories.js';
import {
  formTargets,
  formUrl,
  publishedForm,
  submissionsUrl,
  submitUrl,
  SURVEY_FIELDS,
  answers,
  postForm,
  type FormJson,
} from '../../../test/helpers/forms.js';
import { call, MISSING_ID, UNAUTHORIZED, MANAGERS, refusedTo } from '../../../test/helpers/http.js';
import { act, linkIndicator, postIndicator, reportsUrl } from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { useSuite } from '../../../test/helpers/suite.js';
import { formSubmissions } from './forms.tables.js';

const { t, team } = useSuite();

const FIELDS = [...SURVEY_FIELDS, { type: 'date', label: 'Visit date', key: 'visit_date' }];
const DAY = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const daysFromToday = (n: number) => new Date(Date.now() + n * DAY).toISOString().slice(0, 10);
const LAST_YEAR = new Date().getUTCFullYear() - 1;

/**
 * A project with three periods (last January, locked; last February; one around today), an indicator
 * linked to it, and March of last year in no period.
 */
async function scene(orgId = team.org.id, as = team.officer) {
  const project = await createProject(t.database.db, orgId);
  const db = t.database.db;
  const jan = await createPeriod(db, orgId, project.id, {
    label: 'January',
    startDate: `${LAST_YEAR}-01-01`,
    endDate: `${LAST_YEAR}-01-31`,
    isLocked: true,
  });
  const feb = await createPeriod(db, orgId, project.id, {
    label: 'February',
    startDate: `${LAST_YEAR}-02-01`,
    endDate: `${LAST_YEAR}-02-28`,
  });
  const now = await createPeriod(db, orgId, project.id, {
    label: 'Now',
    startDate: daysFromToday(-10),
    endDate: daysFromToday(10),
  });
  const indicator = await postIndicator(t.app, as, orgId);
  await linkIndicator(t.app, as, orgId, project.id, indicator.id);
  return { orgId, project, indicator, jan, feb, now };
}
type Scene = Awaited<ReturnType<typeof scene>>;

const byDateForm = (s: Scene, body: Record<string, unknown> = {}) =>
  publishedForm(t.app, team.officer, s.orgId, {
    projectId: s.project.id,
    fields: FIELDS,
    indicatorId: s.indicator.id,
    countInto: 'period_of_date',
    countDateField: 'visit_date',
    valueFieldKey: 'household_size',
    ...body,
  });

const submit = (form: FormJson, given: Record<string, unknown>) =>
  call(t.app, 'POST', submitUrl(form.publicToken), { body: { answers: answers(given) } });

async function submitted(form: FormJson, given: Record<string, unknown>): Promise<string> {
  const res = await submit(form, given);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function reportIn(s: { orgId: string; project: { id: string } }, periodId: string) {
  const res = await call(t.app, 'GET', `${reportsUrl(s.orgId, s.project.id)}?periodId=${periodId}`, {
    as: team.admin,
  });
  expect(res.status).toBe(200);
  return res.body[0] as Record<string, unknown> | undefined;
}

async function reasons(form: FormJson): Promise<Record<string, string | null>> {
  const res = await call(t.app, 'GET', submissionsUrl(team.org.id, form.id), { as: team.admin });
  expect(res.status).toBe(200);
  return Object.fromEntries(
    (res.body as { id: string; countedReason: string | null }[]).map((row) => [row.id, row.countedReason]),
  );
}

const getForm = async (form: FormJson) =>
  (await call(t.app, 'GET', formUrl(team.org.id, form.id), { as: team.viewer })).body as Record<
    string,
    unknown
  >;

describe('forms counting by the date of each submission (countInto period_of_date)', () => {
  it('counts each answer into the period holding its date; a locked period or none: stored, not counted', async () => {
    const s = await scene();
    const form = await byDateForm(s);
    expect(form).toMatchObject({ countInto: 'period_of_date', countDateField: 'visit_date' });
    expect(form.reportingPeriodId).toBeNull();

    const feb1 = await submitted(form, { visit_date: `${LAST_YEAR}-02-10`, household_size: 2 });
    const feb2 = await submitted(form, { visit_date: `${LAST_YEAR}-02-28`, household_size: 3 });
    const todays = await submitted(form, { household_size: 4 }); // unanswered: submittedAt's date
    const locked = await submitted(form, { visit_date: `${LAST_YEAR}-01-15`, household_size: 5 });
    const none = await submitted(form, { visit_date: `${LAST_YEAR}-03-15`, household_size: 6 });
    const empty = await submitted(form, { visit_date: `${LAST_YEAR}-02-11`, household_size: undefined });

    expect(await reportIn(s, s.feb.id)).toMatchObject({ value: 5, status: 'draft' });
    expect(await reportIn(s, s.now.id)).toMatchObject({ value: 4, status: 'draft' });
    expect(await reportIn(s, s.jan.id)).toBeUndefined();
    expect(await reasons(form)).toEqual({
      [feb1]: null,
      [feb2]: null,
      [todays]: null,
      [locked]: 'period_locked',
      [none]: 'no_period_for_date',
      [empty]: 'no_value',
    });
    expect(await getForm(form)).toMatchObject({
      submissionCount: 6,
      uncountedCount: 3,
      uncountedBy: { period_locked: 1, no_period_for_date: 1, no_value: 1 },
    });
  });

  it("counts by submittedAt's date (UTC) without countDateField, and refuses a date in the future (400)", async () => {
    const s = await scene();
    const form = await byDateForm(s, { countDateField: null, valueFieldKey: null });
    await submitted(form, {});
    await submitted(form, { visit_date: `${LAST_YEAR}-02-10` }); // not the date field: submittedAt counts
    expect(await reportIn(s, s.now.id)).toMatchObject({ value: 2 });
    expect(await reportIn(s, s.feb.id)).toBeUndefined();

    const dated = await byDateForm(s);
    const future = await submit(dated, { visit_date: daysFromToday(1) });
    expect([future.status, future.body.message]).toEqual([
      400,
      ['answers.visit_date must not be a date in the future'],
    ]);
    expect((await submit(dated, { visit_date: today(), household_size: 1 })).status).toBe(201);
    expect(await getForm(dated)).toMatchObject({ submissionCount: 1, uncountedCount: 0, uncountedBy: {} });
  });

  it('checks countInto and countDateField against the links and fields (400)', async () => {
    const s = await scene();
    const base = { title: 'Visits', projectId: s.project.id, fields: FIELDS };
    const refused = async (body: Record<string, unknown>, ...message: string[]) => {
      const res = await call(t.app, 'POST', `/orgs/${team.org.id}/forms`, {
        as: team.officer,
        body: { ...base, ...body },
      });
      expect([res.status, res.body.message]).toEqual([400, message]);
    };
    await refused({ countInto: 'period_of_date' }, 'countInto period_of_date needs indicatorId');
    await refused(
      { countInto: 'period_of_date', indicatorId: s.indicator.id, reportingPeriodId: s.feb.id },
      'reportingPeriodId must be null when countInto is period_of_date',
    );
    await refused(
      { indicatorId: s.indicator.id, reportingPeriodId: s.feb.id, countDateField: 'visit_date' },
      'countDateField needs countInto period_of_date',
    );
    await refused(
      { countInto: 'period_of_date', indicatorId: s.indicator.id, countDateField: 'name' },
      'countDateField must be the key of a date field',
    );
    const bad = await call(t.app, 'POST', `/orgs/${team.org.id}/forms`, {
      as: team.officer,
      body: { ...base, countInto: 'weekly' },
    });
    expect(bad.status).toBe(400);

    // A fixed-period form switched to counting by date: its period goes with it.
    const fixed = await postForm(t.app, team.officer, team.org.id, {
      projectId: s.project.id,
      fields: FIELDS,
      indicatorId: s.indicator.id,
      reportingPeriodId: s.feb.id,
    });
    expect(fixed).toMatchObject({ countInto: 'fixed_period', countDateField: null });
    const switched = await call(t.app, 'PATCH', formUrl(team.org.id, fixed.id), {
      as: team.officer,
      body: { countInto: 'period_of_date', reportingPeriodId: null, countDateField: 'visit_date' },
    });
    expect([switched.status, switched.body.countInto, switched.body.countDateField]).toEqual([
      200,
      'period_of_date',
      'visit_date',
    ]);
  });

  it('stays exact under concurrency: 30 submissions over two periods, the report of each created once', async () => {
    const s = await scene();
    const form = await byDateForm(s, { valueFieldKey: null });
    const dates = Array.from({ length: 30 }, (_, i) =>
      i % 3 === 0 ? today() : `${LAST_YEAR}-02-${10 + (i % 9)}`,
    );
    const results = await Promise.all(dates.map((visit_date) => submit(form, { visit_date })));
    expect(results.map((res) => res.status)).toEqual(dates.map(() => 201));
    expect(await reportIn(s, s.now.id)).toMatchObject({ value: 10 });
    expect(await reportIn(s, s.feb.id)).toMatchObject({ value: 20 });
    const all = await call(t.app, 'GET', reportsUrl(s.orgId, s.project.id), { as: team.admin });
    expect(all.body).toHaveLength(2);
  });
});

describe('why a submission was not counted', () => {
  it('says report_submitted and report_approved, counts them on the report, and in the feed', async () => {
    const targets = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const form = await publishedForm(t.app, team.officer, team.org.id, {
      projectId: targets.project.id,
      indicatorId: targets.indicator.id,
      reportingPeriodId: targets.period.id,
    });
    const first = await submitted(form, {});
    const reportId = (await reportIn({ orgId: team.org.id, project: targets.project }, targets.period.id))!
      .id as string;
    const reportUrl = `/orgs/${team.org.id}/indicator-reports/${reportId}`;
    await act(t.app, team.officer, team.org.id, reportId, 'submit');
    const whileSubmitted = [await submitted(form, {}), await submitted(form, {})];
    expect((await call(t.app, 'GET', reportUrl, { as: team.viewer })).body).toMatchObject({
      value: 1,
      refusedSinceSubmitted: 2,
    });
    await act(t.app, team.admin, team.org.id, reportId, 'approve');
    const whileApproved = await submitted(form, {});
    expect((await call(t.app, 'GET', reportUrl, { as: team.viewer })).body).toMatchObject({
      value: 1,
      status: 'approved',
      refusedSinceSubmitted: 3,
    });
    expect(await reasons(form)).toEqual({
      [first]: null,
      [whileSubmitted[0]!]: 'report_submitted',
      [whileSubmitted[1]!]: 'report_submitted',
      [whileApproved]: 'report_approved',
    });
    expect(await getForm(form)).toMatchObject({
      submissionCount: 4,
      uncountedCount: 3,
      uncountedBy: { report_submitted: 2, report_approved: 1 },
    });

    const feed = await call(t.app, 'GET', `/orgs/${team.org.id}/activity-feed?limit=100`, {
      as: team.viewer,
    });
    const missed = (feed.body.data as Record<string, unknown>[]).filter(
      (entry) =>
        entry.type === 'form_submission.not_counted' && (entry.subject as { id: string }).id === form.id,
    );
    expect(missed).toHaveLength(3);
    expect(missed[0]).toMatchObject({
      actor: null,
      projectId: targets.project.id,
      subject: { type: 'form', id: form.id, label: form.title },
      summary: `A response to “${form.title as string}” was stored but not counted: the indicator report is approved`,
    });
  });

  it('says not_counting for a form counting into nothing (no feed event), value_out_of_range past a double', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const plain = await publishedForm(t.app, team.officer, team.org.id, { projectId: project.id });
    const id = await submitted(plain, {});
    expect(await reasons(plain)).toEqual({ [id]: 'not_counting' });
    expect(await getForm(plain)).toMatchObject({ uncountedCount: 1, uncountedBy: { not_counting: 1 } });

    const targets = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const huge = await publishedForm(t.app, team.officer, team.org.id, {
      projectId: targets.project.id,
      indicatorId: targets.indicator.id,
      reportingPeriodId: targets.period.id,
      valueFieldKey: 'household_size',
    });
    const a = await submitted(huge, { household_size: 1e308 });
    const b = await submitted(huge, { household_size: 1e308 });
    expect(await reasons(huge)).toEqual({ [a]: null, [b]: 'value_out_of_range' });

    const feed = await call(t.app, 'GET', `/orgs/${team.org.id}/activity-feed?limit=100`, { as: team.admin });
    const about = (formId: string) =>
      (feed.body.data as { type: string; subject: { id: string } }[]).filter(
        (e) => e.type === 'form_submission.not_counted' && e.subject.id === formId,
      );
    expect(about(plain.id)).toHaveLength(0);
    expect(about(huge.id)).toHaveLength(1);
  });
});

describe('POST .../indicator-reports/:id/recount?takeIn=true&dryRun=true', () => {
  const recountUrl = (s: Scene, id: string, query = '') =>
    `${reportsUrl(s.orgId, s.project.id)}/${id}/recount${query}`;

  it('offers the uncounted submissions of a returned report, dry run first, then takes them in', async () => {
    const s = await scene();
    const form = await byDateForm(s);
    await submitted(form, { visit_date: `${LAST_YEAR}-02-10`, household_size: 2 });
    const report = (await reportIn(s, s.feb.id))!;
    const id = report.id as string;
    await act(t.app, team.officer, team.org.id, id, 'submit');
    const refused = await submitted(form, { visit_date: `${LAST_YEAR}-02-12`, household_size: 3 });
    // No period held the 1st of March then; February is extended to hold it afterwards.
    const late = await submitted(form, { visit_date: `${LAST_YEAR}-03-01`, household_size: 4 });
    // Another period's refusal: not this report's to take in.
    const locked = await submitted(form, { visit_date: `${LAST_YEAR}-01-10`, household_size: 9 });
    expect(await reasons(form)).toMatchObject({
      [refused]: 'report_submitted',
      [late]: 'no_period_for_date',
      [locked]: 'period_locked',
    });
    // Too late while submitted: a take-in only on a draft or rejected report.
    const early = await call(t.app, 'POST', recountUrl(s, id, '?takeIn=true&dryRun=true'), {
      as: team.officer,
    });
    expect(early.status).toBe(409);

    await act(t.app, team.admin, team.org.id, id, 'reject');
    const extend = await call(t.app, 'PATCH', `/orgs/${team.org.id}/reporting-periods/${s.feb.id}`, {
      as: team.officer,
      body: { endDate: `${LAST_YEAR}-03-05` },
    });
    expect(extend.status).toBe(200);

    const dry = await call(t.app, 'POST', recountUrl(s, id, '?takeIn=true&dryRun=true'), {
      as: team.officer,
    });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({
      dryRun: true,
      value: { from: 2, to: 9 },
      counted: { from: 2, to: 9 },
      submissions: { from: 1, to: 3 },
      uncounted: {
        submissions: 2,
        amount: 7,
        byReason: { report_submitted: 1, no_period_for_date: 1 },
        takenIn: true,
      },
      report: { value: 9, status: 'rejected' },
    });
    expect(await reportIn(s, s.feb.id)).toMatchObject({ value: 2 });
    expect(await reasons(form)).toMatchObject({
      [refused]: 'report_submitted',
      [late]: 'no_period_for_date',
    });

    // Without takeIn: offered, not taken.
    const offered = await call(t.app, 'POST', recountUrl(s, id), { as: team.officer });
    expect(offered.body).toMatchObject({
      dryRun: false,
      value: { from: 2, to: 2 },
      uncounted: { submissions: 2, amount: 7, takenIn: false },
    });

    const taken = await call(t.app, 'POST', recountUrl(s, id, '?takeIn=true'), { as: team.admin });
    expect(taken.status).toBe(200);
    expect(taken.body).toMatchObject({
      dryRun: false,
      value: { from: 2, to: 9 },
      uncounted: { submissions: 2, amount: 7, takenIn: true },
      report: { value: 9, status: 'rejected' },
    });
    expect(await reasons(form)).toMatchObject({ [refused]: null, [late]: null });
    expect(await getForm(form)).toMatchObject({ uncountedBy: { period_locked: 1 } });
    const sources = await call(t.app, 'GET', `${reportsUrl(s.orgId, s.project.id)}/${id}/sources`, {
      as: team.admin,
    });
    expect([sources.status, sources.body.length]).toEqual([200, 3]);

    // Nothing left to take in.
    const again = await call(t.app, 'POST', recountUrl(s, id, '?takeIn=true'), { as: team.admin });
    expect(again.body).toMatchObject({ value: { from: 9, to: 9 }, uncounted: { submissions: 0 } });
  });

  it('refuses a bad query (400), no session (401), other roles (403), another org or project (404)', async () => {
    const s = await scene();
    const form = await byDateForm(s);
    await submitted(form, { visit_date: `${LAST_YEAR}-02-10`, household_size: 2 });
    const id = (await reportIn(s, s.feb.id))!.id as string;
    const q = '?takeIn=true&dryRun=true';
    const bad = await call(t.app, 'POST', recountUrl(s, id, '?dryRun=maybe'), { as: team.officer });
    expect(bad.status).toBe(400);
    expect((await call(t.app, 'POST', recountUrl(s, id, q), { as: null })).body).toEqual(UNAUTHORIZED);
    await assignProject(t.database.db, team.org.id, s.project.id, team.reporter.id);
    for (const as of [team.reporter, team.viewer]) {
      const res = await call(t.app, 'POST', recountUrl(s, id, q), { as });
      expect([res.status, res.body]).toEqual([403, refusedTo(team, as, MANAGERS)]);
    }
    const foreign = await scene(team.outsiderOrg.id, team.outsider);
    const foreignForm = await publishedForm(t.app, team.outsider, foreign.orgId, {
      projectId: foreign.project.id,
      fields: FIELDS,
      indicatorId: foreign.indicator.id,
      countInto: 'period_of_date',
    });
    expect((await submit(foreignForm, {})).status).toBe(201);
    const foreignReport = (
      await call(
        t.app,
        'GET',
        `${reportsUrl(foreign.orgId, foreign.project.id)}?periodId=${foreign.now.id}`,
        {
          as: team.outsider,
        },
      )
    ).body[0].id as string;
    for (const other of [foreignReport, MISSING_ID]) {
      const res = await call(t.app, 'POST', recountUrl(s, other, q), { as: team.officer });
      expect([res.status, res.body.message]).toEqual([404, 'Indicator report not found']);
    }
    // The submission form of another organization is not in this one's feed or counts.
    expect(await reportIn(s, s.feb.id)).toMatchObject({ value: 2 });
  });
});

describe('migration 0025: the reasons of submissions stored before', () => {
  it('are derived where they can be (not_counting, no_value), else unknown; counted ones get none', async () => {
    const targets = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const counting = await publishedForm(t.app, team.officer, team.org.id, {
      projectId: targets.project.id,
      indicatorId: targets.indicator.id,
      reportingPeriodId: targets.period.id,
      valueFieldKey: 'household_size',
    });
    const plain = await publishedForm(t.app, team.officer, team.org.id, { projectId: targets.project.id });
    const ids = {
      counted: await submitted(counting, { household_size: 2 }),
      empty: await submitted(counting, { household_size: undefined }),
      refused: await submitted(counting, { household_size: 3 }),
      plain: await submitted(plain, {}),
    };
    // As they were before the migration: no reason kept.
    await t.database.db
      .update(formSubmissions)
      .set({ countedReason: null, counted: false, indicatorReportId: null, countedAmount: null })
      .where(inArray(formSubmissions.id, [ids.empty, ids.refused, ids.plain]));
    await t.database.db
      .update(formSubmissions)
      .set({ countedReason: null })
      .where(eq(formSubmissions.id, ids.counted));
    const migration = await readFile(
      new URL('../../db/migrations/0025_counting_by_date.sql', import.meta.url),
      'utf8',
    );
    const backfill = migration
      .split('--> statement-breakpoint')
      .find((part) => part.trim().startsWith('UPDATE'));
    await t.database.db.execute(sql.raw(backfill!));
    expect({ ...(await reasons(counting)), ...(await reasons(plain)) }).toEqual({
      [ids.counted]: null,
      [ids.empty]: 'no_value',
      [ids.refused]: 'unknown',
      [ids.plain]: 'not_counting',
    });
  });
});
