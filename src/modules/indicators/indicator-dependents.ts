import type { Static } from '@sinclair/typebox';
import type { Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import type { ProgressStatus } from '../../lib/scoring.js';
import type { IndicatorFilter } from './indicators.repo.js';
import type { IndicatorProgress } from './indicators.schemas.js';

/**
 * What indicators ask of the modules above them: their indicator reports and their progress. Those
 * modules point at indicators, so indicators never import them: indicator-reports and progress
 * answer, and `buildApp` hands the answers in. Deletes need no question: foreign keys refuse them.
 */
export interface IndicatorDependents {
  /** Whether the indicator has an indicator report in any project (a formula indicator may have none). */
  hasReports(db: Db, orgId: string, indicatorId: string): Promise<boolean>;
  /** Whether a report of the indicator holds a value for one of these categories. */
  holdCategories(db: Db, orgId: string, indicatorId: string, categories: string[]): Promise<boolean>;
  /** The indicator+project pairs whose progress is in the band, largest gap first (DECISIONS.md section 8). */
  inBand(
    db: Db,
    member: Member,
    filter: IndicatorFilter,
    status: ProgressStatus,
  ): Promise<Static<typeof IndicatorProgress>[]>;
}
