import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  formUrl,
  formsUrl,
  publishedForm,
  submissionsUrl,
  submitUrl,
  type FormJson,
} from '../../../test/helpers/forms.js';
import { call } from '../../../test/helpers/http.js';
import {
  act,
  indicatorUrl,
  postDisaggregation,
  postIndicator,
  linkIndicator,
  reportsUrl,
} from '../../../test/helpers/indicators.js';
import { createProject } from '../../../test/helpers/factories.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { useSuite } from '../../../test/helpers/suite.js';
import { indicatorReports } from '../indicator-reports/indicator-reports.tables.js';

const { t, team } = useSuite();

const FIELDS = [
  { type: 'text', label: 'Name', key: 'name' },
  { type: 'select', label: 'Sex', key: 'sex', options: ['F', 'M', 'X'] },
  { type: 'text', label: 'Gender as written', key: 'gender' },
  { type: 'number', label: 'Age', key: 'age' },
  { type: 'number', label: 'Household size', key: 'household_size' },
  { type: 'multi_select', label: 'Languages', key: 'languages', options: ['en', 'sw'] },
  { type: 'date', label: 'Visit', key: 'visit' },
];

const SEX_AND_AGE = [
  { disaggregation: 'Sex', field: 'sex', categories: { F: 'female', M: 'male' } },
  { disaggregation: 'age', field: 'age' },
];

/** A project, a period, an indicator with Sex, Age and (with `cross`) Sex by age, linked. */
async function scene(options: { cross?: boolean; plain?: boolean } = {}) {
  const orgId = team.org.id;
  const project = await createProject(t.database.db, orgId);
  const period = await createPeriod(t.database.db, orgId, project.id);
  const indicator = await postIndicator(t.app, team.officer, orgId);
  if (!options.plain) {
    await postDisaggregation(t.app, team.officer, orgId, indicator.id, 'Sex', ['female', 'male']);
    await postDisaggregation(t.app, team.officer, orgId, indicator.id, 'Age', ['0-14', '15-24', '25+']);
  }
  if (options.cross) {
    const res = await call(t.app, 'POST', `${indicatorUrl(orgId, indicator.id)}/disaggregations`, {
      as: team.officer,
      body: { name: 'Sex by age', crosses: ['Sex', 'Age'] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  await linkIndicator(t.app, team.officer, orgId, project.id, indicator.id);
  return { orgId, project, period, indicator };
}
type Scene = Awaited<ReturnType<typeof scene>>;

const formBody = (s: Scene, body: Record<string, unknown> = {}) => ({
  title: 'Training attendance',
  projectId: s.project.id,
  indicatorId: s.indicator.id,
  reportingPeriodId: s.period.id,
  fields: FIELDS,
  disaggregateBy: SEX_AND_AGE,
  ...body,
});

const create = (s: Scene, body: Record<string, unknown> = {}) =>
  call(t.app, 'POST', formsUrl(s.orgId), { as: team.officer, body: formBody(s, body) });

const countingForm = (s: Scene, body: Record<string, unknown> = {}) =>
  publishedForm(t.app, team.officer, s.orgId, formBody(s, body));

async function submit(form: FormJson, answers: Record<string, unknown>) {
  const res = await call(t.app, 'POST', submitUrl(form.publicToken), { body: { answers } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function reportOf(s: Scene) {
  const res = await call(t.app, 'GET', `${reportsUrl(s.orgId, s.project.id)}?periodId=${s.period.id}`, {
    as: team.admin,
  });
  expect(res.status).toBe(200);
  return res.body[0] as { id: string; value: number | null; disaggregatedValues: Record<string, number> };
}

async function reasonsOf(form: FormJson) {
  const res = await call(t.app, 'GET', submissionsUrl(team.org.id, form.id), { as: team.admin });
  expect(res.status).toBe(200);
  return Object.fromEntries(
    (res.body as { id: string; countedReason: string | null }[]).map((row) => [row.id, row.countedReason]),
  );
}

const recount = (s: Scene, id: string, query = '') =>
  call(t.app, 'POST', `${reportsUrl(s.orgId, s.project.id)}/${id}/recount${query}`, { as: team.officer });

describe('forms that fill disaggregations (disaggregateBy)', () => {
  it('creates a form mapping fields to every disaggregation; the form shows the mappings, names as the indicator spells them', async () => {
    const s = await scene({ cross: true });
    const res = await create(s);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const expected = [
      { disaggregation: 'Sex', field: 'sex', categories: { F: 'female', M: 'male' } },
      { disaggregation: 'Age', field: 'age' },
    ];
    expect(res.body.disaggregateBy).toEqual(expected);
    const read = await call(t.app, 'GET', formUrl(s.orgId, res.body.id as string), { as: team.viewer });
    expect(read.body.disaggregateBy).toEqual(expected);
    const plain = await create(s, { disaggregateBy: undefined });
    expect(plain.status).toBe(201);
    expect(plain.body.disaggregateBy).toBeNull();
  });

  it('refuses mappings that cannot fill the disaggregations (400, naming the problem)', async () => {
    const s = await scene({ cross: true });
    const refused = async (body: Record<string, unknown>, message: string) => {
      const res = await create(s, body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.message, JSON.stringify(res.body.message)).toContain(message);
    };
    const age = { disaggregation: 'Age', field: 'age' };
    await refused(
      { indicatorId: undefined, reportingPeriodId: undefined },
      'disaggregateBy needs indicatorId',
    );
    await refused(
      { disaggregateBy: [{ disaggregation: 'Region', field: 'name' }, age] },
      'disaggregateBy[0].disaggregation must be a disaggregation of the indicator (Sex, Age)',
    );
    await refused(
      { disaggregateBy: [{ disaggregation: 'Sex by age', field: 'sex' }, ...SEX_AND_AGE] },
      'disaggregateBy[0].disaggregation Sex by age is a cross: map the disaggregations it crosses (Sex, Age), its cells are filled from them',
    );
    await refused(
      { disaggregateBy: [{ disaggregation: 'Sex', field: 'nope' }, age] },
      'disaggregateBy[0].field must be the key of a field of the form',
    );
    await refused(
      { disaggregateBy: [{ disaggregation: 'Sex', field: 'languages' }, age] },
      'disaggregateBy[0].field must be a select, text or number field (languages is multi_select)',
    );
    await refused(
      { disaggregateBy: [{ disaggregation: 'Sex', field: 'visit' }, age] },
      'disaggregateBy[0].field must be a select, text or number field (visit is date)',
    );
    await refused(
      { disaggregateBy: [{ disaggregation: 'Sex', field: 'sex', categories: { F: 'woman' } }, age] },
      'disaggregateBy[0].categories.F must be a category of Sex (female, male)',
    );
    await refused(
      { disaggregateBy: [{ disaggregation: 'Sex', field: 'household_size' }, age] },
      'disaggregateBy[0].field household_size is a number field: Sex must be an age disaggregation (categories written a-b or a+ that do not overlap, and unknown)',
    );
    await refused(
      { disaggregateBy: [...SEX_AND_AGE, { disaggregation: 'SEX', field: 'gender' }] },
      'disaggregateBy maps Sex more than once',
    );
    await refused(
      { disaggregateBy: [SEX_AND_AGE[0]] },
      'disaggregateBy must map every disaggregation of the indicator, since together they add up to its value: Age is not mapped',
    );
    await refused(
      { disaggregateBy: [{ ...age, colour: 'red' }, SEX_AND_AGE[0]] },
      'property disaggregateBy.0.colour should not exist',
    );
    const plain = await scene({ plain: true });
    const none = await create(plain);
    expect(none.status).toBe(400);
    expect(none.body.message).toContain(
      'disaggregateBy[0].disaggregation must be a disaggregation of the indicator: it has none',
    );
  });

  it('sets, checks and clears the mappings on update', async () => {
    const s = await scene();
    const form = (await create(s, { disaggregateBy: undefined })).body as FormJson;
    const patch = (body: Record<string, unknown>) =>
      call(t.app, 'PATCH', formUrl(s.orgId, form.id), { as: team.officer, body });
    const set = await patch({ disaggregateBy: SEX_AND_AGE });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.disaggregateBy).toHaveLength(2);
    const bad = await patch({ disaggregateBy: [SEX_AND_AGE[1]] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual([
      'disaggregateBy must map every disaggregation of the indicator, since together they add up to its value: Sex is not mapped',
    ]);
    // A field a mapping reads cannot go (no submissions yet: fields may change).
    const fieldGone = await patch({ fields: FIELDS.filter((f) => f.key !== 'sex') });
    expect(fieldGone.status).toBe(400);
    expect(fieldGone.body.message).toEqual([
      'disaggregateBy[0].field must be the key of a field of the form',
    ]);
    const title = await patch({ title: 'Renamed' });
    expect(title.body.disaggregateBy).toHaveLength(2);
    const cleared = await patch({ disaggregateBy: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.disaggregateBy).toBeNull();
  });

  it('adds each counted submission to its categories and to the cell of the cross, by select map, name and age', async () => {
    const s = await scene({ cross: true });
    const form = await countingForm(s);
    await submit(form, { sex: 'F', age: 20 });
    await submit(form, { sex: 'F', age: 24.5 });
    await submit(form, { sex: 'M', age: 9 });
    await submit(form, { sex: 'M', age: 70 });
    const report = await reportOf(s);
    expect(report.value).toBe(4);
    expect(report.disaggregatedValues).toEqual({
      female: 2,
      '15-24': 2,
      'female|15-24': 2,
      male: 2,
      '0-14': 1,
      'male|0-14': 1,
      '25+': 1,
      'male|25+': 1,
    });

    // A text field whose answer is the category's name, and a value field: the amount goes to the cells.
    const s2 = await scene();
    const byName = await countingForm(s2, {
      valueFieldKey: 'household_size',
      disaggregateBy: [
        { disaggregation: 'Sex', field: 'gender' },
        { disaggregation: 'Age', field: 'age' },
      ],
    });
    await submit(byName, { gender: 'female', age: 30, household_size: 3 });
    await submit(byName, { gender: 'male', age: 3, household_size: 2 });
    expect(await reportOf(s2)).toMatchObject({
      value: 5,
      disaggregatedValues: { female: 3, '25+': 3, male: 2, '0-14': 2 },
    });
  });

  it('stores an answer mapping to no category without counting it (category_not_mapped)', async () => {
    const s = await scene({ cross: true });
    const form = await countingForm(s);
    const counted = await submit(form, { sex: 'F', age: 16 });
    const other = await submit(form, { sex: 'X', age: 16 });
    const noAge = await submit(form, { sex: 'M' });
    const noSex = await submit(form, { age: 40 });
    expect(await reasonsOf(form)).toEqual({
      [counted]: null,
      [other]: 'category_not_mapped',
      [noAge]: 'category_not_mapped',
      [noSex]: 'category_not_mapped',
    });
    expect(await reportOf(s)).toMatchObject({
      value: 1,
      disaggregatedValues: { female: 1, '15-24': 1, 'female|15-24': 1 },
    });
    const read = await call(t.app, 'GET', formUrl(s.orgId, form.id), { as: team.admin });
    expect(read.body).toMatchObject({ uncountedCount: 3, uncountedBy: { category_not_mapped: 3 } });
  });

  it('an unanswered age counts as unknown when the age disaggregation lists it', async () => {
    const orgId = team.org.id;
    const project = await createProject(t.database.db, orgId);
    const period = await createPeriod(t.database.db, orgId, project.id);
    const indicator = await postIndicator(t.app, team.officer, orgId);
    await postDisaggregation(t.app, team.officer, orgId, indicator.id, 'Age', ['0-17', '18+', 'unknown']);
    await linkIndicator(t.app, team.officer, orgId, project.id, indicator.id);
    const s = { orgId, project, period, indicator };
    const form = await countingForm(s, { disaggregateBy: [{ disaggregation: 'Age', field: 'age' }] });
    await submit(form, {});
    await submit(form, { age: 18 });
    expect(await reportOf(s)).toMatchObject({ value: 2, disaggregatedValues: { unknown: 1, '18+': 1 } });
  });

  it('leaves forms without mappings as they were: the value only', async () => {
    const s = await scene();
    const form = await countingForm(s, { disaggregateBy: undefined });
    await submit(form, { sex: 'X' });
    expect(await reportOf(s)).toMatchObject({ value: 1, disaggregatedValues: {} });
    const plain = await scene({ plain: true });
    const plainForm = await countingForm(plain, { disaggregateBy: [] });
    expect(plainForm.disaggregateBy).toBeNull();
    await submit(plainForm, { sex: 'F' });
    expect(await reportOf(plain)).toMatchObject({ value: 1, disaggregatedValues: {} });
  });

  it('counts 50 concurrent submissions exactly, the value and every cell', { timeout: 120_000 }, async () => {
    const s = await scene({ cross: true });
    const form = await countingForm(s);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const people = Array.from({ length: 50 }, (_, i) => ({
      sex: i % 2 ? 'F' : 'M',
      age: [5, 20, 40][i % 3]!,
    }));
    const statuses = await Promise.all(
      people.map(async (answers) => {
        const res = await fetch(`http://127.0.0.1:${port}${submitUrl(form.publicToken)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ answers }),
        });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    expect(statuses).toEqual(people.map(() => 201));
    const expected: Record<string, number> = {};
    for (const { sex, age } of people) {
      const cells = [sex === 'F' ? 'female' : 'male', age < 15 ? '0-14' : age < 25 ? '15-24' : '25+'];
      for (const key of [...cells, cells.join('|')]) expected[key] = (expected[key] ?? 0) + 1;
    }
    const report = await reportOf(s);
    expect(report.value).toBe(50);
    expect(report.disaggregatedValues).toEqual(expected);
  });

  it('a recount rebuilds the cells from the counted submissions, and takes in refused ones with theirs', async () => {
    const s = await scene({ cross: true });
    const form = await countingForm(s);
    await submit(form, { sex: 'F', age: 20 });
    await submit(form, { sex: 'M', age: 30 });
    const { id } = await reportOf(s);
    // Cells gone astray (as a report whose counting went wrong would have them): the recount rebuilds.
    await t.database.db
      .update(indicatorReports)
      .set({ disaggregatedValues: { female: 5 }, countedDisaggregatedValues: { female: 5 } })
      .where(eq(indicatorReports.id, id));
    const rebuilt = await recount(s, id);
    expect(rebuilt.status, JSON.stringify(rebuilt.body)).toBe(200);
    expect(rebuilt.body.report).toMatchObject({
      value: 2,
      disaggregatedValues: {
        female: 1,
        male: 1,
        '15-24': 1,
        '25+': 1,
        'female|15-24': 1,
        'male|25+': 1,
      },
    });

    await act(t.app, team.officer, s.orgId, id, 'submit');
    await submit(form, { sex: 'F', age: 10 }); // refused: the report is submitted
    await act(t.app, team.admin, s.orgId, id, 'reject');
    const taken = await recount(s, id, '?takeIn=true');
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect(taken.body.uncounted).toMatchObject({ submissions: 1, amount: 1, takenIn: true });
    expect(taken.body.report).toMatchObject({
      value: 3,
      disaggregatedValues: {
        female: 2,
        male: 1,
        '0-14': 1,
        '15-24': 1,
        '25+': 1,
        'female|0-14': 1,
        'female|15-24': 1,
        'male|25+': 1,
      },
    });
    // Nothing astray: a second recount changes nothing.
    const again = await recount(s, id);
    expect(again.body.report.disaggregatedValues).toEqual(taken.body.report.disaggregatedValues);
  });

  it('lists the cells each source added; a deleted form takes its cells out of the counted part, the cells stay', async () => {
    const s = await scene({ cross: true });
    const form = await countingForm(s);
    const other = await countingForm(s, { title: 'Second form' });
    await submit(form, { sex: 'F', age: 20 });
    await submit(other, { sex: 'M', age: 3 });
    const { id } = await reportOf(s);
    const sources = await call(t.app, 'GET', `${reportsUrl(s.orgId, s.project.id)}/${id}/sources`, {
      as: team.viewer,
    });
    expect(sources.status).toBe(200);
    expect((sources.body as { cells: unknown }[]).map((row) => row.cells)).toEqual([
      { female: 1, '15-24': 1, 'female|15-24': 1 },
      { male: 1, '0-14': 1, 'male|0-14': 1 },
    ]);

    const removed = await call(t.app, 'DELETE', formUrl(s.orgId, other.id), { as: team.officer });
    expect(removed.status).toBe(204);
    const [stored] = await t.database.db.select().from(indicatorReports).where(eq(indicatorReports.id, id));
    expect(stored!.countedDisaggregatedValues).toEqual({
      female: 1,
      '15-24': 1,
      'female|15-24': 1,
      male: 0,
      '0-14': 0,
      'male|0-14': 0,
    });
    // The value and the cells keep what was counted; a recount finds nothing off.
    const after = await recount(s, id);
    expect(after.body.report).toMatchObject({
      value: 2,
      disaggregatedValues: { female: 1, male: 1, '0-14': 1, '15-24': 1, 'female|15-24': 1, 'male|0-14': 1 },
    });
  });

  it('a take-in counts the responses a corrected mapping now places, with their cells', async () => {
    const s = await scene();
    const mappings = (categories: Record<string, string>) => [
      { disaggregation: 'Sex', field: 'gender', categories },
      { disaggregation: 'Age', field: 'age' },
    ];
    const form = await countingForm(s, { disaggregateBy: mappings({}) });
    await submit(form, { gender: 'female', age: 30 });
    const typed = await submit(form, { gender: 'Female', age: 12 });
    const other = await submit(form, { gender: 'unsure', age: 12 });
    const { id } = await reportOf(s);
    const patched = await call(t.app, 'PATCH', formUrl(s.orgId, form.id), {
      as: team.officer,
      body: { disaggregateBy: mappings({ Female: 'female' }) },
    });
    expect(patched.status).toBe(200);
    const dry = await recount(s, id, '?takeIn=true&dryRun=true');
    expect(dry.body.uncounted).toEqual({
      submissions: 1,
      amount: 1,
      byReason: { category_not_mapped: 1 },
      takenIn: true,
    });
    const taken = await recount(s, id, '?takeIn=true');
    expect(taken.body.report).toMatchObject({
      value: 2,
      disaggregatedValues: { female: 2, '25+': 1, '0-14': 1 },
    });
    const reasons = await reasonsOf(form);
    expect(reasons[typed]).toBeNull();
    expect(reasons[other]).toBe('category_not_mapped');
  });
});
