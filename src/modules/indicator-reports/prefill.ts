import { badRequest } from '../../errors/catalogue.js';
import { cellKey, isCross } from '../../lib/crosses.js';
import { ageRangeOf, overlap, SEXES, UNKNOWN_AGE, type AgeRange } from '../../lib/demographics.js';
import type { ParticipantGroup } from '../activities/index.js';
import type { Dimension } from './report-values.js';

// What a pre-fill writes, from participant counts (DECISIONS.md section 7, widened: any sex subset, any
// age ranges); the database work is IndicatorReportService.prefill's.

/** A person as the pre-fill sees them (a group of people alike). */
export type Person = Pick<ParticipantGroup, 'sex' | 'age' | 'keptBand'>;

/** Where a person falls in one disaggregation: a category, or left out under these `leftOutBy` keys. */
export type Placement = { category: string } | { leftOut: string[] };

/**
 * A disaggregation the pre-fill can fill: its categories, and where each person falls. A cross of two
 * (cells `female|15-24`) is an axis too: its place joins its parts' categories by `|`, in the cross's
 * order, and leaves a person out when any part does, with every part's reasons.
 */
export interface Axis {
  name: string;
  categories: string[];
  place(person: Person): Placement;
}

const isSexes = (categories: string[]) => categories.every((c) => (SEXES as readonly string[]).includes(c));

/** Sex: a person whose sex is not listed is left out (`sex:male` when only `female` is). */
function sexAxis(name: string, categories: string[]): Axis {
  return {
    name,
    categories,
    place: (person) =>
      categories.includes(person.sex) ? { category: person.sex } : { leftOut: [`sex:${person.sex}`] },
  };
}

/** The age ranges of categories (`unknown` aside), or what keeps them from being an age breakdown. */
function ageRangesOf(categories: string[]): { ranges: AgeRange[] } | { problem: string } | null {
  const labels = categories.filter((c) => c !== UNKNOWN_AGE);
  const ranges = labels.map(ageRangeOf);
  if (labels.length === 0 || ranges.some((r) => r === null)) return null;
  const sorted = (ranges as AgeRange[]).sort((a, b) => a.from - b.from);
  for (let i = 1; i < sorted.length; i++) {
    if (overlap(sorted[i - 1]!, sorted[i]!)) {
      return { problem: `${sorted[i - 1]!.label} overlaps ${sorted[i]!.label}` };
    }
  }
  return { ranges: sorted };
}

const spanLabel = (from: number, to: number) =>
  to === Infinity ? `${from}+` : from === to ? `${from}` : `${from}-${to}`;

/**
 * Age at the period's end, in ranges that do not overlap. An age no range holds is left out under the
 * stretch of ages it falls in (`age:0-14` below 15-24); without an age (no birth date, or one after the
 * period; erased people keep a band, which counts where it fits inside one range) a person goes to
 * `unknown` when it is a category, else is left out as `age:unknown`.
 */
function ageAxis(name: string, categories: string[], ranges: AgeRange[]): Axis {
  // The ranges and the stretches between them, from 0 up: every age is in exactly one.
  const segments: { range: AgeRange; listed: boolean }[] = [];
  let next = 0;
  for (const range of ranges) {
    if (range.from > next) segments.push({ range: gap(next, range.from - 1), listed: false });
    segments.push({ range, listed: true });
    next = range.to + 1;
  }
  if (next !== Infinity) segments.push({ range: gap(next, Infinity), listed: false });
  const unknown: Placement = categories.includes(UNKNOWN_AGE)
    ? { category: UNKNOWN_AGE }
    : { leftOut: [`age:${UNKNOWN_AGE}`] };
  return {
    name,
    categories,
    place(person) {
      const span =
        person.age !== null
          ? { from: person.age, to: person.age }
          : person.keptBand !== null
            ? ageRangeOf(person.keptBand)
            : null;
      const segment = span && segments.find((s) => s.range.from <= span.from && span.to <= s.range.to);
      if (!segment) return unknown;
      return segment.listed ? { category: segment.range.label } : { leftOut: [`age:${segment.range.label}`] };
    },
  };
}

const gap = (from: number, to: number): AgeRange => ({ label: spanLabel(from, to), from, to });

/**
 * The disaggregations a pre-fill fills. Without disaggregations of its own the indicator gets both
 * breakdowns: every sex, and the organization's age bands with `unknown` (everyone has a place). Else each
 * of its disaggregations must be a sex breakdown (categories among female, male, other) or an age one
 * (ranges `a-b` / `a+` that do not overlap, `unknown` allowed); any other: 400, nothing written.
 */
export function axesFor(dimensions: Dimension[], orgBands: readonly string[]): Axis[] {
  if (dimensions.length === 0) {
    const bands = [...orgBands, UNKNOWN_AGE];
    const ranges = ageRangesOf(bands);
    return [
      sexAxis('sex', [...SEXES]),
      ageAxis('age band', bands, ranges && 'ranges' in ranges ? ranges.ranges : []),
    ];
  }
  const axes: Axis[] = [];
  const differing: string[] = [];
  for (const dimension of dimensions.filter((d) => !isCross(d))) {
    if (isSexes(dimension.categories)) {
      axes.push(sexAxis(dimension.name, dimension.categories));
      continue;
    }
    const ages = ageRangesOf(dimension.categories);
    if (ages && 'ranges' in ages) axes.push(ageAxis(dimension.name, dimension.categories, ages.ranges));
    else differing.push(ages ? `${dimension.name} (${ages.problem})` : dimension.name);
  }
  // A cross of sex and age breakdowns is filled cell by cell from its parts' places.
  for (const cross of dimensions.filter(isCross)) {
    const parts = (cross.crosses ?? []).map((name) => axes.find((axis) => axis.name === name));
    if (parts.every((part) => part !== undefined)) axes.push(crossAxis(cross, parts));
  }
  if (differing.length > 0) {
    throw badRequest(
      `Participant counts fill disaggregations by sex (some of ${SEXES.join(', ')}) or by age (ranges ` +
        `written a-b or a+ that do not overlap, and ${UNKNOWN_AGE}) only; this indicator's ` +
        `${differing.join(', ')} differs`,
    );
  }
  return axes;
}

/** A cross's cells: the categories its parts place a person in, joined; left out when any part leaves them. */
function crossAxis(cross: Dimension, parts: Axis[]): Axis {
  return {
    name: cross.name,
    categories: cross.categories,
    place(person) {
      const places = parts.map((part) => part.place(person));
      const reasons = places.flatMap((p) => ('leftOut' in p ? p.leftOut : []));
      if (reasons.length > 0) return { leftOut: reasons };
      return { category: cellKey(places.map((p) => (p as { category: string }).category)) };
    },
  };
}

/** What a pre-fill tells beside the report: who was counted, who was left out and why. */
export interface PrefillCount {
  counted: number;
  leftOut: number;
  leftOutBy: Record<string, number>;
}

/**
 * The value and a number for every category (zeros included), from people placed in every axis: a
 * person left out of one disaggregation is left out of the value and of the others, so each
 * disaggregation adds up to the value. `leftOutBy` counts each left-out person under each reason.
 */
export function tally(groups: ParticipantGroup[], axes: Axis[]) {
  const cells = axes.map(() => new Map<string, number>());
  const count: PrefillCount = { counted: 0, leftOut: 0, leftOutBy: {} };
  for (const group of groups) {
    const placements = axes.map((axis) => axis.place(group));
    const reasons = new Set(placements.flatMap((p) => ('leftOut' in p ? p.leftOut : [])));
    if (reasons.size > 0) {
      count.leftOut += group.people;
      for (const reason of reasons) count.leftOutBy[reason] = (count.leftOutBy[reason] ?? 0) + group.people;
      continue;
    }
    count.counted += group.people;
    placements.forEach((p, i) => {
      if ('category' in p) cells[i]!.set(p.category, (cells[i]!.get(p.category) ?? 0) + group.people);
    });
  }
  const disaggregatedValues: Record<string, number> = {};
  axes.forEach((axis, i) => {
    for (const category of axis.categories) disaggregatedValues[category] = cells[i]!.get(category) ?? 0;
  });
  const leftOutBy = Object.fromEntries(
    Object.entries(count.leftOutBy).sort(([a], [b]) => a.localeCompare(b)),
  );
  return { value: count.counted, disaggregatedValues, prefill: { ...count, leftOutBy } };
}
