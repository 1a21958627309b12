/**
 * `endDate >= startDate` after an edit: null when the range is in order, else the message naming the
 * field the client sent (the other one is the stored value).
 */
export function dateOrderProblem(
  range: { startDate: string; endDate: string },
  sent: { startDate?: string; endDate?: string } = range,
): string | null {
  if (range.endDate >= range.startDate) return null;
  return sent.endDate !== undefined
    ? 'endDate must not be before startDate'
    : 'startDate must not be after endDate';
}

/** The calendar date `days` after a `YYYY-MM-DD` date (negative: before). */
export function addDays(date: string, days: number): string {
  const time = new Date(`${date}T00:00:00Z`).getTime() + days * 86_400_000;
  return new Date(time).toISOString().slice(0, 10);
}
