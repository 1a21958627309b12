/**
 * One project as an IATI 2.03 `iati-activity` (pure: the data in, markup out). Elements are written in
 * the order of the activities schema's sequences (iati-activities-schema.xsd, branch version-2.03).
 */
import type { DonorType } from '../donors/index.js';
import type { ProjectStatus } from '../projects/index.js';
import {
  ACTIVITY_DATE,
  ACTIVITY_STATUS,
  BUDGET_STATUS_INDICATIVE,
  BUDGET_TYPE_ORIGINAL,
  DONOR_ORGANISATION_TYPE,
  GENERAL_DESCRIPTION,
  ORGANISATION_ROLE,
} from './iati-codes.js';
import type { IatiIndicator, IatiPeriod, IatiResult } from './results-framework.js';
import { budgetYears } from './budget-years.js';
import { element, type Markup, xmlCharacters } from './xml.js';

export interface Publisher {
  ref: string;
  type: string;
  name: string;
}

export interface IatiProject {
  code: string;
  name: string;
  description: string | null;
  currency: string;
  startDate: string;
  endDate: string;
  status: ProjectStatus;
  donors: { name: string; type: DonorType }[];
  /** The budget lines' planned amounts summed (numeric text); null without budget lines. */
  plannedBudget: string | null;
  results: IatiResult[];
}

// IATI identifiers must not hold whitespace or any of / & | ?: each run of them becomes one dash.
const NOT_IN_IDENTIFIER = /[\s/&|?]+/g;

/** The organisation identifier, a dash, then the project's code, as the document carries it. */
export const activityIdentifier = (ref: string, projectCode: string) =>
  xmlCharacters(`${ref}-${projectCode.trim().replace(NOT_IN_IDENTIFIER, '-')}`);

/** A number as xsd:decimal-like text, never in exponent form (`1e21`, `1e-7`). */
export function decimal(value: number): string {
  const text = String(value);
  return /e/i.test(text)
    ? value.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 })
    : text;
}

const narrative = (text: string) => element('narrative', {}, text);

/**
 * Planned start and end are the project's dates. An actual start is given once the project has started
 * (active, suspended or completed) and its start date is not in the future; an actual end once it is
 * completed and its end date is not in the future (IATI refuses actual dates in the future).
 */
function activityDates(project: IatiProject, today: string): Markup[] {
  const started = project.status !== 'draft' && project.startDate <= today;
  const ended = project.status === 'completed' && project.endDate <= today;
  const date = (type: string, isoDate: string) => element('activity-date', { type, 'iso-date': isoDate });
  return [
    date(ACTIVITY_DATE.plannedStart, project.startDate),
    started && date(ACTIVITY_DATE.actualStart, project.startDate),
    date(ACTIVITY_DATE.plannedEnd, project.endDate),
    ended && date(ACTIVITY_DATE.actualEnd, project.endDate),
  ].filter((child): child is Markup => child !== false);
}

function budgets(project: IatiProject): Markup[] {
  if (project.plannedBudget === null) return [];
  return budgetYears(project.startDate, project.endDate, project.plannedBudget).map((year) =>
    element(
      'budget',
      { type: BUDGET_TYPE_ORIGINAL, status: BUDGET_STATUS_INDICATIVE },
      element('period-start', { 'iso-date': year.startDate }),
      element('period-end', { 'iso-date': year.endDate }),
      element('value', { 'value-date': year.startDate }, year.amount),
    ),
  );
}

/**
 * One `target`, then one `actual` for the total and one per category of a disaggregation; a cell of a
 * cross is one `actual` with a `dimension` per crossed disaggregation.
 */
function period(entry: IatiPeriod): Markup {
  return element(
    'period',
    {},
    element('period-start', { 'iso-date': entry.startDate }),
    element('period-end', { 'iso-date': entry.endDate }),
    entry.target !== null && element('target', { value: decimal(entry.target) }),
    entry.actual !== null && element('actual', { value: decimal(entry.actual) }),
    entry.dimensions.map((dimension) =>
      element(
        'actual',
        { value: decimal(dimension.amount) },
        (dimension.crossed ?? [dimension]).map((d) =>
          element('dimension', { name: d.name, value: d.category }),
        ),
      ),
    ),
  );
}

function indicator(entry: IatiIndicator): Markup {
  return element(
    'indicator',
    { measure: entry.measure },
    element('title', {}, narrative(entry.title)),
    entry.baseline &&
      element('baseline', { year: entry.baseline.year, value: decimal(entry.baseline.value) }),
    entry.periods.map(period),
  );
}

const result = (entry: IatiResult) =>
  element(
    'result',
    { type: entry.type },
    element('title', {}, narrative(entry.title)),
    entry.indicators.map(indicator),
  );

export function iatiActivity(publisher: Publisher, project: IatiProject, today: string): Markup {
  const organisation = { ref: publisher.ref, type: publisher.type };
  return element(
    'iati-activity',
    { 'default-currency': project.currency },
    element('iati-identifier', {}, activityIdentifier(publisher.ref, project.code)),
    element('reporting-org', organisation, narrative(publisher.name)),
    element('title', {}, narrative(project.name)),
    // The description is required: a project without one is described by its name.
    element(
      'description',
      { type: GENERAL_DESCRIPTION },
      narrative(project.description?.trim() || project.name),
    ),
    project.donors.map((donor) =>
      element(
        'participating-org',
        { role: ORGANISATION_ROLE.funding, type: DONOR_ORGANISATION_TYPE[donor.type] },
        narrative(donor.name),
      ),
    ),
    element(
      'participating-org',
      { ...organisation, role: ORGANISATION_ROLE.implementing },
      narrative(publisher.name),
    ),
    element('activity-status', { code: ACTIVITY_STATUS[project.status] }),
    activityDates(project, today),
    budgets(project),
    project.results.map(result),
  );
}
