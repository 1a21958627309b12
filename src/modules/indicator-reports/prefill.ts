import { badRequest } from '../../errors/catalogue.js';
import { AGE_BANDS, PARTICIPANT_DIMENSIONS, SEXES } from '../../lib/demographics.js';
import type { ParticipantGroup } from '../activities/index.js';
import type { Dimension } from './report-values.js';

// What a pre-fill writes, from participant counts (DECISIONS.md section 7); the database work is
// IndicatorReportService.prefill's.

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((item) => b.includes(item));

/**
 * The participant breakdowns the indicator takes: both without disaggregations of its own; else its
 * disaggregations, each of which must be exactly the sexes or exactly the age bands.
 */
export function breakdownsFor(dimensions: Dimension[]): Dimension[] {
  if (dimensions.length === 0) return PARTICIPANT_DIMENSIONS;
  const differing = dimensions.filter(
    (d) => !PARTICIPANT_DIMENSIONS.some((p) => sameSet(p.categories, d.categories)),
  );
  if (differing.length > 0) {
    const names = differing.map((d) => d.name).join(', ');
    throw badRequest(
      `Participant counts fill disaggregations by sex (${SEXES.join(', ')}) or by age band ` +
        `(${AGE_BANDS.join(', ')}) only; this indicator's ${names} differs`,
    );
  }
  return PARTICIPANT_DIMENSIONS.filter((p) => dimensions.some((d) => sameSet(p.categories, d.categories)));
}

/** The count, and per breakdown a number for each category (zeros included). */
export function tally(groups: ParticipantGroup[], breakdowns: Dimension[]) {
  const bySex = new Map<string, number>();
  const byBand = new Map<string, number>();
  let value = 0;
  for (const group of groups) {
    value += group.people;
    bySex.set(group.sex, (bySex.get(group.sex) ?? 0) + group.people);
    byBand.set(group.ageBand, (byBand.get(group.ageBand) ?? 0) + group.people);
  }
  const disaggregatedValues: Record<string, number> = {};
  for (const breakdown of breakdowns) {
    const counts = breakdown === PARTICIPANT_DIMENSIONS[0] ? bySex : byBand;
    for (const category of breakdown.categories) disaggregatedValues[category] = counts.get(category) ?? 0;
  }
  return { value, disaggregatedValues };
}
