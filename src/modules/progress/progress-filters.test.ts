import { describe, expect, it } from 'vitest';
import { assignProject, createProgram } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  UNAUTHORIZED,
  badRequest,
  call,
  expectError,
  notFoundBody,
  ALL_ROLES,
  notAMember,
  notAssigned,
} from '../../../test/helpers/http.js';
import { indicatorCode, linkIndicator, postIndicator } from '../../../test/helpers/indicators.js';
import {
  entry,
  only,
  progress,
  progressScene,
  STATUSES,
  type Indicator,
  type Project,
} from '../../../test/helpers/progress-scenes.js';
import { insertResultNode } from '../../../test/helpers/results.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const scene = progressScene(() => ({ t, team }));
const { newProject, newIndicator, newFormula, quarter, report, bandUrl, band, allBands } = scene;

describe('GET /orgs/:orgId/indicators?status=: pairs, order, filters and access', () => {
  const newNode = async () => {
    const program = await createProgram(t.database.db, team.org.id);
    return insertResultNode(t.database.db, team.org.id, program.id, 'impact', null, 0);
  };

  /** Links the indicator to the project with `target` and one approved report of `value` in its quarter 1. */
  const firstQuarters = new Map<string, string>();
  async function scoredIn(project: Project, indicator: Indicator, value: number, target: number) {
    await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target });
    if (!firstQuarters.has(project.id)) firstQuarters.set(project.id, (await quarter(project.id, 1)).id);
    await report(project, indicator, firstQuarters.get(project.id)!, value);
  }

  it('gives one entry per project of an indicator, largest gap first, then by code, then project name', async () => {
    const node = await newNode();
    const [zeta, alpha] = [await newProject('Zeta Wells'), await newProject('Alpha Latrines')];
    const tag = indicatorCode('O');
    const [x, y, z, w] = [
      await newIndicator({ code: `a_${tag}`, resultNodeId: node.id }),
      await newIndicator({ code: `B_${tag}`, resultNodeId: node.id }),
      await newIndicator({ code: `c_${tag}`, resultNodeId: node.id }),
      await newIndicator({ code: `d_${tag}`, resultNodeId: node.id }),
    ];
    const detached = await newIndicator({ code: `e_${tag}` });
    await scoredIn(zeta, x, 10, 100);
    await scoredIn(alpha, x, 30, 100);
    await scoredIn(zeta, y, 30, 100);
    await scoredIn(alpha, z, 60, 200);
    await scoredIn(zeta, w, 50, 100);
    await scoredIn(alpha, w, 50, 100);
    await scoredIn(zeta, detached, 0, 100);

    expect(await band('off_track', { resultNodeId: node.id })).toEqual([
      entry(z, alpha, progress(60, 200, 30, 'off_track', 140)),
      entry(x, zeta, progress(10, 100, 10, 'off_track', 90)),
      entry(x, alpha, progress(30, 100, 30, 'off_track', 70)),
      entry(y, zeta, progress(30, 100, 30, 'off_track', 70)),
      entry(w, alpha, progress(50, 100, 50, 'off_track', 50)),
      entry(w, zeta, progress(50, 100, 50, 'off_track', 50)),
    ]);
  });

  it('combines the projectId and resultNodeId filters with status', async () => {
    const [node, otherNode] = [await newNode(), await newNode()];
    const [first, second] = [await newProject('Alpha'), await newProject('Beta')];
    const tag = indicatorCode('C');
    const onNode = await newIndicator({ code: `a_${tag}`, resultNodeId: node.id });
    const onOther = await newIndicator({ code: `b_${tag}`, resultNodeId: otherNode.id });
    const detached = await newIndicator({ code: `c_${tag}` });
    await scoredIn(first, onNode, 80, 100);
    await scoredIn(second, onNode, 80, 100);
    await scoredIn(first, onOther, 75, 100);
    await scoredIn(first, detached, 85, 100);

    const both = { projectId: first.id, resultNodeId: node.id };
    expect(await band('at_risk', both)).toEqual([entry(onNode, first, progress(80, 100, 80, 'at_risk', 20))]);
    expect(await band('at_risk', { resultNodeId: node.id })).toEqual([
      entry(onNode, first, progress(80, 100, 80, 'at_risk', 20)),
      entry(onNode, second, progress(80, 100, 80, 'at_risk', 20)),
    ]);
    expect(await band('at_risk', { projectId: first.id })).toEqual([
      entry(onOther, first, progress(75, 100, 75, 'at_risk', 25)),
      entry(onNode, first, progress(80, 100, 80, 'at_risk', 20)),
      entry(detached, first, progress(85, 100, 85, 'at_risk', 15)),
    ]);
    expect(await band('on_track', both)).toEqual([]);
    expect(await band('at_risk', { projectId: second.id, resultNodeId: otherNode.id })).toEqual([]);
  });

  it('answers 404 for a filter naming a project or result node of another organization, or a missing one', async () => {
    const foreignProject = await newProject('Theirs', team.outsiderOrg.id);
    const foreignProgram = await createProgram(t.database.db, team.outsiderOrg.id);
    const foreignNode = await insertResultNode(
      t.database.db,
      team.outsiderOrg.id,
      foreignProgram.id,
      'impact',
      null,
      0,
    );
    for (const projectId of [foreignProject.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'GET', bandUrl('on_track', { projectId }), { as: team.officer }),
        notFoundBody('Project'),
      );
    }
    for (const resultNodeId of [foreignNode.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'GET', bandUrl('on_track', { resultNodeId }), { as: team.officer }),
        notFoundBody('Result node'),
      );
    }
  });

  it('gives a reporter only the pairs of projects assigned to them; viewers see all', async () => {
    const node = await newNode();
    const [assigned, unassigned] = [await newProject('Assigned'), await newProject('Unassigned')];
    await assignProject(t.database.db, team.org.id, assigned.id, team.reporter.id);
    const tag = indicatorCode('R');
    const base = await newIndicator({ code: `I_${tag}`, resultNodeId: node.id });
    const doubled = await newFormula(`F_${tag}`, `I_${tag} * 2`, { resultNodeId: node.id });
    await scoredIn(assigned, base, 20, 100);
    await scoredIn(unassigned, base, 40, 100);
    await linkIndicator(t.app, team.officer, team.org.id, assigned.id, doubled.id, { target: 1000 });

    const inAssigned = [
      entry(doubled, assigned, progress(40, 1000, 4, 'off_track', 960)),
      entry(base, assigned, progress(20, 100, 20, 'off_track', 80)),
    ];
    const all = [...inAssigned, entry(base, unassigned, progress(40, 100, 40, 'off_track', 60))];
    // In no band at all, not even as no_data: the unassigned project's pair does not exist for the reporter.
    expect(await allBands({ resultNodeId: node.id }, team.reporter)).toEqual(only({ off_track: inAssigned }));
    expect(await band('off_track', { resultNodeId: node.id, projectId: assigned.id }, team.reporter)).toEqual(
      inAssigned,
    );
    expect(await band('off_track', { resultNodeId: node.id }, team.viewer)).toEqual(all);
    expect(await band('off_track', { resultNodeId: node.id }, team.admin)).toEqual(all);
    expectError(
      await call(t.app, 'GET', bandUrl('off_track', { projectId: unassigned.id }), { as: team.reporter }),
      notAssigned(ALL_ROLES),
    );
  });

  it('never shows another organization’s indicators, projects or reports', async () => {
    const tag = indicatorCode('X');
    const code = `S_${tag}`;
    const ours = await newProject('Ours');
    const mine = await newIndicator({ code });
    const myDouble = await newFormula(`D_${tag}`, `${code} * 2`);
    await scoredIn(ours, mine, 10, 100);
    await linkIndicator(t.app, team.officer, team.org.id, ours.id, myDouble.id, { target: 100 });
    // The other organization uses the same codes, with data that would put ours on track.
    const theirs = await newProject('Theirs', team.outsiderOrg.id);
    const foreign = await newIndicator({ code }, team.outsider, team.outsiderOrg.id);
    const theirDouble = (await postIndicator(t.app, team.outsider, team.outsiderOrg.id, {
      code: `D_${tag}`,
      formula: `${code} * 2`,
      aggregationMethod: undefined,
    })) as Indicator;
    for (const indicator of [foreign, theirDouble]) {
      await linkIndicator(t.app, team.outsider, team.outsiderOrg.id, theirs.id, indicator.id, {
        target: 100,
      });
    }
    const period = await quarter(theirs.id, 1, team.outsiderOrg.id);
    const opts = { as: team.outsider, reviewer: team.outsider, orgId: team.outsiderOrg.id };
    await report(theirs, foreign, period.id, 95, null, 'approved', opts);

    const everything = (await Promise.all(STATUSES.map((status) => band(status, {})))).flat() as {
      orgId: string;
      project: Project;
    }[];
    expect(everything.filter((e) => e.orgId !== team.org.id || e.project.id === theirs.id)).toEqual([]);
    expect(await band('off_track', { projectId: ours.id })).toEqual([
      entry(mine, ours, progress(10, 100, 10, 'off_track', 90)),
      entry(myDouble, ours, progress(20, 100, 20, 'off_track', 80)),
    ]);

    const outsiderView = await call(t.app, 'GET', bandUrl('on_track', {}, team.outsiderOrg.id), {
      as: team.outsider,
    });
    expect([outsiderView.status, outsiderView.body]).toEqual([
      200,
      [
        entry(foreign, theirs, progress(95, 100, 95, 'on_track', 5)),
        entry(theirDouble, theirs, progress(190, 100, 190, 'on_track', -90)),
      ],
    ]);
    expectError(
      await call(t.app, 'GET', bandUrl('on_track', { projectId: theirs.id }), { as: team.officer }),
      notFoundBody('Project'),
    );
    expectError(await call(t.app, 'GET', bandUrl('on_track'), { as: team.outsider }), notAMember(ALL_ROLES));
    expectError(await call(t.app, 'GET', bandUrl('on_track')), UNAUTHORIZED);
  });
});

describe('GET /orgs/:orgId/indicators?status=: query checks and paging', () => {
  it('rejects an unknown status with 400', async () => {
    const res = await call(t.app, 'GET', bandUrl('bogus'), { as: team.officer });
    expect([res.status, res.body]).toEqual([
      400,
      badRequest('status must be one of on_track, at_risk, off_track, no_target, no_data'),
    ]);
    const paged = await call(t.app, 'GET', bandUrl('on_track', { page: 0 }), { as: team.officer });
    expect(paged.body).toEqual(badRequest('page must not be less than 1'));
  });

  it('pages with the envelope and the total of the band', async () => {
    const project = await newProject();
    const period = await quarter(project.id, 1);
    const tag = indicatorCode('P');
    const scored = async (code: string, value: number) => {
      const indicator = await newIndicator({ code });
      await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target: 100 });
      await report(project, indicator, period.id, value);
      return indicator;
    };
    const [small, large, middle] = [
      await scored(`a_${tag}`, 60),
      await scored(`b_${tag}`, 10),
      await scored(`c_${tag}`, 30),
    ];
    await scored(`d_${tag}`, 95);
    const expected = [
      entry(large, project, progress(10, 100, 10, 'off_track', 90)),
      entry(middle, project, progress(30, 100, 30, 'off_track', 70)),
      entry(small, project, progress(60, 100, 60, 'off_track', 40)),
    ];
    const page = async (query: Record<string, number>) => {
      const res = await call(t.app, 'GET', bandUrl('off_track', { projectId: project.id, ...query }), {
        as: team.viewer,
      });
      expect(res.status).toBe(200);
      return res.body as unknown;
    };
    expect(await page({ limit: 2 })).toEqual({
      data: expected.slice(0, 2),
      meta: { total: 3, page: 1, limit: 2, totalPages: 2 },
    });
    expect(await page({ page: 2, limit: 2 })).toEqual({
      data: expected.slice(2),
      meta: { total: 3, page: 2, limit: 2, totalPages: 2 },
    });
    expect(await page({ page: 1 })).toEqual({
      data: expected,
      meta: { total: 3, page: 1, limit: 20, totalPages: 1 },
    });
    expect(await page({ page: 3, limit: 2 })).toEqual({
      data: [],
      meta: { total: 3, page: 3, limit: 2, totalPages: 2 },
    });
  });
});
