import os from 'node:os';
import type pg from 'pg';

export interface Row {
  /** The scenario's short name (`--only` takes it; the targets find their rows by it). */
  name: string;
  scenario: string;
  connections: number;
  /** Requests per second (rows per second for an export). */
  rps: number;
  /** Milliseconds (the whole export for an export). */
  p50: number;
  p99: number | null;
  floorRps: number | null;
  /** The service's rate over the floor's. */
  ratio: number | null;
  note: string;
  /** A submission scenario: whether the counted value grew by exactly what was acknowledged. */
  countExact?: boolean;
  /** An export: the service's peak resident memory during it, in bytes. */
  peakRss?: number;
  /** Answers outside the expected ones, and connection errors (service, floor). */
  failures?: number;
}

export async function machine(sql: pg.Pool) {
  const { rows } = await sql.query<{ server_version: string }>('SHOW server_version');
  return {
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    postgres: rows[0]?.server_version ?? 'unknown',
  };
}

const number = (value: number | null, digits = 0) =>
  value === null
    ? ''
    : value.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The results as a Markdown table (docs/performance.md shows the same). */
export function table(rows: Row[]): string {
  const lines = [
    '| scenario | conn. | req/s | p50 ms | p99 ms | floor req/s | ratio | notes |',
    '|---|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.scenario} | ${r.connections} | ${number(r.rps)} | ${number(r.p50, 1)} | ${number(r.p99, 1)} | ${number(r.floorRps)} | ${number(r.ratio, 2)} | ${r.note} |`,
    );
  }
  return lines.join('\n');
}

export function printTable(rows: Row[]): void {
  console.log(`\n${table(rows)}\n`);
}
