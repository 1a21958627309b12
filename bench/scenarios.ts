import type { CapturedRequest, Statement } from './capture.js';
import type { Manifest } from './manifest.js';

/** What the floor server runs for one scenario (written to a file by run.ts, read by floor.ts). */
export interface FloorScenario {
  method: 'GET' | 'POST';
  statements: Statement[];
  /** Writes run in one transaction, as the service's do. */
  transaction: boolean;
  csv: boolean;
  /** Ids the service generated for the recorded request; each floor request uses new ones instead. */
  freshIds: string[];
}

export interface Scenario {
  name: string;
  title: string;
  request: CapturedRequest;
  /** Concurrent connections: many for short reads and writes, few for heavy requests measured by latency. */
  connections: 'many' | 'few';
  kind: 'load' | 'export';
  writes: boolean;
  /** The floor's request uses fresh values for these ids the recorded response returned. */
  freshIdsFrom?: (body: string) => string[];
}

const json = { 'content-type': 'application/json' };
/** The id a creating request returned (capture keeps only the start of a body, where `id` comes first). */
const createdId = (body: string) => [/^\{"id":"([0-9a-f-]{36})"/.exec(body)?.[1] ?? ''].filter(Boolean);

export function scenarios(manifest: Manifest, token: string, reportId: string): Scenario[] {
  const org = `/orgs/${manifest.orgId}`;
  const auth = { authorization: `Bearer ${token}` };
  const big = manifest.bigProject;
  return [
    {
      name: 'project',
      title: 'GET project',
      request: { method: 'GET', path: `${org}/projects/${big.id}`, headers: auth },
      connections: 'many',
      kind: 'load',
      writes: false,
    },
    {
      name: 'indicators',
      title: `GET indicators?projectId (${big.indicatorCount})`,
      request: { method: 'GET', path: `${org}/indicators?projectId=${big.id}`, headers: auth },
      connections: 'many',
      kind: 'load',
      writes: false,
    },
    {
      name: 'submission',
      title: 'public submission, auto-count',
      request: {
        method: 'POST',
        path: `/forms/public/${manifest.intake.publicToken}/submit`,
        headers: json,
        body: JSON.stringify({ answers: manifest.intake.answers }),
      },
      connections: 'many',
      kind: 'load',
      writes: true,
      freshIdsFrom: createdId,
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
      freshIdsFrom: createdId,
    },
    {
      name: 'report',
      title: 'GET stored report',
      request: { method: 'GET', path: `${org}/reports/${reportId}`, headers: auth },
      connections: 'many',
      kind: 'load',
      writes: false,
    },
    {
      name: 'dashboard',
      title: `dashboard summary (${manifest.counts.projects ?? '?'} projects)`,
      request: { method: 'GET', path: `${org}/dashboard-summary`, headers: auth },
      connections: 'few',
      kind: 'load',
      writes: false,
    },
    {
      name: 'csv',
      title: `CSV export (${manifest.csvForm.submissions.toLocaleString('en')} submissions)`,
      request: { method: 'GET', path: `${org}/forms/${manifest.csvForm.id}/submissions.csv`, headers: auth },
      connections: 'few',
      kind: 'export',
      writes: false,
    },
  ];
}
