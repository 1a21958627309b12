import { describe, expect, it } from 'vitest';
import {
  erasureUrl,
  householdUrl,
  participantUrl,
  person,
  postActivity,
  prefillUrl,
  register,
} from '../../../test/helpers/activities.js';
import { call } from '../../../test/helpers/http.js';
import { linkIndicator, postDisaggregation, postIndicator } from '../../../test/helpers/indicators.js';
import { reportScene, type Scene } from '../../../test/helpers/report-scenes.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const { scene, patch, get } = reportScene(() => ({ t, team }));

// Ages at 2026-03-31, the end of the Q1 2026 period: 3, 10, 20, 30 and 75; after it: not born yet.
const AGE_3 = '2022-06-01';
const AGE_10 = '2015-06-01';
const AGE_20 = '2005-06-01';
const AGE_30 = '1995-06-01';
const AGE_75 = '1950-06-01';
const UNBORN = '2026-05-01';

const ORG_BANDS = ['0-4', '5-17', '18-59', '60+'];
const setBands = async (ageBands: string[] | null) => {
  const res = await call(t.app, 'PATCH', `/orgs/${team.org.id}`, { as: team.admin, body: { ageBands } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

const prefill = (s: Scene) =>
  call(t.app, 'POST', prefillUrl(s.orgId, s.project.id), {
    as: team.officer,
    body: { indicatorId: s.indicator.id, reportingPeriodId: s.period.id },
  });

/** A project whose indicator has these disaggregations and whose one activity these attending people. */
async function withPeople(dimensions: [string, string[]][], people: [string, string | null][]) {
  const s = await scene({ dimensions });
  const activity = await postActivity(t.app, team.officer, team.org.id, s.project.id);
  await register(
    t.app,
    team.officer,
    team.org.id,
    activity.id,
    people.map(([sex, dateOfBirth]) => person({ sex, dateOfBirth, attended: true })),
  );
  return s;
}

/** Another indicator linked to the scene's project, with these disaggregations. */
async function withIndicator(s: Scene, dimensions: [string, string[]][]): Promise<Scene> {
  const indicator = await postIndicator(t.app, team.officer, s.orgId);
  for (const [name, categories] of dimensions) {
    await postDisaggregation(t.app, team.officer, s.orgId, indicator.id, name, categories);
  }
  await linkIndicator(t.app, team.officer, s.orgId, s.project.id, indicator.id);
  return { ...s, indicator };
}

/** What a pre-fill answered: status, value, cells and counts, and whether the report took them. */
async function filled(s: Scene) {
  const res = await prefill(s);
  const { prefill: counts, ...report } = res.body as Record<string, unknown> & { id: string };
  expect(await get(report.id)).toEqual(report);
  return [res.status, report.value, report.disaggregatedValues, counts];
}

describe('POST .../indicator-reports/prefill: disaggregations it maps', () => {
  it('fills a sex disaggregation of female and male only, leaving people of other out of it and of the value', async () => {
    const s = await withPeople(
      [['Sex', ['female', 'male']]],
      [
        ['female', AGE_30],
        ['male', AGE_10],
        ['other', AGE_20],
        ['other', null],
      ],
    );
    expect(await filled(s)).toEqual([
      201,
      2,
      { female: 1, male: 1 },
      { counted: 2, leftOut: 2, leftOutBy: { 'sex:other': 2 } },
    ]);
  });

  it('fills age ranges 15-24, 25-49, 50+ by age at the period end, leaving out younger people and unknown ages', async () => {
    const people: [string, string | null][] = [
      ['female', AGE_3],
      ['male', AGE_10],
      ['female', AGE_20],
      ['male', AGE_30],
      ['other', AGE_75],
      ['female', null],
      ['male', UNBORN],
    ];
    const s = await withPeople([['Age', ['15-24', '25-49', '50+']]], people);
    expect(await filled(s)).toEqual([
      201,
      3,
      { '15-24': 1, '25-49': 1, '50+': 1 },
      { counted: 3, leftOut: 4, leftOutBy: { 'age:0-14': 2, 'age:unknown': 2 } },
    ]);

    // With an unknown category, people without a known age have a place.
    const withUnknown = await withPeople([['Age group', ['50+', 'unknown', '25-49', '15-24']]], people);
    expect(await filled(withUnknown)).toEqual([
      201,
      5,
      { '15-24': 1, '25-49': 1, '50+': 1, unknown: 2 },
      { counted: 5, leftOut: 2, leftOutBy: { 'age:0-14': 2 } },
    ]);

    // Ranges that stop short leave the older out, under the ages past them.
    const closed = await withPeople([['Age', ['0-17', '18-59']]], people);
    expect(await filled(closed)).toEqual([
      201,
      4,
      { '0-17': 2, '18-59': 2 },
      { counted: 4, leftOut: 3, leftOutBy: { 'age:60+': 1, 'age:unknown': 2 } },
    ]);
  });

  it('with a sex and an age disaggregation, leaves out of both and of the value whoever is left out of either', async () => {
    const s = await withPeople(
      [
        ['Sex', ['female', 'male']],
        ['Age', ['15-24', '25-49', '50+']],
      ],
      [
        ['female', AGE_20],
        ['male', AGE_30],
        ['other', AGE_30],
        ['male', AGE_10],
        ['female', null],
        ['other', null],
      ],
    );
    const [status, value, cells, counts] = await filled(s);
    expect([status, value, cells, counts]).toEqual([
      201,
      2,
      { female: 1, male: 1, '15-24': 1, '25-49': 1, '50+': 0 },
      // The last person is left out for two reasons, counted under both and once in leftOut.
      { counted: 2, leftOut: 4, leftOutBy: { 'age:0-14': 1, 'age:unknown': 2, 'sex:other': 2 } },
    ]);
    // The report follows the rules of editing: each disaggregation adds up to the value.
    const report = (await get((await prefill(s)).body.id)) as { id: string };
    const edited = await patch(report.id, { disaggregatedValues: cells, value: 2 });
    expect([edited.status, edited.body.value]).toEqual([200, 2]);
  });

  it('fills a cross of sex and age cell by cell, with the same people left out', async () => {
    const s = await withPeople(
      [
        ['Sex', ['female', 'male']],
        ['Age', ['15-24', '25-49', '50+']],
      ],
      [
        ['female', AGE_20],
        ['female', AGE_30],
        ['male', AGE_30],
        ['male', AGE_75],
        ['other', AGE_30],
        ['male', AGE_10],
      ],
    );
    const cross = await call(t.app, 'POST', `/orgs/${s.orgId}/indicators/${s.indicator.id}/disaggregations`, {
      as: team.officer,
      body: { name: 'Sex by age', crosses: ['Sex', 'Age'] },
    });
    expect(cross.status, JSON.stringify(cross.body)).toBe(201);
    const [status, value, cells, counts] = await filled(s);
    expect([status, value, cells, counts]).toEqual([
      201,
      4,
      {
        female: 2,
        male: 2,
        '15-24': 1,
        '25-49': 2,
        '50+': 1,
        'female|15-24': 1,
        'female|25-49': 1,
        'female|50+': 0,
        'male|15-24': 0,
        'male|25-49': 1,
        'male|50+': 1,
      },
      { counted: 4, leftOut: 2, leftOutBy: { 'age:0-14': 1, 'sex:other': 1 } },
    ]);
  });
});

describe("the organization's age bands", () => {
  const bornYearsAgo = (years: number) => `${new Date().getUTCFullYear() - years}-01-01`;

  it('are the breakdown a pre-fill gives an indicator without disaggregations; its own ranges win otherwise', async () => {
    await setBands(ORG_BANDS);
    const people: [string, string | null][] = [
      ['female', AGE_3],
      ['male', AGE_10],
      ['female', AGE_30],
      ['other', AGE_75],
      ['male', null],
    ];
    const s = await withPeople([], people);
    const cells = { female: 2, male: 2, other: 1, '0-4': 1, '5-17': 1, '18-59': 1, '60+': 1, unknown: 1 };
    expect(await filled(s)).toEqual([201, 5, cells, { counted: 5, leftOut: 0, leftOutBy: {} }]);
    // Its keys are the two breakdowns, each adding up to the value, when the report is edited.
    const report = (await prefill(s)).body as { id: string };
    const edited = await patch(report.id, { disaggregatedValues: cells });
    expect([edited.status, edited.body.value]).toEqual([200, 5]);

    const contract = await withPeople([['Age', ['0-17', '18-35', '36-59', '60+', 'unknown']]], people);
    expect(await filled(contract)).toEqual([
      201,
      5,
      { '0-17': 2, '18-35': 1, '36-59': 0, '60+': 1, unknown: 1 },
      { counted: 5, leftOut: 0, leftOutBy: {} },
    ]);
  });

  it('give participants and household members their ageBand, for viewers too; erasure keeps the band it found', async () => {
    await setBands(ORG_BANDS);
    const s = await scene();
    const activity = await postActivity(t.app, team.officer, team.org.id, s.project.id);
    const [child, adult] = await register(t.app, team.officer, team.org.id, activity.id, [
      person({ dateOfBirth: bornYearsAgo(3), attended: true }),
      person({ dateOfBirth: bornYearsAgo(40), attended: true }),
    ]);
    const added = await call(t.app, 'POST', householdUrl(team.org.id, child!.participantId), {
      as: team.officer,
      body: { name: 'Amani', relationship: 'sibling', sex: 'male', age: 10 },
    });
    expect([added.status, added.body.ageBand]).toEqual([201, '5-17']);
    const read = (id: string, as = team.viewer) =>
      call(t.app, 'GET', participantUrl(team.org.id, id), { as });

    for (const as of [team.viewer, team.admin]) {
      const res = await read(child!.participantId, as);
      expect([res.status, res.body.ageBand, res.body.householdMembers[0].ageBand]).toEqual([
        200,
        '0-4',
        '5-17',
      ]);
    }
    expect((await read(adult!.participantId)).body.ageBand).toBe('18-59');

    const erased = await call(t.app, 'POST', erasureUrl(team.org.id, child!.participantId), {
      as: team.admin,
      body: { reason: 'Asked by the family' },
    });
    expect([erased.status, erased.body.ageBand, erased.body.householdMembers[0].ageBand]).toEqual([
      200,
      '0-4',
      '5-17',
    ]);

    // Back to the contract's bands: the erased keep theirs, the others take the new ones.
    await setBands(null);
    const after = await read(child!.participantId);
    expect([after.body.ageBand, after.body.householdMembers[0].ageBand, after.body.dateOfBirth]).toEqual([
      '0-4',
      '5-17',
      null,
    ]);
    expect((await read(adult!.participantId)).body.ageBand).toBe('36-59');

    // A pre-fill places the kept band where it fits inside one range, else counts the age as unknown.
    const fits = await filled(await withIndicator(s, [['Age', ['0-17', '18+']]]));
    expect(fits.slice(1)).toEqual([2, { '0-17': 1, '18+': 1 }, { counted: 2, leftOut: 0, leftOutBy: {} }]);
    const straddles = await filled(await withIndicator(s, [['Age group', ['0-2', '3+']]]));
    expect(straddles.slice(1)).toEqual([
      1,
      { '0-2': 0, '3+': 1 },
      { counted: 1, leftOut: 1, leftOutBy: { 'age:unknown': 1 } },
    ]);
  });
});
