/** Money is kept in cents: a value with more than two decimals is a mistake, not something to round. */
export const hasAtMostCents = (value: number): boolean => Math.round(value * 100) / 100 === value;

/** One message per amount field that has more than two decimals. */
export function centsProblems(amounts: Record<string, number | undefined>): string[] {
  return Object.entries(amounts)
    .filter(([, value]) => value !== undefined && !hasAtMostCents(value))
    .map(([field]) => `${field} must have at most 2 decimals`);
}
