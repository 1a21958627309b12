import type { Db } from '../../db/client.js';
import { notFound } from '../../errors/catalogue.js';
import type { Member } from '../../http/pipeline/access.js';
import { isCross, type Dimension } from '../../lib/crosses.js';
import { disaggregationsOfLinked, linkedIndicators, type LinkedDisaggregation } from '../indicators/index.js';
import { formulaBasics } from '../progress/index.js';
import { listDonorsOfPrograms } from '../programs/index.js';
import { ensureProjectAccess } from '../projects/index.js';
import { assembleIndicators, type IncludedValue, type LinkedIndicator } from './assembly.js';
import { projectForReport } from './assembly.repo.js';
import { crossTabulationsOf } from './cross-tabulations.js';
import { targetsInPeriods, valuesInPeriods } from './included-values.repo.js';
import { projectPeriods, resultFrameworks, type ResultNodeRow } from './logframe.repo.js';
import type { CrossTabulation, Cover, IndicatorEntry, ReportProject } from './report-snapshot.js';

/**
 * A project's logframe (GET .../projects/:projectId/logframe.xlsx): its results framework with its
 * indicators, each assembled as a report over every period of the project assembles it
 * (assembleIndicators: the submitted and approved values, the same scoring as the API's progress), with
 * the periods' own targets, and its disaggregations per period. The workbook is written by logframe-xlsx.ts.
 */

export interface LogframePeriod {
  id: string;
  label: string;
  startDate: string;
  endDate: string;
}

/** An indicator of the logframe: its assembled entry, its link, and its periods' targets and values. */
export interface LogframeIndicator {
  entry: IndicatorEntry;
  /** The project link's target (for the life of the project) and baseline year. */
  linkTarget: number | null;
  baselineYear: number | null;
  /** Per period, in the logframe's order: its target (whatever its value's status) and its actual. */
  periods: { target: number | null; actual: number | null }[];
  /** Its disaggregations, plain and crossed, and per period the included value's categories. */
  dimensions: Dimension[];
  /** Per period (null: no value included), the included value's disaggregated values. */
  valuesByPeriod: (Record<string, number> | null)[];
  /** Per cross, per period (null: no value included) then over all periods, the cross's table. */
  crossTables: { cross: string; byPeriod: (CrossTabulation | null)[]; overall: CrossTabulation }[];
}

/** A row of the framework: a result with its depth, or an indicator under the result it measures. */
export type LogframeRow =
  | { kind: 'result'; depth: number; level: string; code: string | null; title: string }
  | { kind: 'indicator'; depth: number; indicator: LogframeIndicator };

export interface Logframe {
  exportedAt: Date;
  project: ReportProject;
  organization: Cover['organization'];
  donors: Cover['donors'];
  periods: LogframePeriod[];
  rows: LogframeRow[];
  /** The indicators in the rows' order. */
  indicators: LogframeIndicator[];
}

const byCode = (a: LogframeIndicator, b: LogframeIndicator) => {
  const x = a.entry.code.toLowerCase();
  const y = b.entry.code.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * The framework's rows: each result node holding an indicator of the project, or above one, depth
 * first in the framework's order (the project's program first), its indicators under it by code; then
 * the indicators in no result, by code.
 */
function frameworkRows(
  nodes: ResultNodeRow[],
  programId: string,
  indicators: LogframeIndicator[],
): LogframeRow[] {
  const byNode = new Map<string, LogframeIndicator[]>();
  const loose: LogframeIndicator[] = [];
  for (const indicator of indicators) {
    const node = indicator.entry.resultNode;
    if (node && nodes.some((n) => n.id === node.id)) {
      const list = byNode.get(node.id);
      if (list) list.push(indicator);
      else byNode.set(node.id, [indicator]);
    } else loose.push(indicator);
  }
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const shown = new Set<string>();
  for (const id of byNode.keys()) {
    for (let node = byId.get(id); node && !shown.has(node.id); node = byId.get(node.parentId ?? '')) {
      shown.add(node.id);
    }
  }
  const children = new Map<string | null, ResultNodeRow[]>();
  for (const node of nodes) {
    if (!shown.has(node.id)) continue;
    const list = children.get(node.parentId);
    if (list) list.push(node);
    else children.set(node.parentId, [node]);
  }
  const rows: LogframeRow[] = [];
  const visit = (node: ResultNodeRow, depth: number) => {
    rows.push({ kind: 'result', depth, level: node.level, code: node.code, title: node.title });
    for (const indicator of (byNode.get(node.id) ?? []).sort(byCode)) {
      rows.push({ kind: 'indicator', depth: depth + 1, indicator });
    }
    for (const child of children.get(node.id) ?? []) visit(child, depth + 1);
  };
  const roots = (children.get(null) ?? []).sort(
    (a, b) => Number(b.programId === programId) - Number(a.programId === programId),
  );
  for (const root of roots) visit(root, 0);
  for (const indicator of loose.sort(byCode)) rows.push({ kind: 'indicator', depth: 0, indicator });
  return rows;
}

/** What the logframe's reads found, before it is shaped. */
interface Read {
  periods: LogframePeriod[];
  links: LinkedIndicator[];
  baselineYears: Map<string, number | null>;
  values: IncludedValue[];
  targets: Map<string, number | null>;
  dimensions: LinkedDisaggregation[];
}

function indicatorsOf(read: Read, entries: IndicatorEntry[]): LogframeIndicator[] {
  const valueOf = new Map(read.values.map((v) => [`${v.indicatorId}/${v.periodId}`, v]));
  const linkOf = new Map(read.links.map((link) => [link.indicator.id, link]));
  return entries.map((entry) => {
    const link = linkOf.get(entry.indicatorId)!;
    const formula = link.indicator.isFormula || !entry.aggregationMethod;
    const dimensions = formula ? [] : read.dimensions.filter((d) => d.indicatorId === entry.indicatorId);
    const included = read.periods.map((p) => valueOf.get(`${entry.indicatorId}/${p.id}`) ?? null);
    const method = entry.aggregationMethod!;
    return {
      entry,
      linkTarget: link.target,
      baselineYear: read.baselineYears.get(entry.indicatorId) ?? null,
      periods: read.periods.map((p, index) => ({
        target: formula ? null : (read.targets.get(`${entry.indicatorId}/${p.id}`) ?? null),
        actual: entry.periods[index]?.value ?? null,
      })),
      dimensions,
      valuesByPeriod: included.map((v) => (v ? v.disaggregatedValues : null)),
      crossTables: dimensions.filter(isCross).map((cross) => {
        const tableOf = (values: { periodStart: string; disaggregatedValues: Record<string, number> }[]) =>
          crossTabulationsOf(method, dimensions, values).find((table) => table.name === cross.name)!;
        return {
          cross: cross.name,
          byPeriod: included.map((v, index) =>
            v ? tableOf([{ periodStart: read.periods[index]!.startDate, ...v }]) : null,
          ),
          overall:
            entry.crossTabulations?.find((table) => table.name === cross.name) ??
            tableOf(
              included.flatMap((v, index) =>
                v ? [{ periodStart: read.periods[index]!.startDate, ...v }] : [],
              ),
            ),
        };
      }),
    };
  });
}

/**
 * Reads and shapes a project's logframe: 404 outside the org, 403 for a reporter not on the project
 * (checked on `db`, the primary); the rest is read from `reads` (the read replica, when there is one).
 */
export async function logframeOf(
  db: Db,
  member: Member,
  projectId: string,
  now: Date,
  reads: Db = db,
): Promise<Logframe> {
  const found = await projectForReport(db, member.orgId, projectId);
  if (!found) throw notFound('Project');
  await ensureProjectAccess(db, member, projectId);
  const { orgId } = member;
  const periods = await projectPeriods(reads, orgId, projectId);
  const ids = periods.map((period) => period.id);
  const [links, basics, donors, values, targets, dimensions] = await Promise.all([
    linkedIndicators(reads, orgId, [projectId]),
    formulaBasics(reads, orgId),
    listDonorsOfPrograms(reads, orgId, [found.project.programId]),
    valuesInPeriods(reads, orgId, projectId, ids),
    targetsInPeriods(reads, orgId, projectId, ids),
    disaggregationsOfLinked(reads, orgId, [projectId]),
  ]);
  const nodeIds = [...new Set(links.flatMap((link) => (link.nodeId ? [link.nodeId] : [])))];
  const nodes = await resultFrameworks(reads, orgId, nodeIds);
  const crossed = new Set(dimensions.filter(isCross).map((d) => d.indicatorId));
  const linked: LinkedIndicator[] = links.map((link) => ({
    indicator: {
      id: link.id,
      name: link.name,
      code: link.code,
      unit: link.unit,
      aggregationMethod: link.aggregationMethod,
      isFormula: link.isFormula,
      formula: link.formula,
    },
    target: link.target,
    baseline: link.baseline,
    resultNode: link.nodeId ? { id: link.nodeId, level: link.nodeLevel!, title: link.nodeTitle! } : null,
    // As a report: the tables of crosses, for the indicators that have one.
    ...(crossed.has(link.id) && { dimensions: dimensions.filter((d) => d.indicatorId === link.id) }),
  }));
  const entries = assembleIndicators({
    periods,
    links: linked,
    values,
    periodTargets: targets,
    formulaBasics: basics,
    project: found.project,
  });
  const read: Read = {
    periods,
    links: linked,
    baselineYears: new Map(links.map((link) => [link.id, link.baselineYear])),
    values,
    targets: new Map(targets.map((t) => [`${t.indicatorId}/${t.periodId}`, t.target])),
    dimensions,
  };
  const rows = frameworkRows(nodes, found.project.programId, indicatorsOf(read, entries));
  return {
    exportedAt: now,
    project: found.project,
    organization: found.organization,
    donors: donors.map(({ programId: _programId, ...donor }) => donor),
    periods,
    rows,
    indicators: rows.flatMap((row) => (row.kind === 'indicator' ? [row.indicator] : [])),
  };
}
