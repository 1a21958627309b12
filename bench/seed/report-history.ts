import type {
  HistoryKind,
  IndicatorReportStatus,
  ReportChanges,
} from '../../src/modules/indicator-reports/indicator-reports.tables.js';
import type { Cell, Column } from './bulk.js';
import type { CountedPair, Seeding, UserSeed } from './model.js';
import type { Random } from './random.js';

// The history of every report (issue 24), as the service writes it change by change: a report entered by
// hand is created, submitted, then approved or rejected; one that forms fill has an entry per counted
// submission; and one busy report went through thousands of changes.

/** Edits between two submissions of the busy report: a reporter correcting the figures, a reviewer refusing. */
const EDITS_PER_ROUND = 20;

/** A report as its row was written, for its history to end where the row stands. */
export interface WrittenReport {
  id: string;
  value: number | null;
  target: number | null;
  narrative: string | null;
  disaggregatedValues: Record<string, number>;
  status: IndicatorReportStatus;
  /** The review's comment. */
  comment: string | null;
  created: number;
  submitted: number | null;
  reviewed: number | null;
  submitterId: string | null;
  reviewerId: string | null;
  /** Who may have created a draft nobody submitted yet (the project's reporters). */
  reporters: readonly UserSeed[];
  /** Its history is the long one. */
  busy: boolean;
}

/** A report that forms fill: its counted submissions are its history. */
export interface FormFedReport {
  counted: CountedPair;
}

const COLUMNS: readonly Column[] = [
  ['org_id', 'uuid'],
  ['indicator_report_id', 'uuid'],
  ['at', 'timestamptz'],
  ['kind', 'text'],
  ['actor_id', 'uuid'],
  ['submission_id', 'uuid'],
  ['changes', 'jsonb'],
  ['reason', 'text'],
];

interface Entry {
  at: number;
  kind: HistoryKind;
  actorId: string | null;
  submissionId?: string;
  changes: ReportChanges;
  reason?: string | null;
}

/** What creating the report as it stands set: every followed field that is not empty, and the draft status. */
function creation(report: WrittenReport): ReportChanges {
  const changes: ReportChanges = {};
  if (report.value !== null) changes.value = { from: null, to: report.value };
  if (report.target !== null) changes.target = { from: null, to: report.target };
  if (Object.keys(report.disaggregatedValues).length > 0)
    changes.disaggregatedValues = { from: {}, to: report.disaggregatedValues };
  if (report.narrative !== null) changes.narrative = { from: null, to: report.narrative };
  changes.status = { from: null, to: 'draft' };
  return changes;
}

/** Created, then submitted and reviewed as far as its status went. */
function handEntered(report: WrittenReport, random: Random): Entry[] {
  const creator = report.submitterId ?? random.pick(report.reporters).id;
  const entries: Entry[] = [
    { at: report.created, kind: 'created', actorId: creator, changes: creation(report) },
  ];
  if (report.submitted === null) return entries;
  entries.push({
    at: report.submitted,
    kind: 'submitted',
    actorId: report.submitterId,
    changes: { status: { from: 'draft', to: 'submitted' } },
  });
  if (report.status === 'approved' || report.status === 'rejected') {
    entries.push({
      at: report.reviewed!,
      kind: report.status,
      actorId: report.reviewerId,
      changes: { status: { from: 'submitted', to: report.status } },
      reason: report.comment,
    });
  }
  return entries;
}

/** One entry per counted submission, oldest first; the first created the draft. */
function counted({ counted: pair }: FormFedReport): Entry[] {
  let value: number | null = null;
  return [...pair.sources]
    .sort((a, b) => a.time - b.time)
    .map(({ submissionId, time, amount }) => {
      const to: number = (value ?? 0) + amount;
      const changes: ReportChanges = { value: { from: value, to } };
      if (value === null) changes.status = { from: null, to: 'draft' };
      value = to;
      return { at: time, kind: 'counted', actorId: null, submissionId, changes };
    });
}

/** How many entries the busy report has. */
export const busyEntries = (s: Seeding) => Math.max(4, s.plan.busyHistory);

/**
 * The order of the busy report's entries: created, rounds of edits each ended by a submission and a
 * rejection, then the last submission and the approval. Exactly `total` entries (at least 4).
 */
function busyKinds(total: number): HistoryKind[] {
  const kinds: HistoryKind[] = ['created'];
  let edits = 0;
  while (kinds.length < total - 2) {
    // A round closes only when the edit that gives the final value can still follow it.
    if (edits >= EDITS_PER_ROUND && kinds.length + 2 < total - 2) {
      kinds.push('submitted', 'rejected');
      edits = 0;
    } else {
      kinds.push('edited');
      edits += 1;
    }
  }
  return [...kinds, 'submitted', 'approved'];
}

/** Another plausible value near the final one, never the one before it nor (when asked) the final one. */
function nextValue(random: Random, final: number, before: number | null, avoid: number | null): number {
  const whole = Number.isInteger(final);
  let value = final * random.between(0.8, 1.2);
  value = whole ? Math.round(value) : Math.round(value * 10) / 10;
  while (value === before || value === avoid) value = whole ? value + 1 : Math.round(value * 10 + 1) / 10;
  return value;
}

/**
 * The busy report (approved, with a value): its value corrected over and over, submitted and rejected
 * in rounds, then approved; the other fields set by the last correction. Entries are spread evenly from
 * the creation to the last submission.
 */
function busy(report: WrittenReport, total: number, rejections: readonly string[], random: Random): Entry[] {
  const kinds = busyKinds(total);
  const final = report.value!;
  const lastValueChange = kinds.lastIndexOf('edited');
  const span = report.submitted! - report.created;
  const timeOf = (i: number) =>
    i === kinds.length - 1 ? report.reviewed! : report.created + Math.floor((i * span) / (kinds.length - 2));

  let value: number | null = null;
  let status: IndicatorReportStatus | null = null;
  return kinds.map((kind, i): Entry => {
    const changes: ReportChanges = {};
    let reason: string | null = null;
    if (kind === 'created' || kind === 'edited') {
      const to =
        i === lastValueChange
          ? final
          : nextValue(random, final, value, i === lastValueChange - 1 ? final : null);
      changes.value = { from: value, to };
      value = to;
    }
    if (kind === 'created') {
      if (report.target !== null) changes.target = { from: null, to: report.target };
    } else if (i === lastValueChange) {
      if (Object.keys(report.disaggregatedValues).length > 0)
        changes.disaggregatedValues = { from: {}, to: report.disaggregatedValues };
      if (report.narrative !== null) changes.narrative = { from: null, to: report.narrative };
    }
    if (kind !== 'edited') {
      const to = kind === 'created' ? 'draft' : (kind as 'submitted' | 'rejected' | 'approved');
      changes.status = { from: status, to };
      status = to;
      if (kind === 'rejected') reason = random.pick(rejections);
      if (kind === 'approved') reason = report.comment;
    }
    const reviewing = kind === 'rejected' || kind === 'approved';
    return {
      at: timeOf(i),
      kind,
      actorId: reviewing ? report.reviewerId : report.submitterId,
      changes,
      reason,
    };
  });
}

/**
 * Every report's history, report after report in the order they were written, each oldest first. One
 * batch at a time, so the entries' ids (the table numbers them) are the same on every run and follow
 * each report's changes.
 */
export async function seedReportHistory(
  s: Seeding,
  reports: (WrittenReport | FormFedReport)[],
  rejections: readonly string[],
): Promise<void> {
  const random = s.random('report-history');
  let total = 0;
  const entriesOf = (report: WrittenReport | FormFedReport): Entry[] => {
    if ('counted' in report) return counted(report);
    if (report.busy) return busy(report, busyEntries(s), rejections, random);
    return handEntered(report, random);
  };
  // Counted up front, for the progress bar.
  for (const report of reports) {
    if ('counted' in report) total += report.counted.sources.length;
    else if (report.busy) total += busyEntries(s);
    else total += 1 + (report.submitted === null ? 0 : 1) + (report.reviewed === null ? 0 : 1);
  }
  function* rows(): Generator<Cell[]> {
    for (const report of reports) {
      const id = 'counted' in report ? report.counted.reportId : report.id;
      for (const entry of entriesOf(report)) {
        yield [
          s.orgId,
          id,
          new Date(entry.at),
          entry.kind,
          entry.actorId,
          entry.submissionId ?? null,
          entry.changes,
          entry.reason ?? null,
        ];
      }
    }
  }
  await s.writer.insert('indicator_report_history', COLUMNS, total, rows(), undefined, { ordered: true });
}
