/**
 * Fixed dates, so that the same seed gives the same rows whenever it runs. The anchor is "today" for the
 * data: periods before it are past (and reported), the oldest ones locked; the later ones are ahead.
 */

export const DAY = 86_400_000;
export const ANCHOR = Date.UTC(2026, 0, 1);
export const ANCHOR_DATE = '2026-01-01';

/** Monthly reporting periods of every project: July 2024 to June 2026. */
export const PERIODS_PER_PROJECT = 24;
const FIRST_PERIOD = { year: 2024, month: 6 /* July, zero-based */ };
/** Periods ending before the anchor: July 2024 to December 2025. */
export const PAST_PERIODS = 18;
/** Periods ending before July 2025 were reviewed and locked. */
export const LOCKED_PERIODS = 12;
/** December 2025: the latest past period, still open; forms count into it. */
export const OPEN_PERIOD = PAST_PERIODS - 1;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export const isoDate = (time: number): string => new Date(time).toISOString().slice(0, 10);
export const isoTime = (time: number): string => new Date(time).toISOString();
export const dateTime = (date: string): number => Date.parse(`${date}T00:00:00Z`);

export interface PeriodDates {
  label: string;
  start: number;
  /** The first millisecond after the period. */
  end: number;
  startDate: string;
  endDate: string;
  dueDate: string;
}

/** The dates of period `index` (0 = oldest). */
export function periodDates(index: number): PeriodDates {
  const year = FIRST_PERIOD.year + Math.floor((FIRST_PERIOD.month + index) / 12);
  const month = (FIRST_PERIOD.month + index) % 12;
  const start = Date.UTC(year, month, 1);
  const end = Date.UTC(year, month + 1, 1);
  return {
    label: `${MONTHS[month]!} ${year}`,
    start,
    end,
    startDate: isoDate(start),
    endDate: isoDate(end - DAY),
    dueDate: isoDate(end + 14 * DAY),
  };
}

export const PERIODS: readonly PeriodDates[] = Array.from({ length: PERIODS_PER_PROJECT }, (_, i) =>
  periodDates(i),
);

/** The whole reporting window: activities and submissions fall inside it. */
export const WINDOW = { start: PERIODS[0]!.start, end: PERIODS.at(-1)!.end };

/** The period holding a moment, or -1 outside the window. */
export function periodAt(time: number): number {
  return PERIODS.findIndex((period) => time >= period.start && time < period.end);
}
