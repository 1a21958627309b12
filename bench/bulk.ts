import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import type { Config } from '../src/config.js';
import { captureStatements } from './capture.js';
import type { Manifest } from './manifest.js';
import { post } from './measure.js';
import { startServer, type Server } from './processes.js';
import type { Row } from './report.js';
import type { FloorScenario } from './scenarios.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const INDICATORS = 200;
const MONTHS = 25;
/** Imports timed on each side after the first (the creation of the 5,000 reports). */
const RUNS = 3;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Bulk values (`POST /orgs/:orgId/indicator-reports/bulk`): 5,000 values of a new project of the seed's
 * organization (200 new indicators linked, 25 months generated through the API), sent as JSON. The first
 * import creates the 5,000 reports (timed once); then each side imports 5,000 changed values, one request
 * at a time: the service with new values each time (every row an update with its history entry), the
 * floor replaying the statements the service sent for one such import (recorded in this process), which
 * write as much. The floor gets one connection of the pool and no Idempotency-Key, validation or report.
 */
export async function bulkValues(
  manifest: Manifest,
  service: Server,
  auth: Record<string, string>,
  config: Config,
  sql: pg.Pool,
): Promise<Row> {
  process.stdout.write('- bulk values: 5,000 ... ');
  const org = `/orgs/${manifest.orgId}`;
  const { rows: programs } = await sql.query<{ program_id: string }>(
    'SELECT program_id FROM projects WHERE org_id = $1 AND id = $2',
    [manifest.orgId, manifest.typicalProjectId],
  );
  const code = `BULK-${randomBytes(3).toString('hex')}`;
  const project = await post(
    `${service.url}${org}/programs/${programs[0]!.program_id}/projects`,
    { name: `Bench bulk ${code}`, code, currency: 'USD', startDate: '2026-01-01', endDate: '2028-12-31' },
    auth,
  );
  const projectId = String(project.id);
  // 200 indicators of its own, written directly (any seed size has them, and none has reports yet).
  const { rows: indicators } = await sql.query<{ id: string; code: string }>(
    `INSERT INTO indicators (id, org_id, name, code, unit, aggregation_method)
     SELECT gen_random_uuid(), $1, 'Bench bulk ' || n, $2 || '_' || n, 'people', 'sum'
     FROM generate_series(1, ${INDICATORS}) AS n
     RETURNING id, code`,
    [manifest.orgId, code.replace('-', '_')],
  );
  // Linked in one statement: 200 calls would be the setup's longest part, and are not what is measured.
  await sql.query(
    `INSERT INTO project_indicators (org_id, project_id, indicator_id)
     SELECT $1, $2, unnest($3::uuid[])`,
    [manifest.orgId, projectId, indicators.map((i) => i.id)],
  );
  const generated = await post(
    `${service.url}${org}/projects/${projectId}/reporting-periods/generate`,
    { frequency: 'monthly', from: '2026-01-01', to: `2028-${String(MONTHS - 24).padStart(2, '0')}-01` },
    auth,
  );
  const labels = (generated.created as { label: string }[]).map((period) => period.label);
  const body = (shift: number) =>
    JSON.stringify({
      values: indicators.flatMap((indicator, i) =>
        labels.map((label, m) => ({
          projectCode: code,
          indicatorCode: indicator.code,
          periodLabel: label,
          value: i * 100 + m + shift,
        })),
      ),
    });
  const url = `${service.url}${org}/indicator-reports/bulk?limit=1`;
  const headers = { ...auth, 'content-type': 'application/json' };
  const importOnce = async (shift: number) => {
    const started = performance.now();
    const res = await fetch(url, { method: 'POST', headers, body: body(shift) });
    const answer = (await res.json()) as { summary?: Record<string, number> };
    const ms = performance.now() - started;
    if (!res.ok) throw new Error(`bulk import: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
    return { ms, summary: answer.summary! };
  };

  const created = await importOnce(0);
  if (created.summary.created !== INDICATORS * MONTHS) {
    throw new Error(`bulk: created ${JSON.stringify(created.summary)}`);
  }
  const captured = await captureStatements(config, {
    bulk: {
      method: 'POST',
      path: `${org}/indicator-reports/bulk?limit=1`,
      headers,
      body: body(1),
    },
  });
  const recorded = captured.bulk!;
  if (recorded.status !== 200)
    throw new Error(`bulk capture: ${recorded.status} ${recorded.body.slice(0, 300)}`);

  const ours: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const updated = await importOnce(2 + run);
    if (updated.summary.updated !== INDICATORS * MONTHS) {
      throw new Error(`bulk: updated ${JSON.stringify(updated.summary)}`);
    }
    ours.push(updated.ms);
  }

  const floorFile = path.join(config.dataDir, 'floor-bulk.json');
  const scenario: FloorScenario = {
    method: 'POST',
    statements: recorded.statements,
    transaction: true,
    answer: 'json',
    freshIds: [],
  };
  writeFileSync(floorFile, JSON.stringify({ bulk: scenario }));
  const floor = await startServer('floor', path.join(root, 'bench/floor.ts'), {
    DATABASE_URL: config.databaseUrl!,
    FLOOR_SCENARIOS: floorFile,
  });
  const bare: number[] = [];
  try {
    for (let run = 0; run < RUNS + 1; run++) {
      const started = performance.now();
      const res = await fetch(`${floor.url}/bulk`, { method: 'POST' });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`bulk floor: ${res.status}`);
      // The first warms the floor's prepared statements, as the service was warmed by its first import.
      if (run > 0) bare.push(performance.now() - started);
    }
  } finally {
    await floor.stop();
  }
  const p50 = median(ours);
  const floorP50 = median(bare);
  return {
    name: 'bulk',
    scenario: 'bulk values, 5,000 updated (JSON)',
    connections: 1,
    rps: 1000 / p50,
    p50,
    p99: Math.max(...ours),
    floorRps: 1000 / floorP50,
    ratio: floorP50 / p50,
    note:
      `${recorded.statements.length} SQL statements; ${RUNS} imports each side, floor p50 ` +
      `${Math.round(floorP50)} ms; the first import (5,000 created) ${Math.round(created.ms)} ms`,
  };
}
