/**
 * The project's planned budget as IATI budgets. IATI asks that a budget period be a year at most, and
 * budget lines carry no dates: the total of their planned amounts is spread over the project's years
 * (from its start date, the last one cut at its end date) in proportion to their days, in whole cents
 * and summing exactly to the total.
 */

export interface BudgetYear {
  startDate: string;
  endDate: string;
  /** Decimal text with two decimals. */
  amount: string;
}

const DAY = 86_400_000;
const time = (date: string) => Date.parse(`${date}T00:00:00Z`);
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** `date` plus `years` years; 29 February becomes 1 March in a year without one. */
function yearsLater(date: string, years: number): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return Date.UTC(y + years, m - 1, d);
}

/** Numeric text (`1234.5`, `-3`, `10.25`) as a count of cents; amounts are stored with two decimals. */
export function centsOf(amount: string): bigint {
  const negative = amount.startsWith('-');
  const [whole = '0', fraction = ''] = amount.replace(/^[-+]/, '').split('.');
  const cents = BigInt(whole || '0') * 100n + BigInt((fraction + '00').slice(0, 2));
  return negative ? -cents : cents;
}

export function amountOf(cents: bigint): string {
  const sign = cents < 0n ? '-' : '';
  const abs = cents < 0n ? -cents : cents;
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

/** Nothing when the total is not positive (nothing planned) or the dates are out of order. */
export function budgetYears(startDate: string, endDate: string, planned: string): BudgetYear[] {
  const total = centsOf(planned);
  const start = time(startDate);
  const end = time(endDate);
  if (total <= 0n || end < start) return [];
  const totalDays = BigInt((end - start) / DAY + 1);
  const years: BudgetYear[] = [];
  let daysBefore = 0n;
  let given = 0n;
  for (let k = 0; ; k += 1) {
    const from = yearsLater(startDate, k);
    if (from > end) break;
    const to = Math.min(yearsLater(startDate, k + 1) - DAY, end);
    daysBefore += BigInt((to - from) / DAY + 1);
    // Cumulative shares, rounded down: the cents add up to the total, the last year takes what is left.
    const upTo = (total * daysBefore) / totalDays;
    years.push({ startDate: dateOf(from), endDate: dateOf(to), amount: amountOf(upTo - given) });
    given = upTo;
  }
  return years;
}
