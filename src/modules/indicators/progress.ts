import { evaluateFormula, parseFormula, type FormulaNode } from '../../lib/formula.js';
import {
  aggregate,
  cumulativeTarget,
  progressOf,
  type AggregationMethod,
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

/**
 * Progress of indicators in projects over a given set of reports (the org view counts every submitted
 * and approved report; an assembled report counts its periods). A formula indicator is evaluated on the
 * aggregated values of its inputs in the same project; its target is the project link's.
 */
export class ProgressCalculator {
  private readonly byId = new Map<string, ScoredIndicator>();
  private readonly byCode = new Map<string, ScoredIndicator>();
  private readonly periods = new Map<string, PeriodValue[]>();
  private readonly asts = new Map<string, FormulaNode | null>();

  constructor(indicators: ScoredIndicator[], reports: CountedReport[]) {
    for (const indicator of indicators) {
      this.byId.set(indicator.id, indicator);
      this.byCode.set(indicator.code.toLowerCase(), indicator);
    }
    for (const report of reports) {
      const key = `${report.projectId}:${report.indicatorId}`;
      const periods = this.periods.get(key);
      if (periods) periods.push(report);
      else this.periods.set(key, [report]);
    }
  }

  progress(projectId: string, indicatorId: string, linkTarget: number | null): Progress {
    const indicator = this.byId.get(indicatorId);
    if (!indicator) return progressOf(null, linkTarget);
    const periods = indicator.isFormula ? [] : this.periodsOf(projectId, indicatorId);
    const target = cumulativeTarget(indicator.aggregationMethod ?? 'latest', periods, linkTarget);
    return progressOf(this.value(projectId, indicator, new Set()), target);
  }

  private periodsOf(projectId: string, indicatorId: string): PeriodValue[] {
    return this.periods.get(`${projectId}:${indicatorId}`) ?? [];
  }

  private value(projectId: string, indicator: ScoredIndicator, visiting: Set<string>): number | null {
    if (!indicator.isFormula) {
      return aggregate(indicator.aggregationMethod ?? 'latest', this.periodsOf(projectId, indicator.id));
    }
    const ast = this.ast(indicator);
    // Cycles are refused when formulas are saved; the guard only keeps a bad row from looping.
    if (!ast || visiting.has(indicator.id)) return null;
    visiting.add(indicator.id);
    const result = evaluateFormula(ast, (code) => {
      const input = this.byCode.get(code.toLowerCase());
      return input ? this.value(projectId, input, visiting) : null;
    });
    visiting.delete(indicator.id);
    return result === null ? null : withoutNoise(result);
  }

  private ast(indicator: ScoredIndicator): FormulaNode | null {
    if (!this.asts.has(indicator.id)) this.asts.set(indicator.id, parsedOrNull(indicator.formula));
    return this.asts.get(indicator.id) ?? null;
  }
}

/** Stored formulas were checked when saved; one that no longer parses scores as no data. */
function parsedOrNull(formula: string | null): FormulaNode | null {
  if (!formula) return null;
  try {
    return parseFormula(formula).ast;
  } catch {
    return null;
  }
}
