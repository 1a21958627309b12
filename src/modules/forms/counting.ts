import type { Db } from '../../db/client.js';
import { countIntoIndicatorReport } from '../indicator-reports/index.js';
import { dimensionsOf } from '../indicators/index.js';
import type { Dimension } from '../../lib/crosses.js';
import { entryEvaluator } from './answers.js';
import { cellsOf } from './disaggregate-by.js';
import { lockPeriodHoldingDate } from '../periods/index.js';
import { answerOf } from './form-fields.js';
import type { FormRow } from './forms.repo.js';
import type { CountedReason } from './forms.tables.js';
import { markCounted, uncountedOfPeriod, type ReportOfPeriod } from './submissions.repo.js';

/**
 * Where a submission went: the period it belongs to (kept on the submission), the date it was placed by
 * (forms counting by date), and the report and amount it was counted into, or why it was not.
 */
export interface CountOutcome {
  reportingPeriodId: string | null;
  countDate: string | null;
  counted: { reportId: string; amount: number; cells: Record<string, number> | null } | null;
  reason: CountedReason | null;
}

/** The reasons that mean something was missed (feed event, metric): all but a form counting into nothing. */
export const isMiss = (reason: CountedReason | null): reason is CountedReason =>
  reason !== null && reason !== 'not_counting';

/** What a submission adds: its answer to the value field, or 1; null when that answer is not a number. */
export function amountOf(form: Pick<FormRow, 'valueFieldKey'>, answers: Record<string, unknown>) {
  const amount = form.valueFieldKey ? answerOf(answers, form.valueFieldKey) : 1;
  return typeof amount === 'number' ? amount : null;
}

/** The date a form counting by date places a submission by: its date field's answer, else `today` (UTC). */
export function countDateOf(
  form: Pick<FormRow, 'countDateField'>,
  answers: Record<string, unknown>,
  today: string,
) {
  const answer = form.countDateField ? answerOf(answers, form.countDateField) : undefined;
  return typeof answer === 'string' ? answer : today;
}

/** The form's properties that decide what a submission adds. */
export type CountedForm = Pick<
  FormRow,
  'valueFieldKey' | 'countRepeat' | 'countWhere' | 'disaggregateBy' | 'fields'
>;

/** What a submission adds (its amount and cells), or why it adds nothing countable. */
export type Tally =
  { amount: number; cells: Record<string, number> | null } | { refused: 'no_value' | 'category_not_mapped' };

/**
 * What a submission adds, as its form counts now: the submission (1, or its value field's answer), or
 * with `countRepeat` the entries of that repeat `countWhere` takes, each adding 1 or its answer to the
 * value field (an entry without that answer adds nothing), their cells summed. A submission whose
 * entries add nothing adds 0: it is counted, with amount 0, so its report's sources list it. An entry
 * whose answers map to no category leaves the whole submission uncounted (category_not_mapped), as
 * one submission's answer does. `dimensions` are the indicator's when the form fills disaggregations.
 */
export function tallyOf(
  form: CountedForm,
  answers: Record<string, unknown>,
  dimensions: readonly Dimension[],
  today: string,
): Tally {
  const mappings = form.disaggregateBy?.length ? form.disaggregateBy : null;
  if (!form.countRepeat) {
    const amount = amountOf(form, answers);
    if (amount === null) return { refused: 'no_value' };
    if (!mappings) return { amount, cells: null };
    const cells = cellsOf(mappings, dimensions, answers, amount);
    return cells ? { amount, cells } : { refused: 'category_not_mapped' };
  }
  const entries = answerOf(answers, form.countRepeat);
  const evaluate = form.countWhere ? entryEvaluator(form.fields, today) : null;
  let amount = 0;
  const cells: Record<string, number> | null = mappings ? {} : null;
  for (const entry of Array.isArray(entries) ? entries : []) {
    if (typeof entry !== 'object' || entry === null) continue;
    const given = entry as Record<string, unknown>;
    if (evaluate && !evaluate(form.countWhere!, answers, form.countRepeat, given)) continue;
    const added = form.valueFieldKey ? given[form.valueFieldKey] : 1;
    if (typeof added !== 'number' || !Number.isFinite(added)) continue;
    amount += added;
    if (mappings) {
      const found = cellsOf(mappings, dimensions, { ...answers, ...given }, added);
      if (found === null) return { refused: 'category_not_mapped' };
      for (const [key, n] of Object.entries(found)) cells![key] = (cells![key] ?? 0) + n;
    }
  }
  return { amount, cells };
}

/**
 * Counts one submission into its indicator report, in the caller's transaction (the one storing it): the
 * one place deciding the period, the amount and the reason. `today` is submittedAt's date (UTC).
 */
export async function countSubmission(
  tx: Db,
  form: FormRow,
  answers: Record<string, unknown>,
  at: { submissionId: string; today: string },
): Promise<CountOutcome> {
  const byDate = form.countInto === 'period_of_date';
  const countDate = byDate ? countDateOf(form, answers, at.today) : null;
  const outcome = (reason: CountedReason, reportingPeriodId = form.reportingPeriodId): CountOutcome => ({
    reportingPeriodId,
    countDate,
    counted: null,
    reason,
  });
  if (!form.indicatorId || (!byDate && !form.reportingPeriodId)) return outcome('not_counting');
  const period = byDate
    ? ((await lockPeriodHoldingDate(tx, form.orgId, form.projectId, countDate!))?.id ?? null)
    : form.reportingPeriodId!;
  const dimensions = form.disaggregateBy?.length ? await dimensionsOf(tx, form.orgId, form.indicatorId) : [];
  const tally = tallyOf(form, answers, dimensions, at.today);
  if ('refused' in tally && tally.refused === 'no_value') return outcome('no_value', period);
  if (period === null) return outcome('no_period_for_date', null);
  if ('refused' in tally) return outcome(tally.refused, period);
  const { amount, cells } = tally;
  const key = { projectId: form.projectId, indicatorId: form.indicatorId, reportingPeriodId: period };
  const result = await countIntoIndicatorReport(tx, form.orgId, key, {
    amount,
    submissionId: at.submissionId,
    cells: cells ?? undefined,
  });
  if ('refused' in result) return outcome(result.refused, period);
  return {
    reportingPeriodId: period,
    countDate,
    counted: { reportId: result.reportId, amount, cells },
    reason: null,
  };
}

/** What a recount can take in (or took): how many submissions, what they add, how many by reason. */
export interface TakeIn {
  submissions: number;
  amount: number;
  byReason: Record<string, number>;
}

/**
 * The uncounted submissions of a report's period that its recount may take in (see
 * uncountedOfPeriod), and with `write` marks them counted into it: in the caller's transaction,
 * which holds the report's row lock and moves its value (the recount adds their sum to the counted part).
 */
export async function takeInUncounted(
  tx: Db,
  orgId: string,
  report: ReportOfPeriod,
  write: boolean,
): Promise<TakeIn> {
  const found = await uncountedOfPeriod(tx, orgId, report, write);
  // A form filling disaggregations: each brings its cells, as its form maps its answers now; one whose
  // answer still maps to no category stays out. A form counting a repeat's entries: tallied here.
  const dimensions = found.some((row) => row.disaggregateBy?.length)
    ? await dimensionsOf(tx, orgId, report.indicatorId)
    : [];
  const rows = found.flatMap((row): (typeof row & { cells: Record<string, number> | null })[] => {
    if (!row.disaggregateBy?.length && !row.countRepeat) return [{ ...row, cells: null }];
    const tally = tallyOf(row, row.answers, dimensions, row.submittedAt.toISOString().slice(0, 10));
    return 'refused' in tally ? [] : [{ ...row, amount: tally.amount, cells: tally.cells }];
  });
  const byReason: Record<string, number> = {};
  for (const row of rows) byReason[row.reason] = (byReason[row.reason] ?? 0) + 1;
  if (write) await markCounted(tx, orgId, report, rows);
  return { submissions: rows.length, amount: rows.reduce((sum, row) => sum + row.amount, 0), byReason };
}
