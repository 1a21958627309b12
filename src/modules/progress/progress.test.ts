import { describe, expect, it } from 'vitest';
import { call } from '../../../test/helpers/http.js';
import { act, indicatorCode, linkIndicator } from '../../../test/helpers/indicators.js';
import { entry, only, progress, progressScene } from '../../../test/helpers/progress-scenes.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const scene = progressScene(() => ({ t, team }));
const { newProject, newIndicator, newFormula, quarter, report, scenario, band, allBands } = scene;

describe('GET /orgs/:orgId/indicators?status=: which reports count', () => {
  it('scores a sum past the largest double as no value, never a broken answer (the database sums it again exactly)', async () => {
    // Two values of 1e308 overflow a double: PostgreSQL refuses the float sum; the exact one reads as Infinity.
    const { project, indicator } = await scenario('sum', 100, [
      [1, 1e308, 1e308],
      [2, 1e308, 1e308],
    ]);
    const huge = await newIndicator({ aggregationMethod: 'max' });
    await linkIndicator(t.app, team.officer, team.org.id, project.id, huge.id, { target: 1e308 });
    await report(project, huge, (await quarter(project.id, 3)).id, 1.5e308);
    const bands = await allBands({ projectId: project.id });
    // Infinity has no JSON form: the sum and its target count as none; a gap past the largest double as none.
    expect(bands).toEqual(
      only({
        no_data: [entry(indicator, project, progress(null, null, null, 'no_data', null))],
        on_track: [entry(huge, project, progress(1.5e308, 1e308, 150, 'on_track', -5e307))],
      }),
    );
    const dashboard = await call(t.app, 'GET', `/orgs/${team.org.id}/dashboard-summary`, {
      as: team.officer,
    });
    expect(dashboard.status).toBe(200);
  });

  it('counts submitted and approved reports only: drafts and rejected ones neither add values nor targets', async () => {
    const { project, indicator, reports } = await scenario('sum', 100, [
      [1, 30, null, 'approved'],
      [2, 20, null, 'submitted'],
      [3, 40, 10, 'draft'],
      [4, 50, 10, 'rejected'],
    ]);
    expect(await allBands({ projectId: project.id })).toEqual(
      only({ off_track: [entry(indicator, project, progress(50, 100, 50, 'off_track', 50))] }),
    );
    // Submitted again after the rejection, it counts: value and period target.
    await act(t.app, team.officer, team.org.id, reports[3]!.id, 'submit');
    expect(await allBands({ projectId: project.id })).toEqual(
      only({ on_track: [entry(indicator, project, progress(100, 10, 1000, 'on_track', -90))] }),
    );
  });

  it('has no data when no report counts, whatever drafts and rejected reports hold', async () => {
    const { project, indicator } = await scenario('sum', 100, [
      [1, 95, 20, 'draft'],
      [2, 95, 20, 'rejected'],
    ]);
    const bare = await newIndicator();
    await linkIndicator(t.app, team.officer, team.org.id, project.id, bare.id, { target: 5 });
    const expected = [
      entry(indicator, project, progress(null, 100, null, 'no_data', null)),
      entry(bare, project, progress(null, 5, null, 'no_data', null)),
    ].sort((a, b) => a.code.toLowerCase().localeCompare(b.code.toLowerCase()));
    expect(await allBands({ projectId: project.id })).toEqual(only({ no_data: expected }));
  });
});

describe('GET /orgs/:orgId/indicators?status=: aggregation and cumulative target', () => {
  it('sum: adds the values and the counted periods’ targets (the link target is not used)', async () => {
    const { project, indicator } = await scenario('sum', 500, [
      [1, 30, 40],
      [2, 30, 30, 'submitted'],
      [3, 32, 30],
      [4, 5, 1000, 'draft'],
    ]);
    expect(await band('on_track', { projectId: project.id })).toEqual([
      entry(indicator, project, progress(92, 100, 92, 'on_track', 8)),
    ]);
  });

  it('sum: a counted period without a target adds nothing to the cumulative target', async () => {
    const { project, indicator } = await scenario('sum', 500, [
      [1, 30, 40],
      [2, 20, null],
    ]);
    expect(await band('on_track', { projectId: project.id })).toEqual([
      entry(indicator, project, progress(50, 40, 125, 'on_track', -10)),
    ]);
  });

  it('average: averages the values against the target of the latest period (by start) that has one', async () => {
    const { project, indicator } = await scenario('average', 500, [
      [3, 100, 100],
      [1, 60, 50],
      [2, 80, null],
    ]);
    expect(await allBands({ projectId: project.id })).toEqual(
      only({ at_risk: [entry(indicator, project, progress(80, 100, 80, 'at_risk', 20))] }),
    );
  });

  it('latest: takes the period that starts last, not the report created last', async () => {
    const { project, indicator } = await scenario('latest', 500, [
      [3, 45, 60],
      [1, 100, 200],
      [2, 10, null],
      [4, 1, 1, 'draft'],
    ]);
    expect(await allBands({ projectId: project.id })).toEqual(
      only({ at_risk: [entry(indicator, project, progress(45, 60, 75, 'at_risk', 15))] }),
    );
  });

  it('min: the smallest value, against the link target when no period has a target', async () => {
    const { project, indicator } = await scenario('min', 10, [
      [1, 30],
      [3, 10],
      [2, 20],
      [4, 5, null, 'rejected'],
    ]);
    expect(await allBands({ projectId: project.id })).toEqual(
      only({ on_track: [entry(indicator, project, progress(10, 10, 100, 'on_track', 0))] }),
    );
  });

  it('max: the largest value, against the latest period’s target', async () => {
    const { project, indicator } = await scenario('max', 1000, [
      [2, 10, 50],
      [1, 30, 20],
      [3, 20, 40],
      [4, 99, 99, 'draft'],
    ]);
    expect(await allBands({ projectId: project.id })).toEqual(
      only({ at_risk: [entry(indicator, project, progress(30, 40, 75, 'at_risk', 10))] }),
    );
  });

  it('no_target when the link target is null or 0 and no counted period has a target', async () => {
    const none = await scenario('sum', null, [
      [1, 10],
      [2, 5],
    ]);
    expect(await allBands({ projectId: none.project.id })).toEqual(
      only({ no_target: [entry(none.indicator, none.project, progress(15, null, null, 'no_target', null))] }),
    );
    const zero = await scenario('sum', 0, [
      [1, 10],
      [2, 5, null, 'submitted'],
    ]);
    expect(await allBands({ projectId: zero.project.id })).toEqual(
      only({ no_target: [entry(zero.indicator, zero.project, progress(15, 0, null, 'no_target', -15))] }),
    );
  });

  it('bands on the percent: exactly 90 is on_track, exactly 70 at_risk, just below each the next band', async () => {
    const project = await newProject();
    const period = await quarter(project.id, 1);
    const scored = async (value: number) => {
      const indicator = await newIndicator();
      await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target: 100 });
      await report(project, indicator, period.id, value);
      return indicator;
    };
    const [ninety, justBelowNinety, seventy, justBelowSeventy] = [
      await scored(90),
      await scored(89.9),
      await scored(70),
      await scored(69.9),
    ];
    expect(await allBands({ projectId: project.id })).toEqual(
      only({
        on_track: [entry(ninety, project, progress(90, 100, 90, 'on_track', 10))],
        at_risk: [
          entry(seventy, project, progress(70, 100, 70, 'at_risk', 30)),
          entry(justBelowNinety, project, progress(89.9, 100, 89.9, 'at_risk', 10.1)),
        ],
        off_track: [entry(justBelowSeventy, project, progress(69.9, 100, 69.9, 'off_track', 30.1))],
      }),
    );
  });
});

describe('GET /orgs/:orgId/indicators?status=: formula indicators', () => {
  it('evaluates the formula over the inputs’ aggregates in the same project, against the link target', async () => {
    const [project, elsewhere] = [await newProject('Schools'), await newProject('Clinics')];
    const tag = indicatorCode('F');
    const a = await newIndicator({ code: `A_${tag}`, aggregationMethod: 'sum' });
    const b = await newIndicator({ code: `B_${tag}`, aggregationMethod: 'latest' });
    // Codes in a formula may be written in any case.
    const f = await newFormula(`F_${tag}`, `a_${tag} / B_${tag} * 100`);
    const g = await newFormula(`G_${tag}`, `F_${tag} * 2`);
    for (const [indicator, target] of [
      [a, null],
      [b, null],
      [f, 60],
      [g, 100],
    ] as const) {
      await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target });
    }
    const [q1, q2] = [await quarter(project.id, 1), await quarter(project.id, 2)];
    await report(project, a, q1.id, 30);
    await report(project, a, q2.id, 10, null, 'submitted');
    await report(project, b, q2.id, 80);
    await report(project, b, q1.id, 100);
    // Values of the inputs in another project do not enter this project's formula.
    await linkIndicator(t.app, team.officer, team.org.id, elsewhere.id, a.id);
    await report(elsewhere, a, (await quarter(elsewhere.id, 1)).id, 1000);

    expect(await allBands({ projectId: project.id })).toEqual(
      only({
        on_track: [entry(g, project, progress(100, 100, 100, 'on_track', 0))],
        at_risk: [entry(f, project, progress(50, 60, 83.3, 'at_risk', 10))],
        no_target: [
          entry(a, project, progress(40, null, null, 'no_target', null)),
          entry(b, project, progress(80, null, null, 'no_target', null)),
        ],
      }),
    );
  });

  it('has no data when an input has no counted report, or when the formula divides by zero', async () => {
    const project = await newProject();
    const tag = indicatorCode('N');
    const a = await newIndicator({ code: `A_${tag}` });
    const c = await newIndicator({ code: `C_${tag}` });
    const z = await newIndicator({ code: `Z_${tag}` });
    const unlinked = await newIndicator({ code: `U_${tag}` });
    const missing = await newFormula(`M_${tag}`, `A_${tag} + C_${tag}`);
    const notLinked = await newFormula(`N_${tag}`, `A_${tag} + U_${tag}`);
    const divided = await newFormula(`D_${tag}`, `A_${tag} / Z_${tag}`);
    for (const indicator of [a, c, z]) {
      await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id);
    }
    for (const indicator of [missing, notLinked, divided]) {
      await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id, { target: 10 });
    }
    const period = await quarter(project.id, 1);
    await report(project, a, period.id, 10);
    await report(project, c, period.id, 4, null, 'draft');
    await report(project, z, period.id, 0);
    // U has reports in another project only.
    const other = await newProject();
    await linkIndicator(t.app, team.officer, team.org.id, other.id, unlinked.id);
    await report(other, unlinked, (await quarter(other.id, 1)).id, 3);

    expect(await allBands({ projectId: project.id })).toEqual(
      only({
        no_target: [
          entry(a, project, progress(10, null, null, 'no_target', null)),
          entry(z, project, progress(0, null, null, 'no_target', null)),
        ],
        no_data: [
          entry(c, project, progress(null, null, null, 'no_data', null)),
          entry(divided, project, progress(null, 10, null, 'no_data', null)),
          entry(missing, project, progress(null, 10, null, 'no_data', null)),
          entry(notLinked, project, progress(null, 10, null, 'no_data', null)),
        ],
      }),
    );
  });
});
