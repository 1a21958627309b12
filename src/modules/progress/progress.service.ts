import type { Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import type { ProgressStatus } from '../../lib/scoring.js';
import { visibilityOf } from '../projects/index.js';
import type { IndicatorFilter } from '../indicators/index.js';
import { countedSummaries, linksToScore, orgIndicators } from './progress.repo.js';
import { ProgressCalculator } from './progress.js';

/**
 * The org-level score of every indicator in every project that links it (DECISIONS.md section 8):
 * all submitted and approved reports of the project count. Reporters see their assigned projects only.
 * Each link also names the project's program, for the dashboard; `entryOf` makes the API's entry.
 */
export async function scoreLinks(
  db: Db,
  member: Member,
  filter: IndicatorFilter,
  visibility = visibilityOf(member),
) {
  const [links, [orgWide, summaries]] = await Promise.all([
    linksToScore(db, member.orgId, filter, visibility),
    // The summaries read only the latest values their indicators' methods use.
    orgIndicators(db, member.orgId).then(
      async (orgWide) =>
        [orgWide, await countedSummaries(db, member.orgId, orgWide, filter.projectId, visibility)] as const,
    ),
  ]);
  const calculator = new ProgressCalculator(orgWide, summaries);
  const byId = new Map(orgWide.map((indicator) => [indicator.id, indicator]));
  return links.flatMap((link) => {
    const indicator = byId.get(link.indicatorId);
    if (!indicator) return [];
    return [
      {
        programId: link.programId,
        indicator,
        project: { id: link.projectId, name: link.projectName },
        progress: calculator.progress(link.projectId, link.indicatorId, link.target),
      },
    ];
  });
}

type ScoredPair = Awaited<ReturnType<typeof scoreLinks>>[number];

/** An indicator with the project it is scored in and its progress there. */
export const entryOf = (pair: ScoredPair) => ({
  ...pair.indicator,
  project: pair.project,
  progress: pair.progress,
});

export type ScoredLink = ReturnType<typeof entryOf>;

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
    .filter((pair) => pair.progress.status === status)
    .map(entryOf)
    .sort(byLargestGap);
}

/** By code point, as the database's "C" collation orders codes. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
