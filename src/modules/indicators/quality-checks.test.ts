import { describe, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import {
  badRequestAt,
  call,
  expectError,
  MANAGERS,
  MISSING_ID,
  notFoundBody,
  refusedTo,
  TIMESTAMP,
  UNAUTHORIZED,
} from '../../../test/helpers/http.js';
import { indicatorScene } from '../../../test/helpers/indicator-scenes.js';
import {
  indicatorCode,
  indicatorsUrl,
  indicatorUrl,
  linkIndicator,
  linksUrl,
  postIndicator,
} from '../../../test/helpers/indicators.js';
import { useSuite } from '../../../test/helpers/suite.js';
import type { RequestPart } from '../../errors/catalogue.js';

const { t, team } = useSuite();
const { create, patch, indicator, stored } = indicatorScene(() => ({ t, team }));

const bounds = { method: 'min_max', min: 0, max: 5000 };

/** A 400 about the body with exactly these `[path, rule, message]` problems. */
const bodyProblems = (...problems: [string, string, string][]) =>
  badRequestAt(
    ...problems.map(([path, rule, message]): [RequestPart, string, string, string] => [
      'body',
      path,
      rule,
      message,
    ]),
  );

/** Bodies' qualityChecks the schema or the service refuses, with every problem each gets. */
const refused: [unknown, [string, string, string][]][] = [
  [{}, [['/qualityChecks/method', 'required', 'qualityChecks.method is required']]],
  [
    { method: 'iqr' },
    [['/qualityChecks/method', 'enum', 'qualityChecks.method must be one of modified_z, z, min_max, off']],
  ],
  [
    { method: 'z', threshold: 0 },
    [['/qualityChecks/threshold', 'exclusiveMinimum', 'qualityChecks.threshold must be > 0']],
  ],
  [
    { method: 'modified_z', threshold: -2 },
    [['/qualityChecks/threshold', 'exclusiveMinimum', 'qualityChecks.threshold must be > 0']],
  ],
  [
    { method: 'z', threshold: '3' },
    [['/qualityChecks/threshold', 'type', 'qualityChecks.threshold must be a number']],
  ],
  [
    { method: 'z', factor: 2 },
    [['/qualityChecks/factor', 'additionalProperties', 'property qualityChecks.factor should not exist']],
  ],
  ['z', [['/qualityChecks', 'type', 'qualityChecks must be an object']]],
  [[], [['/qualityChecks', 'type', 'qualityChecks must be an object']]],
  [
    { method: 'min_max', threshold: 3, max: 10 },
    [
      [
        '/qualityChecks/threshold',
        'invalid',
        'qualityChecks.threshold is only allowed with the modified_z and z methods',
      ],
    ],
  ],
  [
    { method: 'off', threshold: 3 },
    [
      [
        '/qualityChecks/threshold',
        'invalid',
        'qualityChecks.threshold is only allowed with the modified_z and z methods',
      ],
    ],
  ],
  [
    { method: 'z', min: 0, max: 10 },
    [
      ['/qualityChecks/min', 'invalid', 'qualityChecks.min is only allowed with the min_max method'],
      ['/qualityChecks/max', 'invalid', 'qualityChecks.max is only allowed with the min_max method'],
    ],
  ],
  [
    { method: 'modified_z', max: 10 },
    [['/qualityChecks/max', 'invalid', 'qualityChecks.max is only allowed with the min_max method']],
  ],
  [
    { method: 'min_max' },
    [['/qualityChecks', 'invalid', 'qualityChecks needs min, max or both with the min_max method']],
  ],
  [
    { method: 'min_max', min: 10, max: 5 },
    [['/qualityChecks/min', 'invalid', 'qualityChecks.min must not be greater than qualityChecks.max']],
  ],
];

describe('an indicator’s qualityChecks', () => {
  it('is null (the defaults) until set, wherever the indicator is answered', async () => {
    const created = await indicator();
    expect(created.qualityChecks).toBeNull();
    const project = await createProject(t.database.db, team.org.id);
    await linkIndicator(t.app, team.officer, team.org.id, project.id, created.id);
    const one = await call(t.app, 'GET', indicatorUrl(team.org.id, created.id), { as: team.viewer });
    expect(one.body).toEqual(created);
    const links = await call(t.app, 'GET', linksUrl(team.org.id, project.id), { as: team.viewer });
    expect(links.body[0].indicator).toEqual(created);
  });

  it('is set on create and shown by every read of the indicator, the progress reads included', async () => {
    const created = await indicator({ qualityChecks: bounds });
    expect(created.qualityChecks).toEqual(bounds);
    expect((await stored(created.id))!.qualityChecks).toEqual(bounds);

    const one = await call(t.app, 'GET', indicatorUrl(team.org.id, created.id), { as: team.reporter });
    expect(one.body).toEqual(created);
    const listed = await call(t.app, 'GET', indicatorsUrl(team.org.id), { as: team.viewer });
    expect(listed.body.find((i: { id: string }) => i.id === created.id)).toEqual(created);

    const project = await createProject(t.database.db, team.org.id);
    await linkIndicator(t.app, team.officer, team.org.id, project.id, created.id);
    const inBand = await call(
      t.app,
      'GET',
      `${indicatorsUrl(team.org.id)}?status=no_data&projectId=${project.id}`,
      { as: team.viewer },
    );
    expect(inBand.body).toEqual([
      {
        ...created,
        project: { id: project.id, name: project.name },
        progress: { value: null, target: null, progressPct: null, status: 'no_data', gap: null },
      },
    ]);
  });

  it('is replaced as a whole by PATCH, kept by a PATCH that does not name it, and cleared by null', async () => {
    const created = await indicator();
    const steps: Record<string, unknown>[] = [
      { method: 'z' },
      { method: 'z', threshold: 2.5 },
      { method: 'modified_z', threshold: 5 },
      { method: 'min_max', max: 100 },
      { method: 'min_max', min: -10 },
      { method: 'min_max', min: 7, max: 7 },
      { method: 'off' },
    ];
    for (const qualityChecks of steps) {
      const res = await patch(created.id, { qualityChecks });
      expect([res.status, res.body], JSON.stringify(qualityChecks)).toEqual([
        200,
        { ...created, qualityChecks, updatedAt: expect.stringMatching(TIMESTAMP) },
      ]);
      expect((await stored(created.id))!.qualityChecks).toEqual(qualityChecks);
    }
    const renamed = await patch(created.id, { name: 'Renamed' });
    expect(renamed.body).toMatchObject({ name: 'Renamed', qualityChecks: { method: 'off' } });
    const cleared = await patch(created.id, { qualityChecks: null });
    expect([cleared.status, cleared.body.qualityChecks]).toEqual([200, null]);
    expect((await stored(created.id))!.qualityChecks).toBeNull();
  });

  it('refuses checks that do not hold together with 400, on create and on PATCH, and changes nothing', async () => {
    const created = await indicator({ qualityChecks: bounds });
    for (const [qualityChecks, problems] of refused) {
      const expected = bodyProblems(...problems);
      const patched = await patch(created.id, { qualityChecks });
      expect([patched.status, patched.body], JSON.stringify(qualityChecks)).toEqual([400, expected]);
      const body = {
        name: 'Wells',
        code: indicatorCode(),
        unit: 'wells',
        aggregationMethod: 'sum',
        qualityChecks,
      };
      const posted = await create(body);
      expect([posted.status, posted.body], JSON.stringify(qualityChecks)).toEqual([400, expected]);
    }
    expect((await stored(created.id))!.qualityChecks).toEqual(bounds);
  });

  it('refuses a threshold or a bound that no double holds (400)', async () => {
    const created = await indicator();
    const raw = '{"qualityChecks":{"method":"min_max","max":1e309}}';
    const res = await call(t.app, 'PATCH', indicatorUrl(team.org.id, created.id), {
      as: team.officer,
      body: raw,
      headers: { 'content-type': 'application/json' },
    });
    expect([res.status, res.body]).toEqual([
      400,
      bodyProblems(['/qualityChecks/max', 'finiteNumber', 'qualityChecks.max must be a finite number']),
    ]);
  });

  it('is changed by M&E officers and org admins only: others 403, no session 401', async () => {
    const created = await indicator();
    expect((await patch(created.id, { qualityChecks: bounds }, team.admin)).status).toBe(200);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await patch(created.id, { qualityChecks: null }, user), refusedTo(team, user, MANAGERS));
    }
    const anonymous = await call(t.app, 'PATCH', indicatorUrl(team.org.id, created.id), {
      body: { qualityChecks: null },
    });
    expectError(anonymous, UNAUTHORIZED);
    expect((await stored(created.id))!.qualityChecks).toEqual(bounds);
  });

  it('of another organization’s indicator answers 404 and stays as it was', async () => {
    const foreign = await postIndicator(t.app, team.outsider, team.outsiderOrg.id, { qualityChecks: bounds });
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(
        await patch(id, { qualityChecks: { method: 'off' } }, team.admin),
        notFoundBody('Indicator'),
      );
    }
    expect((await stored(foreign.id))!.qualityChecks).toEqual(bounds);
  });

  it('is described in the OpenAPI document with its defaults and choices', async () => {
    const doc = (await call(t.app, 'GET', '/api/openapi.json')).body;
    const schema = doc.components.schemas.IndicatorUpdate.properties.qualityChecks;
    expect(schema.description).toContain('null (the default): `modified_z` with threshold 3.5');
    expect(schema.description).toContain('at least 4 earlier values');
    expect(doc.paths['/orgs/{orgId}/indicators/{id}'].patch.description).toContain('`qualityChecks`');
  });
});
