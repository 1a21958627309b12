import { evaluateFormula, parseFormula, type ParsedFormula } from '../../lib/formula.js';
import {
  aggregateSummary,
  progressOf,
  summarize,
  targetOfSummary,
  type AggregationMethod,
  type PeriodSummary,
  type PeriodValue,
  type Progress,
  withoutNoise,
} from '../../lib/scoring.js';

export interface ScoredIndicator {
  id: string;
  code: string;
  aggregationMethod: AggregationMethod | null;
  isFormula: boolean;
  formula: string | null;
}

export interface CountedReport extends PeriodValue {
  projectId: string;
  indicatorId: string;
}

/** The counted reports of one indicator in one project, summarized (by the database or `summarize`). */
export interface CountedSummary extends PeriodSummary {
  projectId: string;
  indicatorId: string;
}

const EMPTY = summarize([]);

/**
 * Progress of indicators in projects over a given set of reports (the org view counts every submitted
 * and approved report; an assembled report counts its periods), summarized per project and indicator.
 * A formula indicator is evaluated on the aggregated values of its inputs in the same project; its
 * target is the project link's.
 */
export class ProgressCalculator {
  private readonly byId = new Map<string, ScoredIndicator>();
  private readonly byCode = new Map<string, ScoredIndicator>();
  /** By project, then indicator. */
  private readonly summaries = new Map<string, Map<string, PeriodSummary>>();
  private readonly parsed = new Map<string, ParsedFormula | null>();

  constructor(indicators: ScoredIndicator[], summaries: CountedSummary[]) {
    for (const indicator of indicators) {
      this.byId.set(indicator.id, indicator);
      this.byCode.set(indicator.code.toLowerCase(), indicator);
    }
    for (const summary of summaries) {
      const project = this.summaries.get(summary.projectId);
      if (project) project.set(summary.indicatorId, summary);
      else this.summaries.set(summary.projectId, new Map([[summary.indicatorId, summary]]));
    }
  }

  /** Over reports, summarized here per project and indicator. */
  static ofReports(indicators: ScoredIndicator[], reports: CountedReport[]): ProgressCalculator {
    const grouped = new Map<string, Map<string, CountedReport[]>>();
    for (const report of reports) {
      let project = grouped.get(report.projectId);
      if (!project) grouped.set(report.projectId, (project = new Map<string, CountedReport[]>()));
      const periods = project.get(report.indicatorId);
      if (periods) periods.push(report);
      else project.set(report.indicatorId, [report]);
    }
    const summaries = [...grouped].flatMap(([projectId, project]) =>
      [...project].map(([indicatorId, periods]) => ({ projectId, indicatorId, ...summarize(periods) })),
    );
    return new ProgressCalculator(indicators, summaries);
  }

  progress(projectId: string, indicatorId: string, linkTarget: number | null): Progress {
    const indicator = this.byId.get(indicatorId);
    if (!indicator) return progressOf(null, linkTarget);
    const summary = indicator.isFormula ? EMPTY : this.summaryOf(projectId, indicatorId);
    const target = targetOfSummary(indicator.aggregationMethod ?? 'latest', summary, linkTarget);
    return progressOf(this.value(projectId, indicator), target);
  }

  /** The aggregated value alone (no target or band): what a report shows per period. */
  valueOf(projectId: string, indicatorId: string): number | null {
    const indicator = this.byId.get(indicatorId);
    return indicator ? this.value(projectId, indicator) : null;
  }

  private summaryOf(projectId: string, indicatorId: string): PeriodSummary {
    return this.summaries.get(projectId)?.get(indicatorId) ?? EMPTY;
  }

  /**
   * What a formula indicator was evaluated on: each code it uses, in order (the indicator's own spelling
   * when it exists), with the value its evaluation took for it; null for an indicator that is not a formula.
   */
  inputsOf(projectId: string, indicatorId: string): { code: string; value: number | null }[] | null {
    const indicator = this.byId.get(indicatorId);
    if (!indicator?.isFormula) return null;
    return (this.parse(indicator)?.codes ?? []).map((code) => {
      const input = this.byCode.get(code.toLowerCase());
      return {
        code: input?.code ?? code,
        value: input ? this.value(projectId, input, new Set([indicator.id])) : null,
      };
    });
  }

  /** `visiting`: the formulas being evaluated, made at the first formula. */
  private value(projectId: string, indicator: ScoredIndicator, visiting?: Set<string>): number | null {
    if (!indicator.isFormula) {
      return aggregateSummary(
        indicator.aggregationMethod ?? 'latest',
        this.summaryOf(projectId, indicator.id),
      );
    }
    const ast = this.parse(indicator)?.ast;
    // Cycles are refused when formulas are saved; the guard only keeps a bad row from looping.
    const seen = visiting ?? new Set<string>();
    if (!ast || seen.has(indicator.id)) return null;
    seen.add(indicator.id);
    const result = evaluateFormula(ast, (code) => {
      const input = this.byCode.get(code.toLowerCase());
      return input ? this.value(projectId, input, seen) : null;
    });
    seen.delete(indicator.id);
    return result === null ? null : withoutNoise(result);
  }

  private parse(indicator: ScoredIndicator): ParsedFormula | null {
    if (!this.parsed.has(indicator.id)) this.parsed.set(indicator.id, parsedOrNull(indicator.formula));
    return this.parsed.get(indicator.id) ?? null;
  }
}

/** Stored formulas were checked when saved; one that no longer parses scores as no data. */
function parsedOrNull(formula: string | null): ParsedFormula | null {
  if (!formula) return null;
  try {
    return parseFormula(formula);
  } catch {
    return null;
  }
}
