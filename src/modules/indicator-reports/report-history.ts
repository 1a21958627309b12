import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import type { Member } from '../../http/pipeline/access.js';
import { itemsOf, paginate, type PageRequest } from '../../http/schemas/pagination.js';
import { seesPersonalData } from '../../lib/personal-data.js';
import { users } from '../auth/auth.tables.js';
import { recordPersonalRead, type AuditSource } from '../privacy/index.js';
import type { IndicatorReportRow } from './indicator-reports.repo.js';
import { indicatorReportHistory, type HistoryKind, type ReportChanges } from './indicator-reports.tables.js';

// A report's history (issue 24, "Where a number comes from"): one entry per change of its value, target,
// disaggregated values, narrative or status, written in the transaction of the change by the service.

/** The fields a history entry follows. */
type Followed = Pick<
  IndicatorReportRow,
  'value' | 'target' | 'disaggregatedValues' | 'narrative' | 'status'
> & {
  flags?: IndicatorReportRow['flags'];
};

const sameValues = (a: Record<string, number>, b: Record<string, number>) => {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.is(a[key], b[key]));
};

/** What differs between the report before (null: it did not exist) and after. */
export function changesBetween(before: Followed | null, after: Followed): ReportChanges {
  const changes: ReportChanges = {};
  if (before?.value !== after.value && !(before === null && after.value === null)) {
    changes.value = { from: before?.value ?? null, to: after.value };
  }
  if (before?.target !== after.target && !(before === null && after.target === null)) {
    changes.target = { from: before?.target ?? null, to: after.target };
  }
  const disaggregated = before?.disaggregatedValues ?? {};
  if (!sameValues(disaggregated, after.disaggregatedValues)) {
    changes.disaggregatedValues = { from: disaggregated, to: after.disaggregatedValues };
  }
  if (before?.narrative !== after.narrative && !(before === null && after.narrative === null)) {
    changes.narrative = { from: before?.narrative ?? null, to: after.narrative };
  }
  if (before?.status !== after.status) changes.status = { from: before?.status ?? null, to: after.status };
  const flags = { from: before?.flags ?? [], to: after.flags ?? [] };
  if (JSON.stringify(flags.from) !== JSON.stringify(flags.to)) changes.flags = flags;
  return changes;
}

const ALWAYS_RECORDED: readonly HistoryKind[] = ['counted', 'recounted', 'uncounted'];

/** Who made a change: a user (pre-fills and recounts too), or a counted form submission. */
export type Actor = { userId: string } | { submissionId: string };

/**
 * Records the change from `before` to `after` in the caller's transaction. A change that changed nothing
 * is not recorded, but for a recount, whose running is worth knowing even when it found nothing to correct,
 * a count: a submission that added 0 is a source all the same (one entry per counted submission), and
 * the release of counted sources, which changes the counted part only.
 */
export async function recordHistory(
  tx: Db,
  entry: {
    kind: HistoryKind;
    actor: Actor;
    before: Followed | null;
    after: IndicatorReportRow;
    reason?: string | null;
    /** What the entry records beside the changes (the flags an approver saw). */
    also?: Pick<ReportChanges, 'flagsSeen'>;
  },
): Promise<void> {
  const changes = { ...changesBetween(entry.before, entry.after), ...entry.also };
  if (Object.keys(changes).length === 0 && !ALWAYS_RECORDED.includes(entry.kind)) return;
  await tx.insert(indicatorReportHistory).values({
    orgId: entry.after.orgId,
    indicatorReportId: entry.after.id,
    kind: entry.kind,
    actorId: 'userId' in entry.actor ? entry.actor.userId : null,
    submissionId: 'submissionId' in entry.actor ? entry.actor.submissionId : null,
    changes,
    reason: entry.reason ?? null,
    // The time of the write, not of the transaction's start (the column's now()): a change that waited
    // for the report's row lock is written after the one it waited for, and must not seem older.
    at: sql`clock_timestamp()`,
  });
}

export async function countHistory(db: Db, orgId: string, reportId: string): Promise<number> {
  const [row] = await db
    .select({ total: count() })
    .from(indicatorReportHistory)
    .where(
      and(eq(indicatorReportHistory.orgId, orgId), eq(indicatorReportHistory.indicatorReportId, reportId)),
    );
  return row?.total ?? 0;
}

/** Oldest first (in the order written), with the acting user's name while the user exists. */
export function listHistory(db: Db, orgId: string, reportId: string, window: Window) {
  return inWindow(
    db
      .select({
        id: indicatorReportHistory.id,
        at: indicatorReportHistory.at,
        kind: indicatorReportHistory.kind,
        actorId: indicatorReportHistory.actorId,
        actorName: sql<string | null>`${users.firstName} || ' ' || ${users.lastName}`,
        submissionId: indicatorReportHistory.submissionId,
        changes: indicatorReportHistory.changes,
        reason: indicatorReportHistory.reason,
      })
      .from(indicatorReportHistory)
      .leftJoin(users, eq(users.id, indicatorReportHistory.actorId))
      .where(
        and(eq(indicatorReportHistory.orgId, orgId), eq(indicatorReportHistory.indicatorReportId, reportId)),
      )
      .orderBy(asc(indicatorReportHistory.id))
      .$dynamic(),
    window,
  );
}

/**
 * The submissions counted into a report whose amounts may be personal answers (a number field marked
 * personal), and whether any of them has had its personal answers erased. Forms answer: wired in `buildApp`.
 */
export type PersonalAmounts = (
  db: Db,
  orgId: string,
  reportId: string,
) => Promise<{ ids: string[]; anyErased: boolean }>;

type ListedEntry = Awaited<ReturnType<typeof listHistory>>[number];

/**
 * An entry without its values, which add up the personal amounts. The reason of `uncounted` goes too: it
 * states the counted part before and after; and the flags, whose messages quote the values.
 */
function withoutValues(entry: ListedEntry) {
  const { value, disaggregatedValues, flags, flagsSeen, ...changes } = entry.changes;
  const reason = entry.kind === 'uncounted' ? null : entry.reason;
  return { ...entry, changes, reason, valuesHidden: true };
}

/**
 * A report's history as the member may read it. When amounts counted into it are personal answers, each
 * value gives them away (a counted step is the amount), and the history can never forget them: every
 * entry's values are left out for viewers, and for everyone once any of those answers is erased, as the
 * sources list hides those amounts. Otherwise a page whose counted entries carry them is recorded.
 */
export async function readHistory(
  db: Db,
  member: Member,
  reportId: string,
  query: PageRequest,
  reading: { personalAmounts: PersonalAmounts; source: AuditSource; personalAmountsGone: boolean },
) {
  const inClear = new Set<string>();
  const page = await paginate(query, {
    count: () => countHistory(db, member.orgId, reportId),
    list: async (window) => {
      const entries = await listHistory(db, member.orgId, reportId, window);
      // Asked after the entries are read: each counted entry's submission is linked by then (same commit).
      const personal = await reading.personalAmounts(db, member.orgId, reportId);
      const ids = new Set(personal.ids);
      // Personal amounts deleted with their form are as gone as erased ones.
      const hidden =
        reading.personalAmountsGone ||
        (ids.size > 0 && (personal.anyErased || !seesPersonalData(member.role)));
      return entries.map((entry) => {
        if (hidden) return withoutValues(entry);
        const { kind, submissionId } = entry;
        if (kind === 'counted' && submissionId !== null && ids.has(submissionId)) inClear.add(submissionId);
        return { ...entry, valuesHidden: false };
      });
    },
  });
  // Of the entries returned (an unpaged list reads one more than it returns).
  const read = itemsOf(page)
    .map((entry) => entry.submissionId)
    .filter((id): id is string => id !== null && inClear.has(id));
  await recordPersonalRead(db, reading.source, {
    subjectKind: 'form_submission',
    subjectIds: [...new Set(read)],
    details: { indicatorReportId: reportId, page: query.page, limit: query.limit },
  });
  return page;
}
