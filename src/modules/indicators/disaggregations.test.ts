import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createProject, type TestUser } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  badRequest,
  call,
  expectError,
  expectViolations,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  conflictBody,
  ALL_ROLES,
  MANAGERS,
  notAMember,
  refusedTo,
} from '../../../test/helpers/http.js';
import {
  indicatorUrl,
  linkIndicator,
  postDisaggregation,
  postIndicator,
  postReport,
} from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { disaggregations } from './indicators.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const dimsUrl = (indicatorId: string, orgId = team.org.id) =>
  `${indicatorUrl(orgId, indicatorId)}/disaggregations`;
const dimUrl = (indicatorId: string, id: string) => `${dimsUrl(indicatorId)}/${id}`;

const create = (indicatorId: string, body: unknown, as: TestUser = team.officer) =>
  call(t.app, 'POST', dimsUrl(indicatorId), { as, body });
const remove = (indicatorId: string, id: string, as: TestUser = team.officer) =>
  call(t.app, 'DELETE', dimUrl(indicatorId, id), { as });

const indicator = () => postIndicator(t.app, team.officer, team.org.id);
const dimension = (indicatorId: string, name: string, categories: string[]) =>
  postDisaggregation(t.app, team.officer, team.org.id, indicatorId, name, categories);

/** The stored disaggregations of an indicator, oldest first. */
async function stored(indicatorId: string) {
  const rows = await t.database.db
    .select()
    .from(disaggregations)
    .where(eq(disaggregations.indicatorId, indicatorId));
  return rows
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
    .map((row) => ({ id: row.id, name: row.name, categories: row.categories }));
}

describe('POST /orgs/:orgId/indicators/:id/disaggregations', () => {
  it('creates a disaggregation (201) with its name and categories trimmed', async () => {
    const ind = await indicator();
    const res = await create(ind.id, { name: ' Sex ', categories: [' Female', 'Male ', 'Other'] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      indicatorId: ind.id,
      name: 'Sex',
      categories: ['Female', 'Male', 'Other'],
      createdAt: expect.stringMatching(TIMESTAMP),
    });
    expect(await stored(ind.id)).toEqual([
      { id: res.body.id, name: 'Sex', categories: ['Female', 'Male', 'Other'] },
    ]);
    const byAdmin = await create(ind.id, { name: 'Age', categories: ['0-17'] }, team.admin);
    expect([byAdmin.status, byAdmin.body.categories]).toEqual([201, ['0-17']]);
  });

  it('accepts 50 categories and rejects every body violation with 400', async () => {
    const ind = await indicator();
    const fifty = Array.from({ length: 50 }, (_, i) => `c${i}`);
    const cases: [unknown, string[]][] = [
      [{}, ['name is required', 'categories is required']],
      [{ name: 'Sex', categories: [] }, ['categories must contain at least 1 items']],
      [{ name: 'Sex', categories: [...fifty, 'c50'] }, ['categories must contain at most 50 items']],
      [{ name: 'Sex', categories: ['Female', ''] }, ['categories.1 should not be empty']],
      [{ name: 'Sex', categories: ['  ', 'Male'] }, ['categories.0 should not be empty']],
      [{ name: '  ', categories: ['Female'] }, ['name should not be empty']],
      [{ name: 'Sex', categories: 'Female' }, ['categories must be an array']],
      [{ name: 'Sex', categories: ['Female', 3] }, ['categories.1 must be a string']],
      [{ name: 'Sex', categories: ['x'.repeat(101)] }, ['categories.0 must be at most 100 characters']],
      [{ name: 'Sex', categories: ['Female', 'Male', 'Female'] }, ['categories must not contain duplicates']],
      [
        { name: 'Sex', categories: ['Female', 'female'] },
        ['categories must not contain duplicates (whatever their case)'],
      ],
      [
        { name: 'Sex', categories: ['Male', ' Male'] },
        ['categories must not contain duplicates (whatever their case)'],
      ],
      [
        { name: 'Sex', categories: ['Female'], id: MISSING_ID, indicatorId: ind.id },
        ['property id should not exist', 'property indicatorId should not exist'],
      ],
    ];
    for (const [body, messages] of cases) expectViolations(await create(ind.id, body), ...messages);
    const bad = await create('nope', { name: 'Sex', categories: ['Female'] });
    expect([bad.status, bad.body]).toEqual([400, badRequest('id must be a UUID')]);
    expect(await stored(ind.id)).toEqual([]);

    const res = await create(ind.id, { name: 'Villages', categories: fifty });
    expect([res.status, res.body.categories]).toEqual([201, fifty]);
  });

  it('refuses a name the indicator already has, whatever its case (409)', async () => {
    const ind = await indicator();
    const sex = await dimension(ind.id, 'Sex', ['Female', 'Male']);
    for (const name of ['Sex', 'SEX', ' sex ']) {
      expectError(
        await create(ind.id, { name, categories: [`other ${name}`] }),
        conflictBody('A disaggregation with this name already exists for the indicator'),
      );
    }
    expect(await stored(ind.id)).toEqual([{ id: sex.id, name: 'Sex', categories: ['Female', 'Male'] }]);
  });

  it('refuses a category another disaggregation of the indicator has, whatever its case (409)', async () => {
    const ind = await indicator();
    const sex = await dimension(ind.id, 'Sex', ['Female', 'Male']);
    expectError(
      await create(ind.id, { name: 'Gender', categories: ['Other', 'FEMALE'] }),
      conflictBody('Category Female is already used by disaggregation Sex'),
    );
    expectError(
      await create(ind.id, { name: 'Gender', categories: ['male'] }),
      conflictBody('Category Male is already used by disaggregation Sex'),
    );
    expect(await stored(ind.id)).toEqual([{ id: sex.id, name: 'Sex', categories: ['Female', 'Male'] }]);
  });

  it('lets only one of two concurrent requests take a category', async () => {
    const ind = await indicator();
    const results = await Promise.all([
      create(ind.id, { name: 'Sex', categories: ['Female', 'Male'] }),
      create(ind.id, { name: 'Gender', categories: ['female', 'Other'] }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(await stored(ind.id)).toHaveLength(1);
  });

  it('lets other indicators use the same name and categories', async () => {
    const first = await indicator();
    const second = await indicator();
    await dimension(first.id, 'Sex', ['Female', 'Male']);
    const res = await create(second.id, { name: 'Sex', categories: ['Female', 'Male'] });
    expect([res.status, res.body.indicatorId, res.body.categories]).toEqual([
      201,
      second.id,
      ['Female', 'Male'],
    ]);
  });

  it('answers 404 for an indicator of another organization or a missing one', async () => {
    const foreign = await postIndicator(t.app, team.outsider, team.outsiderOrg.id);
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(
        await create(id, { name: 'Sex', categories: ['Female'] }, team.admin),
        notFoundBody('Indicator'),
      );
    }
    expect(await stored(foreign.id)).toEqual([]);
  });

  it('is for org_admin and me_officer: reporter, viewer and outsider 403, no session 401', async () => {
    const ind = await indicator();
    const body = { name: 'Sex', categories: ['Female'] };
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await create(ind.id, body, user), refusedTo(team, user, MANAGERS));
    }
    expectError(await call(t.app, 'POST', dimsUrl(ind.id), { body }), UNAUTHORIZED);
    expect(await stored(ind.id)).toEqual([]);
  });
});

describe('GET /orgs/:orgId/indicators/:id/disaggregations', () => {
  it('lists in creation order, plain or paged, to every role', async () => {
    const ind = await indicator();
    const other = await indicator();
    await dimension(other.id, 'Elsewhere', ['x']);
    const sex = await dimension(ind.id, 'Sex', ['Female', 'Male']);
    const age = await dimension(ind.id, 'Age', ['0-17', '18+']);
    const disability = await dimension(ind.id, 'Disability', ['Yes', 'No']);

    for (const user of [team.admin, team.officer, team.reporter, team.viewer]) {
      const res = await call(t.app, 'GET', dimsUrl(ind.id), { as: user });
      expect([res.status, res.body]).toEqual([200, [sex, age, disability]]);
    }
    const paged = await call(t.app, 'GET', `${dimsUrl(ind.id)}?page=2&limit=2`, { as: team.viewer });
    expect([paged.status, paged.body]).toEqual([
      200,
      { data: [disability], meta: { total: 3, page: 2, limit: 2, totalPages: 2 } },
    ]);
    const first = await call(t.app, 'GET', `${dimsUrl(ind.id)}?page=1`, { as: team.viewer });
    expect(first.body).toEqual({
      data: [sex, age, disability],
      meta: { total: 3, page: 1, limit: 20, totalPages: 1 },
    });
    const none = await call(t.app, 'GET', dimsUrl((await indicator()).id), { as: team.viewer });
    expect([none.status, none.body]).toEqual([200, []]);
    const tooMany = await call(t.app, 'GET', `${dimsUrl(ind.id)}?limit=101`, { as: team.viewer });
    expect([tooMany.status, tooMany.body]).toEqual([400, badRequest('limit must not be greater than 100')]);
  });

  it('answers 404 for another organization’s indicator; outsider 403, no session 401', async () => {
    const foreign = await postIndicator(t.app, team.outsider, team.outsiderOrg.id);
    await postDisaggregation(t.app, team.outsider, team.outsiderOrg.id, foreign.id, 'Sex', ['Female']);
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(await call(t.app, 'GET', dimsUrl(id), { as: team.admin }), notFoundBody('Indicator'));
    }
    const ind = await indicator();
    expectError(await call(t.app, 'GET', dimsUrl(ind.id), { as: team.outsider }), notAMember(ALL_ROLES));
    expectError(await call(t.app, 'GET', dimsUrl(ind.id)), UNAUTHORIZED);
  });
});

describe('DELETE /orgs/:orgId/indicators/:id/disaggregations/:disaggregationId', () => {
  it('removes a disaggregation (204), then 404; its categories are free again', async () => {
    const ind = await indicator();
    const sex = await dimension(ind.id, 'Sex', ['Female', 'Male']);
    const age = await dimension(ind.id, 'Age', ['0-17', '18+']);
    const res = await remove(ind.id, sex.id, team.admin);
    expect([res.status, res.body]).toEqual([204, null]);
    expect(await stored(ind.id)).toEqual([{ id: age.id, name: 'Age', categories: ['0-17', '18+'] }]);
    expectError(await remove(ind.id, sex.id), notFoundBody('Disaggregation'));
    const again = await create(ind.id, { name: 'sex', categories: ['female', 'male'] });
    expect(again.status).toBe(201);
  });

  it('answers 404 for an unknown disaggregation or one of another indicator', async () => {
    const ind = await indicator();
    const other = await indicator();
    const theirs = await dimension(other.id, 'Sex', ['Female', 'Male']);
    for (const id of [theirs.id, MISSING_ID]) {
      expectError(await remove(ind.id, id), notFoundBody('Disaggregation'));
    }
    expect((await stored(other.id)).map((d) => d.id)).toEqual([theirs.id]);
    expectError(await remove(MISSING_ID, theirs.id), notFoundBody('Indicator'));
    const bad = await remove(ind.id, 'nope');
    expect([bad.status, bad.body]).toEqual([400, badRequest('disaggregationId must be a UUID')]);
  });

  it('refuses while a report holds a value for one of its categories (409)', async () => {
    const ind = await indicator();
    const sex = await dimension(ind.id, 'Sex', ['female', 'male']);
    const age = await dimension(ind.id, 'Age', ['child', 'adult']);
    const project = await createProject(t.database.db, team.org.id);
    const period = await createPeriod(t.database.db, team.org.id, project.id);
    await linkIndicator(t.app, team.officer, team.org.id, project.id, ind.id);
    const report = await postReport(t.app, team.officer, team.org.id, project.id, {
      indicatorId: ind.id,
      reportingPeriodId: period.id,
      disaggregatedValues: { male: 4 },
    });
    expect([report.value, report.disaggregatedValues]).toEqual([4, { male: 4 }]);

    expectError(await remove(ind.id, sex.id), conflictBody('Disaggregation is used by indicator reports'));
    expect((await stored(ind.id)).map((d) => d.id)).toEqual([sex.id, age.id]);
    // The report leaves Age empty: it may go.
    expect((await remove(ind.id, age.id)).status).toBe(204);
    expect((await stored(ind.id)).map((d) => d.id)).toEqual([sex.id]);
  });

  it('answers 404 for another organization’s indicator; reporter, viewer and outsider 403; no session 401', async () => {
    const foreign = await postIndicator(t.app, team.outsider, team.outsiderOrg.id);
    const theirs = await postDisaggregation(t.app, team.outsider, team.outsiderOrg.id, foreign.id, 'Sex', [
      'Female',
    ]);
    expectError(await remove(foreign.id, theirs.id, team.admin), notFoundBody('Indicator'));
    expect((await stored(foreign.id)).map((d) => d.id)).toEqual([theirs.id]);

    const ind = await indicator();
    const sex = await dimension(ind.id, 'Sex', ['Female', 'Male']);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await remove(ind.id, sex.id, user), refusedTo(team, user, MANAGERS));
    }
    expectError(await call(t.app, 'DELETE', dimUrl(ind.id, sex.id)), UNAUTHORIZED);
    expect((await stored(ind.id)).map((d) => d.id)).toEqual([sex.id]);
  });
});
