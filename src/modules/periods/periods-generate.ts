import { transaction, type Db } from '../../db/client.js';
import { badRequest, notFound } from '../../errors/catalogue.js';
import type { Member } from '../../http/pipeline/access.js';
import { addDays } from '../../lib/dates.js';
import { ensureProjectAccess, findProject } from '../projects/index.js';
import { insertPeriods, periodsOfProject, type ReportingPeriodRow } from './periods.repo.js';

export const FREQUENCIES = ['monthly', 'quarterly', 'semiannual', 'annual'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/** The most periods one call generates: ten years of months. */
export const MAX_GENERATED_PERIODS = 120;

const MONTHS_PER_PERIOD: Record<Frequency, number> = { monthly: 1, quarterly: 3, semiannual: 6, annual: 12 };
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export interface GenerateRequest {
  frequency: Frequency;
  from: string;
  to: string;
  dueDays?: number | null;
}

/** A calendar period to create: its label, dates and deadline. */
export interface PlannedPeriod {
  label: string;
  startDate: string;
  endDate: string;
  dueDate: string | null;
}

/** Why a calendar period was not created, and the existing period that stands in its way. */
export type SkipReason = 'exists' | 'overlaps' | 'label_taken';
export interface SkippedPeriod {
  label: string;
  startDate: string;
  endDate: string;
  reason: SkipReason;
  periodId: string;
}

export interface Generated {
  created: ReportingPeriodRow[];
  skipped: SkippedPeriod[];
}

const pad = (n: number) => String(n).padStart(2, '0');
/** `YYYY-MM-01` of a month counted from year 0 (year * 12 + month index). */
const firstDay = (month: number) =>
  `${String(Math.floor(month / 12)).padStart(4, '0')}-${pad((month % 12) + 1)}-01`;
const monthOf = (date: string) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1;

function labelOf(frequency: Frequency, start: number): string {
  const year = Math.floor(start / 12);
  const month = start % 12;
  switch (frequency) {
    case 'monthly':
      return `${MONTH_NAMES[month]} ${year}`;
    case 'quarterly':
      return `Q${month / 3 + 1} ${year}`;
    case 'semiannual':
      return `H${month / 6 + 1} ${year}`;
    case 'annual':
      return String(year);
  }
}

/**
 * The calendar periods of `frequency` that share at least one day with [from, to], whole: a `from` in the
 * middle of a quarter starts with that quarter's first day, a `to` in the middle of one ends with its last.
 * Quarters start in January, April, July and October; halves in January and July; years in January.
 */
export function calendarPeriods(request: GenerateRequest): PlannedPeriod[] {
  const step = MONTHS_PER_PERIOD[request.frequency];
  const first = Math.floor(monthOf(request.from) / step) * step;
  const last = monthOf(request.to);
  const periods: PlannedPeriod[] = [];
  for (let start = first; start <= last; start += step) {
    const endDate = addDays(firstDay(start + step), -1);
    periods.push({
      label: labelOf(request.frequency, start),
      startDate: firstDay(start),
      endDate,
      dueDate: request.dueDays == null ? null : addDays(endDate, request.dueDays),
    });
  }
  return periods;
}

/** How many periods [from, to] spans, without making them (the bound is checked before any work). */
function spanned(request: GenerateRequest): number {
  const step = MONTHS_PER_PERIOD[request.frequency];
  return Math.floor(monthOf(request.to) / step) - Math.floor(monthOf(request.from) / step) + 1;
}

const sameLabel = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** Why `planned` cannot be created beside `existing` (sorted by start date), or null when it can. */
function obstacle(
  planned: PlannedPeriod,
  existing: readonly ReportingPeriodRow[],
): { reason: SkipReason; periodId: string } | null {
  const same = existing.find((p) => p.startDate === planned.startDate && p.endDate === planned.endDate);
  if (same) return { reason: 'exists', periodId: same.id };
  const overlapping = existing.find((p) => p.startDate <= planned.endDate && p.endDate >= planned.startDate);
  if (overlapping) return { reason: 'overlaps', periodId: overlapping.id };
  const named = existing.find((p) => sameLabel(p.label, planned.label));
  if (named) return { reason: 'label_taken', periodId: named.id };
  return null;
}

/**
 * Creates the calendar periods of [from, to] the project lacks, in one transaction under the project's
 * row lock (as one period's creation: the overlap checks and the inserts are one step for concurrent
 * writers). A period with the same dates as an existing one is skipped as `exists`, one sharing a day
 * with an existing period as `overlaps`, one whose label an existing period already has (another year's
 * `Q1`, say) as `label_taken`: values are matched to periods by label, which must stay unambiguous.
 */
export async function generatePeriods(
  db: Db,
  member: Member,
  projectId: string,
  request: GenerateRequest,
): Promise<Generated> {
  if (request.to < request.from) {
    throw badRequest({ path: '/to', rule: 'dateOrder', message: 'to must not be before from' });
  }
  const count = spanned(request);
  if (count > MAX_GENERATED_PERIODS) {
    throw badRequest({
      path: '/to',
      rule: 'maxItems',
      message:
        `from ${request.from} to ${request.to} spans ${count} ${request.frequency} periods; ` +
        `at most ${MAX_GENERATED_PERIODS} are generated at once`,
    });
  }
  return transaction(db, async (tx) => {
    if (!(await findProject(tx, member.orgId, projectId, { lock: true }))) throw notFound('Project');
    await ensureProjectAccess(tx, member, projectId);
    const existing = await periodsOfProject(tx, member.orgId, projectId);
    const toCreate: PlannedPeriod[] = [];
    const skipped: SkippedPeriod[] = [];
    for (const planned of calendarPeriods(request)) {
      const found = obstacle(planned, existing);
      if (found) {
        skipped.push({
          label: planned.label,
          startDate: planned.startDate,
          endDate: planned.endDate,
          ...found,
        });
      } else {
        toCreate.push(planned);
      }
    }
    const created = await insertPeriods(
      tx,
      member.orgId,
      toCreate.map((period) => ({ projectId, ...period })),
    );
    return { created: created.sort((a, b) => (a.startDate < b.startDate ? -1 : 1)), skipped };
  });
}
