import type { Row } from './report.js';

/** One target of issue 26, as this run measured it. */
export interface TargetResult {
  target: string;
  /** What the run measured, in the target's words; `not measured` when its scenario did not run. */
  measured: string;
  /** null: not measured in this run. A measurement with failed requests meets nothing. */
  met: boolean | null;
}

const MB = 2 ** 20;
const fixed = (value: number, digits: number) =>
  value.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** A ratio to two places; one that misses its goal by less than rounding, cut (not rounded) to three. */
const ratioText = (ratio: number, goal: number) =>
  ratio < goal && Number(ratio.toFixed(2)) >= goal
    ? fixed(Math.floor(ratio * 1000) / 1000, 3)
    : fixed(ratio, 2);

interface Target {
  target: string;
  /** The scenario (row name) it reads; none: measured outside the scenarios. */
  row?: string;
  judge: (row: Row) => { measured: string; met: boolean };
}

const ratioAtLeast = (target: string, row: string, goal: number): Target => ({
  target,
  row,
  judge: ({ ratio }) => ({
    measured: `${ratioText(ratio ?? 0, goal)} of its floor`,
    met: (ratio ?? 0) >= goal,
  }),
});

const p50AtMost = (target: string, row: string, goalMs: number): Target => ({
  target,
  row,
  judge: ({ p50 }) => ({ measured: `p50 ${fixed(p50, 1)} ms`, met: p50 <= goalMs }),
});

/** The targets of issue 26 ("Targets"), in its order; ratios are the service's rate over the floor's. */
const TARGETS: Target[] = [
  ratioAtLeast('GET project >= 0.85 of its floor', 'project', 0.85),
  ratioAtLeast('GET indicators?projectId >= 0.85 of its floor', 'indicators', 0.85),
  {
    target: 'public submission (auto-count, Idempotency-Key, 1 webhook) >= 0.50 of its floor, count exact',
    row: 'submission',
    judge: ({ ratio, countExact }) => ({
      measured: `${ratioText(ratio ?? 0, 0.5)} of its floor, count ${countExact ? 'exact' : 'WRONG'}`,
      met: (ratio ?? 0) >= 0.5 && countExact === true,
    }),
  },
  p50AtMost('report assembly (200 ind. x 24 periods) p50 <= 60 ms', 'assembly', 60),
  p50AtMost('dashboard summary (1,000 projects) p50 <= 80 ms', 'dashboard', 80),
  p50AtMost('data quality, every project and period (1,000 projects) p50 <= 300 ms', 'data-quality', 300),
  ratioAtLeast(
    'saving a value with rules and outlier checks >= 0.80 of the same save without',
    'quality',
    0.8,
  ),
  {
    target: 'CSV export of 1,000,000 submissions >= 80,000 rows/s, peak RSS < 150 MB',
    row: 'csv',
    judge: ({ rps, peakRss }) => ({
      measured: `${fixed(rps, 0)} rows/s, peak RSS ${fixed((peakRss ?? 0) / MB, 0)} MB`,
      met: rps >= 80_000 && (peakRss ?? Infinity) < 150 * MB,
    }),
  },
  ratioAtLeast(
    'participants list (100) with decryption and audit >= 0.90 of the same list without',
    'personal',
    0.9,
  ),
];

/**
 * Each target with its measured value and whether it is met. `idleRss`: the service's resident memory
 * after start-up, before any request but the readiness probe.
 */
export function judgeTargets(rows: Row[], idleRss: number): TargetResult[] {
  const judged = TARGETS.map(({ target, row: name, judge }): TargetResult => {
    const row = rows.find((r) => r.name === name);
    if (!row) return { target, measured: 'not measured', met: null };
    const { measured, met } = judge(row);
    return row.failures
      ? { target, measured: `${measured} (with ${row.failures} failed requests)`, met: false }
      : { target, measured, met };
  });
  judged.push({
    target: 'idle RSS on PostgreSQL <= 120 MB',
    measured: `${fixed(idleRss / MB, 0)} MB`,
    met: idleRss <= 120 * MB,
  });
  return judged;
}

/** The targets as a Markdown table. */
export function targetsTable(targets: TargetResult[]): string {
  const verdict = (met: boolean | null) => (met === null ? '' : met ? 'met' : 'NOT MET');
  return [
    '| target | measured | |',
    '|---|---|---|',
    ...targets.map((t) => `| ${t.target} | ${t.measured} | ${verdict(t.met)} |`),
  ].join('\n');
}
