import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import {
  assignProject,
  createOrg,
  createProject,
  createTeam,
  type Team,
  type TestUser,
} from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  badRequest,
  call,
  expectError,
  expectViolations,
  FORBIDDEN,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
} from '../../../test/helpers/http.js';
import {
  indicatorCode,
  indicatorsUrl,
  indicatorUrl,
  linkIndicator,
  postDisaggregation,
  postIndicator,
  postReport,
  type IndicatorJson,
} from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { createProgram, insertResultNode } from '../../../test/helpers/results.js';
import { disaggregations, formulaInputs, indicators, projectIndicators } from './indicators.tables.js';

let t: TestApp;
let team: Team;

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

const create = (body: unknown, as: TestUser = team.officer, orgId = team.org.id) =>
  call(t.app, 'POST', indicatorsUrl(orgId), { as, body });
const patch = (id: string, body: unknown, as: TestUser = team.officer) =>
  call(t.app, 'PATCH', indicatorUrl(team.org.id, id), { as, body });
const remove = (id: string, as: TestUser = team.officer) =>
  call(t.app, 'DELETE', indicatorUrl(team.org.id, id), { as });
const list = (query = '', as: TestUser = team.viewer) =>
  call(t.app, 'GET', `${indicatorsUrl(team.org.id)}${query}`, { as });

/** A plain indicator of the team's organization. */
const indicator = (body: Record<string, unknown> = {}) =>
  postIndicator(t.app, team.officer, team.org.id, body);
/** A formula indicator over `formula`, without an aggregationMethod. */
const formulaIndicator = (formula: string, body: Record<string, unknown> = {}) =>
  indicator({ formula, aggregationMethod: undefined, ...body });

/** An impact node of a program of its own. */
async function newNode(orgId = team.org.id) {
  const program = await createProgram(t.database.db, orgId);
  return insertResultNode(t.database.db, orgId, program.id, 'impact', null, 0);
}

async function stored(id: string) {
  const [row] = await t.database.db.select().from(indicators).where(eq(indicators.id, id));
  return row;
}

/** A draft report of the indicator in a project of its own (linked, with one period). */
async function reportOn(indicatorId: string, body: Record<string, unknown> = { value: 5 }) {
  const project = await createProject(t.database.db, team.org.id);
  const period = await createPeriod(t.database.db, team.org.id, project.id);
  await linkIndicator(t.app, team.officer, team.org.id, project.id, indicatorId);
  return postReport(t.app, team.officer, team.org.id, project.id, {
    indicatorId,
    reportingPeriodId: period.id,
    ...body,
  });
}

const conflictBody = (message: string) => ({ statusCode: 409, message, error: 'Conflict' });
const CODE_TAKEN = conflictBody('An indicator with this code already exists');

describe('POST /orgs/:orgId/indicators', () => {
  it('creates an indicator (201) with trimmed names and null defaults', async () => {
    const code = indicatorCode('Vacc');
    const res = await create({
      name: '  Children vaccinated ',
      code,
      unit: ' children ',
      aggregationMethod: 'sum',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      orgId: team.org.id,
      name: 'Children vaccinated',
      code,
      unit: 'children',
      aggregationMethod: 'sum',
      description: null,
      dataSource: null,
      resultNodeId: null,
      isFormula: false,
      formula: null,
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    const get = await call(t.app, 'GET', indicatorUrl(team.org.id, res.body.id), { as: team.viewer });
    expect([get.status, get.body]).toEqual([200, res.body]);
  });

  it('stores every optional field; blank texts become null', async () => {
    const node = await newNode();
    const code = indicatorCode();
    const res = await create(
      {
        name: 'Latrines built',
        code,
        unit: 'latrines',
        aggregationMethod: 'latest',
        description: ' Built and handed over ',
        dataSource: 'Site reports',
        resultNodeId: node.id,
        isFormula: false,
      },
      team.admin,
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      aggregationMethod: 'latest',
      description: 'Built and handed over',
      dataSource: 'Site reports',
      resultNodeId: node.id,
      isFormula: false,
      formula: null,
    });
    const blank = await create({
      name: 'x',
      code: indicatorCode(),
      unit: 'x',
      aggregationMethod: 'average',
      description: '   ',
      dataSource: '',
      resultNodeId: null,
    });
    expect(blank.status).toBe(201);
    expect(blank.body).toMatchObject({ description: null, dataSource: null, resultNodeId: null });
  });

  it('rejects missing and malformed fields with 400 naming them', async () => {
    const base = { name: 'x', unit: 'x', aggregationMethod: 'sum' };
    const cases: [unknown, string[]][] = [
      [{}, ['name is required', 'code is required', 'unit is required']],
      [{ name: 'x', code: indicatorCode(), unit: 'x' }, ['aggregationMethod is required']],
      [{ ...base, code: '1ABC' }, ['code has an invalid format']],
      [{ ...base, code: 'ABC-1' }, ['code has an invalid format']],
      [{ ...base, code: `A${'b'.repeat(64)}` }, ['code has an invalid format']],
      [{ ...base, code: '' }, ['code has an invalid format']],
      [
        { ...base, code: 'A', name: '  ', unit: '' },
        ['name should not be empty', 'unit should not be empty'],
      ],
      [
        { ...base, code: 'A', aggregationMethod: 'median' },
        ['aggregationMethod must be one of: sum, average, latest, min, max'],
      ],
      [
        { ...base, code: 'A', id: MISSING_ID, orgId: team.org.id, createdAt: '2026-01-01T00:00:00.000Z' },
        [
          'property id should not exist',
          'property orgId should not exist',
          'property createdAt should not exist',
        ],
      ],
      [{ ...base, code: 'A', resultNodeId: 'nope' }, ['resultNodeId must be a UUID']],
    ];
    for (const [body, messages] of cases) expectViolations(await create(body), ...messages);
    const before = await list('', team.admin);
    expect(before.body.some((i: IndicatorJson) => i.code === 'A')).toBe(false);
  });

  it('accepts a code of 64 characters starting with a letter or an underscore', async () => {
    const long = `Z${indicatorCode().slice(0, 20)}`.padEnd(64, '9');
    expect((await create({ name: 'x', code: long, unit: 'x', aggregationMethod: 'sum' })).status).toBe(201);
    const underscore = `_${indicatorCode()}`;
    const res = await create({ name: 'x', code: underscore, unit: 'x', aggregationMethod: 'sum' });
    expect([res.status, res.body.code]).toEqual([201, underscore]);
  });

  it('refuses a code taken in the organization whatever its case (409); other organizations do not clash', async () => {
    const code = indicatorCode('abc').toLowerCase();
    await indicator({ code });
    const race = await Promise.all(
      [1, 2].map(() => create({ name: 'z', code: `${code}_z`, unit: 'z', aggregationMethod: 'sum' })),
    );
    expect(race.map((r) => r.status).sort()).toEqual([201, 409]);
    for (const taken of [code, code.toUpperCase()]) {
      expectError(await create({ name: 'y', code: taken, unit: 'y', aggregationMethod: 'sum' }), CODE_TAKEN);
    }
    const rows = await t.database.db.select().from(indicators).where(eq(indicators.orgId, team.org.id));
    expect(rows.filter((r) => r.code.toLowerCase() === code)).toHaveLength(1);

    const elsewhere = await create(
      { name: 'y', code: code.toUpperCase(), unit: 'y', aggregationMethod: 'sum' },
      team.outsider,
      team.outsiderOrg.id,
    );
    expect([elsewhere.status, elsewhere.body.orgId, elsewhere.body.code]).toEqual([
      201,
      team.outsiderOrg.id,
      code.toUpperCase(),
    ]);
  });

  it('answers 404 for a result node of another organization or a missing one', async () => {
    const foreign = await newNode(team.outsiderOrg.id);
    for (const resultNodeId of [foreign.id, MISSING_ID]) {
      const code = indicatorCode();
      const res = await create({ name: 'x', code, unit: 'x', aggregationMethod: 'sum', resultNodeId });
      expectError(res, notFoundBody('Result node'));
      const all = await list('', team.admin);
      expect(all.body.some((i: IndicatorJson) => i.code === code)).toBe(false);
    }
  });

  it('is for org_admin and me_officer: reporter, viewer and outsider 403, no session 401', async () => {
    const code = indicatorCode();
    const body = { name: 'x', code, unit: 'x', aggregationMethod: 'sum' };
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await create(body, user), FORBIDDEN);
    }
    const anonymous = await call(t.app, 'POST', indicatorsUrl(team.org.id), { body });
    expectError(anonymous, UNAUTHORIZED);
    const all = await list('', team.admin);
    expect(all.body.some((i: IndicatorJson) => i.code === code)).toBe(false);
  });
});

describe('formula indicators', () => {
  it('sending a formula makes a formula indicator; aggregationMethod is optional', async () => {
    const girls = await indicator();
    const boys = await indicator();
    const code = indicatorCode('RATE');
    const formula = `(${girls.code} + ${boys.code}) / 2 * 100`;
    const res = await create({ name: 'Rate', code, unit: '%', formula: `  ${formula} ` });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      orgId: team.org.id,
      name: 'Rate',
      code,
      unit: '%',
      aggregationMethod: null,
      description: null,
      dataSource: null,
      resultNodeId: null,
      isFormula: true,
      formula,
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    const inputs = await t.database.db
      .select({ inputId: formulaInputs.inputId })
      .from(formulaInputs)
      .where(eq(formulaInputs.indicatorId, res.body.id));
    expect(inputs.map((i) => i.inputId).sort()).toEqual([girls.id, boys.id].sort());

    const explicit = await create({
      name: 'Average',
      code: indicatorCode(),
      unit: 'x',
      isFormula: true,
      formula: girls.code,
      aggregationMethod: 'average',
    });
    expect(explicit.status).toBe(201);
    expect(explicit.body).toMatchObject({
      isFormula: true,
      formula: girls.code,
      aggregationMethod: 'average',
    });
  });

  it('matches codes whatever their case', async () => {
    const input = await indicator({ code: indicatorCode('Mixed') });
    const formula = `${input.code.toLowerCase()} + ${input.code.toUpperCase()}`;
    const res = await create({ name: 'x', code: indicatorCode(), unit: 'x', formula });
    expect([res.status, res.body.formula]).toEqual([201, formula]);
  });

  it('rejects a formula that contradicts isFormula (400)', async () => {
    const input = await indicator();
    const base = { name: 'x', code: indicatorCode(), unit: 'x' };
    expectViolations(
      await create({ ...base, isFormula: true, aggregationMethod: 'sum' }),
      'formula is required when isFormula is true',
    );
    expectViolations(
      await create({ ...base, isFormula: true, formula: '  ' }),
      'formula is required when isFormula is true',
    );
    expectViolations(
      await create({ ...base, isFormula: false, formula: input.code, aggregationMethod: 'sum' }),
      'formula is only allowed when isFormula is true',
    );
    expect((await list('', team.admin)).body.some((i: IndicatorJson) => i.code === base.code)).toBe(false);
  });

  it('rejects unknown codes, its own code and forbidden syntax (400)', async () => {
    const input = await indicator();
    const code = indicatorCode('SELF');
    const base = { name: 'x', code, unit: 'x' };
    expectViolations(
      await create({ ...base, formula: `${input.code} + NOPE_1 * Nope_2` }),
      'formula uses unknown indicator code NOPE_1',
      'formula uses unknown indicator code Nope_2',
    );
    expectViolations(
      await create({ ...base, formula: `${input.code} + ${code.toLowerCase()}` }),
      'formula must not use the indicator’s own code',
    );
    expectViolations(
      await create({ ...base, formula: `${input.code} % 2` }),
      'formula: operator % is not allowed',
    );
    expectViolations(
      await create({ ...base, formula: `Math.max(${input.code})` }),
      'formula: function calls are not allowed',
    );
    expect((await list('', team.admin)).body.some((i: IndicatorJson) => i.code === code)).toBe(false);
  });

  it('refuses a formula that closes a cycle (400), directly or through other formulas', async () => {
    const c = await indicator({ code: indicatorCode('C') });
    const b = await indicator({ code: indicatorCode('B') });
    const a = await formulaIndicator(`${b.code} * 2`);

    expectViolations(
      await patch(b.id, { formula: a.code }),
      `formula creates a cycle: ${a.code} depends on this indicator`,
    );
    expect(await stored(b.id)).toMatchObject({ isFormula: false, formula: null });

    const bUsesC = await patch(b.id, { formula: `${c.code} + 1` });
    expect([bUsesC.status, bUsesC.body.isFormula, bUsesC.body.formula]).toEqual([200, true, `${c.code} + 1`]);
    expectViolations(
      await patch(c.id, { formula: `1 + ${a.code.toLowerCase()}` }),
      `formula creates a cycle: ${a.code} depends on this indicator`,
    );
    expect(await stored(c.id)).toMatchObject({ isFormula: false, formula: null });
    expectViolations(await patch(a.id, { formula: a.code }), 'formula must not use the indicator’s own code');
  });

  it('lets only one of two concurrent edits close a cycle', async () => {
    const a = await indicator();
    const b = await indicator();
    const [first, second] = await Promise.all([
      patch(a.id, { formula: b.code }),
      patch(b.id, { formula: a.code }),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 400]);
    const edges = await t.database.db.select().from(formulaInputs);
    expect(edges.filter((e) => e.indicatorId === a.id || e.indicatorId === b.id)).toHaveLength(1);
  });

  it('keeps a formula indicator a formula: clearing the formula alone is 400', async () => {
    const input = await indicator();
    const user = await formulaIndicator(input.code);
    for (const formula of [null, ' ']) {
      expectViolations(await patch(user.id, { formula }), 'formula is required when isFormula is true');
    }
    expect(await stored(user.id)).toMatchObject({ isFormula: true, formula: input.code });
  });

  it('replaces a formula that no longer closes a cycle', async () => {
    const b = await indicator();
    const a = await formulaIndicator(b.code);
    const other = await indicator();
    // a no longer reads b: b may now read a.
    expect((await patch(a.id, { formula: other.code })).status).toBe(200);
    const res = await patch(b.id, { formula: a.code });
    expect([res.status, res.body.formula]).toEqual([200, a.code]);
  });

  it('refuses to rename a code a formula uses (409) but allows a change of case', async () => {
    const input = await indicator({ code: indicatorCode('In') });
    const user = await formulaIndicator(`${input.code} * 2`);
    expectError(
      await patch(input.id, { code: indicatorCode('Renamed') }),
      conflictBody(`Indicator code is used in the formula of ${user.code}`),
    );
    expect((await stored(input.id))!.code).toBe(input.code);
    const second = await formulaIndicator(`${input.code} + 1`, { code: `${user.code}_2` });
    expectError(
      await patch(input.id, { code: indicatorCode('Renamed') }),
      conflictBody(`Indicator code is used in the formula of ${user.code}, ${second.code}`),
    );
    const recased = await patch(input.id, { code: input.code.toUpperCase() });
    expect([recased.status, recased.body.code]).toEqual([200, input.code.toUpperCase()]);
  });

  it('refuses to delete an indicator a formula uses (409) until the formula is removed', async () => {
    const input = await indicator();
    const user = await formulaIndicator(`${input.code} + 1`);
    expectError(await remove(input.id), conflictBody(`Indicator is used in the formula of ${user.code}`));
    expect(await stored(input.id)).toBeDefined();

    expectViolations(await patch(user.id, { isFormula: false }), 'aggregationMethod is required');
    expect(await stored(user.id)).toMatchObject({ isFormula: true, formula: `${input.code} + 1` });

    const plain = await patch(user.id, { isFormula: false, aggregationMethod: 'max' });
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({ isFormula: false, formula: null, aggregationMethod: 'max' });
    const res = await remove(input.id);
    expect([res.status, res.body]).toEqual([204, null]);
    expect(await stored(input.id)).toBeUndefined();
  });

  it('refuses to make an indicator with reports a formula (409)', async () => {
    const input = await indicator();
    const reported = await indicator();
    await reportOn(reported.id);
    expectError(
      await patch(reported.id, { formula: input.code }),
      conflictBody('Indicator has indicator reports; a formula indicator cannot have any'),
    );
    expect(await stored(reported.id)).toMatchObject({ isFormula: false, formula: null });
  });
});

describe('GET /orgs/:orgId/indicators/:id', () => {
  it('is readable by every role; another organization’s id or a missing one is 404', async () => {
    const mine = await indicator();
    for (const user of [team.admin, team.officer, team.reporter, team.viewer]) {
      const res = await call(t.app, 'GET', indicatorUrl(team.org.id, mine.id), { as: user });
      expect([res.status, res.body]).toEqual([200, mine]);
    }
    const foreign = await postIndicator(t.app, team.outsider, team.outsiderOrg.id);
    for (const id of [foreign.id, MISSING_ID]) {
      const res = await call(t.app, 'GET', indicatorUrl(team.org.id, id), { as: team.admin });
      expectError(res, notFoundBody('Indicator'));
    }
    const bad = await call(t.app, 'GET', indicatorUrl(team.org.id, 'nope'), { as: team.admin });
    expect([bad.status, bad.body]).toEqual([400, badRequest('id must be a UUID')]);
    expectError(
      await call(t.app, 'GET', indicatorUrl(team.org.id, mine.id), { as: team.outsider }),
      FORBIDDEN,
    );
    expectError(await call(t.app, 'GET', indicatorUrl(team.org.id, mine.id)), UNAUTHORIZED);
  });
});

describe('PATCH /orgs/:orgId/indicators/:id', () => {
  it('changes any subset and answers the whole indicator', async () => {
    const node = await newNode();
    const created = await indicator({ description: 'Old', dataSource: 'Survey' });
    const code = indicatorCode('New');
    const res = await patch(created.id, {
      name: ' Girls enrolled ',
      code,
      unit: 'girls',
      aggregationMethod: 'max',
      description: null,
      dataSource: '  ',
      resultNodeId: node.id,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...created,
      name: 'Girls enrolled',
      code,
      unit: 'girls',
      aggregationMethod: 'max',
      description: null,
      dataSource: null,
      resultNodeId: node.id,
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    const detached = await patch(created.id, { resultNodeId: null }, team.admin);
    expect([detached.status, detached.body.resultNodeId]).toEqual([200, null]);
    const same = await patch(created.id, {});
    expect([same.status, same.body]).toEqual([
      200,
      { ...detached.body, updatedAt: expect.stringMatching(TIMESTAMP) },
    ]);
  });

  it('rejects body violations (400) and leaves the indicator unchanged', async () => {
    const created = await indicator();
    const cases: [unknown, string[]][] = [
      [{ code: '9lives' }, ['code has an invalid format']],
      [{ name: '' }, ['name should not be empty']],
      [
        { aggregationMethod: null },
        [
          'aggregationMethod must be a string',
          'aggregationMethod must be one of: sum, average, latest, min, max',
        ],
      ],
      [{ isFormula: 'yes' }, ['isFormula must be a boolean']],
      [
        { id: MISSING_ID, orgId: team.org.id, createdAt: '2026-01-01T00:00:00.000Z' },
        [
          'property id should not exist',
          'property orgId should not exist',
          'property createdAt should not exist',
        ],
      ],
      [{ isFormula: true }, ['formula is required when isFormula is true']],
    ];
    for (const [body, messages] of cases) expectViolations(await patch(created.id, body), ...messages);
    const bad = await call(t.app, 'PATCH', indicatorUrl(team.org.id, 'nope'), { as: team.admin, body: {} });
    expect([bad.status, bad.body]).toEqual([400, badRequest('id must be a UUID')]);
    const get = await call(t.app, 'GET', indicatorUrl(team.org.id, created.id), { as: team.admin });
    expect(get.body).toEqual(created);
  });

  it('refuses a code taken by another indicator whatever its case (409); its own in another case is fine', async () => {
    const taken = await indicator({ code: indicatorCode('taken') });
    const created = await indicator();
    expectError(await patch(created.id, { code: taken.code.toUpperCase() }), CODE_TAKEN);
    const recased = await patch(created.id, { code: created.code.toLowerCase() });
    expect([recased.status, recased.body.code]).toEqual([200, created.code.toLowerCase()]);
  });

  it('answers 404 for a result node of another organization or a missing one', async () => {
    const created = await indicator();
    const foreign = await newNode(team.outsiderOrg.id);
    for (const resultNodeId of [foreign.id, MISSING_ID]) {
      expectError(await patch(created.id, { resultNodeId }), notFoundBody('Result node'));
    }
    expect((await stored(created.id))!.resultNodeId).toBeNull();
  });

  it('answers 404 for another organization’s indicator; others 403, no session 401', async () => {
    const foreign = await postIndicator(t.app, team.outsider, team.outsiderOrg.id, { name: 'Theirs' });
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(await patch(id, { name: 'Mine' }, team.admin), notFoundBody('Indicator'));
    }
    expect((await stored(foreign.id))!.name).toBe('Theirs');

    const created = await indicator({ name: 'Ours' });
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await patch(created.id, { name: 'x' }, user), FORBIDDEN);
    }
    const anonymous = await call(t.app, 'PATCH', indicatorUrl(team.org.id, created.id), {
      body: { name: 'x' },
    });
    expectError(anonymous, UNAUTHORIZED);
    expect((await stored(created.id))!.name).toBe('Ours');
  });
});

describe('DELETE /orgs/:orgId/indicators/:id', () => {
  it('deletes the indicator with its project links and disaggregations (204), then 404', async () => {
    const created = await indicator();
    const project = await createProject(t.database.db, team.org.id);
    await linkIndicator(t.app, team.officer, team.org.id, project.id, created.id);
    await postDisaggregation(t.app, team.officer, team.org.id, created.id, 'Sex', ['female', 'male']);

    const res = await remove(created.id, team.admin);
    expect([res.status, res.body]).toEqual([204, null]);
    expect(await stored(created.id)).toBeUndefined();
    const links = await t.database.db
      .select()
      .from(projectIndicators)
      .where(eq(projectIndicators.indicatorId, created.id));
    const dims = await t.database.db
      .select()
      .from(disaggregations)
      .where(eq(disaggregations.indicatorId, created.id));
    expect([links, dims]).toEqual([[], []]);
    expectError(await remove(created.id), notFoundBody('Indicator'));
  });

  it('deletes a formula indicator and its formula edges', async () => {
    const input = await indicator();
    const user = await formulaIndicator(input.code);
    expect((await remove(user.id)).status).toBe(204);
    const edges = await t.database.db
      .select()
      .from(formulaInputs)
      .where(eq(formulaInputs.indicatorId, user.id));
    expect(edges).toEqual([]);
    expect((await remove(input.id)).status).toBe(204);
  });

  it('refuses while indicator reports exist (409) and keeps everything', async () => {
    const created = await indicator();
    await postDisaggregation(t.app, team.officer, team.org.id, created.id, 'Sex', ['female', 'male']);
    const report = await reportOn(created.id, { disaggregatedValues: { female: 2, male: 3 } });
    expect(report.value).toBe(5);
    expectError(await remove(created.id), conflictBody('Indicator has indicator reports'));
    expect(await stored(created.id)).toBeDefined();
    const links = await t.database.db
      .select()
      .from(projectIndicators)
      .where(eq(projectIndicators.indicatorId, created.id));
    const dims = await t.database.db
      .select()
      .from(disaggregations)
      .where(eq(disaggregations.indicatorId, created.id));
    expect([links.length, dims.length]).toEqual([1, 1]);
  });

  it('answers 404 for another organization’s indicator; others 403, no session 401; bad id 400', async () => {
    const foreign = await postIndicator(t.app, team.outsider, team.outsiderOrg.id);
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(await remove(id, team.admin), notFoundBody('Indicator'));
    }
    expect(await stored(foreign.id)).toBeDefined();
    const created = await indicator();
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await remove(created.id, user), FORBIDDEN);
    }
    expectError(await call(t.app, 'DELETE', indicatorUrl(team.org.id, created.id)), UNAUTHORIZED);
    expect(await stored(created.id)).toBeDefined();
    const bad = await call(t.app, 'DELETE', indicatorUrl(team.org.id, 'nope'), { as: team.admin });
    expect([bad.status, bad.body]).toEqual([400, badRequest('id must be a UUID')]);
  });
});

describe('GET /orgs/:orgId/indicators', () => {
  it('lists the organization’s indicators by code whatever its case, plain or paged', async () => {
    // An organization of its own, so the list holds exactly these.
    const org = await createOrg(t.app, team.admin, 'Sorted NGO');
    const make = (code: string) => postIndicator(t.app, team.admin, org.id, { code });
    const b = await make('b_two');
    const a = await make('A_one');
    const c = await make('C_three');
    const under = await make('_first');
    const lowerC = await make('c_2');
    const res = await call(t.app, 'GET', indicatorsUrl(org.id), { as: team.admin });
    expect(res.status).toBe(200);
    expect(res.body.map((i: IndicatorJson) => i.code)).toEqual([
      '_first',
      'A_one',
      'b_two',
      'c_2',
      'C_three',
    ]);
    expect(res.body).toEqual([under, a, b, lowerC, c]);

    const paged = await call(t.app, 'GET', `${indicatorsUrl(org.id)}?page=2&limit=2`, { as: team.admin });
    expect([paged.status, paged.body]).toEqual([
      200,
      { data: [b, lowerC], meta: { total: 5, page: 2, limit: 2, totalPages: 3 } },
    ]);
    const limitOnly = await call(t.app, 'GET', `${indicatorsUrl(org.id)}?limit=1`, { as: team.admin });
    expect(limitOnly.body).toEqual({ data: [under], meta: { total: 5, page: 1, limit: 1, totalPages: 5 } });
    const past = await call(t.app, 'GET', `${indicatorsUrl(org.id)}?page=9`, { as: team.admin });
    expect(past.body).toEqual({ data: [], meta: { total: 5, page: 9, limit: 20, totalPages: 1 } });
  });

  it('filters by result node', async () => {
    const node = await newNode();
    const other = await newNode();
    const second = await indicator({ code: indicatorCode('N2'), resultNodeId: node.id });
    const first = await indicator({ code: indicatorCode('N1'), resultNodeId: node.id });
    await indicator({ resultNodeId: other.id });
    await indicator();
    const res = await list(`?resultNodeId=${node.id}`);
    expect([res.status, res.body]).toEqual([200, [first, second]]);
    const paged = await list(`?resultNodeId=${node.id}&limit=1`);
    expect(paged.body).toEqual({ data: [first], meta: { total: 2, page: 1, limit: 1, totalPages: 2 } });
  });

  it('filters by project: only the indicators linked to it', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const other = await createProject(t.database.db, team.org.id);
    const linked = await indicator();
    const elsewhere = await indicator();
    await indicator();
    await linkIndicator(t.app, team.officer, team.org.id, project.id, linked.id);
    await linkIndicator(t.app, team.officer, team.org.id, other.id, elsewhere.id);
    const res = await list(`?projectId=${project.id}`);
    expect([res.status, res.body]).toEqual([200, [linked]]);

    const node = await newNode();
    const both = await indicator({ resultNodeId: node.id });
    await indicator({ resultNodeId: node.id });
    await linkIndicator(t.app, team.officer, team.org.id, project.id, both.id);
    const combined = await list(`?projectId=${project.id}&resultNodeId=${node.id}`);
    expect(combined.body).toEqual([both]);
  });

  it('answers 404 for a filter naming something not in the organization', async () => {
    const foreignNode = await newNode(team.outsiderOrg.id);
    const foreignProject = await createProject(t.database.db, team.outsiderOrg.id);
    for (const id of [foreignNode.id, MISSING_ID]) {
      expectError(await list(`?resultNodeId=${id}`), notFoundBody('Result node'));
    }
    for (const id of [foreignProject.id, MISSING_ID]) {
      expectError(await list(`?projectId=${id}`), notFoundBody('Project'));
    }
  });

  it('rejects an invalid query (400)', async () => {
    expect((await list('?resultNodeId=nope')).body).toEqual(badRequest('resultNodeId must be a UUID'));
    expect((await list('?projectId=1')).body).toEqual(badRequest('projectId must be a UUID'));
    expect((await list('?limit=101')).body).toEqual(badRequest('limit must not be greater than 100'));
    expect((await list('?page=0')).body).toEqual(badRequest('page must not be less than 1'));
  });

  it('lets a reporter filter by an assigned project only (403 otherwise); every role reads', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const linked = await indicator();
    await linkIndicator(t.app, team.officer, team.org.id, project.id, linked.id);
    expectError(await list(`?projectId=${project.id}`, team.reporter), FORBIDDEN);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const allowed = await list(`?projectId=${project.id}`, team.reporter);
    expect([allowed.status, allowed.body]).toEqual([200, [linked]]);

    for (const user of [team.admin, team.officer, team.reporter, team.viewer]) {
      const res = await list('', user);
      expect(res.status).toBe(200);
      expect(res.body).toContainEqual(linked);
    }
    expectError(await list('', team.outsider), FORBIDDEN);
    expectError(await call(t.app, 'GET', indicatorsUrl(team.org.id)), UNAUTHORIZED);
  });
});

describe('deleting a result node', () => {
  it('leaves its indicators in place with resultNodeId null', async () => {
    const node = await newNode();
    const attached = await indicator({ resultNodeId: node.id });
    const res = await call(t.app, 'DELETE', `/orgs/${team.org.id}/result-nodes/${node.id}`, {
      as: team.officer,
    });
    expect(res.status).toBe(204);
    const get = await call(t.app, 'GET', indicatorUrl(team.org.id, attached.id), { as: team.viewer });
    expect([get.status, get.body]).toEqual([200, { ...attached, resultNodeId: null }]);
  });
});
