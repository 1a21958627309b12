import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  badRequest,
  call,
  expectError,
  expectViolations,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  MANAGERS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { CODE_TAKEN, conflictBody, indicatorScene } from '../../../test/helpers/indicator-scenes.js';
import {
  indicatorCode,
  indicatorUrl,
  linkIndicator,
  postDisaggregation,
  postIndicator,
} from '../../../test/helpers/indicators.js';
import { disaggregations, formulaInputs, projectIndicators } from './indicators.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const scene = indicatorScene(() => ({ t, team }));
const { patch, remove, indicator, formulaIndicator, newNode, stored, reportOn } = scene;

/** The project links and disaggregations stored for an indicator. */
async function linksAndDimensions(indicatorId: string) {
  const db = t.database.db;
  const links = await db
    .select()
    .from(projectIndicators)
    .where(eq(projectIndicators.indicatorId, indicatorId));
  const dims = await db.select().from(disaggregations).where(eq(disaggregations.indicatorId, indicatorId));
  return [links, dims] as const;
}

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
      [
        { code: '9lives' },
        [
          'code must be 1 to 64 letters, digits or underscores, starting with a letter or underscore, as formulas name indicators by code',
        ],
      ],
      [{ name: '' }, ['name should not be empty']],
      [
        { aggregationMethod: null },
        [
          'aggregationMethod must be a string',
          'aggregationMethod must be one of sum, average, latest, min, max',
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
      expectError(await patch(created.id, { name: 'x' }, user), refusedTo(team, user, MANAGERS));
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
    const [links, dims] = await linksAndDimensions(created.id);
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
    const [links, dims] = await linksAndDimensions(created.id);
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
      expectError(await remove(created.id, user), refusedTo(team, user, MANAGERS));
    }
    expectError(await call(t.app, 'DELETE', indicatorUrl(team.org.id, created.id)), UNAUTHORIZED);
    expect(await stored(created.id)).toBeDefined();
    const bad = await call(t.app, 'DELETE', indicatorUrl(team.org.id, 'nope'), { as: team.admin });
    expect([bad.status, bad.body]).toEqual([400, badRequest('id must be a UUID')]);
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
