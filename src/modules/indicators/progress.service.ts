import type { Db } from '../../db/client.js';
import type { Member } from '../../http/access.js';
import type { ProgressStatus } from '../../lib/scoring.js';
import { projectScope } from '../projects/project-scope.js';
import { indicatorReports } from '../indicator-reports/indicator-reports.tables.js';
import { projectIndicators } from './indicators.tables.js';
import type { IndicatorFilter } from './indicators.repo.js';
import { countedReports, formulaBasics, linksToScore } from './progress.repo.js';
import { ProgressCalculator } from './progress.js';

/**
 * The org-level score of every indicator in every project that links it (DECISIONS.md section 8):
 * all submitted and approved reports of the project count. Reporters see their assigned projects only.
 * Each entry also names the project's program, for the dashboard.
 */
export async function scoreLinks(db: Db, member: Member, filter: IndicatorFilter) {
  const [links, reports, basics] = await Promise.all([
    linksToScore(db, member.orgId, filter, projectScope(member, projectIndicators.projectId)),
    countedReports(db, member.orgId, filter.projectId, projectScope(member, indicatorReports.projectId)),
    formulaBasics(db, member.orgId),
  ]);
  const calculator = new ProgressCalculator(basics, reports);
  return links.map((link) => ({
    programId: link.programId,
    entry: {
      ...link.indicator,
      project: link.project,
      progress: calculator.progress(link.project.id, link.indicator.id, link.target),
    },
  }));
}

export type ScoredLink = Awaited<ReturnType<typeof scoreLinks>>[number]['entry'];

/** Largest gap (target − value) first; ties by indicator code, then project. */
export function byLargestGap(a: ScoredLink, b: ScoredLink): number {
  return (
    (b.progress.gap ?? -Infinity) - (a.progress.gap ?? -Infinity) ||
    compare(a.code.toLowerCase(), b.code.toLowerCase()) ||
    compare(a.project.name, b.project.name) ||
    compare(a.project.id, b.project.id)
  );
}

/** Pairs in one band, largest gap first. */
export async function indicatorsInBand(
  db: Db,
  member: Member,
  filter: IndicatorFilter,
  status: ProgressStatus,
) {
  const scored = await scoreLinks(db, member, filter);
  return scored
    .map((link) => link.entry)
    .filter((entry) => entry.progress.status === status)
    .sort(byLargestGap);
}

/** By code point, as the database's "C" collation orders codes. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
