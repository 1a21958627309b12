import { aggregate, percentOf, progressOf, targetToDate, type AggregationMethod } from '../../lib/scoring.js';
import { ProgressCalculator, type CountedReport, type ScoredIndicator } from '../progress/index.js';
import { isCross, type Dimension } from '../../lib/crosses.js';
import { crossTabulationsOf } from './cross-tabulations.js';
import { provenanceOf, type ValueSources } from './provenance.js';
import { qualityNotesOf, type FlaggedValue } from './quality-notes.js';
import type {
  ActivityEntry,
  AttachmentEntry,
  BudgetLineEntry,
  Cover,
  IndicatorEntry,
  Narratives,
  ReportContent,
  ReportProject,
} from './report-snapshot.js';

export type { Narratives, ReportContent } from './report-snapshot.js';
export type { LastChange } from './provenance.js';

/**
 * Turns what assembly.repo.ts read into the sections of a donor report (SPEC.md "Assembly rules",
 * DECISIONS.md section 11). Pure: the numbers come from the shared scoring functions, so a report, the
 * dashboard and `GET /indicators?status=` agree.
 */

export const EMPTY_NARRATIVES: Narratives = {
  executiveSummary: '',
  challengesLessons: '',
  recommendations: '',
};

export interface IncludedPeriod {
  id: string;
  label: string;
  startDate: string;
  endDate: string;
}

export interface LinkedIndicator {
  indicator: ScoredIndicator & { name: string; unit: string };
  target: number | null;
  baseline: number | null;
  resultNode: { id: string; level: string; title: string } | null;
  /** The indicator's disaggregations, when it has any: named tables, and a grid per cross (crossTabulations.ts). */
  dimensions?: Dimension[];
}

/** A submitted or approved value in an included period, with where it comes from and its flags. */
export interface IncludedValue extends ValueSources, FlaggedValue {
  indicatorId: string;
  periodId: string;
  target: number | null;
  narrative: string | null;
  disaggregatedValues: Record<string, number>;
}

/** A target held by a report of an included period, whatever the report's status (see targetsInPeriods). */
export interface PeriodTargetRow {
  indicatorId: string;
  periodId: string;
  target: number | null;
}

export interface AssemblyInput {
  range: { startDate: string; endDate: string };
  project: ReportProject;
  organization: { name: string; logoUrl: string | null };
  donors: Cover['donors'];
  periods: IncludedPeriod[];
  links: LinkedIndicator[];
  values: IncludedValue[];
  /** The included periods' targets; without them, those of the included values. */
  periodTargets?: PeriodTargetRow[];
  /** Every indicator of the organization: formulas may use indicators by code. */
  formulaBasics: ScoredIndicator[];
  /** The input indicators of the rules flagging the values, by rule id; without them, no rule message is kept. */
  ruleInputs?: ReadonlyMap<string, readonly string[]>;
  activities: ActivityEntry[];
  budget: { totalPlanned: number; totalActual: number; lines: BudgetLineEntry[] };
  attachments: AttachmentEntry[];
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Oldest first; periods of one project never overlap, so start dates differ. */
const inStartOrder = (periods: IncludedPeriod[]) =>
  [...periods].sort((a, b) => byText(a.startDate, b.startDate));

const byCode = (a: LinkedIndicator, b: LinkedIndicator) => {
  const x = a.indicator.code.toLowerCase();
  const y = b.indicator.code.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a.indicator.id < b.indicator.id ? -1 : 1;
};

/** Each category aggregated over the periods by the indicator's method; a period without it adds nothing. */
function disaggregationsOf(method: AggregationMethod, values: (IncludedValue & { periodStart: string })[]) {
  const keys = [...new Set(values.flatMap((v) => Object.keys(v.disaggregatedValues)))].sort();
  const result: Record<string, number> = {};
  for (const key of keys) {
    const total = aggregate(
      method,
      values.map((v) => ({
        periodStart: v.periodStart,
        value: v.disaggregatedValues[key] ?? null,
        target: null,
      })),
    );
    if (total !== null) result[key] = total;
  }
  return result;
}

/**
 * The to-date figures of an entry, beside the contract's: the included periods' own targets combined by
 * the indicator's method (null unless each has one; null for formulas, whose inputs' targets do not
 * combine into theirs), and the entry's value scored against it with the same bands.
 */
function toDateOf(
  indicator: LinkedIndicator['indicator'],
  periods: IncludedPeriod[],
  targets: Map<string, number | null>,
  value: number | null,
) {
  const target =
    indicator.isFormula || !indicator.aggregationMethod
      ? null
      : targetToDate(
          indicator.aggregationMethod,
          periods.map((p) => ({
            periodStart: p.startDate,
            target: targets.get(`${indicator.id}/${p.id}`) ?? null,
          })),
        );
  const scored = progressOf(value, target);
  return { targetToDate: target, progressToDatePct: scored.progressPct, statusToDate: scored.status };
}

/**
 * What names an entry's disaggregated values: its plain disaggregations (their categories are keys of
 * disaggregatedValues) and a table per cross. Each only when the indicator has one, so that the entries
 * of other indicators read as before.
 */
function disaggregationTablesOf(link: LinkedIndicator, own: (IncludedValue & { periodStart: string })[]) {
  const { aggregationMethod: method, isFormula } = link.indicator;
  if (!link.dimensions || !method || isFormula) return {};
  const plain = link.dimensions.filter((d) => !isCross(d));
  return {
    ...(plain.length > 0 && {
      disaggregations: plain.map(({ name, categories }) => ({ name, categories: [...categories] })),
    }),
    ...(link.dimensions.some(isCross) && {
      crossTabulations: crossTabulationsOf(method, link.dimensions, own),
    }),
  };
}

export function assembleIndicators(
  input: Pick<
    AssemblyInput,
    'periods' | 'links' | 'values' | 'formulaBasics' | 'project' | 'periodTargets' | 'ruleInputs'
  >,
) {
  const periods = inStartOrder(input.periods);
  const startOf = new Map(periods.map((p) => [p.id, p.startDate]));
  const values = input.values
    .filter((v) => startOf.has(v.periodId))
    .map((v) => ({ ...v, periodStart: startOf.get(v.periodId)! }));
  const counted = (list: typeof values): CountedReport[] =>
    list.map((v) => ({ ...v, projectId: input.project.id }));
  const overall = ProgressCalculator.ofReports(input.formulaBasics, counted(values));
  const byPeriod = new Map<string, typeof values>(periods.map((p) => [p.id, []]));
  for (const v of values) byPeriod.get(v.periodId)!.push(v);
  const perPeriod = new Map(
    [...byPeriod].map(([id, list]) => [id, ProgressCalculator.ofReports(input.formulaBasics, counted(list))]),
  );
  // Each indicator's own values, oldest first.
  const byIndicator = new Map<string, typeof values>();
  for (const v of [...values].sort((a, b) => byText(a.periodStart, b.periodStart))) {
    const own = byIndicator.get(v.indicatorId);
    if (own) own.push(v);
    else byIndicator.set(v.indicatorId, [v]);
  }

  const targets = new Map(
    (input.periodTargets ?? input.values).map((t) => [`${t.indicatorId}/${t.periodId}`, t.target]),
  );

  const notes = qualityNotesOf({
    values,
    shownIndicators: new Set(input.links.map((link) => link.indicator.id)),
    ruleInputs: input.ruleInputs ?? new Map(),
    periods,
  });

  return [...input.links].sort(byCode).map((link): IndicatorEntry => {
    const { indicator } = link;
    const own = byIndicator.get(indicator.id) ?? [];
    const ownByPeriod = new Map(own.map((v) => [v.periodId, v]));
    const progress = overall.progress(input.project.id, indicator.id, link.target);
    return {
      indicatorId: indicator.id,
      indicatorName: indicator.name,
      code: indicator.code,
      unit: indicator.unit,
      aggregationMethod: indicator.aggregationMethod,
      value: progress.value,
      target: progress.target,
      baseline: link.baseline,
      progressPct: progress.progressPct,
      status: progress.status,
      ...toDateOf(indicator, periods, targets, progress.value),
      narrative: own
        .map((v) => v.narrative?.trim())
        .filter(Boolean)
        .join('\n\n'),
      disaggregatedValues:
        indicator.isFormula || !indicator.aggregationMethod
          ? {}
          : disaggregationsOf(indicator.aggregationMethod, own),
      resultNode: link.resultNode,
      ...disaggregationTablesOf(link, own),
      provenance: indicator.isFormula ? null : provenanceOf(own),
      inputs: overall.inputsOf(input.project.id, indicator.id),
      ...(notes.has(indicator.id) && { qualityNotes: notes.get(indicator.id) }),
      periods: periods.map((period) => ({
        periodId: period.id,
        label: period.label,
        value: perPeriod.get(period.id)!.valueOf(input.project.id, indicator.id),
        target: indicator.isFormula ? null : (ownByPeriod.get(period.id)?.target ?? null),
      })),
    };
  });
}

export function assemble(input: AssemblyInput): ReportContent {
  const periods = inStartOrder(input.periods);
  return {
    periodIds: periods.map((p) => p.id),
    project: input.project,
    cover: {
      projectName: input.project.name,
      donors: input.donors,
      organization: input.organization,
      period: input.range,
    },
    indicators: assembleIndicators(input),
    activities: input.activities,
    budget: {
      currency: input.project.currency,
      totalPlanned: input.budget.totalPlanned,
      totalActual: input.budget.totalActual,
      burnRate: percentOf(input.budget.totalActual, input.budget.totalPlanned),
      lines: input.budget.lines,
    },
    attachments: input.attachments,
  };
}
