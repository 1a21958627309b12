import type { ReportFlag } from '../quality/index.js';
import type { QualityNote } from './report-snapshot.js';

/**
 * The data-quality notes of a donor report: the flags of the values it includes, kept in its snapshot
 * beside the figures they speak of. Pure, like assembly.ts.
 *
 * A flag's message quotes numbers. A donor may read only those the report shows, so a message is kept
 * only when every value it quotes is one of the report's, and otherwise becomes null (the note still says
 * that a check flagged the value, and why the organization keeps it):
 * - a rule's message quotes its inputs in the value's project and period: each must be an included value
 *   (submitted or approved) of an indicator the report shows;
 * - an outlier's message quotes the value and a figure of its own project's earlier periods, or of the
 *   organization's other projects when the project's history was short: the latter is withheld, since a
 *   median of other projects' values is one of them when they are few;
 * - no message quoting a value whose personal amounts are gone (their form was deleted): the value history
 *   hides such a value and its flags from everyone, and the report keeps to that.
 */

/** A flagged value as the notes read it (IncludedValue carries these). */
export interface FlaggedValue {
  indicatorId: string;
  periodId: string;
  flags?: ReportFlag[];
  personalAmountsGone?: boolean;
}

/**
 * How src/lib/outliers.ts says a value was compared with the organization's other projects
 * (`… the median of 12 values of this indicator in other projects (1,180) …`); quality-notes.test.ts
 * holds it to the messages that module writes.
 */
const OTHER_PROJECTS = / values of this indicator in other projects \(/;

/** Whether an outlier's message quotes the organization's other projects rather than the value's own. */
export const quotesOtherProjects = (message: string) => OTHER_PROJECTS.test(message);

export interface NoteInput {
  /** The included values, with their flags. */
  values: readonly FlaggedValue[];
  /** The indicators the report has an entry for. */
  shownIndicators: ReadonlySet<string>;
  /** Each flagging rule's input indicators, by rule id (rule-inputs.repo.ts). */
  ruleInputs: ReadonlyMap<string, readonly string[]>;
  /** The included periods, oldest first. */
  periods: readonly { id: string; label: string }[];
}

/** The rules whose flags the values carry: their inputs are what the notes must know. */
export const flaggingRules = (values: readonly FlaggedValue[]) => [
  ...new Set(
    values.flatMap((value) => (value.flags ?? []).flatMap((flag) => (flag.rule ? [flag.rule] : []))),
  ),
];

const key = (indicatorId: string, periodId: string) => `${indicatorId}/${periodId}`;

/** The notes of each indicator with flagged included values, oldest period first; none for the others. */
export function qualityNotesOf(input: NoteInput): Map<string, QualityNote[]> {
  const byKey = new Map(input.values.map((value) => [key(value.indicatorId, value.periodId), value]));
  // A value the donor reads, so a message may quote it.
  const quotable = (indicatorId: string, periodId: string) => {
    const value = byKey.get(key(indicatorId, periodId));
    return value !== undefined && input.shownIndicators.has(indicatorId) && !value.personalAmountsGone;
  };
  const speaksOfShown = (flag: ReportFlag, value: FlaggedValue) => {
    if (!quotable(value.indicatorId, value.periodId)) return false;
    // A score's median or mean is of earlier values, drafts and periods the report leaves out among
    // them: only bounds (the value and the limit set for the indicator) are quoted.
    if (flag.kind === 'outlier') return flag.method === 'min_max' && !quotesOtherProjects(flag.message);
    // A cell (`CODE[female] (12)`) is one period's: the report shows cells summed over its periods.
    if (flag.message.includes('[') && input.periods.length !== 1) return false;
    const inputs = flag.rule === undefined ? undefined : input.ruleInputs.get(flag.rule);
    return inputs !== undefined && inputs.every((indicatorId) => quotable(indicatorId, value.periodId));
  };
  const order = new Map(input.periods.map((period, index) => [period.id, index]));
  const flagged = input.values
    .filter((v) => v.flags?.length && order.has(v.periodId) && input.shownIndicators.has(v.indicatorId))
    .sort((a, b) => order.get(a.periodId)! - order.get(b.periodId)!);
  const notes = new Map<string, QualityNote[]>();
  for (const value of flagged) {
    const period = input.periods[order.get(value.periodId)!]!;
    const own = notes.get(value.indicatorId) ?? [];
    for (const flag of value.flags!) {
      own.push({
        periodId: period.id,
        period: period.label,
        kind: flag.kind,
        importance: flag.importance,
        message: speaksOfShown(flag, value) ? flag.message : null,
        justification: flag.justification,
      });
    }
    notes.set(value.indicatorId, own);
  }
  return notes;
}
