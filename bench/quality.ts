import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Config } from '../src/config.js';
import { AGE_BANDS, SEXES } from '../src/lib/demographics.js';
import { captureStatements, type CapturedRequest } from './capture.js';
import { combined, load, type LoadResult, type Rotation } from './load.js';
import type { Manifest } from './manifest.js';
import { loadRow } from './measure.js';
import type { Server } from './processes.js';
import type { Row } from './report.js';
import type { QualityIndicator } from './seed/quality.js';

/** The values each draft takes in turn: its seeded value and nine a little below it, all different. */
const STEPS = 10;
/** Between two runs of saves. */
const SETTLE_MS = 500;
const SEX_MIX = [0.52, 0.46];
const AGE_MIX = [0.25, 0.35, 0.25, 0.1];

/** A value split by sex and by age band, each adding up to it exactly (the rest in the last category). */
function disaggregated(value: number): Record<string, number> {
  const split = (keys: readonly string[], mix: number[]) => {
    const parts = mix.map((share) => Math.floor(value * share));
    const rest = value - parts.reduce((sum, part) => sum + part, 0);
    return keys.map((key, i) => [key, parts[i] ?? rest] as const);
  };
  return Object.fromEntries([...split(SEXES, SEX_MIX), ...split(AGE_BANDS, AGE_MIX)]);
}

interface Draft {
  path: string;
  values: number[];
  /** The index in `values` of the value sent last (or stored, before the first). */
  at: number;
  busy: boolean;
}

/**
 * The drafts of one side, each saved with the next of its values: every save a real change, within the
 * indicator's usual range (no outlier, no broken rule: the flags stay as they are, as in most saves).
 * A connection takes a draft nobody is saving; only if a request was lost without an answer do two share one.
 */
class Drafts implements Rotation {
  private readonly byPath: Map<string, Draft>;
  private readonly free: Draft[];
  private turn = 0;

  constructor(drafts: Draft[]) {
    this.byPath = new Map(drafts.map((draft) => [draft.path, draft]));
    this.free = [...drafts];
  }

  get size() {
    return this.byPath.size;
  }

  take() {
    const all = [...this.byPath.values()];
    const draft = this.free.shift() ?? all[this.turn++ % all.length]!;
    draft.busy = true;
    draft.at = (draft.at + 1) % draft.values.length;
    const value = draft.values[draft.at]!;
    return { path: draft.path, body: JSON.stringify({ disaggregatedValues: disaggregated(value) }) };
  }

  release(path: string) {
    const draft = this.byPath.get(path);
    if (draft?.busy) {
      draft.busy = false;
      this.free.push(draft);
    }
  }
}

/** A side's drafts as they are stored now (earlier runs saved other values than the seed's). */
async function draftsOf(sql: pg.Pool, orgId: string, indicators: QualityIndicator[]) {
  const reports = indicators.flatMap((indicator) => indicator.reports);
  const { rows } = await sql.query<{ id: string; value: number | null; status: string }>(
    'SELECT id, value, status FROM indicator_reports WHERE org_id = $1 AND id = ANY($2::uuid[])',
    [orgId, reports.map((report) => report.id)],
  );
  const stored = new Map(rows.map((row) => [row.id, row]));
  return new Drafts(
    reports.map((report) => {
      const now = stored.get(report.id);
      if (now?.status !== 'draft') throw new Error(`quality: report ${report.id} is no longer a draft`);
      const step = Math.max(1, Math.floor(report.value / 100));
      const values = Array.from({ length: STEPS }, (_, i) => report.value - i * step);
      // Next is the value after the stored one: never the same twice in a row.
      return {
        path: `/orgs/${orgId}/indicator-reports/${report.id}`,
        values,
        at: values.indexOf(now.value ?? -1),
        busy: false,
      };
    }),
  );
}

/** Saves of a side's drafts that changed their value, as the reports' history counts them. */
async function savedValues(sql: pg.Pool, orgId: string, indicators: QualityIndicator[]) {
  const { rows } = await sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM indicator_report_history
      WHERE org_id = $1 AND indicator_report_id = ANY($2::uuid[]) AND kind = 'edited' AND changes ? 'value'`,
    [orgId, indicators.flatMap((indicator) => indicator.reports.map((report) => report.id))],
  );
  return rows[0]!.n;
}

/**
 * One save of each side (a draft of each, with its next value), as the bench records its SQL: for
 * `npm run bench:explain -- --only quality`, which runs them (they are committed, as the bench's are).
 */
export async function qualitySaves(manifest: Manifest, sql: pg.Pool, auth: Record<string, string>) {
  const headers = { ...auth, 'content-type': 'application/json' };
  const { orgId, quality } = manifest;
  const checked = (await draftsOf(sql, orgId, quality.checked)).take();
  const unchecked = (await draftsOf(sql, orgId, quality.unchecked)).take();
  return {
    quality: { method: 'PATCH', headers, ...checked },
    'quality-off': { method: 'PATCH', headers, ...unchecked },
  } satisfies Record<string, CapturedRequest>;
}

export interface QualitySettings {
  duration: number;
  many: number;
  /** Seconds of each side's warm-up. */
  warm: number;
}

/**
 * What the data-quality checks cost a save: `PATCH /orgs/:orgId/indicator-reports/:id` of a draft's
 * disaggregated values (the value follows), for indicators two validation rules and the default outlier
 * check (modified z-score over the past periods) read, against the same save of equivalent indicators
 * with every check off. One connection per draft at most (at most the drafts of a side), each side warmed,
 * then measured interleaved (checked, unchecked, unchecked, checked). Every save must be answered 200 and
 * recorded as a change of the value. Goal: the checked saves' rate at least 0.80 of the unchecked ones'.
 */
export async function qualitySave(
  manifest: Manifest,
  service: Server,
  auth: Record<string, string>,
  config: Config,
  sql: pg.Pool,
  { duration, many, warm }: QualitySettings,
): Promise<Row> {
  process.stdout.write('- save a value: data-quality checks on and off ... ');
  const { orgId, quality } = manifest;
  const sides = {
    checked: await draftsOf(sql, orgId, quality.checked),
    unchecked: await draftsOf(sql, orgId, quality.unchecked),
  };
  const headers = { ...auth, 'content-type': 'application/json' };
  const connections = Math.min(many, sides.checked.size, sides.unchecked.size);

  // The SQL of one save of each side (recorded on an app of this process), for the note.
  const taken = { checked: sides.checked.take(), unchecked: sides.unchecked.take() };
  const captured = await captureStatements(config, {
    checked: { method: 'PATCH', headers, ...taken.checked },
    unchecked: { method: 'PATCH', headers, ...taken.unchecked },
  });
  sides.checked.release(taken.checked.path);
  sides.unchecked.release(taken.unchecked.path);
  for (const [side, { status, body }] of Object.entries(captured)) {
    if (status !== 200)
      throw new Error(`quality: the ${side} save answered ${status}: ${body.slice(0, 300)}`);
  }

  const before = {
    checked: await savedValues(sql, orgId, quality.checked),
    unchecked: await savedValues(sql, orgId, quality.unchecked),
  };
  const runs: Record<keyof typeof sides, LoadResult[]> = { checked: [], unchecked: [] };
  const save = async (side: keyof typeof sides, seconds: number) => {
    const result = await load({
      url: service.url,
      method: 'PATCH',
      headers,
      rotation: sides[side],
      connections,
      duration: seconds,
    });
    runs[side].push(result);
    // Saves still in flight when the run ended (not counted) finish before the next run takes their drafts.
    await sleep(SETTLE_MS);
    return result;
  };
  await save('checked', warm);
  await save('unchecked', warm);
  const half = Math.max(1, duration / 2);
  const checked = [await save('checked', half)];
  const unchecked = [await save('unchecked', half), await save('unchecked', half)];
  checked.push(await save('checked', half));

  // Every save answered 200 (all runs, warm-ups included) changed the value and wrote its history
  // entry; those still in flight when a run ended were not counted, but changed it too.
  const notes: string[] = [];
  for (const side of ['checked', 'unchecked'] as const) {
    const answered = runs[side].reduce((sum, run) => sum + run.requests, 0);
    const recorded = (await savedValues(sql, orgId, quality[side])) - before[side];
    if (recorded < answered || recorded > answered + connections * runs[side].length) {
      notes.push(`${side.toUpperCase()} SAVES: ${recorded} RECORDED FOR ${answered} ANSWERED`);
      process.exitCode = 1;
    }
  }
  const on = combined(checked);
  const off = combined(unchecked);
  const rate = (r: LoadResult) =>
    `${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms`;
  notes.push(
    `"floor": the same save with checks off; on ${rate(on)} (${captured.checked!.statements.length} SQL ` +
      `statements), off ${rate(off)} (${captured.unchecked!.statements.length}); goal >= 0.80`,
  );
  return loadRow(
    'quality',
    'save a value, 2 rules + outlier check (vs checks off)',
    connections,
    on,
    off,
    notes.join('; '),
  );
}
