import type { Db } from '../../db/client.js';
import type { ReadRouting } from '../../db/replica.js';
import type { Member } from '../../http/pipeline/access.js';
import { addDays } from '../../lib/dates.js';
import { todayUtc } from '../../lib/demographics.js';
import { percentOf, type ProgressStatus } from '../../lib/scoring.js';
import { byLargestGap, entryOf, scoreLinks } from '../progress/index.js';
import { assignedVisibility, visibilityOf } from '../projects/index.js';
import { periodsDue, programList, projectTotals, type BudgetRow } from './dashboard.repo.js';
import { programQuality } from './data-quality.repo.js';
import { summed, withRates } from './data-quality.service.js';

export const DEADLINE_WINDOW_DAYS = 30;
export const OFF_TRACK_LIMIT = 10;

const SCORE_KEYS: Record<ProgressStatus, 'onTrack' | 'atRisk' | 'offTrack' | 'noTarget' | 'noData'> = {
  on_track: 'onTrack',
  at_risk: 'atRisk',
  off_track: 'offTrack',
  no_target: 'noTarget',
  no_data: 'noData',
};

const money = (row: BudgetRow) => ({
  currency: row.currency!,
  budget: Number(row.budget ?? 0),
  spent: Number(row.spent ?? 0),
});

/**
 * The dashboard on the read replica (`reads`, unless the caller changed data within REPLICA_MAX_LAG),
 * with a reporter's assigned projects read on the primary (`db`): one removed from a project a moment
 * ago no longer sees its figures, though the replica has not replayed the removal yet.
 */
export async function routedDashboard(db: Db, reads: ReadRouting, member: Member) {
  const visibility = await assignedVisibility(db, member);
  return reads.read((source) => dashboardSummary(source, member, visibility), { caller: member.userId });
}

/**
 * The organization at a glance (DECISIONS.md section 11). Counts and money are summed by the database;
 * indicator scores come from the same scoring as `GET /indicators?status=`. A reporter's figures cover
 * only their assigned projects (`visibility`), and the programs holding them.
 */
export async function dashboardSummary(
  db: Db,
  member: Member,
  visibility = visibilityOf(member),
  today = todayUtc(),
) {
  const reporterOnly = member.role === 'reporter';
  const [totals, deadlines, scored, quality] = await Promise.all([
    projectTotals(db, member.orgId, visibility),
    periodsDue(db, member.orgId, visibility, { from: today, to: addDays(today, DEADLINE_WINDOW_DAYS) }),
    scoreLinks(db, member, {}, visibility),
    programQuality(db, member.orgId, { visibility, dueBefore: today }),
  ]);
  // Periods whose deadline has passed: the whole scope (programId null), then per program.
  const qualityOf = (programId: string | null) =>
    withRates(quality.find((row) => row.programId === programId) ?? summed([]));
  const overall = totals.find((row) => row.programId === null && row.currency === null);
  const perProgram = totals.filter((row) => row.programId !== null && row.currency === null);
  const programs = await programList(
    db,
    member.orgId,
    reporterOnly ? perProgram.map((row) => row.programId!) : undefined,
  );

  const indicatorScores = { onTrack: 0, atRisk: 0, offTrack: 0, noTarget: 0, noData: 0 };
  const pairs = new Map<string, { total: number; onTrack: number }>();
  for (const { programId, progress } of scored) {
    indicatorScores[SCORE_KEYS[progress.status]] += 1;
    const program = pairs.get(programId) ?? { total: 0, onTrack: 0 };
    program.total += 1;
    if (progress.status === 'on_track') program.onTrack += 1;
    pairs.set(programId, program);
  }

  return {
    activeProjects: overall?.activeCount ?? 0,
    totalProjects: overall?.projectCount ?? 0,
    budgetByCurrency: totals.filter((row) => row.programId === null && row.currency !== null).map(money),
    indicatorScores,
    upcomingDeadlines: deadlines,
    dataQuality: qualityOf(null),
    programs: programs.map((program) => {
      const counted = pairs.get(program.id);
      return {
        ...program,
        projectCount: perProgram.find((row) => row.programId === program.id)?.projectCount ?? 0,
        budgetByCurrency: totals
          .filter((row) => row.programId === program.id && row.currency !== null)
          .map(money),
        indicatorCompletionRate: counted ? percentOf(counted.onTrack, counted.total) : null,
        dataQuality: qualityOf(program.id),
      };
    }),
    offTrackIndicators: scored
      .filter((pair) => pair.progress.status === 'off_track')
      .map(entryOf)
      .sort(byLargestGap)
      .slice(0, OFF_TRACK_LIMIT),
  };
}
