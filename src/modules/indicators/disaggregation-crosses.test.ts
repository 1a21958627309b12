import { describe, expect, it } from 'vitest';
import { createProject, type TestUser } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  MANAGERS,
  UNAUTHORIZED,
  TIMESTAMP,
  badRequest,
  call,
  conflictBody,
  expectError,
  expectViolations,
  notFoundBody,
  refusedTo,
} from '../../../test/helpers/http.js';
import {
  indicatorUrl,
  linkIndicator,
  postDisaggregation,
  postIndicator,
  reportsUrl,
  reportUrl,
} from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const dimsUrl = (indicatorId: string, orgId = team.org.id) =>
  `${indicatorUrl(orgId, indicatorId)}/disaggregations`;
const create = (indicatorId: string, body: unknown, as: TestUser = team.officer) =>
  call(t.app, 'POST', dimsUrl(indicatorId), { as, body });

/** An indicator with Sex (female, male) and Age (0-14, 15-24) */
async function sexAndAge() {
  const ind = await postIndicator(t.app, team.officer, team.org.id);
  const sex = await postDisaggregation(t.app, team.officer, team.org.id, ind.id, 'Sex', ['female', 'male']);
  const age = await postDisaggregation(t.app, team.officer, team.org.id, ind.id, 'Age', ['0-14', '15-24']);
  return { ind, sex, age };
}

const CELLS = ['female|0-14', 'female|15-24', 'male|0-14', 'male|15-24'];

describe('POST /orgs/:orgId/indicators/:id/disaggregations with crosses', () => {
  it('creates a cross (201) whose categories are its cells; plain ones keep their shape', async () => {
    const { ind, sex, age } = await sexAndAge();
    expect(Object.keys(sex)).not.toContain('crosses');
    const res = await create(ind.id, { name: 'Sex by age', crosses: ['sex', ' Age'] });
    expect([res.status, res.body]).toEqual([
      201,
      {
        id: expect.any(String),
        indicatorId: ind.id,
        name: 'Sex by age',
        categories: CELLS,
        crosses: ['Sex', 'Age'],
        createdAt: expect.stringMatching(TIMESTAMP),
      },
    ]);
    const list = await call(t.app, 'GET', dimsUrl(ind.id), { as: team.viewer });
    expect([list.status, list.body]).toEqual([200, [sex, age, res.body]]);
  });

  it('refuses bad crosses with 400 and a second cross of the same disaggregations with 409', async () => {
    const { ind } = await sexAndAge();
    const cross = await create(ind.id, { name: 'Sex by age', crosses: ['Sex', 'Age'] });
    await postDisaggregation(t.app, team.officer, team.org.id, ind.id, 'Pipe', ['a|b', 'c']);
    const cases: [unknown, string[]][] = [
      [{ name: 'X' }, ['categories is required']],
      [{ name: 'X', crosses: ['Sex'] }, ['crosses must contain at least 2 items']],
      [{ name: 'X', crosses: ['Sex', 'Sex'] }, ['crosses must not contain duplicates']],
      [{ name: 'X', crosses: ['Sex', 'sex'] }, ['crosses must not contain duplicates (whatever their case)']],
      [
        { name: 'X', crosses: ['Sex', 'Age'], categories: ['a'] },
        ['categories must not be sent with crosses: the cells of a cross are its categories'],
      ],
      [
        { name: 'X', crosses: ['Sex', 'Region', 'Disability'] },
        [
          'crosses: Region is not a disaggregation of the indicator',
          'crosses: Disability is not a disaggregation of the indicator',
        ],
      ],
      [
        { name: 'X', crosses: ['Sex by age', 'Sex'] },
        ['crosses: Sex by age is itself a cross; cross plain disaggregations only'],
      ],
      [
        { name: 'X', crosses: ['Pipe', 'Sex'] },
        ['crosses: Pipe has a category with "|", which cell keys use to join categories'],
      ],
    ];
    for (const [body, messages] of cases) expectViolations(await create(ind.id, body), ...messages);
    expectError(
      await create(ind.id, { name: 'sex by AGE', crosses: ['Age', 'Sex'] }),
      conflictBody('A disaggregation with this name already exists for the indicator'),
    );
    expectError(
      await create(ind.id, { name: 'Age by sex', crosses: ['Age', 'Sex'] }),
      conflictBody('Age and Sex are already crossed by Sex by age', 'duplicate'),
    );
    expect(cross.status).toBe(201);
  });

  it('refuses more than 1,000 cells before making any (four disaggregations of 50: 6.25 million)', async () => {
    const ind = await postIndicator(t.app, team.officer, team.org.id);
    const names = ['A', 'B', 'C', 'D'];
    for (const name of names) {
      const categories = Array.from({ length: 50 }, (_, i) => `${name.toLowerCase()}${i}`);
      await postDisaggregation(t.app, team.officer, team.org.id, ind.id, name, categories);
    }
    expectViolations(
      await create(ind.id, { name: 'All', crosses: names }),
      'crosses: 6250000 cells, more than 1000',
    );
  });

  it('refuses removing a crossed disaggregation while the cross exists (409)', async () => {
    const { ind, sex } = await sexAndAge();
    const cross = await create(ind.id, { name: 'Sex by age', crosses: ['Sex', 'Age'] });
    expectError(
      await call(t.app, 'DELETE', `${dimsUrl(ind.id)}/${sex.id}`, { as: team.officer }),
      conflictBody('Disaggregation is crossed by Sex by age; remove the cross first', 'has_dependents'),
    );
    const gone = await call(t.app, 'DELETE', `${dimsUrl(ind.id)}/${cross.body.id}`, { as: team.officer });
    expect(gone.status).toBe(204);
    const then = await call(t.app, 'DELETE', `${dimsUrl(ind.id)}/${sex.id}`, { as: team.officer });
    expect(then.status).toBe(204);
  });

  it('answers 401, 403 to roles that may not and outsiders, 404 for another organization’s indicator', async () => {
    const { ind } = await sexAndAge();
    const body = { name: 'Sex by age', crosses: ['Sex', 'Age'] };
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await create(ind.id, body, user), refusedTo(team, user, MANAGERS));
    }
    expectError(await call(t.app, 'POST', dimsUrl(ind.id), { body }), UNAUTHORIZED);
    const foreign = await postIndicator(t.app, team.outsider, team.outsiderOrg.id);
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(await create(id, body, team.admin), notFoundBody('Indicator'));
    }
    const bad = await create('nope', body);
    expect([bad.status, bad.body]).toEqual([400, badRequest('id must be a UUID')]);
  });
});

describe('indicator reports with cells of a cross', () => {
  async function setUp() {
    const { ind } = await sexAndAge();
    await create(ind.id, { name: 'Sex by age', crosses: ['Sex', 'Age'] });
    const project = await createProject(t.database.db, team.org.id);
    const period = await createPeriod(t.database.db, team.org.id, project.id);
    await linkIndicator(t.app, team.officer, team.org.id, project.id, ind.id);
    const post = (body: Record<string, unknown>) =>
      call(t.app, 'POST', reportsUrl(team.org.id, project.id), {
        as: team.officer,
        body: { indicatorId: ind.id, reportingPeriodId: period.id, ...body },
      });
    return { ind, project, period, post };
  }

  it('takes cells alone (the total is the value; missing cells count 0), or with agreeing margins', async () => {
    const { post } = await setUp();
    const cells = { 'female|0-14': 3, 'female|15-24': 7, 'male|15-24': 5 };
    const res = await post({ disaggregatedValues: cells });
    expect([res.status, res.body.value, res.body.disaggregatedValues]).toEqual([201, 15, cells]);
    const withMargins = { ...cells, female: 10, male: 5, '0-14': 3, '15-24': 12 };
    const edited = await call(t.app, 'PATCH', reportUrl(team.org.id, res.body.id), {
      as: team.officer,
      body: { value: 15, disaggregatedValues: withMargins },
    });
    expect([edited.status, edited.body.value, edited.body.disaggregatedValues]).toEqual([
      200,
      15,
      withMargins,
    ]);
  });

  it('names the cell that does not add up (400), and keeps the value rule', async () => {
    const { post } = await setUp();
    const cells = { 'female|0-14': 5, 'female|15-24': 7, 'male|15-24': 5 };
    expectViolations(
      await post({ disaggregatedValues: { ...cells, female: 10, male: 5 } }),
      'disaggregatedValues: the cells of "Sex by age" with female add up to 12, and disaggregatedValues.female is 10',
    );
    expectViolations(
      await post({ disaggregatedValues: { ...cells, '15-24': 12 } }),
      'disaggregatedValues: the cells of "Sex by age" with 0-14 add up to 5, and disaggregatedValues.0-14 is missing (0)',
    );
    expectViolations(
      await post({ value: 20, disaggregatedValues: cells }),
      'value must equal the total of disaggregatedValues (17)',
    );
    expectViolations(
      await post({ disaggregatedValues: { 'female|0-14': 1, 'female|99': 2 } }),
      'disaggregatedValues.female|99 is not a category of the indicator’s disaggregations',
    );
    const plain = await post({ disaggregatedValues: { female: 2, male: 1 } });
    expect([plain.status, plain.body.value]).toEqual([201, 3]);
  });

  it('wants two crosses of one disaggregation to agree on its margins when it is not sent', async () => {
    const { ind, post } = await setUp();
    await postDisaggregation(t.app, team.officer, team.org.id, ind.id, 'Disability', ['yes', 'no']);
    const more = await create(ind.id, { name: 'Sex by disability', crosses: ['Sex', 'Disability'] });
    expect([more.status, more.body.categories]).toEqual([
      201,
      ['female|yes', 'female|no', 'male|yes', 'male|no'],
    ]);
    const byAge = { 'female|0-14': 4, 'male|15-24': 6 };
    expectViolations(
      await post({ disaggregatedValues: { ...byAge, 'female|yes': 1, 'female|no': 2, 'male|no': 7 } }),
      'disaggregatedValues: the cells of "Sex by disability" with female add up to 3, and the cells of "Sex by age" with female add up to 4',
      'disaggregatedValues: the cells of "Sex by disability" with male add up to 7, and the cells of "Sex by age" with male add up to 6',
    );
    const agreeing = await post({
      disaggregatedValues: { ...byAge, 'female|yes': 1, 'female|no': 3, 'male|no': 6 },
    });
    expect([agreeing.status, agreeing.body.value]).toEqual([201, 10]);
  });
});
