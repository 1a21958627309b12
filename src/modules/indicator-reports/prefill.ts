import { transaction, type Db } from '../../db/client.js';
import type { Member } from '../../http/access.js';
import { badRequest, conflict, pgErrorCode } from '../../http/errors.js';
import { AGE_BANDS, PARTICIPANT_DIMENSIONS, SEXES } from '../../lib/demographics.js';
import { countParticipantGroups, type ParticipantGroup } from '../activities/registrations.repo.js';
import { dimensionsOf, insertReport, lockReportFor, updateReport } from './indicator-reports.repo.js';
import { DUPLICATE, reportable } from './indicator-reports.service.js';
import { EDITABLE } from './indicator-reports.tables.js';
import type { Dimension } from './report-values.js';

export interface PrefillInput {
  indicatorId: string;
  reportingPeriodId: string;
  attendedOnly?: boolean;
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((item) => b.includes(item));

/**
 * The participant breakdowns the indicator takes: both without disaggregations of its own; else its
 * disaggregations, each of which must be exactly the sexes or exactly the age bands.
 */
function breakdownsFor(dimensions: Dimension[]): Dimension[] {
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
function tally(groups: ParticipantGroup[], breakdowns: Dimension[]) {
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

/**
 * Writes participant counts into the project's report of the indicator for the period (DECISIONS.md
 * section 7): distinct people registered in the project's activities that overlap the period, counted
 * by sex and by age band at the period's end. The draft or rejected report is updated, keeping its
 * status, target and narrative; without a report one is created as draft.
 */
export function prefillReport(db: Db, member: Member, projectId: string, input: PrefillInput) {
  return transaction(db, async (tx) => {
    const { indicator, period } = await reportable(tx, member, projectId, input);
    const breakdowns = breakdownsFor(await dimensionsOf(tx, indicator.id));
    const key = { projectId, indicatorId: indicator.id, reportingPeriodId: period.id };
    const existing = await lockReportFor(tx, member.orgId, key);
    if (existing && !EDITABLE.includes(existing.status)) {
      throw conflict(
        `Only draft or rejected indicator reports can be pre-filled; this one is ${existing.status}`,
      );
    }
    const groups = await countParticipantGroups(tx, {
      orgId: member.orgId,
      projectId,
      startDate: period.startDate,
      endDate: period.endDate,
      attendedOnly: input.attendedOnly ?? true,
    });
    const values = tally(groups, breakdowns);
    if (existing) {
      const report = await updateReport(tx, member.orgId, existing.id, EDITABLE, values);
      return { created: false, report: report! };
    }
    const report = await insertReport(tx, {
      orgId: member.orgId,
      ...key,
      ...values,
      target: null,
      narrative: null,
    });
    return { created: true, report };
  }).catch((err: unknown) => {
    // Another request created the report in between.
    throw pgErrorCode(err).code === '23505' ? conflict(DUPLICATE) : err;
  });
}
