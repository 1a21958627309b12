import { randomUUID } from 'node:crypto';
import type { CapturedRequest, Statement } from './capture.js';
import type { Method } from './load.js';
import type { Manifest } from './manifest.js';

/**
 * How the floor answers once its statements ran: their rows as JSON; that JSON compressed with Brotli;
 * 304 without a body after hashing it (an ETag); or streamed as naive lines, statement by statement
 * (exports).
 */
export type FloorAnswer = 'json' | 'brotli' | 'not-modified' | 'stream';

/** What the floor server runs for one scenario (written to a file by run.ts, read by floor.ts). */
export interface FloorScenario {
  method: Method;
  statements: Statement[];
  /** Writes run in one transaction, as the service's do. */
  transaction: boolean;
  answer: FloorAnswer;
  /** Ids the service generated for the recorded request; each floor request uses new ones instead. */
  freshIds: string[];
}

export interface Scenario {
  name: string;
  title: string;
  request: CapturedRequest;
  /** Concurrent connections: many for short reads and writes, few for heavy requests measured by latency. */
  connections: 'many' | 'few';
  /**
   * `load`: autocannon for the run's duration. `document`: a heavy answer read whole, one request after
   * another. `export`: one request read to the end, measured in rows a second and peak memory.
   */
  kind: 'load' | 'document' | 'export';
  writes: boolean;
  floorAnswer: FloorAnswer;
  /** Statuses besides 2xx that are the expected answer. */
  accept?: number[];
  /** A header with a new value on every request (the service's answer depends on it being new). */
  freshHeader?: string;
}

/** The stored report the reads use, made by the run, and the ETag of its first read. */
export interface StoredReport {
  id: string;
  etag: string;
}

const json = { 'content-type': 'application/json' };

/** Every scenario of a run, in the order run: each request as the service gets it. */
export function scenarios(manifest: Manifest, token: string, stored: StoredReport): Scenario[] {
  const org = `/orgs/${manifest.orgId}`;
  const auth = { authorization: `Bearer ${token}` };
  const big = manifest.bigProject;
  const busy = manifest.busyReport;
  const read = { kind: 'load', writes: false, floorAnswer: 'json' } as const;
  return [
    {
      ...read,
      name: 'project',
      title: 'GET project',
      request: { method: 'GET', path: `${org}/projects/${big.id}`, headers: auth },
      connections: 'many',
    },
    {
      ...read,
      name: 'indicators',
      title: `GET indicators?projectId (${big.indicatorCount})`,
      request: { method: 'GET', path: `${org}/indicators?projectId=${big.id}`, headers: auth },
      connections: 'many',
    },
    {
      name: 'submission',
      title: 'public submission, auto-count, Idempotency-Key, 1 webhook',
      request: {
        method: 'POST',
        path: `/forms/public/${manifest.intake.publicToken}/submit`,
        headers: { ...json, 'idempotency-key': randomUUID() },
        body: JSON.stringify({ answers: manifest.intake.answers }),
      },
      connections: 'many',
      kind: 'load',
      writes: true,
      floorAnswer: 'json',
      freshHeader: 'idempotency-key',
    },
    {
      name: 'assembly',
      title: `report assembly (${big.indicatorCount} ind. x ${big.periodIds.length} periods)`,
      request: {
        method: 'POST',
        path: `${org}/reports`,
        headers: { ...auth, ...json },
        body: JSON.stringify({
          title: 'Bench report',
          projectId: big.id,
          reportType: 'ad_hoc',
          periodIds: big.periodIds,
        }),
      },
      connections: 'few',
      kind: 'load',
      writes: true,
      floorAnswer: 'json',
    },
    {
      ...read,
      name: 'report-br',
      title: 'GET stored report, Accept-Encoding: br',
      request: {
        method: 'GET',
        path: `${org}/reports/${stored.id}`,
        headers: { ...auth, 'accept-encoding': 'br' },
      },
      connections: 'many',
      floorAnswer: 'brotli',
    },
    {
      ...read,
      name: 'report-304',
      title: 'GET stored report, If-None-Match (304)',
      request: {
        method: 'GET',
        path: `${org}/reports/${stored.id}`,
        headers: { ...auth, 'if-none-match': stored.etag },
      },
      connections: 'many',
      floorAnswer: 'not-modified',
      accept: [304],
    },
    {
      ...read,
      name: 'dashboard',
      title: `dashboard summary (${manifest.counts.projects ?? '?'} projects)`,
      request: { method: 'GET', path: `${org}/dashboard-summary`, headers: auth },
      connections: 'few',
    },
    {
      ...read,
      name: 'data-quality',
      title: `data quality, every project and period (${manifest.counts.projects ?? '?'} projects)`,
      request: { method: 'GET', path: `${org}/data-quality`, headers: auth },
      connections: 'few',
    },
    {
      ...read,
      name: 'history',
      title: `history of a busy indicator report (first ${Math.min(1000, busy.historyEntries).toLocaleString('en')} of ${busy.historyEntries.toLocaleString('en')})`,
      request: {
        method: 'GET',
        path: `${org}/projects/${busy.projectId}/indicator-reports/${busy.id}/history`,
        headers: auth,
      },
      connections: 'many',
    },
    {
      ...read,
      name: 'iati',
      title: `IATI export (${manifest.counts.projects ?? '?'} projects)`,
      request: { method: 'GET', path: `${org}/iati/activities.xml`, headers: auth },
      connections: 'few',
      kind: 'document',
      floorAnswer: 'stream',
    },
    {
      name: 'csv',
      title: `CSV export (${manifest.csvForm.submissions.toLocaleString('en')} submissions)`,
      request: { method: 'GET', path: `${org}/forms/${manifest.csvForm.id}/submissions.csv`, headers: auth },
      connections: 'few',
      kind: 'export',
      writes: false,
      floorAnswer: 'stream',
    },
  ];
}
