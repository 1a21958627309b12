/**
 * A project's results framework as IATI results (pure: no database, no markup). Result nodes become
 * results typed by level; each linked indicator hangs under its node, with a period per reporting period
 * of the project whose target and actual come from the approved report of that period alone.
 */
import type { RESULT_LEVELS } from '../results/results.tables.js';
import { CELL_SEPARATOR } from '../../lib/crosses.js';
import { INDICATOR_MEASURE, OTHER_RESULT_TYPE, RESULT_TYPE } from './iati-codes.js';

type ResultLevel = (typeof RESULT_LEVELS)[number];

export interface LinkedIndicator {
  id: string;
  name: string;
  code: string;
  unit: string;
  isFormula: boolean;
  baseline: number | null;
  baselineYear: number | null;
  nodeId: string | null;
  nodeLevel: ResultLevel | null;
  nodeTitle: string | null;
}

export interface Disaggregation {
  name: string;
  categories: string[];
  /** A cross's crossed disaggregations; its categories are then cells (`female|15-24`). */
  crosses?: string[] | null;
}

export interface Period {
  id: string;
  startDate: string;
  endDate: string;
}

export interface ApprovedValue {
  value: number | null;
  target: number | null;
  disaggregatedValues: Record<string, number>;
}

/** A value of one category of a disaggregation: an IATI `dimension` (name, value) and its amount. */
export interface DimensionValue {
  name: string;
  category: string;
  amount: number;
  /** A cell of a cross: one `dimension` per crossed disaggregation (Sex female, Age 15-24). */
  crossed?: { name: string; category: string }[];
}

export interface IatiPeriod {
  startDate: string;
  endDate: string;
  target: number | null;
  actual: number | null;
  dimensions: DimensionValue[];
}

export interface IatiIndicator {
  title: string;
  measure: string;
  baseline: { year: number; value: number } | null;
  periods: IatiPeriod[];
}

export interface IatiResult {
  type: string;
  title: string;
  indicators: IatiIndicator[];
}

export interface ProjectResults {
  /** The year a baseline without its own year is dated (the project's start year). */
  startYear: number;
  indicators: LinkedIndicator[];
  periods: Period[];
  disaggregationsOf: (indicatorId: string) => readonly Disaggregation[];
  approved: (indicatorId: string, periodId: string) => ApprovedValue | undefined;
  /** A formula indicator's value in one period, from its inputs' approved values in that period. */
  formulaValue: (indicatorId: string, periodId: string) => number | null;
  /** Position of a result node in its framework (depth first); undefined when it is not known. */
  rankOf: (nodeId: string) => number | undefined;
}

/** Title of the result that gathers indicators attached to no result node. */
export const UNATTACHED_RESULT_TITLE = 'Indicators outside the results framework';

const LEVEL_ORDER: readonly ResultLevel[] = ['impact', 'outcome', 'output'];

// "%", "percent", "percentage(s)", "per cent", "pct": the indicator is a percentage.
const PERCENTAGE_UNIT = /%|\bper ?cent(age)?s?\b|^\s*pct\s*$/i;

export const measureOf = (unit: string): string =>
  PERCENTAGE_UNIT.test(unit) ? INDICATOR_MEASURE.percentage : INDICATOR_MEASURE.unit;

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The categories a report gives values for, as dimensions in the disaggregations' order (a cross's cells too). */
function dimensionsOf(disaggregations: readonly Disaggregation[], values: Record<string, number>) {
  const dimensions: DimensionValue[] = [];
  for (const { name, categories, crosses } of disaggregations) {
    for (const category of categories) {
      const amount = values[category];
      if (typeof amount !== 'number' || !Number.isFinite(amount)) continue;
      const parts = category.split(CELL_SEPARATOR);
      dimensions.push(
        crosses
          ? {
              name,
              category,
              amount,
              crossed: crosses.map((crossed, i) => ({ name: crossed, category: parts[i]! })),
            }
          : { name, category, amount },
      );
    }
  }
  return dimensions;
}

function indicatorOf(input: ProjectResults, indicator: LinkedIndicator): IatiIndicator {
  const disaggregations = input.disaggregationsOf(indicator.id);
  return {
    title: indicator.name,
    measure: measureOf(indicator.unit),
    baseline:
      indicator.baseline === null
        ? null
        : { year: indicator.baselineYear ?? input.startYear, value: indicator.baseline },
    periods: input.periods.map((period) => {
      const dates = { startDate: period.startDate, endDate: period.endDate };
      if (indicator.isFormula) {
        const actual = input.formulaValue(indicator.id, period.id);
        return { ...dates, target: null, actual, dimensions: [] };
      }
      const approved = input.approved(indicator.id, period.id);
      return {
        ...dates,
        target: approved?.target ?? null,
        actual: approved?.value ?? null,
        dimensions: approved ? dimensionsOf(disaggregations, approved.disaggregatedValues) : [],
      };
    }),
  };
}

/**
 * Results in the framework's order (depth first, as the tree shows them); a node of another program,
 * which the tree of this one does not rank, after them by level and title; then the indicators attached
 * to no node, under one result of type 9 (Other). Indicators by code within a result. A node without a
 * linked indicator is left out: an IATI result needs at least one indicator.
 */
export function resultsOf(input: ProjectResults): IatiResult[] {
  const groups = new Map<string | null, LinkedIndicator[]>();
  const sorted = [...input.indicators].sort(
    (a, b) => byText(a.code.toLowerCase(), b.code.toLowerCase()) || byText(a.id, b.id),
  );
  for (const indicator of sorted) {
    const group = groups.get(indicator.nodeId);
    if (group) group.push(indicator);
    else groups.set(indicator.nodeId, [indicator]);
  }
  const unattached = groups.get(null);
  groups.delete(null);
  const nodes = [...groups.values()].map((list) => list[0]!);
  const key = (node: LinkedIndicator) => input.rankOf(node.nodeId!) ?? Number.POSITIVE_INFINITY;
  nodes.sort(
    (a, b) =>
      key(a) - key(b) ||
      LEVEL_ORDER.indexOf(a.nodeLevel!) - LEVEL_ORDER.indexOf(b.nodeLevel!) ||
      byText(a.nodeTitle!, b.nodeTitle!) ||
      byText(a.nodeId!, b.nodeId!),
  );
  const results: IatiResult[] = nodes.map((node) => ({
    type: RESULT_TYPE[node.nodeLevel!],
    title: node.nodeTitle!,
    indicators: groups.get(node.nodeId)!.map((indicator) => indicatorOf(input, indicator)),
  }));
  if (unattached) {
    results.push({
      type: OTHER_RESULT_TYPE,
      title: UNATTACHED_RESULT_TITLE,
      indicators: unattached.map((indicator) => indicatorOf(input, indicator)),
    });
  }
  return results;
}

/** Depth-first positions of result nodes (siblings by orderIndex, then id), roots of every program. */
export function frameworkRanks(nodes: { id: string; parentId: string | null; orderIndex: number }[]) {
  const children = new Map<string | null, typeof nodes>();
  for (const node of nodes) {
    const siblings = children.get(node.parentId);
    if (siblings) siblings.push(node);
    else children.set(node.parentId, [node]);
  }
  for (const siblings of children.values()) {
    siblings.sort((a, b) => a.orderIndex - b.orderIndex || byText(a.id, b.id));
  }
  const ranks = new Map<string, number>();
  const visit = (parentId: string | null) => {
    for (const node of children.get(parentId) ?? []) {
      ranks.set(node.id, ranks.size);
      visit(node.id);
    }
  };
  visit(null);
  return ranks;
}
