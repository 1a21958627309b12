import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assignProject, createOrg, createProject } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  badRequest,
  call,
  expectError,
  expectViolations,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  ALL_ROLES,
  MANAGERS,
  notAMember,
  notAssigned,
  refusedTo,
} from '../../../test/helpers/http.js';
import { CODE_TAKEN, indicatorScene } from '../../../test/helpers/indicator-scenes.js';
import {
  indicatorCode,
  indicatorsUrl,
  indicatorUrl,
  linkIndicator,
  postIndicator,
  type IndicatorJson,
} from '../../../test/helpers/indicators.js';
import { indicators } from './indicators.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const { create, list, indicator, newNode } = indicatorScene(() => ({ t, team }));
const INVALID_CODE =
  'code must be 1 to 64 letters, digits or underscores, starting with a letter or underscore, as formulas name indicators by code';

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
      qualityChecks: null,
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
      [{}, ['name is required', 'code is required', 'unit is required', 'aggregationMethod is required']],
      [{ name: 'x', code: indicatorCode(), unit: 'x' }, ['aggregationMethod is required']],
      [{ ...base, code: '1ABC' }, [INVALID_CODE]],
      [{ ...base, code: 'ABC-1' }, [INVALID_CODE]],
      [{ ...base, code: `A${'b'.repeat(64)}` }, [INVALID_CODE]],
      [{ ...base, code: '' }, [INVALID_CODE]],
      [
        { ...base, code: 'A', name: '  ', unit: '' },
        ['name should not be empty', 'unit should not be empty'],
      ],
      [
        { ...base, code: 'A', aggregationMethod: 'median' },
        ['aggregationMethod must be one of sum, average, latest, min, max'],
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
      expectError(await create(body, user), refusedTo(team, user, MANAGERS));
    }
    const anonymous = await call(t.app, 'POST', indicatorsUrl(team.org.id), { body });
    expectError(anonymous, UNAUTHORIZED);
    const all = await list('', team.admin);
    expect(all.body.some((i: IndicatorJson) => i.code === code)).toBe(false);
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
      notAMember(ALL_ROLES),
    );
    expectError(await call(t.app, 'GET', indicatorUrl(team.org.id, mine.id)), UNAUTHORIZED);
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
    expectError(await list(`?projectId=${project.id}`, team.reporter), notAssigned(ALL_ROLES));
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const allowed = await list(`?projectId=${project.id}`, team.reporter);
    expect([allowed.status, allowed.body]).toEqual([200, [linked]]);

    for (const user of [team.admin, team.officer, team.reporter, team.viewer]) {
      const res = await list('', user);
      expect(res.status).toBe(200);
      expect(res.body).toContainEqual(linked);
    }
    expectError(await list('', team.outsider), notAMember(ALL_ROLES));
    expectError(await call(t.app, 'GET', indicatorsUrl(team.org.id)), UNAUTHORIZED);
  });
});
