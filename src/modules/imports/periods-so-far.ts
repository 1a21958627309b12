import type { ReportingPeriodRow } from '../periods/index.js';
import { matchKey } from './setup-sheets.js';

/** The order the project's periods are listed in: by start date, then id. */
const listed = (a: ReportingPeriodRow, b: ReportingPeriodRow) =>
  a.startDate < b.startDate ? -1 : a.startDate > b.startDate ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

const datesOf = (startDate: string, endDate: string) => `${startDate}/${endDate}`;

/**
 * The project's periods as the rows of the periods sheet leave them: read once, then kept up to date
 * with each period a row creates or changes, rather than read again for every row (a sheet of 1,000
 * rows read 1,000 lists of up to 1,000 periods, under the project's row lock).
 */
export class PeriodsSoFar {
  private readonly byId = new Map<string, ReportingPeriodRow>();
  private readonly byLabel = new Map<string, ReportingPeriodRow[]>();
  private readonly byDates = new Map<string, ReportingPeriodRow[]>();

  constructor(periods: readonly ReportingPeriodRow[]) {
    for (const period of periods) this.put(period);
  }

  /** The first period as listed whose label matches `key`, else the first with these dates. */
  find(key: string, startDate: string, endDate: string): ReportingPeriodRow | undefined {
    return this.byLabel.get(key)?.[0] ?? this.byDates.get(datesOf(startDate, endDate))?.[0];
  }

  /** A period created, or changed (it replaces what it was). */
  put(period: ReportingPeriodRow): void {
    const before = this.byId.get(period.id);
    if (before) {
      remove(this.byLabel, matchKey(before.label), before.id);
      remove(this.byDates, datesOf(before.startDate, before.endDate), before.id);
    }
    this.byId.set(period.id, period);
    add(this.byLabel, matchKey(period.label), period);
    add(this.byDates, datesOf(period.startDate, period.endDate), period);
  }
}

function remove(index: Map<string, ReportingPeriodRow[]>, key: string, id: string) {
  const left = (index.get(key) ?? []).filter((period) => period.id !== id);
  if (left.length > 0) index.set(key, left);
  else index.delete(key);
}

/** Adds the period in the list's order (from the end: the periods first read come in that order). */
function add(index: Map<string, ReportingPeriodRow[]>, key: string, period: ReportingPeriodRow) {
  const periods = index.get(key) ?? [];
  index.set(key, periods);
  let at = periods.length;
  while (at > 0 && listed(periods[at - 1]!, period) > 0) at -= 1;
  periods.splice(at, 0, period);
}
