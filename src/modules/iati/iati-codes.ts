/**
 * The codes of the IATI 2.03 code lists the export writes (IATI-Codelists, branch version-2.03, and
 * IATI-Codelists-NonEmbedded), named here by what they mean. Only the codes used are listed.
 */
import type { DONOR_TYPES } from '../donors/donors.tables.js';
import type { IatiOrganisationType } from '../orgs/index.js';
import type { PROJECT_STATUSES } from '../projects/index.js';
import type { RESULT_LEVELS } from '../results/results.tables.js';

export const IATI_VERSION = '2.03';

/** ActivityStatus: 1 Pipeline/identification, 2 Implementation, 3 Finalisation, 6 Suspended. */
export const ACTIVITY_STATUS: Record<(typeof PROJECT_STATUSES)[number], string> = {
  draft: '1',
  active: '2',
  // Completed projects still take and approve reports (and may be reopened): Finalisation, "remains open
  // pending financial sign off or M&E", rather than Closed (4).
  completed: '3',
  suspended: '6',
};

/** ActivityDateType. */
export const ACTIVITY_DATE = {
  plannedStart: '1',
  actualStart: '2',
  plannedEnd: '3',
  actualEnd: '4',
} as const;

/** OrganisationRole. */
export const ORGANISATION_ROLE = { funding: '1', implementing: '4' } as const;

/**
 * OrganisationType of a donor, from the kind of donor recorded: bilateral donors are government agencies
 * (10 Government), multilateral ones 40, NGOs 21 (International NGO: NGOs that fund other NGOs mostly
 * are), private donors 70 (Private Sector, the broadest private code), anything else 90 Other.
 */
export const DONOR_ORGANISATION_TYPE: Record<(typeof DONOR_TYPES)[number], IatiOrganisationType> = {
  bilateral: '10',
  government: '10',
  multilateral: '40',
  ngo: '21',
  private: '70',
  other: '90',
};

/** DescriptionType 1: General. */
export const GENERAL_DESCRIPTION = '1';

/** BudgetType 1 Original; BudgetStatus 1 Indicative (planned amounts, not a binding commitment). */
export const BUDGET_TYPE_ORIGINAL = '1';
export const BUDGET_STATUS_INDICATIVE = '1';

/** ResultType: 1 Output, 2 Outcome, 3 Impact, 9 Other (indicators outside the results framework). */
export const RESULT_TYPE: Record<(typeof RESULT_LEVELS)[number], string> = {
  output: '1',
  outcome: '2',
  impact: '3',
};
export const OTHER_RESULT_TYPE = '9';

/** IndicatorMeasure: 1 Unit, 2 Percentage. */
export const INDICATOR_MEASURE = { unit: '1', percentage: '2' } as const;
