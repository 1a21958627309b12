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
