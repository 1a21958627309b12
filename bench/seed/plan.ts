import { PAST_PERIODS } from './calendar.js';

export const SIZES = ['small', 'medium', 'large'] as const;
export type Size = (typeof SIZES)[number];

/** `large` is the reference; medium is a tenth of every count, small a hundredth. */
const FACTOR: Record<Size, number> = { small: 0.01, medium: 0.1, large: 1 };

const LARGE = {
  donors: 20,
  programs: 50,
  projects: 1000,
  indicators: 300,
  formulas: 20,
  indicatorReports: 100_000,
  activities: 20_000,
  participants: 200_000,
  forms: 50,
  csvSubmissions: 1_000_000,
  bigIndicators: 200,
  bigActivities: 2000,
  busyHistory: 5000,
};

/** Members besides the admin: enough for a login storm whatever the size. */
const MEMBERS = 50;

export interface Plan {
  size: Size;
  donors: number;
  programs: number;
  projects: number;
  indicators: number;
  formulas: number;
  indicatorReports: number;
  activities: number;
  participants: number;
  forms: number;
  csvSubmissions: number;
  /** History entries of the busy indicator report (its many rounds of edits and reviews). */
  busyHistory: number;
  members: number;
  /** The project shaped like the biggest real ones. */
  big: { indicators: number; formulas: number; activities: number };
}

/** The counts of one size; `scale` shrinks or grows all of them further (tests use a small scale). */
export function planFor(size: Size, scale = 1): Plan {
  const factor = FACTOR[size] * scale;
  const count = (large: number, least: number) => Math.max(least, Math.round(large * factor));

  const projects = count(LARGE.projects, 3);
  const indicators = count(LARGE.indicators, 20);
  const formulas = Math.min(count(LARGE.formulas, 2), Math.floor(indicators / 4));
  const bigIndicators = Math.min(indicators, count(LARGE.bigIndicators, 20));
  // Every formula the big project links must find its inputs among its other indicators.
  const bigFormulas = Math.min(
    formulas,
    Math.max(1, Math.round(bigIndicators * 0.05), bigIndicators - (indicators - formulas)),
  );
  const bigActivities = count(LARGE.bigActivities, 2);
  const bigReports = (bigIndicators - bigFormulas) * PAST_PERIODS;
  return {
    size,
    donors: count(LARGE.donors, 2),
    programs: Math.min(projects, count(LARGE.programs, 1)),
    projects,
    indicators,
    formulas,
    // The big project reports every past period; each other project gets a few reports at least.
    indicatorReports: Math.max(count(LARGE.indicatorReports, 0), bigReports + (projects - 1) * 5),
    activities: Math.max(count(LARGE.activities, 0), bigActivities + (projects - 1)),
    participants: count(LARGE.participants, 50),
    forms: count(LARGE.forms, 3),
    csvSubmissions: count(LARGE.csvSubmissions, 10),
    busyHistory: count(LARGE.busyHistory, 12),
    members: MEMBERS,
    big: { indicators: bigIndicators, formulas: bigFormulas, activities: bigActivities },
  };
}
