import { denoise } from '../../lib/scoring.js';
import type { ChangeKind, Provenance } from './report-snapshot.js';

/** The last change of what an indicator report says, from its history (the entry's id orders them). */
export interface LastChange {
  id: number;
  /** ISO timestamp. */
  at: string;
  kind: ChangeKind;
  /** The user's name; null for a counted form submission, or once the user is gone. */
  by: string | null;
}

/** Where an included indicator report's value comes from, as included-values.repo.ts reads it. */
export interface ValueSources {
  value: number | null;
  approved: boolean;
  countedValue: number;
  countedSubmissions: number;
  prefillValue: number | null;
  /** ISO timestamp of the last review: the approval when `approved`. */
  reviewedAt: string | null;
  reviewerName: string | null;
  lastChange: LastChange | null;
}

/**
 * The provenance of a figure over the indicator reports it includes (issue 24): its counted, pre-filled
 * and manual parts summed, the submissions counted, the last change among them and, once every one is
 * approved, the latest approval. The manual part of a report is what is left of its value after the
 * counted and pre-filled parts. Sums are rid of binary noise at the scale of their terms, as scoring's
 * are (0.1 + 0.2 is 0.3). One pass without allocations: a report makes one for every indicator and
 * period (5,000 in the benchmark's).
 */
export function provenanceOf(values: ValueSources[]): Provenance {
  let counted = 0;
  let countedScale = 0;
  let manual = 0;
  let manualScale = 0;
  let prefill = 0;
  let prefillScale = 0;
  let valued = false;
  let prefilled = false;
  let submissions = 0;
  let change: LastChange | null = null;
  let approval: ValueSources | null = null;
  let allApproved = values.length > 0;
  for (const v of values) {
    counted += v.countedValue;
    countedScale += Math.abs(v.countedValue);
    submissions += v.countedSubmissions;
    const prefillValue = v.prefillValue ?? 0;
    if (v.prefillValue !== null) {
      prefilled = true;
      prefill += prefillValue;
      prefillScale += Math.abs(prefillValue);
    }
    if (v.value !== null) {
      valued = true;
      manual += v.value - v.countedValue - prefillValue;
      manualScale += Math.abs(v.value) + Math.abs(v.countedValue) + Math.abs(prefillValue);
    }
    if (v.lastChange && (change === null || v.lastChange.id > change.id)) change = v.lastChange;
    if (!v.approved) allApproved = false;
    else if (v.reviewedAt !== null && (approval === null || v.reviewedAt > approval.reviewedAt!))
      approval = v;
  }
  if (!allApproved) approval = null;
  return {
    counted: denoise(counted, countedScale),
    manual: valued ? denoise(manual, manualScale) : null,
    prefill: prefilled ? denoise(prefill, prefillScale) : null,
    submissions,
    lastChangedAt: change?.at ?? null,
    lastChangedBy: change?.by ?? null,
    lastChangedKind: change?.kind ?? null,
    approvedBy: approval?.reviewerName ?? null,
    approvedAt: approval?.reviewedAt ?? null,
  };
}
