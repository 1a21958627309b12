/** Participant demographics: the sexes, the age bands of the pre-fill and ages in whole years. */

export const SEXES = ['female', 'male', 'other'] as const;
export type Sex = (typeof SEXES)[number];

/** Age at the end of a reporting period (DECISIONS.md section 7); `unknown` without a date of birth. */
export const AGE_BANDS = ['0-17', '18-35', '36-59', '60+', 'unknown'] as const;
/** The contract's bands, `unknown` aside: what an organization has until it sets its own. */
export const DEFAULT_AGE_BANDS: readonly string[] = AGE_BANDS.filter((band) => band !== 'unknown');
/** The band of people whose age is not known; always added to an organization's bands. */
export const UNKNOWN_AGE = 'unknown';
/** A label of a band: one of the contract's, or an organization's own (`a-b` or `a+`). */
export type AgeBand = string;

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

/** Ages from `from` to `to` in whole years, both included; `to` Infinity for `a+`. */
export interface AgeRange {
  label: string;
  from: number;
  to: number;
}

const RANGE = /^(\d{1,3})-(\d{1,3})$/;
const OPEN = /^(\d{1,3})\+$/;

/** `18-35` or `60+` as a range; null for anything else (`unknown`, `adults`, `35-18`). */
export function ageRangeOf(label: string): AgeRange | null {
  const closed = RANGE.exec(label);
  if (closed) {
    const [from, to] = [Number(closed[1]), Number(closed[2])];
    return from <= to ? { label, from, to } : null;
  }
  const open = OPEN.exec(label);
  return open ? { label, from: Number(open[1]), to: Infinity } : null;
}

/** Whether two ranges share an age. */
export const overlap = (a: AgeRange, b: AgeRange) => a.from <= b.to && b.from <= a.to;

/**
 * What is wrong with a list of age bands an organization sets, one message per problem (none: they
 * are fine): `a-b` or `a+` labels, from the youngest, starting at 0, each starting the year after the
 * previous one ends (no overlap, no age left out), the last open-ended. `unknown` may close the list
 * (it is always added anyway).
 */
export function ageBandProblems(labels: readonly string[]): string[] {
  const listed = labels.at(-1) === UNKNOWN_AGE ? labels.slice(0, -1) : labels;
  const problems: string[] = [];
  const ranges: AgeRange[] = [];
  for (const label of listed) {
    const range = ageRangeOf(label);
    if (range && range.from > MAX_AGE)
      problems.push(`ageBands: ${label} starts past the oldest age (${MAX_AGE})`);
    else if (range) ranges.push(range);
    else if (label === UNKNOWN_AGE)
      problems.push('ageBands: unknown is always added; list it last or not at all');
    else if (RANGE.test(label))
      problems.push(`ageBands: ${label} runs backwards; write ${label.split('-').reverse().join('-')}`);
    else problems.push(`ageBands: "${label}" is not an age band; write a-b (like 18-35) or a+ (like 60+)`);
  }
  if (problems.length > 0) return problems;
  if (ranges.length === 0) return ['ageBands must list at least one band, like 0+'];
  // Out of order, the rest would only repeat it.
  const early = ranges.findIndex((band, i) => i > 0 && band.from < ranges[i - 1]!.from);
  if (early > 0) {
    const [before, band] = [ranges[early - 1]!, ranges[early]!];
    return [`ageBands must go from the youngest to the oldest: ${band.label} comes before ${before.label}`];
  }
  if (ranges[0]!.from !== 0) problems.push('ageBands must start at 0');
  for (let i = 1; i < ranges.length; i++) {
    const [before, band] = [ranges[i - 1]!, ranges[i]!];
    if (overlap(before, band)) problems.push(`ageBands: ${before.label} overlaps ${band.label}`);
    else if (band.from > before.to + 1) {
      const gap = band.from - 1 === before.to + 1 ? `${before.to + 1}` : `${before.to + 1}-${band.from - 1}`;
      problems.push(`ageBands leave out ages ${gap}, between ${before.label} and ${band.label}`);
    }
  }
  if (ranges.at(-1)!.to !== Infinity) problems.push('the last band must be open-ended, like 60+');
  return problems;
}

/** The bands as stored: without `unknown`, which every list has implicitly. */
export const withoutUnknown = (labels: readonly string[]) => labels.filter((label) => label !== UNKNOWN_AGE);

/**
 * The band of an age in whole years among `bands` (an organization's, the contract's by default);
 * `unknown` without an age, or for an age no band holds (bands an organization sets hold every age).
 */
export function ageBandOf(age: number | null, bands: readonly string[] = DEFAULT_AGE_BANDS): AgeBand {
  if (age === null) return UNKNOWN_AGE;
  for (const label of bands) {
    const range = ageRangeOf(label);
    if (range && age >= range.from && age <= range.to) return label;
  }
  return UNKNOWN_AGE;
}
