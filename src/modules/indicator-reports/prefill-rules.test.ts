import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postActivity, person, prefillUrl, register } from '../../../test/helpers/activities.js';
import { buildCountingTestApp } from '../../../test/helpers/app.js';
import { assignProject, createProject, createTeam, type Team } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  badRequest,
  call,
  expectError,
  expectViolations,
  notFoundBody,
  UNAUTHORIZED,
  CONTRIBUTORS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { conflictBody } from '../../../test/helpers/indicator-scenes.js';
import { act, linkIndicator, postIndicator } from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { LOCKED, reportScene, type Scene } from '../../../test/helpers/report-scenes.js';
import { newId } from '../../lib/ids.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import { activityParticipants, participants } from '../activities/activities.tables.js';

let t: Awaited<ReturnType<typeof buildCountingTestApp>>;
let team: Team;
const { scene, newReport, reportsOf, stored } = reportScene(() => ({ t, team }));

beforeAll(async () => {
  t = await buildCountingTestApp();
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

const SEXES = ['female', 'male', 'other'];
const AGE_BANDS = ['0-17', '18-35', '36-59', '60+', 'unknown'];

const prefill = (
  s: Scene,
  body: Record<string, unknown> = {},
  as: { token: string } | null = team.officer,
  orgId = s.orgId,
) =>
  call(t.app, 'POST', prefillUrl(orgId, s.project.id), {
    as,
    body: { indicatorId: s.indicator.id, reportingPeriodId: s.period.id, ...body },
  });

/** A scene whose one activity has two attending people. */
async function withPeople(options: Parameters<typeof scene>[0] = {}) {
  const s = await scene(options);
  const activity = await postActivity(t.app, team.officer, team.org.id, s.project.id);
  await register(t.app, team.officer, team.org.id, activity.id, [
    person({ sex: 'female', attended: true }),
    person({ sex: 'male', dateOfBirth: null, attended: true }),
  ]);
  return s;
}

describe('POST .../indicator-reports/prefill: what it refuses', () => {
  it('refuses a submitted or approved report (409) and leaves it as it was', async () => {
    const s = await withPeople();
    const report = await newReport(s, { value: 5 });
    await act(t.app, team.officer, team.org.id, report.id, 'submit');
    for (const status of ['submitted', 'approved']) {
      if (status === 'approved') await act(t.app, team.admin, team.org.id, report.id, 'approve');
      const before = await stored(report.id);
      expectError(
        await prefill(s),
        conflictBody(`Only draft or rejected indicator reports can be pre-filled; this one is ${status}`),
      );
      expect(before).toMatchObject({ status, value: 5 });
      expect(await stored(report.id)).toEqual(before);
    }
  });

  it('refuses a locked period (403): no report is created, a draft is not touched', async () => {
    const s = await withPeople();
    const locked = await createPeriod(t.database.db, team.org.id, s.project.id, {
      label: 'Q4 2025',
      startDate: '2025-10-01',
      endDate: '2025-12-31',
      isLocked: true,
      lockedAt: new Date(),
      lockedBy: team.officer.id,
    });
    expectError(await prefill({ ...s, period: locked }, {}, team.admin), LOCKED);
    expect(await reportsOf(s.project.id)).toEqual([]);

    const draft = await newReport(s, { value: 9 });
    const before = await stored(draft.id);
    await t.database.db
      .update(reportingPeriods)
      .set({ isLocked: true, lockedAt: new Date(), lockedBy: team.admin.id })
      .where(eq(reportingPeriods.id, s.period.id));
    expectError(await prefill(s), LOCKED);
    expect(await stored(draft.id)).toEqual(before);
  });

  it('answers 404 for an indicator or a period missing from the organization', async () => {
    const s = await withPeople();
    const foreign = await scene({ orgId: team.outsiderOrg.id, as: team.outsider });
    for (const indicatorId of [foreign.indicator.id, MISSING_ID]) {
      expectError(await prefill(s, { indicatorId }), notFoundBody('Indicator'));
    }
    for (const reportingPeriodId of [foreign.period.id, MISSING_ID]) {
      expectError(await prefill(s, { reportingPeriodId }), notFoundBody('Reporting period'));
    }
    expect(await reportsOf(s.project.id)).toEqual([]);
  });

  it('refuses a period of another project, an unlinked and a formula indicator (400)', async () => {
    const s = await withPeople();
    const sibling = await scene();
    expectError(
      await prefill(s, { reportingPeriodId: sibling.period.id }),
      badRequest('reportingPeriodId must be a reporting period of this project'),
    );
    expectError(
      await prefill(s, { indicatorId: sibling.indicator.id }),
      badRequest('indicatorId must be an indicator linked to the project'),
    );
    const formula = await postIndicator(t.app, team.officer, team.org.id, {
      isFormula: true,
      formula: `${s.indicator.code} + 1`,
    });
    await linkIndicator(t.app, team.officer, team.org.id, s.project.id, formula.id);
    expectError(
      await prefill(s, { indicatorId: formula.id }),
      badRequest('Formula indicators are computed and cannot receive reports'),
    );
    expect(await reportsOf(s.project.id)).toEqual([]);
    expect(await reportsOf(sibling.project.id)).toEqual([]);
  });

  const differs = (names: string) =>
    badRequest(
      'Participant counts fill disaggregations by sex (some of female, male, other) or by age (ranges ' +
        `written a-b or a+ that do not overlap, and unknown) only; this indicator's ${names} differs`,
    );

  it.each<[string, [string, string[]][], string]>([
    ['the sexes and one more', [['Sex', [...SEXES, 'intersex']]], 'Sex'],
    ['the sexes capitalised', [['Sex', ['Female', 'Male', 'Other']]], 'Sex'],
    ['the age bands and a word', [['Age', [...AGE_BANDS, 'adults']]], 'Age'],
    ['age ranges that overlap', [['Age', ['0-17', '15-24', '25+']]], 'Age (0-17 overlaps 15-24)'],
    ['only unknown', [['Age', ['unknown']]], 'Age'],
    [
      'exact sexes beside other categories',
      [
        ['Sex', SEXES],
        ['Region', ['north', 'south']],
      ],
      'Region',
    ],
    [
      'two that differ, named in order',
      [
        ['Age', ['child', 'adult']],
        ['Gender', ['women', 'men']],
      ],
      'Age, Gender',
    ],
  ])('refuses disaggregations with %s (400) and writes nothing', async (_, dimensions, names) => {
    const s = await withPeople({ dimensions });
    expectError(await prefill(s), differs(names));
    expect(await reportsOf(s.project.id)).toEqual([]);
  });

  it('rejects body violations with 400 naming the field', async () => {
    const s = await withPeople();
    const cases: [Record<string, unknown>, string[]][] = [
      [{ attendedOnly: 'yes' }, ['attendedOnly must be a boolean']],
      [
        { indicatorId: undefined, reportingPeriodId: 'nope' },
        ['indicatorId is required', 'reportingPeriodId must be a UUID'],
      ],
      [{ value: 3 }, ['property value should not exist']],
    ];
    for (const [body, messages] of cases) expectViolations(await prefill(s, body), ...messages);
    expect(await reportsOf(s.project.id)).toEqual([]);
  });
});

describe('POST .../indicator-reports/prefill: who may', () => {
  it('is for org_admin, me_officer and assigned reporters; others 403, no session 401', async () => {
    const s = await withPeople();
    for (const as of [team.viewer, team.reporter, team.outsider])
      expectError(await prefill(s, {}, as), refusedTo(team, as, CONTRIBUTORS));
    expectError(await prefill(s, {}, null), UNAUTHORIZED);
    expect(await reportsOf(s.project.id)).toEqual([]);

    await assignProject(t.database.db, team.org.id, s.project.id, team.reporter.id);
    const made = await prefill(s, {}, team.reporter);
    expect([made.status, made.body.value]).toEqual([201, 2]);
    for (const as of [team.officer, team.admin]) {
      const again = await prefill(s, {}, as);
      expect([again.status, again.body.id, again.body.value]).toEqual([200, made.body.id, 2]);
    }
  });

  it('answers 404 for a project of another organization, either way round', async () => {
    const s = await withPeople();
    expectError(await prefill(s, {}, team.outsider, team.outsiderOrg.id), notFoundBody('Project'));
    const foreign = await createProject(t.database.db, team.outsiderOrg.id);
    expectError(await prefill({ ...s, project: foreign }, {}, team.admin), notFoundBody('Project'));
    expect(await reportsOf(s.project.id)).toEqual([]);
    expect(await reportsOf(foreign.id)).toEqual([]);
  });
});

describe('POST .../indicator-reports/prefill: at scale', () => {
  // The statements do not grow with the people counted: 2,000 show it as well as 10,000 did, at a fifth of
  // the CPU (inserting the people is most of this test's time on PGlite).
  it('counts 2,000 people in fewer than 20 SQL statements', async () => {
    const s = await scene();
    const everyone = await postActivity(t.app, team.officer, team.org.id, s.project.id);
    const some = await postActivity(t.app, team.officer, team.org.id, s.project.id, { title: 'Refresher' });
    // Person i: sex by i mod 3, age band by i mod 5 (ages 10, 25, 45 and 75 at 2026-03-31, then unknown).
    const births = ['2015-06-01', '2000-06-01', '1980-06-01', '1950-06-01', null];
    const people = Array.from({ length: 2_100 }, (_, i) => ({
      id: newId(),
      orgId: team.org.id,
      firstName: `Person${i}`,
      lastName: 'Otieno',
      sex: SEXES[i % 3] as 'female' | 'male' | 'other',
      dateOfBirth: births[i % 5]!,
      village: 'Kisumu',
      district: 'Kisumu',
    }));
    // The first 2,000 attend the first activity, the first 400 of them the second one as well;
    // the last 100 are registered in the second without confirmed attendance.
    const registrations = people.flatMap((p, i) => [
      ...(i < 2_000
        ? [{ orgId: team.org.id, activityId: everyone.id, participantId: p.id, attended: true }]
        : []),
      ...(i < 400 || i >= 2_000
        ? [{ orgId: team.org.id, activityId: some.id, participantId: p.id, attended: i < 400 }]
        : []),
    ]);
    const db = t.database.db;
    for (let i = 0; i < people.length; i += 1_000)
      await db.insert(participants).values(people.slice(i, i + 1_000));
    for (let i = 0; i < registrations.length; i += 2_000) {
      await db.insert(activityParticipants).values(registrations.slice(i, i + 2_000));
    }
    expect(registrations.length).toBe(2_500);

    let res: Awaited<ReturnType<typeof prefill>> | undefined;
    const statements = await t.during(async () => {
      res = await prefill(s);
    });
    expect(statements).toBeGreaterThan(0);
    expect(statements).toBeLessThan(20);
    // i mod 3 = 0 and 1 for 667 of 0..1,999 each and 2 for 666; i mod 5 splits them into 400s.
    expect([res?.status, res?.body.value, res?.body.disaggregatedValues]).toEqual([
      201,
      2_000,
      {
        female: 667,
        male: 667,
        other: 666,
        '0-17': 400,
        '18-35': 400,
        '36-59': 400,
        '60+': 400,
        unknown: 400,
      },
    ]);
    const all = await prefill(s, { attendedOnly: false });
    expect([all.status, all.body.value]).toEqual([200, 2_100]);
  }, 180_000);
});
