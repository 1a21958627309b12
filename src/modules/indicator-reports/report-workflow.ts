import { invalidTransition } from '../../errors/catalogue.js';
import { hasMove, movesInto, type Transitions } from '../../lib/transitions.js';
import type { IndicatorReportStatus } from './indicator-reports.tables.js';

/**
 * The review of a report (DECISIONS.md section 7): a draft or rejected report is submitted, a submitted
 * one approved or rejected; an approved report is final. Unlike a project's status, a report is never
 * moved to the status it has: submitting a submitted report is refused.
 */
export const TRANSITIONS: Transitions<IndicatorReportStatus> = {
  draft: ['submitted'],
  submitted: ['approved', 'rejected'],
  approved: [],
  rejected: ['submitted'],
};

/** The statuses in which a report's value may still change: those it can be submitted from. */
export const EDITABLE: readonly IndicatorReportStatus[] = movesInto(TRANSITIONS, 'submitted');

/** The statuses a report may move to `to` from: the statuses its update is conditioned on. */
export const movableTo = (to: IndicatorReportStatus): readonly IndicatorReportStatus[] =>
  movesInto(TRANSITIONS, to);

/** 409 unless a report in `status` may move to `to`. */
export function checkMove(status: IndicatorReportStatus, to: IndicatorReportStatus): void {
  if (hasMove(TRANSITIONS, status, to)) return;
  throw invalidTransition(
    `Only ${movableTo(to).join(' or ')} indicator reports can be ${to}; this one is ${status}`,
  );
}

/** 409 unless a report in `status` may still change; `change` names it in the message when not an edit. */
export function checkEditable(status: IndicatorReportStatus, change?: 'pre-filled' | 'recounted'): void {
  if (EDITABLE.includes(status)) return;
  const editable = EDITABLE.join(' or ');
  throw invalidTransition(
    change
      ? `Only ${editable} indicator reports can be ${change}; this one is ${status}`
      : `Indicator report can only be edited while ${editable}; this one is ${status}`,
  );
}
