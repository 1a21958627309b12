import { beforeAll, describe, expect, it } from 'vitest';
import { activityUrl, postActivity, person, prefillUrl, register } from '../../../test/helpers/activities.js';
import { createProject } from '../../../test/helpers/factories.js';
import { call, expectError, TIMESTAMP, badRequest } from '../../../test/helpers/http.js';
import {
  act,
  linkIndicator,
  postDisaggregation,
  postIndicator,
  reportUrl,
  type ReportJson,
} from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { DIFFERS, reportScene, type Scene } from '../../../test/helpers/report-scenes.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const { scene, newReport, get, reportsOf, stored } = reportScene(() => ({ t, team }));

const SEXES = ['female', 'male', 'other'];
const AGE_BANDS = ['0-17', '18-35', '36-59', '60+', 'unknown'];

// Ages at 2026-03-31, the end of the Q1 2026 period: 10, 25, 45 and 75.
const CHILD = '2015-06-01';
const YOUTH = '2000-06-01';
const MIDDLE = '1980-06-01';
const ELDER = '1950-06-01';

const prefill = (s: Scene, body: Record<string, unknown> = {}, as = team.officer) =>
  call(t.app, 'POST', prefillUrl(s.orgId, s.project.id), {
    as,
    body: { indicatorId: s.indicator.id, reportingPeriodId: s.period.id, ...body },
  });

/** Another indicator linked to the scene's project, with these disaggregations. */
async function withIndicator(s: Scene, dimensions: [string, string[]][] = []): Promise<Scene> {
  const indicator = await postIndicator(t.app, team.officer, s.orgId);
  for (const [name, categories] of dimensions) {
    await postDisaggregation(t.app, team.officer, s.orgId, indicator.id, name, categories);
  }
  await linkIndicator(t.app, team.officer, s.orgId, s.project.id, indicator.id);
  return { ...s, indicator };
}

const attending = (overrides: Record<string, unknown>) => person({ attended: true, ...overrides });
const idsOf = (registrations: { participantId: string }[]) => registrations.map((r) => r.participantId);

describe('POST .../indicator-reports/prefill: the counts', () => {
  let s: Scene;

  /**
   * Q1 2026 (2026-01-01 to 2026-03-31) of one project. Counted with attendedOnly (8 people):
   *   p1 female 25, p2 male 10, p5 male 75, p6 female 45 (training, inside the period; p5 also in the
   *   handover, the cancelled activity and another project's), p9 other 45 (training; registered, not
   *   attending, in the handover), p3 female 45, p7 male without birth date (launch, ending on the
   *   period's first day), p4 other 25 (handover, starting on its last day).
   * Registered without confirmed attendance, counted with attendedOnly false only: p8 female 10
   *   (training), p14 male 25 (launch).
   * Never counted: p10 (cancelled activity), p11 (ends the day before), p12 (starts the day after),
   *   p13 (another project's activity).
   */
  beforeAll(async () => {
    s = await scene();
    const activity = (body: Record<string, unknown>, projectId = s.project.id) =>
      postActivity(t.app, team.officer, team.org.id, projectId, body);
    const enrol = async (activityId: string, people: Record<string, unknown>[]) =>
      idsOf(await register(t.app, team.officer, team.org.id, activityId, people));

    const training = await activity({ title: 'Hygiene training' });
    const launch = await activity({
      title: 'Launch meeting',
      startDate: '2025-12-20',
      endDate: '2026-01-01',
      status: 'completed',
    });
    const handover = await activity({
      title: 'Water point handover',
      startDate: '2026-03-31',
      endDate: '2026-04-05',
      status: 'in_progress',
    });
    const distribution = await activity({
      title: 'Soap distribution',
      startDate: '2026-02-10',
      endDate: '2026-02-11',
    });
    const survey = await activity({
      title: 'Baseline survey',
      startDate: '2025-12-01',
      endDate: '2025-12-31',
    });
    const followUp = await activity({ title: 'Follow-up', startDate: '2026-04-01', endDate: '2026-04-10' });
    const elsewhere = await createProject(t.database.db, team.org.id, 'School Meals');
    const otherProjects = await activity({ title: 'Cooking class' }, elsewhere.id);

    const [, , p5, , , p9] = await enrol(training.id, [
      attending({ sex: 'female', dateOfBirth: YOUTH }),
      attending({ sex: 'male', dateOfBirth: CHILD }),
      attending({ sex: 'male', dateOfBirth: ELDER }),
      attending({ sex: 'female', dateOfBirth: MIDDLE }),
      person({ sex: 'female', dateOfBirth: CHILD }),
      attending({ sex: 'other', dateOfBirth: MIDDLE }),
    ]);
    await enrol(launch.id, [
      attending({ sex: 'female', dateOfBirth: MIDDLE }),
      attending({ sex: 'male', dateOfBirth: null }),
      person({ sex: 'male', dateOfBirth: YOUTH }),
    ]);
    await enrol(handover.id, [
      attending({ sex: 'other', dateOfBirth: YOUTH }),
      { participantId: p5, attended: true },
      { participantId: p9, attended: false },
    ]);
    await enrol(distribution.id, [
      attending({ sex: 'female', dateOfBirth: YOUTH }),
      { participantId: p5, attended: true },
    ]);
    const cancel = await call(t.app, 'PATCH', activityUrl(team.org.id, distribution.id), {
      as: team.officer,
      body: { status: 'cancelled' },
    });
    expect(cancel.body).toMatchObject({ status: 'cancelled', participantCount: 2 });
    await enrol(survey.id, [attending({ sex: 'male', dateOfBirth: YOUTH })]);
    await enrol(followUp.id, [attending({ sex: 'male', dateOfBirth: YOUTH })]);
    await enrol(otherProjects.id, [
      attending({ sex: 'female', dateOfBirth: YOUTH }),
      { participantId: p5, attended: true },
    ]);
  });

  const ATTENDING_SEXES = { female: 3, male: 3, other: 2 }; // p1 p3 p6 | p2 p5 p7 | p4 p9
  const ATTENDING_BANDS = { '0-17': 1, '18-35': 2, '36-59': 3, '60+': 1, unknown: 1 }; // p2 | p1 p4 | p3 p6 p9 | p5 | p7
  const REGISTERED_SEXES = { female: 4, male: 4, other: 2 }; // + p8, p14
  const REGISTERED_BANDS = { '0-17': 2, '18-35': 3, '36-59': 3, '60+': 1, unknown: 1 };

  it('creates a draft (201) counting attending people once, by sex and by age band', async () => {
    const res = await prefill(s);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      orgId: team.org.id,
      projectId: s.project.id,
      indicatorId: s.indicator.id,
      reportingPeriodId: s.period.id,
      value: 8,
      target: null,
      narrative: null,
      disaggregatedValues: { ...ATTENDING_SEXES, ...ATTENDING_BANDS },
      status: 'draft',
      comment: null,
      submittedAt: null,
      submittedBy: null,
      reviewedAt: null,
      reviewedBy: null,
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
      flags: [],
      refusedSinceSubmitted: 0,
      prefill: { counted: 8, leftOut: 0, leftOutBy: {} },
    });
    const { prefill: _counts, ...report } = res.body;
    expect(await get(res.body.id)).toEqual(report);
    expect(await stored(res.body.id)).toMatchObject({ value: 8, status: 'draft' });
  });

  it('counts people registered without confirmed attendance when attendedOnly is false', async () => {
    const plain = await withIndicator(s);
    const all = await prefill(plain, { attendedOnly: false });
    expect([all.status, all.body.value, all.body.disaggregatedValues]).toEqual([
      201,
      10,
      { ...REGISTERED_SEXES, ...REGISTERED_BANDS },
    ]);
    const attended = await prefill(plain, { attendedOnly: true });
    expect([
      attended.status,
      attended.body.id,
      attended.body.value,
      attended.body.disaggregatedValues,
    ]).toEqual([200, all.body.id, 8, { ...ATTENDING_SEXES, ...ATTENDING_BANDS }]);
  });

  it.each<[string, [string, string[]][], Record<string, number>]>([
    ['exactly the sexes: only them', [['Sex', SEXES]], ATTENDING_SEXES],
    [
      'the sexes in another order, under another name',
      [['Gender', ['other', 'female', 'male']]],
      ATTENDING_SEXES,
    ],
    ['exactly the age bands: only them', [['Age', [...AGE_BANDS].reverse()]], ATTENDING_BANDS],
    [
      'both: both',
      [
        ['Sex', SEXES],
        ['Age group', AGE_BANDS],
      ],
      { ...ATTENDING_SEXES, ...ATTENDING_BANDS },
    ],
  ])('fills disaggregations that are %s', async (_, dimensions, expected) => {
    const res = await prefill(await withIndicator(s, dimensions));
    expect([res.status, res.body.value, res.body.disaggregatedValues]).toEqual([201, 8, expected]);
  });

  it('writes 0 and every category at 0 for a period no activity overlaps', async () => {
    const q3 = await createPeriod(t.database.db, team.org.id, s.project.id, {
      label: 'Q3 2026',
      startDate: '2026-07-01',
      endDate: '2026-09-30',
    });
    const res = await prefill({ ...(await withIndicator(s)), period: q3 });
    expect([res.status, res.body.value, res.body.disaggregatedValues]).toEqual([
      201,
      0,
      { female: 0, male: 0, other: 0, '0-17': 0, '18-35': 0, '36-59': 0, '60+': 0, unknown: 0 },
    ]);
  });
});

describe('POST .../indicator-reports/prefill: age at the end of the period', () => {
  it("puts 18, 36 and 60 reached on the period's last day in the older band, a day later in the younger", async () => {
    const q1 = await scene({ dimensions: [['Age', AGE_BANDS]] });
    const q2 = {
      ...q1,
      period: await createPeriod(t.database.db, team.org.id, q1.project.id, {
        label: 'Q2 2026',
        startDate: '2026-04-01',
        endDate: '2026-06-30',
      }),
    };
    const camp = await postActivity(t.app, team.officer, team.org.id, q1.project.id, {
      title: 'Health camp',
      startDate: '2026-03-25',
      endDate: '2026-04-05',
    });
    await register(
      t.app,
      team.officer,
      team.org.id,
      camp.id,
      ['2008-03-31', '2008-04-01', '1990-03-31', '1990-04-01', '1966-03-31', '1966-04-01', null].map(
        (dateOfBirth) => attending({ dateOfBirth }),
      ),
    );
    // On 2026-03-31: 18, 17, 36, 35, 60, 59 and unknown.
    const first = await prefill(q1);
    expect([first.status, first.body.value, first.body.disaggregatedValues]).toEqual([
      201,
      7,
      { '0-17': 1, '18-35': 2, '36-59': 2, '60+': 1, unknown: 1 },
    ]);
    // On 2026-06-30 everyone born on 1 April has had that birthday too.
    const second = await prefill(q2);
    expect([second.status, second.body.value, second.body.disaggregatedValues]).toEqual([
      201,
      7,
      { '0-17': 0, '18-35': 2, '36-59': 2, '60+': 2, unknown: 1 },
    ]);
  });
});

describe('POST .../indicator-reports/prefill: the report it writes', () => {
  /** A project whose one activity in Q1 2026 has these attending people. */
  async function small(people: Record<string, unknown>[], dimensions: [string, string[]][] = []) {
    const s = await scene({ dimensions });
    const activity = await postActivity(t.app, team.officer, team.org.id, s.project.id);
    await register(t.app, team.officer, team.org.id, activity.id, people.map(attending));
    return { s, activity };
  }

  it('updates a draft (200) with fresh counts, keeping its status, target and narrative', async () => {
    const { s, activity } = await small([{ sex: 'male', dateOfBirth: YOUTH }], [['Sex', SEXES]]);
    const draft = await newReport(s, { value: 40, target: 50, narrative: 'Counted at the gate' });

    const first = await prefill(s);
    expect([first.status, first.body]).toEqual([
      200,
      {
        ...draft,
        value: 1,
        disaggregatedValues: { female: 0, male: 1, other: 0 },
        updatedAt: expect.stringMatching(TIMESTAMP),
        prefill: { counted: 1, leftOut: 0, leftOutBy: {} },
      },
    ]);

    await register(t.app, team.officer, team.org.id, activity.id, [attending({ sex: 'other' })]);
    const second = await prefill(s, {}, team.admin);
    expect([second.status, second.body]).toEqual([
      200,
      {
        ...first.body,
        value: 2,
        disaggregatedValues: { female: 0, male: 1, other: 1 },
        updatedAt: expect.any(String),
        prefill: { counted: 2, leftOut: 0, leftOutBy: {} },
      },
    ]);
    const { prefill: _counts, ...report } = second.body;
    expect(await get(draft.id)).toEqual(report);
    expect((await reportsOf(s.project.id)).map((r) => r.id)).toEqual([draft.id]);
  });

  it('updates a rejected report, which stays rejected with its review', async () => {
    const { s } = await small([
      { sex: 'female', dateOfBirth: ELDER },
      { sex: 'female', dateOfBirth: null },
    ]);
    const report = await newReport(s, { value: 5, narrative: 'First count' });
    await act(t.app, team.officer, team.org.id, report.id, 'submit');
    const rejected = await act(t.app, team.admin, team.org.id, report.id, 'reject', {
      comment: 'Use the registration lists',
    });

    const res = await prefill(s);
    expect([res.status, res.body]).toEqual([
      200,
      {
        ...rejected,
        value: 2,
        disaggregatedValues: {
          female: 2,
          male: 0,
          other: 0,
          '0-17': 0,
          '18-35': 0,
          '36-59': 0,
          '60+': 1,
          unknown: 1,
        },
        updatedAt: expect.stringMatching(TIMESTAMP),
        prefill: { counted: 2, leftOut: 0, leftOutBy: {} },
      },
    ]);
    expect(res.body).toMatchObject({ status: 'rejected', comment: 'Use the registration lists' });
  });

  it('leaves a report the rules of editing accept: its value agrees with both breakdowns', async () => {
    const { s } = await small([{ sex: 'female' }, { sex: 'male' }, { sex: 'male', dateOfBirth: CHILD }]);
    const { body: report } = (await prefill(s)) as { body: ReportJson };
    expect(report.value).toBe(3);

    const edit = (body: Record<string, unknown>) =>
      call(t.app, 'PATCH', reportUrl(team.org.id, report.id), { as: team.officer, body });
    const same = await edit({ value: 3, narrative: 'From the registers' });
    expect([same.status, same.body.value, same.body.disaggregatedValues]).toEqual([
      200,
      3,
      report.disaggregatedValues,
    ]);
    expectError(await edit({ value: 6 }), badRequest(DIFFERS(3)));
    const submitted = await act(t.app, team.officer, team.org.id, report.id, 'submit');
    expect([submitted.status, submitted.value]).toEqual(['submitted', 3]);
  });
});
