import type { Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';

/** What a period's target became: its indicator report's target (null: no report, or none set). */
export interface PeriodTargetResult {
  reportingPeriodId: string;
  label: string;
  target: number | null;
  /** The report holding it; null when the period has no report of the indicator. */
  indicatorReportId: string | null;
  status: 'draft' | 'submitted' | 'approved' | 'rejected' | null;
  /** Whether this request created the (draft) report. */
  created: boolean;
}

/**
 * A period's target is its indicator report's `target`, and reports sit above indicators in the module
 * order: the indicator-reports module sets them, in the caller's transaction (wired in `buildApp`). All
 * or nothing: it throws before writing anything when one period refuses.
 */
export type PeriodTargets = (
  tx: Db,
  member: Member,
  link: { projectId: string; indicatorId: string },
  targets: Record<string, number | null>,
) => Promise<PeriodTargetResult[]>;
