/** Participant demographics: the sexes, the age bands of the pre-fill and ages in whole years. */

export const SEXES = ['female', 'male', 'other'] as const;
export type Sex = (typeof SEXES)[number];

/** Age at the end of a reporting period (DECISIONS.md section 7); `unknown` without a date of birth. */
export const AGE_BANDS = ['0-17', '18-35', '36-59', '60+', 'unknown'] as const;
export type AgeBand = (typeof AGE_BANDS)[number];

/** The two breakdowns participant counts come in, as disaggregations of an indicator. */
export const PARTICIPANT_DIMENSIONS = [
  { name: 'sex', categories: [...SEXES] as string[] },
  { name: 'age band', categories: [...AGE_BANDS] as string[] },
];

/** Oldest age the service accepts for a person (household members, dates of birth). */
export const MAX_AGE = 130;

/** Completed years from `dateOfBirth` to `on` (both YYYY-MM-DD); null without a birth date or before it. */
export function ageOn(dateOfBirth: string | null, on: string): number | null {
  if (dateOfBirth === null || dateOfBirth > on) return null;
  const [by, bm, bd] = dateOfBirth.split('-').map(Number) as [number, number, number];
  const [oy, om, od] = on.split('-').map(Number) as [number, number, number];
  return oy - by - (om < bm || (om === bm && od < bd) ? 1 : 0);
}

/** Today's date in UTC, YYYY-MM-DD. */
export const todayUtc = (now = new Date()): string => now.toISOString().slice(0, 10);

/** The band of an age in whole years (the pre-fill's bands); `unknown` without one. */
export function ageBandOf(age: number | null): AgeBand {
  if (age === null) return 'unknown';
  if (age <= 17) return '0-17';
  if (age <= 35) return '18-35';
  if (age <= 59) return '36-59';
  return '60+';
}
