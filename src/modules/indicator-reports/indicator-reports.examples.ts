import type { Static } from '@sinclair/typebox';
import { FIGURE, IDS, PEOPLE, TIMES } from '../../http/documentation/story.js';
import type {
  ApproveBody,
  CreateIndicatorReportBody,
  IndicatorReport,
  RejectBody,
} from './indicator-reports.schemas.js';

/**
 * The OpenAPI document's examples of a quarter's figure on its way: written by the field reporter,
 * submitted, returned by the M&E officer with a comment, submitted again and approved (story.ts).
 */

export const INDICATOR_REPORT_CREATE: Static<typeof CreateIndicatorReportBody> = {
  indicatorId: IDS.indicator,
  reportingPeriodId: IDS.period,
  value: FIGURE.value,
  target: FIGURE.target,
  narrative: FIGURE.narrative,
  disaggregatedValues: FIGURE.disaggregatedValues,
};

const DRAFT: Static<typeof IndicatorReport> = {
  id: IDS.indicatorReport,
  orgId: IDS.organization,
  projectId: IDS.project,
  indicatorId: IDS.indicator,
  reportingPeriodId: IDS.period,
  value: FIGURE.value,
  target: FIGURE.target,
  narrative: FIGURE.narrative,
  disaggregatedValues: FIGURE.disaggregatedValues,
  status: 'draft',
  comment: null,
  submittedAt: null,
  submittedBy: null,
  reviewedAt: null,
  reviewedBy: null,
  createdAt: TIMES.reportDrafted,
  updatedAt: TIMES.reportDrafted,
  flags: [],
  refusedSinceSubmitted: 0,
};

export const INDICATOR_REPORT_DRAFT = DRAFT;

export const INDICATOR_REPORT_SUBMITTED: Static<typeof IndicatorReport> = {
  ...DRAFT,
  status: 'submitted',
  submittedAt: TIMES.reportSubmitted,
  submittedBy: PEOPLE.reporter.id,
  updatedAt: TIMES.reportSubmitted,
};

export const INDICATOR_REPORT_RETURN: Static<typeof RejectBody> = { comment: FIGURE.returnComment };

export const INDICATOR_REPORT_RETURNED: Static<typeof IndicatorReport> = {
  ...INDICATOR_REPORT_SUBMITTED,
  status: 'rejected',
  comment: FIGURE.returnComment,
  reviewedAt: TIMES.reportReturned,
  reviewedBy: PEOPLE.officer.id,
  updatedAt: TIMES.reportReturned,
};

export const INDICATOR_REPORT_APPROVAL: Static<typeof ApproveBody> = { comment: FIGURE.approvalComment };

/** Approved after the reporter submitted it again. */
export const INDICATOR_REPORT_APPROVED: Static<typeof IndicatorReport> = {
  ...INDICATOR_REPORT_SUBMITTED,
  status: 'approved',
  submittedAt: TIMES.reportResubmitted,
  comment: FIGURE.approvalComment,
  reviewedAt: TIMES.reportApproved,
  reviewedBy: PEOPLE.officer.id,
  updatedAt: TIMES.reportApproved,
};
