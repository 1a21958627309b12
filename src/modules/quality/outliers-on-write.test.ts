import { describe, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import {
  indicatorUrl,
  linkIndicator,
  postIndicator,
  postReport,
  reportsUrl,
  reportUrl,
} from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const org = () => team.org.id;

/** The example of docs/data-quality.md: eight quarters whose median is 1,180 and MAD 179. */
const HISTORY = [1000, 1358, 1100, 1400, 1002, 1260, 900, 1500];

/** A project whose indicator has `values` in consecutive quarters, and a next quarter to write. */
async function withHistory(values: number[], indicatorId?: string) {
  const project = await createProject(t.database.db, org());
  const indicator = indicatorId ?? (await postIndicator(t.app, team.admin, org(), { name: 'Visits' })).id;
  await linkIndicator(t.app, team.admin, org(), project.id, indicator);
  const quarter = (n: number) => {
    const start = new Date(Date.UTC(2020, n * 3, 1)).toISOString().slice(0, 10);
    const end = new Date(Date.UTC(2020, n * 3 + 3, 0)).toISOString().slice(0, 10);
    return createPeriod(t.database.db, org(), project.id, { label: `P${n}`, startDate: start, endDate: end });
  };
  for (const [n, value] of values.entries()) {
    const period = await quarter(n);
    await postReport(t.app, team.officer, org(), project.id, {
      indicatorId: indicator,
      reportingPeriodId: period.id,
      value,
    });
  }
  const next = await quarter(values.length);
  const write = (value: number) =>
    postReport(t.app, team.officer, org(), project.id, {
      indicatorId: indicator,
      reportingPeriodId: next.id,
      value,
    });
  return { project, indicator, write };
}

describe('outliers checked as values are written', () => {
  it('flags a value far from the project’s history with the numbers, and clears it when corrected', async () => {
    const s = await withHistory(HISTORY);
    const report = await s.write(12_000);
    expect(report.flags).toEqual([
      {
        kind: 'outlier',
        method: 'modified_z',
        message: '12,000 is 10x the median of the last 8 periods (1,180); modified z = 41',
        importance: 'medium',
        justification: null,
      },
    ]);
    const fixed = await call(t.app, 'PATCH', reportUrl(org(), report.id), {
      as: team.officer,
      body: { value: 1200 },
    });
    expect(fixed.body.flags).toEqual([]);
    // A value within the history is no outlier.
    const listed = await call(t.app, 'GET', `${reportsUrl(org(), s.project.id)}?flagged=true`, {
      as: team.admin,
    });
    expect(listed.body).toEqual([]);
  });

  it('takes the bounds an officer sets, and the other projects’ history when the project’s is short', async () => {
    const s = await withHistory(HISTORY);
    const set = await call(t.app, 'PATCH', indicatorUrl(org(), s.indicator), {
      as: team.officer,
      body: { qualityChecks: { method: 'min_max', min: 0, max: 5000 } },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect((await s.write(6000)).flags.map((f) => f.message)).toEqual([
      '6,000 is above the maximum set for this indicator (5,000)',
    ]);

    // A new project of the same indicator with one quarter behind it: the other project's values judge.
    await call(t.app, 'PATCH', indicatorUrl(org(), s.indicator), {
      as: team.officer,
      body: { qualityChecks: null },
    });
    const young = await withHistory([1100], s.indicator);
    expect((await young.write(30_000)).flags.map((f) => f.message)).toEqual([
      expect.stringMatching(/^30,000 is \d+x the median of \d+ values of this indicator in other projects/),
    ]);
    // Too little history anywhere: nothing is said.
    const alone = await withHistory([5, 6]);
    expect((await alone.write(900)).flags).toEqual([]);
  });
});
