import { parse } from 'csv-parse/sync';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  eraseUrl,
  formsUrl,
  formUrl,
  formTargets,
  publishedForm,
  submissionsCsvUrl,
  submissionsUrl,
  submitUrl,
  type FormJson,
} from '../../../test/helpers/forms.js';
import { call, expectViolations } from '../../../test/helpers/http.js';
import { postDisaggregation, reportsUrl } from '../../../test/helpers/indicators.js';
import { useSuite } from '../../../test/helpers/suite.js';
import { eraseExpiredPersonalAnswers } from './answer-retention.js';
import { formSubmissions } from './forms.tables.js';

// Issue 41, repeats: a household roster counted entry by entry into a disaggregated indicator, its
// personal answers hidden, erased and expired inside the entries, and its CSV file of entries.

const { t, team } = useSuite();

const ROSTER = [
  { type: 'text', label: 'Village', key: 'village' },
  {
    type: 'group',
    label: 'Respondent',
    key: 'respondent',
    fields: [{ type: 'text', label: 'Name', key: 'respondent_name', personal: true }],
  },
  {
    type: 'repeat',
    label: 'Household members',
    key: 'members',
    maxCount: 20,
    fields: [
      { type: 'text', label: 'Name', key: 'member_name', personal: true },
      { type: 'number', label: 'Age', key: 'age', integer: true, required: true },
      {
        type: 'select',
        label: 'Sex',
        key: 'sex',
        choices: [
          { name: 'f', label: 'Female' },
          { name: 'm', label: 'Male' },
        ],
      },
      {
        type: 'group',
        label: 'Health',
        key: 'health',
        fields: [{ type: 'boolean', label: 'Vaccinated', key: 'vaccinated', relevant: '${age} < 5' }],
      },
    ],
  },
  { type: 'note', label: 'Thank you', key: 'thanks' },
  { type: 'calculate', key: 'size', calculation: 'count(${members})' },
];

const member = (name: string, age: number, sex: string, extra: Record<string, unknown> = {}) => ({
  member_name: name,
  age,
  sex,
  ...extra,
});

/** The targets with an indicator disaggregated by Sex and Age band. */
async function scene() {
  const orgId = team.org.id;
  const targets = await formTargets(t.app, t.database.db, team.officer, orgId);
  await postDisaggregation(t.app, team.officer, orgId, targets.indicator.id, 'Sex', ['female', 'male']);
  await postDisaggregation(t.app, team.officer, orgId, targets.indicator.id, 'Age', ['0-1', '2-4']);
  return { orgId, ...targets };
}
type Scene = Awaited<ReturnType<typeof scene>>;

const rosterForm = (s: Scene, body: Record<string, unknown> = {}) => ({
  title: 'Household roster',
  projectId: s.project.id,
  indicatorId: s.indicator.id,
  reportingPeriodId: s.period.id,
  fields: ROSTER,
  countRepeat: 'members',
  countWhere: '${age} < 5',
  disaggregateBy: [
    { disaggregation: 'Sex', field: 'sex', categories: { f: 'female', m: 'male' } },
    { disaggregation: 'Age', field: 'age' },
  ],
  ...body,
});

async function submit(form: FormJson, answers: Record<string, unknown>) {
  const res = await call(t.app, 'POST', submitUrl(form.publicToken), { body: { answers } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function reportOf(s: Scene) {
  const res = await call(t.app, 'GET', `${reportsUrl(s.orgId, s.project.id)}?periodId=${s.period.id}`, {
    as: team.admin,
  });
  return res.body[0] as { id: string; value: number; disaggregatedValues: Record<string, number> };
}

async function csvOf(form: FormJson, query = '', as = team.admin) {
  const res = await call(t.app, 'GET', `${submissionsCsvUrl(team.org.id, form.id)}${query}`, { as });
  const rows: string[][] = res.status === 200 ? parse(res.response.body) : [];
  return { status: res.status, rows, body: res.body };
}

describe('forms counting the entries of a repeat (countRepeat, countWhere)', () => {
  it('counts the members under 5 by sex and age band through the public route; 0 entries counts 0', async () => {
    const s = await scene();
    const form = await publishedForm(t.app, team.officer, s.orgId, rosterForm(s));
    expect([form.countRepeat, form.countWhere]).toEqual(['members', '${age} < 5']);
    await submit(form, {
      village: 'Kibera',
      respondent_name: 'Amina',
      members: [
        member('Amina', 34, 'f'),
        member('Baraka', 1, 'm', { vaccinated: true }),
        member('Chausiku', 3, 'f', { vaccinated: false }),
        member('Dalila', 4, 'f'),
      ],
    });
    const none = await submit(form, { village: 'Kisumu', members: [member('Eli', 40, 'm')] });
    const report = await reportOf(s);
    expect(report.value).toBe(3);
    expect(report.disaggregatedValues).toEqual({ female: 2, male: 1, '0-1': 1, '2-4': 2 });
    const list = await call(t.app, 'GET', submissionsUrl(s.orgId, form.id), { as: team.admin });
    const zero = (list.body as { id: string; counted: boolean }[]).find((row) => row.id === none)!;
    expect(zero.counted).toBe(true);
    const sources = await call(t.app, 'GET', `${reportsUrl(s.orgId, s.project.id)}/${report.id}/sources`, {
      as: team.admin,
    });
    expect((sources.body as { amount: number }[]).map((row) => row.amount).sort()).toEqual([0, 3]);
  });

  it('refuses through the public route what the rules refuse, naming the entry', async () => {
    const s = await scene();
    const form = await publishedForm(t.app, team.officer, s.orgId, rosterForm(s));
    const res = await call(t.app, 'POST', submitUrl(form.publicToken), {
      body: {
        answers: {
          size: 4,
          members: [member('Amina', 34, 'f', { vaccinated: true }), { member_name: 'B', age: 2.5, sex: 'x' }],
        },
      },
    });
    expectViolations(
      res,
      'answers.members.0.vaccinated is not asked: its relevant condition is false',
      'answers.members.1.age must be a whole number',
      'answers.members.1.sex must be one of f, m',
      'answers.size is calculated, not answered',
    );
  });

  it('adds an entry value field when valueFieldKey names a number field of the repeat', async () => {
    const s = await scene();
    const form = await publishedForm(
      t.app,
      team.officer,
      s.orgId,
      rosterForm(s, { disaggregateBy: null, countWhere: null, valueFieldKey: 'age' }),
    );
    await submit(form, { members: [member('A', 30, 'f'), member('B', 2, 'm')] });
    expect((await reportOf(s)).value).toBe(32);
  });

  it('a take-in tallies the entries of responses a corrected mapping now places', async () => {
    const s = await scene();
    const sexBy = (categories: Record<string, string>) => [
      { disaggregation: 'Sex', field: 'sex', categories },
      { disaggregation: 'Age', field: 'age' },
    ];
    const form = await publishedForm(
      t.app,
      team.officer,
      s.orgId,
      rosterForm(s, { disaggregateBy: sexBy({ f: 'female' }) }),
    );
    await submit(form, { members: [member('A', 1, 'f'), member('B', 40, 'm')] });
    await submit(form, { members: [member('C', 2, 'f'), member('D', 3, 'm'), member('E', 50, 'f')] });
    const { id } = await reportOf(s);
    const patched = await call(t.app, 'PATCH', formUrl(s.orgId, form.id), {
      as: team.officer,
      body: { disaggregateBy: sexBy({ f: 'female', m: 'male' }) },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const taken = await call(
      t.app,
      'POST',
      `${reportsUrl(s.orgId, s.project.id)}/${id}/recount?takeIn=true`,
      {
        as: team.officer,
      },
    );
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect(taken.body.uncounted).toMatchObject({ submissions: 1, amount: 2 });
    expect(taken.body.report).toMatchObject({
      value: 3,
      disaggregatedValues: { female: 2, male: 1, '0-1': 1, '2-4': 2 },
    });
  });

  it('counts a calculate field named by valueFieldKey, at the top level', async () => {
    const s = await scene();
    const form = await publishedForm(
      t.app,
      team.officer,
      s.orgId,
      rosterForm(s, { countRepeat: null, countWhere: null, disaggregateBy: null, valueFieldKey: 'size' }),
    );
    await submit(form, { members: [member('A', 1, 'f'), member('B', 40, 'm')] });
    expect((await reportOf(s)).value).toBe(2);
  });

  it('refuses countRepeat and countWhere that name nothing, do not parse or read other fields', async () => {
    const s = await scene();
    const create = (body: Record<string, unknown>) =>
      call(t.app, 'POST', formsUrl(s.orgId), { as: team.officer, body: rosterForm(s, body) });
    expectViolations(
      await create({ countRepeat: 'village', disaggregateBy: null }),
      'countRepeat must be the key of a repeat field outside any other repeat',
    );
    expectViolations(
      await create({ countWhere: '${age} <', disaggregateBy: null }),
      'countWhere: the expression ends too early',
    );
    expectViolations(
      await create({ countWhere: '${nowhere} = 1', disaggregateBy: null }),
      'countWhere refers to ${nowhere}, which is not a field of this form',
    );
    expectViolations(
      await create({ countRepeat: null, disaggregateBy: null }),
      'countWhere needs countRepeat',
    );
    expectViolations(
      await create({ valueFieldKey: 'village', disaggregateBy: null }),
      'valueFieldKey must be the key of a number or calculate field of the repeat members',
    );
    expectViolations(
      await create({
        countRepeat: 'members',
        indicatorId: null,
        reportingPeriodId: null,
        disaggregateBy: null,
      }),
      'countRepeat needs indicatorId',
    );
  });
});

describe('personal answers inside repeats', () => {
  it('hides them from viewers, erases them by the route and by retention, inside each entry', async () => {
    const project = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const form = await publishedForm(t.app, team.officer, team.org.id, {
      title: 'Roster',
      projectId: project.project.id,
      fields: ROSTER,
      personalDataRetentionDays: 30,
    });
    const given = {
      village: 'Kibera',
      respondent_name: 'Amina',
      members: [member('Amina', 34, 'f'), member('Baraka', 1, 'm', { vaccinated: true })],
    };
    const erased = await submit(form, given);
    const expired = await submit(form, given);
    const kept = await submit(form, given);
    const listed = async (as = team.viewer) =>
      Object.fromEntries(
        (
          (await call(t.app, 'GET', submissionsUrl(team.org.id, form.id), { as })).body as {
            id: string;
            answers: any;
          }[]
        ).map((row) => [row.id, row.answers]),
      );
    const hidden = {
      village: 'Kibera',
      respondent_name: null,
      members: [
        { member_name: null, age: 34, sex: 'f' },
        { member_name: null, age: 1, sex: 'm', vaccinated: true },
      ],
      size: 2,
    };
    expect((await listed())[kept]).toEqual(hidden);
    expect((await listed(team.admin))[kept]).toEqual({ ...given, size: 2 });

    const res = await call(t.app, 'POST', eraseUrl(team.org.id, form.id, erased), {
      as: team.admin,
      body: { reason: 'Asked by the respondent' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.answers).toEqual(hidden);
    const again = await call(t.app, 'POST', eraseUrl(team.org.id, form.id, erased), {
      as: team.admin,
      body: { reason: 'Twice' },
    });
    expect(again.status).toBe(409);

    await t.database.db
      .update(formSubmissions)
      .set({ submittedAt: new Date(Date.now() - 40 * 24 * 3600 * 1000) })
      .where(eq(formSubmissions.id, expired));
    expect(await eraseExpiredPersonalAnswers(t.database.db)).toBeGreaterThanOrEqual(1);
    const stored = async (id: string) =>
      (await t.database.db.select().from(formSubmissions).where(eq(formSubmissions.id, id)))[0]!.answers;
    const without = {
      village: 'Kibera',
      members: [
        { age: 34, sex: 'f' },
        { age: 1, sex: 'm', vaccinated: true },
      ],
      size: 2,
    };
    expect(await stored(expired)).toEqual(without);
    expect(await stored(erased)).toEqual(without);
    expect(await stored(kept)).toEqual({ ...given, size: 2 });
    expect(await eraseExpiredPersonalAnswers(t.database.db)).toBe(0);
  });
});

describe('CSV of a form with groups and repeats', () => {
  it('gives a column per answerable field, a repeat its count, and ?repeat= one row per entry', async () => {
    const project = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const form = await publishedForm(t.app, team.officer, team.org.id, {
      title: 'Roster',
      projectId: project.project.id,
      fields: ROSTER,
    });
    const first = await submit(form, {
      village: 'Kibera',
      respondent_name: '=Amina',
      members: [member('Amina', 34, 'f'), member('Baraka', 1, 'm', { vaccinated: true })],
    });
    const second = await submit(form, { village: 'Kisumu' });
    const main = await csvOf(form);
    expect(main.rows[0]).toEqual([
      'id',
      'submittedAt',
      'counted',
      'location',
      'village',
      'respondent_name',
      'members',
      'size',
    ]);
    expect(main.rows.slice(1).map((row) => [row[0], ...row.slice(4)])).toEqual([
      [first, 'Kibera', "'=Amina", '2', '2'],
      [second, 'Kisumu', '', '0', '0'],
    ]);
    const entries = await csvOf(form, '?repeat=members');
    expect(entries.rows).toEqual([
      ['submission_id', 'entry', 'member_name', 'age', 'sex', 'vaccinated'],
      [first, '1', 'Amina', '34', 'f', ''],
      [first, '2', 'Baraka', '1', 'm', 'true'],
    ]);
    const forViewer = await csvOf(form, '?repeat=members', team.viewer);
    expect(forViewer.rows.slice(1).map((row) => row[2])).toEqual(['', '']);
    for (const key of ['village', 'respondent', 'nowhere']) {
      const refused = await csvOf(form, `?repeat=${key}`);
      expect([refused.status, refused.body.message]).toEqual([
        400,
        ['repeat must be the key of a repeat field of the form, outside other repeats'],
      ]);
    }
  });
});
