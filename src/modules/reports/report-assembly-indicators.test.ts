import { describe, expect, it } from 'vitest';
import { indicatorCode } from '../../../test/helpers/indicators.js';
import { at, indicatorEntry, reportData } from '../../../test/helpers/report-data.js';
import type { AggregationMethod } from '../../lib/scoring.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const data = reportData(() => ({ t, team }));
const { newProject, linked, value, quarters, assembleRange } = data;

const YEAR = ['2026-01-01', '2026-12-31'] as const;

describe('report assembly: aggregation by method against the cumulative target', () => {
  // Values entered Q3 first, then Q1, then Q2: "latest" follows the periods' dates, not entry order.
  // Q3: 25 (target 50), Q1: 10 (target 20), Q2: 40 (target 30); Q4 (1000, target 1) lies outside the range.
  it.each<[AggregationMethod, number, number, number, string]>([
    // 10 + 40 + 25 = 75 of 20 + 30 + 50 = 100 → 75%
    ['sum', 75, 100, 75, 'at_risk'],
    // (10 + 40 + 25) / 3 = 25 of Q3's 50 → 50%
    ['average', 25, 50, 50, 'off_track'],
    // Q3's 25 of Q3's 50 → 50%
    ['latest', 25, 50, 50, 'off_track'],
    // 10 of 50 → 20%
    ['min', 10, 50, 20, 'off_track'],
    // 40 of 50 → 80%
    ['max', 40, 50, 80, 'at_risk'],
  ])('%s: value %d of target %d scores %d, %s', async (method, sum, target, pct, status) => {
    const project = await newProject();
    const indicator = await linked(project, { aggregationMethod: method }, { target: 999, baseline: 4 });
    const [q1, q2, q3, q4] = await quarters(project);
    await value(project, indicator, q3!, { value: 25, target: 50 });
    await value(project, indicator, q1!, { value: 10, target: 20 });
    await value(project, indicator, q2!, { value: 40, target: 30 });
    await value(project, indicator, q4!, { value: 1000, target: 1 });

    const report = await assembleRange(project.id, '2026-01-01', '2026-09-30');
    expect(report.periodIds).toEqual([q1!.id, q2!.id, q3!.id]);
    expect(report.sections.indicators).toEqual([
      indicatorEntry(
        indicator,
        { value: sum, target, progressPct: pct, status: status as 'at_risk' },
        { baseline: 4, periods: [at(q1!, 10, 20), at(q2!, 40, 30), at(q3!, 25, 50)] },
      ),
    ]);
  });

  it('takes the cumulative target from the periods, else from the link; none or 0 is no_target', async () => {
    const project = await newProject();
    const tag = indicatorCode('T');
    const [q1, q2, q3] = await quarters(project, 3);
    const partSum = await linked(project, { code: `A_${tag}`, aggregationMethod: 'sum' }, { target: 999 });
    const noneSum = await linked(project, { code: `B_${tag}`, aggregationMethod: 'sum' }, { target: 40 });
    const noneLatest = await linked(
      project,
      { code: `C_${tag}`, aggregationMethod: 'latest' },
      { target: 40 },
    );
    const earlierAvg = await linked(
      project,
      { code: `D_${tag}`, aggregationMethod: 'average' },
      { target: 1 },
    );
    const untargeted = await linked(project, { code: `E_${tag}`, aggregationMethod: 'max' });
    const zero = await linked(project, { code: `F_${tag}`, aggregationMethod: 'sum' }, { target: 0 });
    for (const [period, target] of [
      [q1!, 20],
      [q2!, null],
      [q3!, 30],
    ] as const) {
      await value(project, partSum, period, { value: 10, target });
    }
    await value(project, noneSum, q1!, { value: 10 });
    await value(project, noneSum, q2!, { value: 20 });
    await value(project, noneLatest, q1!, { value: 50 });
    await value(project, noneLatest, q2!, { value: 30 });
    await value(project, earlierAvg, q1!, { value: 12, target: 10 });
    await value(project, earlierAvg, q2!, { value: 6 });
    await value(project, untargeted, q1!, { value: 7 });
    await value(project, zero, q1!, { value: 7 });

    const report = await assembleRange(project.id, ...YEAR);
    expect(report.sections.indicators).toEqual([
      // 10 + 10 + 10 = 30 of 20 + 30 = 50 (Q2 has no target and adds nothing) → 60%
      indicatorEntry(
        partSum,
        { value: 30, target: 50, progressPct: 60, status: 'off_track' },
        { periods: [at(q1!, 10, 20), at(q2!, 10), at(q3!, 10, 30)] },
      ),
      // 10 + 20 = 30 of the link's 40 → 75%
      indicatorEntry(
        noneSum,
        { value: 30, target: 40, progressPct: 75, status: 'at_risk' },
        { periods: [at(q1!, 10), at(q2!, 20), at(q3!, null)] },
      ),
      // latest 30 of the link's 40 → 75%
      indicatorEntry(
        noneLatest,
        { value: 30, target: 40, progressPct: 75, status: 'at_risk' },
        { periods: [at(q1!, 50), at(q2!, 30), at(q3!, null)] },
      ),
      // (12 + 6) / 2 = 9 of 10, the target of the latest period that has one (Q1), not the link's 1 → 90%
      indicatorEntry(
        earlierAvg,
        { value: 9, target: 10, progressPct: 90, status: 'on_track' },
        { periods: [at(q1!, 12, 10), at(q2!, 6), at(q3!, null)] },
      ),
      indicatorEntry(
        untargeted,
        { value: 7, target: null, progressPct: null, status: 'no_target' },
        { periods: [at(q1!, 7), at(q2!, null), at(q3!, null)] },
      ),
      indicatorEntry(
        zero,
        { value: 7, target: 0, progressPct: null, status: 'no_target' },
        { periods: [at(q1!, 7), at(q2!, null), at(q3!, null)] },
      ),
    ]);
  });

  it('bands on the percent rounded to one decimal: 89.9 at_risk, 90 on_track, 69.9 off_track, 70 at_risk', async () => {
    const project = await newProject();
    const [q1] = await quarters(project, 1);
    const tag = indicatorCode('B');
    const cases = [
      // [value, link target, progressPct, status]
      [899, 1000, 89.9, 'at_risk'], // 899 / 1000 = 89.9%
      [900, 1000, 90, 'on_track'], // 90%
      [699, 1000, 69.9, 'off_track'], // 69.9%
      [700, 1000, 70, 'at_risk'], // 70%
      [1799, 2000, 90, 'on_track'], // 89.95% rounds half up to 90.0
      [17988, 20000, 89.9, 'at_risk'], // 89.94% rounds down to 89.9
      [0, 50, 0, 'off_track'], // a value of 0 is 0%
      [150, 100, 150, 'on_track'], // above the target
    ] as const;
    const expected = [];
    for (const [i, [v, target, progressPct, status]] of cases.entries()) {
      const indicator = await linked(project, { code: `${'ABCDEFGH'[i]}_${tag}` }, { target });
      await value(project, indicator, q1!, { value: v });
      expected.push(
        indicatorEntry(indicator, { value: v, target, progressPct, status }, { periods: [at(q1!, v)] }),
      );
    }
    const report = await assembleRange(project.id, ...YEAR);
    expect(report.sections.indicators).toEqual(expected);
  });
});

describe('report assembly: formula indicators', () => {
  it('evaluates a formula on the aggregated inputs, against the link target', async () => {
    const project = await newProject();
    const [q1, q2] = await quarters(project, 2);
    const tag = indicatorCode('F');
    const a = await linked(project, { code: `A_${tag}`, aggregationMethod: 'sum' });
    const b = await linked(project, { code: `B_${tag}`, aggregationMethod: 'sum' });
    const ratio = await data.newFormula(`C_${tag}`, `A_${tag} * 100 / B_${tag}`);
    await data.link(project, ratio, { target: 40 });
    await value(project, a, q1!, { value: 30, target: 35 });
    await value(project, a, q2!, { value: 30, target: 35 });
    await value(project, b, q1!, { value: 100 });
    await value(project, b, q2!, { value: 200 });

    const report = await assembleRange(project.id, ...YEAR);
    // A = 30 + 30 = 60, B = 100 + 200 = 300: 60 × 100 / 300 = 20 (not the per-period 30 and 15 averaged
    // to 22.5 or summed to 45), of the link's 40 → 50%. Per period: 3000 / 100 = 30, 3000 / 200 = 15.
    expect(report.sections.indicators[2]).toEqual(
      indicatorEntry(
        ratio,
        { value: 20, target: 40, progressPct: 50, status: 'off_track' },
        { periods: [at(q1!, 30), at(q2!, 15)] },
      ),
    );
    expect(ratio.aggregationMethod).toBeNull();
    // 60 of 35 + 35 = 70 → 85.7% (85.714...)
    expect(report.sections.indicators[0]).toMatchObject({ value: 60, target: 70, progressPct: 85.7 });
  });

  it('scores a formula dividing by a zero aggregate as no_data', async () => {
    const project = await newProject();
    const [q1, q2] = await quarters(project, 2);
    const tag = indicatorCode('Z');
    const a = await linked(project, { code: `A_${tag}` });
    const zero = await linked(project, { code: `B_${tag}` });
    const ratio = await data.newFormula(`C_${tag}`, `A_${tag} / B_${tag}`);
    await data.link(project, ratio, { target: 10 });
    await value(project, a, q1!, { value: 5 });
    await value(project, zero, q1!, { value: 0 });
    await value(project, zero, q2!, { value: 0 });

    const report = await assembleRange(project.id, ...YEAR);
    // B = 0 + 0 = 0: 5 / 0 has no value; in Q2 A has none either.
    expect(report.sections.indicators[2]).toEqual(
      indicatorEntry(
        ratio,
        { value: null, target: 10, progressPct: null, status: 'no_data' },
        { periods: [at(q1!, null), at(q2!, null)] },
      ),
    );
  });
});

describe('report assembly: narratives and disaggregations', () => {
  it('joins narratives in period order with blank lines, skipping empty ones', async () => {
    const project = await newProject();
    const [q1, q2, q3, q4] = await quarters(project);
    const indicator = await linked(project, { aggregationMethod: 'sum' }, { target: 100 });
    // Entered out of order; Q2's narrative is blank, Q4's absent.
    await value(project, indicator, q3!, { value: 3, narrative: 'Third quarter.\nTwo lines.' });
    await value(project, indicator, q1!, { value: 1, narrative: '  First quarter.  ' });
    await value(project, indicator, q2!, { value: 2, narrative: '   ' });
    await value(project, indicator, q4!, { value: 4 });

    const report = await assembleRange(project.id, ...YEAR);
    // 1 + 2 + 3 + 4 = 10 of 100 → 10%
    expect(report.sections.indicators).toEqual([
      indicatorEntry(
        indicator,
        { value: 10, target: 100, progressPct: 10, status: 'off_track' },
        {
          narrative: 'First quarter.\n\nThird quarter.\nTwo lines.',
          periods: [at(q1!, 1), at(q2!, 2), at(q3!, 3), at(q4!, 4)],
        },
      ),
    ]);
  });

  it('aggregates each category over the periods by the indicator method', async () => {
    const project = await newProject();
    const [q1, q2, q3] = await quarters(project, 3);
    const tag = indicatorCode('D');
    const summed = await linked(project, { code: `A_${tag}`, aggregationMethod: 'sum' }, { target: 40 });
    const maxed = await linked(project, { code: `B_${tag}`, aggregationMethod: 'max' }, { target: 8 });
    const averaged = await linked(project, { code: `C_${tag}`, aggregationMethod: 'average' }, { target: 5 });
    const rows = [
      [q1!, 5, { female: 3, male: 2 }],
      [q2!, 6, { female: 2, male: 4 }],
      [q3!, 4, { female: 4 }],
    ] as const;
    for (const indicator of [summed, maxed, averaged]) {
      for (const [period, total, split] of rows) {
        await value(project, indicator, period, { value: total, disaggregatedValues: split });
      }
    }
    const report = await assembleRange(project.id, ...YEAR);
    const breakdown = [at(q1!, 5), at(q2!, 6), at(q3!, 4)];
    expect(report.sections.indicators).toEqual([
      // 5 + 6 + 4 = 15 of 40 → 37.5%; female 3 + 2 + 4 = 9, male 2 + 4 = 6 (Q3 has none)
      indicatorEntry(
        summed,
        { value: 15, target: 40, progressPct: 37.5, status: 'off_track' },
        { disaggregatedValues: { female: 9, male: 6 }, periods: breakdown },
      ),
      // max 6 of 8 → 75%; female max(3, 2, 4) = 4, male max(2, 4) = 4
      indicatorEntry(
        maxed,
        { value: 6, target: 8, progressPct: 75, status: 'at_risk' },
        { disaggregatedValues: { female: 4, male: 4 }, periods: breakdown },
      ),
      // 15 / 3 = 5 of 5 → 100%; female 9 / 3 = 3, male 6 / 2 = 3 (over the periods that have it)
      indicatorEntry(
        averaged,
        { value: 5, target: 5, progressPct: 100, status: 'on_track' },
        { disaggregatedValues: { female: 3, male: 3 }, periods: breakdown },
      ),
    ]);
  });
});
