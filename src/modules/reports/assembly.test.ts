import { describe, expect, it } from 'vitest';
import type { AggregationMethod } from '../../lib/scoring.js';
import type { Provenance } from './report-snapshot.js';
import {
  assemble,
  assembleIndicators,
  type AssemblyInput,
  type IncludedPeriod,
  type IncludedValue,
  type LastChange,
  type LinkedIndicator,
} from './assembly.js';

const period = (n: number, startDate: string, endDate: string): IncludedPeriod => ({
  id: `period-${n}`,
  label: `P${n}`,
  startDate,
  endDate,
});
// Given out of order: everything must follow the start dates.
const P3 = period(3, '2026-07-01', '2026-09-30');
const P1 = period(1, '2026-01-01', '2026-03-31');
const P2 = period(2, '2026-04-01', '2026-06-30');
const PERIODS = [P3, P1, P2];

const PROJECT: AssemblyInput['project'] = {
  id: 'project-1',
  name: 'Clean Water',
  code: 'CW',
  programId: 'program-1',
  programName: 'Water for All',
  status: 'active',
  startDate: '2026-01-01',
  endDate: '2027-12-31',
  currency: 'KES',
  budget: 5000,
  location: null,
  lead: null,
  description: null,
};

function link(
  code: string,
  method: AggregationMethod | null,
  target: number | null,
  extra: { formula?: string; baseline?: number } = {},
): LinkedIndicator {
  return {
    indicator: {
      id: `ind-${code}`,
      code,
      name: `Indicator ${code}`,
      unit: 'people',
      aggregationMethod: method,
      isFormula: extra.formula !== undefined,
      formula: extra.formula ?? null,
    },
    target,
    baseline: extra.baseline ?? null,
    resultNode: null,
  };
}

function val(
  code: string,
  p: IncludedPeriod,
  value: number | null,
  target: number | null = null,
  extra: Partial<IncludedValue> = {},
): IncludedValue {
  return {
    indicatorId: `ind-${code}`,
    periodId: p.id,
    value,
    target,
    narrative: null,
    disaggregatedValues: {},
    // Entered by hand, submitted, never changed since: what the assembly tests before issue 24 need.
    approved: false,
    countedValue: 0,
    countedSubmissions: 0,
    prefillValue: null,
    reviewedAt: null,
    reviewerName: null,
    lastChange: null,
    ...extra,
  };
}

function indicators(links: LinkedIndicator[], values: IncludedValue[], periods = PERIODS) {
  return assembleIndicators({
    project: PROJECT,
    periods,
    links,
    values,
    formulaBasics: links.map((l) => l.indicator),
  });
}

/** The provenance of values entered by hand, submitted, never changed since: all manual. */
const byHand = (manual: number | null, extra: Partial<Provenance> = {}): Provenance => ({
  counted: 0,
  manual,
  prefill: null,
  submissions: 0,
  lastChangedAt: null,
  lastChangedBy: null,
  lastChangedKind: null,
  approvedBy: null,
  approvedAt: null,
  ...extra,
});

const score = (e: { value: unknown; target: unknown; progressPct: unknown; status: unknown }) => [
  e.value,
  e.target,
  e.progressPct,
  e.status,
];

describe('assembleIndicators: aggregation and cumulative target', () => {
  // P1: 10 (target 20), P2: 40 (target 30), P3: 25 (target 50), listed P3, P1, P2.
  const rows = (code: string) => [val(code, P3, 25, 50), val(code, P1, 10, 20), val(code, P2, 40, 30)];
  it.each<[AggregationMethod, number, number, number, string]>([
    ['sum', 75, 100, 75, 'at_risk'], // 10 + 40 + 25 = 75 of 20 + 30 + 50 = 100
    ['average', 25, 50, 50, 'off_track'], // 75 / 3 = 25 of P3's 50
    ['latest', 25, 50, 50, 'off_track'], // P3's 25 of P3's 50
    ['min', 10, 50, 20, 'off_track'], // 10 of 50
    ['max', 40, 50, 80, 'at_risk'], // 40 of 50
  ])('%s gives %d of %d, %d percent, %s', (method, value, target, pct, status) => {
    const [entry] = indicators([link('X', method, 999)], rows('X'));
    expect(score(entry!)).toEqual([value, target, pct, status]);
    expect(entry!.periods).toEqual([
      { periodId: P1.id, label: 'P1', value: 10, target: 20 },
      { periodId: P2.id, label: 'P2', value: 40, target: 30 },
      { periodId: P3.id, label: 'P3', value: 25, target: 50 },
    ]);
    // Its parts are summed whatever the method: 10 + 40 + 25.
    expect(entry!.provenance).toEqual(byHand(75));
  });

  it('falls back to the link target only when no period has one', () => {
    const entries = indicators(
      [
        link('A', 'sum', 999),
        link('B', 'sum', 40),
        link('C', 'min', 40),
        link('D', 'latest', 1),
        link('E', 'max', null),
        link('F', 'sum', 0),
      ],
      [
        ...[val('A', P1, 10, 20), val('A', P2, 10), val('A', P3, 10, 30)],
        ...[val('B', P1, 10), val('B', P2, 20)],
        ...[val('C', P1, 50), val('C', P2, 30)],
        ...[val('D', P1, 12, 10), val('D', P2, 9)],
        val('E', P1, 7),
        val('F', P1, 7),
      ],
    );
    expect(entries.map(score)).toEqual([
      [30, 50, 60, 'off_track'], // 30 of 20 + 30 (P2 adds no target)
      [30, 40, 75, 'at_risk'], // 10 + 20 of the link's 40
      [30, 40, 75, 'at_risk'], // min 30 of the link's 40
      [9, 10, 90, 'on_track'], // latest 9 of P1's 10, the latest period with a target
      [7, null, null, 'no_target'],
      [7, 0, null, 'no_target'],
    ]);
  });

  it('bands on the rounded percent', () => {
    const cases: [number, number, number, string][] = [
      [899, 1000, 89.9, 'at_risk'],
      [900, 1000, 90, 'on_track'],
      [699, 1000, 69.9, 'off_track'],
      [700, 1000, 70, 'at_risk'],
      [1799, 2000, 90, 'on_track'], // 89.95 → 90.0
      [13999, 20000, 70, 'at_risk'], // 69.995 → 70.0
      [13989, 20000, 69.9, 'off_track'], // 69.945 → 69.9
    ];
    const codes = cases.map((_, i) => `K${i}`);
    const entries = indicators(
      cases.map(([, target], i) => link(codes[i]!, 'sum', target)),
      cases.map(([value], i) => val(codes[i]!, P1, value)),
    );
    expect(entries.map(score)).toEqual(cases.map(([v, target, pct, status]) => [v, target, pct, status]));
  });

  it('gives no_data, empty narrative and categories to an indicator without values', () => {
    const [entry] = indicators([link('N', 'sum', 30, { baseline: 3 })], []);
    expect(entry).toEqual({
      indicatorId: 'ind-N',
      indicatorName: 'Indicator N',
      code: 'N',
      unit: 'people',
      aggregationMethod: 'sum',
      value: null,
      target: 30,
      baseline: 3,
      progressPct: null,
      status: 'no_data',
      // No period has a target: none to date, whatever the link's.
      targetToDate: null,
      progressToDatePct: null,
      statusToDate: 'no_data',
      narrative: '',
      disaggregatedValues: {},
      resultNode: null,
      provenance: byHand(null),
      inputs: null,
      periods: [P1, P2, P3].map((p) => ({
        periodId: p.id,
        label: p.label,
        value: null,
        target: null,
      })),
    });
  });

  it('ignores values of periods that are not included, and orders entries by code, case aside', () => {
    const outside = period(9, '2025-01-01', '2025-03-31');
    const entries = indicators(
      [link('beta', 'sum', 10), link('Alpha', 'sum', 10), link('GAMMA', 'sum', 10)],
      [val('beta', P1, 4), val('beta', outside, 100), val('Alpha', P2, 5)],
    );
    expect(entries.map((e) => [e.code, e.value])).toEqual([
      ['Alpha', 5],
      ['beta', 4],
      ['GAMMA', null],
    ]);
  });
});

describe('assembleIndicators: formulas', () => {
  const inputs = [link('A', 'sum', null), link('B', 'sum', null)];
  const values = [val('A', P1, 30), val('A', P2, 30), val('B', P1, 100), val('B', P2, 200)];

  it('evaluates the formula on the aggregated inputs, against the link target', () => {
    const entries = indicators([...inputs, link('C', null, 40, { formula: 'A * 100 / B' })], values);
    // A = 60, B = 300: 6000 / 300 = 20 of 40 → 50%. Per period: 3000 / 100 = 30, 3000 / 200 = 15, none in P3.
    expect(entries[2]).toMatchObject({
      aggregationMethod: null,
      value: 20,
      target: 40,
      progressPct: 50,
      status: 'off_track',
      disaggregatedValues: {},
      periods: [
        { periodId: P1.id, label: 'P1', value: 30, target: null },
        { periodId: P2.id, label: 'P2', value: 15, target: null },
        { periodId: P3.id, label: 'P3', value: null, target: null },
      ],
    });
  });

  it('gives no_data on a zero denominator or a missing input', () => {
    const entries = indicators(
      [
        link('A', 'sum', null),
        link('Z', 'sum', null),
        link('Q', null, 10, { formula: 'A / Z' }),
        link('R', null, 10, { formula: 'A + M' }),
      ],
      [val('A', P1, 5), val('Z', P1, 0), val('Z', P2, 0)],
    );
    // Ordered by code: A, Q, R, Z.
    expect(entries.slice(1, 3).map(score)).toEqual([
      [null, 10, null, 'no_data'], // 5 / (0 + 0)
      [null, 10, null, 'no_data'], // M is no indicator
    ]);
  });
});

describe('assembleIndicators: narratives and categories', () => {
  it('joins trimmed narratives in period order with blank lines, skipping blank and null ones', () => {
    const [entry] = indicators(
      [link('N', 'sum', null)],
      [
        val('N', P3, 3, null, { narrative: 'Third.\nSecond line.' }),
        val('N', P1, 1, null, { narrative: '  First.  ' }),
        val('N', P2, 2, null, { narrative: ' \n ' }),
      ],
    );
    expect(entry!.narrative).toBe('First.\n\nThird.\nSecond line.');
    const [none] = indicators([link('M', 'sum', null)], [val('M', P1, 1, null, { narrative: null })]);
    expect(none!.narrative).toBe('');
  });

  it.each<[AggregationMethod, Record<string, number>]>([
    ['sum', { female: 9, male: 6, other: 1 }], // female 3 + 2 + 4, male 2 + 4, other 1
    ['average', { female: 3, male: 3, other: 1 }], // 9 / 3, 6 / 2, 1 / 1
    ['latest', { female: 4, male: 4, other: 1 }], // the latest period that has each
    ['min', { female: 2, male: 2, other: 1 }],
    ['max', { female: 4, male: 4, other: 1 }],
  ])('aggregates each category by %s', (method, expected) => {
    const split = (p: IncludedPeriod, disaggregatedValues: Record<string, number>) =>
      val(
        'D',
        p,
        Object.values(disaggregatedValues).reduce((x, y) => x + y, 0),
        null,
        { disaggregatedValues },
      );
    const [entry] = indicators(
      [link('D', method, null)],
      [
        split(P3, { female: 4 }),
        split(P1, { female: 3, male: 2, other: 1 }),
        split(P2, { female: 2, male: 4 }),
      ],
    );
    expect(entry!.disaggregatedValues).toEqual(expected);
  });
});

describe('assemble', () => {
  const input = (budget: AssemblyInput['budget']): AssemblyInput => ({
    range: { startDate: '2026-01-01', endDate: '2026-09-30' },
    project: PROJECT,
    organization: { name: 'Hope Relief', logoUrl: 'https://cdn.example.org/logo.png' },
    donors: [{ id: 'donor-1', name: 'USAID', code: 'US' }],
    periods: PERIODS,
    links: [],
    values: [],
    formulaBasics: [],
    activities: [],
    budget,
    attachments: [],
  });

  it('orders periodIds by start and builds the cover from project, donors, organization and range', () => {
    const content = assemble(input({ totalPlanned: 5000, totalActual: 1234.5, lines: [] }));
    expect(content.periodIds).toEqual([P1.id, P2.id, P3.id]);
    expect(content.cover).toEqual({
      projectName: 'Clean Water',
      donors: [{ id: 'donor-1', name: 'USAID', code: 'US' }],
      organization: { name: 'Hope Relief', logoUrl: 'https://cdn.example.org/logo.png' },
      period: { startDate: '2026-01-01', endDate: '2026-09-30' },
    });
    // 1234.5 / 5000 × 100 = 24.69 → 24.7
    expect(content.budget).toEqual({
      currency: 'KES',
      totalPlanned: 5000,
      totalActual: 1234.5,
      burnRate: 24.7,
      lines: [],
    });
  });

  it.each([
    [0, 0, null], // nothing planned
    [0, 250, null], // spent without a plan
    [300, 0, 0],
    [200, 250, 125], // overspent: 250 / 200 = 125%
    [3, 1, 33.3], // 33.33...
    [3, 2, 66.7], // 66.66...
  ])('planned %d, spent %d: burnRate %s', (totalPlanned, totalActual, burnRate) => {
    expect(assemble(input({ totalPlanned, totalActual, lines: [] })).budget.burnRate).toBe(burnRate);
  });
});

describe('assembleIndicators: provenance', () => {
  const change = (id: number, kind: LastChange['kind'], by: string | null) => ({
    id,
    at: `2026-04-0${id}T10:00:00.000Z`,
    kind,
    by,
  });

  it('sums the counted, pre-filled and manual parts; the last change by history order', () => {
    const [entry] = indicators(
      [link('S', 'sum', null)],
      [
        // P1: 7 counted from 3 submissions, 5 typed on top.
        val('S', P1, 12, null, {
          countedValue: 7,
          countedSubmissions: 3,
          lastChange: change(4, 'counted', null),
          approved: true,
          reviewedAt: '2026-04-10T09:00:00.000Z',
          reviewerName: 'Amina Diallo',
        }),
        // P2: a pre-fill of 20, lowered by hand to 18; changed last (entry 6), reviewed earlier.
        val('S', P2, 18, null, {
          prefillValue: 20,
          lastChange: change(6, 'edited', 'Otieno Kamau'),
          approved: true,
          reviewedAt: '2026-04-08T09:00:00.000Z',
          reviewerName: 'Grace Mwangi',
        }),
      ],
    );
    expect(entry!.value).toBe(30);
    // 7 counted + 20 pre-filled + (5 - 2) by hand = 30.
    expect(entry!.provenance).toEqual({
      counted: 7,
      manual: 3,
      prefill: 20,
      submissions: 3,
      lastChangedAt: '2026-04-06T10:00:00.000Z',
      lastChangedBy: 'Otieno Kamau',
      lastChangedKind: 'edited',
      approvedBy: 'Amina Diallo',
      approvedAt: '2026-04-10T09:00:00.000Z',
    });
    expect(entry!.inputs).toBeNull();
  });

  it('names no approval until every included value is approved', () => {
    const approved = { approved: true, reviewedAt: '2026-04-10T09:00:00.000Z', reviewerName: 'Amina Diallo' };
    const [entry] = indicators([link('W', 'sum', null)], [val('W', P1, 1, null, approved), val('W', P2, 2)]);
    expect([entry!.provenance!.approvedBy, entry!.provenance!.approvedAt]).toEqual([null, null]);
  });

  it('keeps decimal parts free of binary noise', () => {
    const [entry] = indicators(
      [link('D', 'sum', null)],
      [
        val('D', P1, 0.3, null, { countedValue: 0.1, prefillValue: 0.2 }),
        val('D', P2, 0.7, null, { countedValue: 0.2, prefillValue: 0.1 }),
      ],
    );
    expect(entry!.provenance).toMatchObject({ counted: 0.3, prefill: 0.3, manual: 0.4 });
  });

  it('gives a formula its inputs as it evaluated them, and no provenance', () => {
    const entries = indicators(
      [
        link('A', 'sum', null),
        link('B', 'sum', null),
        link('C', null, 40, { formula: 'a * 100 / B' }),
        link('R', null, 10, { formula: 'C + M - A' }),
      ],
      [val('A', P1, 30), val('A', P2, 30), val('B', P1, 100), val('B', P2, 200)],
    );
    const [, , c, r] = entries;
    // The indicators' own codes, each once in order of use; C = 60 × 100 / 300 = 20; M is no indicator.
    expect([c!.provenance, c!.inputs, c!.value]).toEqual([
      null,
      [
        { code: 'A', value: 60 },
        { code: 'B', value: 300 },
      ],
      20,
    ]);
    expect(r!.inputs).toEqual([
      { code: 'C', value: 20 },
      { code: 'M', value: null },
      { code: 'A', value: 60 },
    ]);
  });
});
