import type { Static } from '@sinclair/typebox';
import { IDS, QUARTER, TIMES } from '../../http/documentation/story.js';
import type { CreateReportingPeriodBody, ReportingPeriod } from './periods.schemas.js';

/** The OpenAPI document's examples of the reporting period (src/http/documentation/story.ts). */

export const PERIOD_CREATE: Static<typeof CreateReportingPeriodBody> = QUARTER;

export const PERIOD: Static<typeof ReportingPeriod> = {
  id: IDS.period,
  orgId: IDS.organization,
  projectId: IDS.project,
  ...QUARTER,
  isLocked: false,
  lockedAt: null,
  lockedBy: null,
  createdAt: TIMES.periodCreated,
  updatedAt: TIMES.periodCreated,
};
