/**
 * What `npm run demo` writes: one small water, sanitation and hygiene (WASH) organization, told in the
 * words its donor reads. Every person in it is invented (the surname "Demo" says so); the reporting
 * periods are the calendar quarters around today, so the demo looks current whenever it runs.
 */

/** One password for every demo account: the demo is for a service on the demo-giver's own machine. */
export const DEMO_PASSWORD = 'turkana-demo-2026';

export const ORGANIZATION = { name: 'Turkana WASH Partners (demo)', code: 'turkana-wash-demo' } as const;

export type DemoRole = 'org_admin' | 'me_officer' | 'reporter' | 'viewer';

export interface DemoAccount {
  role: DemoRole;
  /** The role in the words the output uses. */
  label: string;
  email: string;
  firstName: string;
  lastName: string;
}

const account = (role: DemoRole, label: string, local: string, firstName: string): DemoAccount => ({
  role,
  label,
  email: `${local}@turkana-wash.example.org`,
  firstName,
  lastName: 'Demo',
});

/** The org admin creates the organization and invites the team. */
export const ADMIN = account('org_admin', 'org admin', 'admin', 'Achieng');

export const TEAM: readonly DemoAccount[] = [
  account('me_officer', 'M&E officer', 'me-officer', 'Ekal'),
  account('reporter', 'reporter', 'reporter', 'Nakiru'),
  account('viewer', 'viewer', 'viewer', 'Lopeyok'),
];

export const ACCOUNTS: readonly DemoAccount[] = [ADMIN, ...TEAM];

export const DONOR = {
  name: 'Northbridge Water Foundation (demo)',
  code: 'NWF',
  type: 'private',
  country: 'United Kingdom',
  notes: 'Three-year grant for rural water supply and school hygiene in Turkana County.',
} as const;

export const PROGRAM = {
  name: 'Clean Water for Turkana',
  description:
    'Safe water, sanitation and hygiene for pastoralist communities and schools in Turkana County, Kenya.',
} as const;

export const PROJECTS = {
  water: {
    name: 'Borehole rehabilitation in Turkana Central',
    code: 'TC-WATER',
    budget: 480_000,
    currency: 'USD',
    location: 'Turkana Central, Turkana County, Kenya',
    lead: 'Turkana WASH Partners',
  },
  hygiene: {
    name: 'Hygiene promotion in Loima schools',
    code: 'LOI-HYGIENE',
    budget: 150_000,
    currency: 'USD',
    location: 'Loima, Turkana County, Kenya',
    lead: 'Turkana WASH Partners',
  },
} as const;

/** The results framework: one impact, two outcomes, an output under each. */
export const RESULTS = {
  impact: {
    title: 'Fewer cases of waterborne disease among households in Turkana County',
  },
  waterOutcome: {
    title: 'Households use a safe and reliable water source all year',
  },
  waterOutput: {
    title: 'Boreholes rehabilitated and run by trained water committees',
  },
  hygieneOutcome: {
    title: 'Pupils and their families practise safe hygiene',
  },
  hygieneOutput: {
    title: 'Schools equipped with handwashing stations and active health clubs',
  },
} as const;

export type ResultKey = keyof typeof RESULTS;

const SEX = { name: 'Sex', categories: ['female', 'male'] };
const AGE = { name: 'Age', categories: ['under 18', '18 and over'] };

/** Each indicator with the result it measures, its disaggregations and its project target. */
export const INDICATORS = {
  waterAccess: {
    name: 'People gaining access to a basic drinking water service',
    code: 'WASH_WATER_ACCESS',
    unit: 'people',
    aggregationMethod: 'sum',
    dataSource: 'Water committee user registers',
    result: 'waterOutcome',
    disaggregations: [SEX, AGE],
    project: 'water',
    target: 12_000,
  },
  waterPoints: {
    name: 'Water points rehabilitated and functional',
    code: 'WASH_WATER_POINTS',
    unit: 'water points',
    aggregationMethod: 'sum',
    dataSource: 'Handover certificates and quarterly functionality checks',
    result: 'waterOutput',
    disaggregations: [],
    project: 'water',
    target: 24,
  },
  householdVisits: {
    name: 'Households visited by community health promoters',
    code: 'WASH_HH_VISITS',
    unit: 'households',
    aggregationMethod: 'sum',
    dataSource: 'Household WASH visit form (one answer per visit)',
    result: 'waterOutcome',
    disaggregations: [],
    project: 'water',
    target: 1_500,
  },
  pupilsReached: {
    name: 'Pupils reached with hygiene promotion sessions',
    code: 'WASH_PUPILS_REACHED',
    unit: 'people',
    aggregationMethod: 'sum',
    dataSource: 'School health club attendance sheets',
    result: 'hygieneOutput',
    disaggregations: [SEX],
    project: 'hygiene',
    target: 4_000,
  },
  schoolStations: {
    name: 'Schools with functional handwashing stations',
    code: 'WASH_SCHOOL_STATIONS',
    unit: 'schools',
    aggregationMethod: 'latest',
    dataSource: 'Spot checks by the county public health officer',
    result: 'hygieneOutput',
    disaggregations: [],
    project: 'hygiene',
    target: 20,
  },
} as const;

export type IndicatorKey = keyof typeof INDICATORS;
export type ProjectKey = keyof typeof PROJECTS;

/** Which quarter a value belongs to: two quarters ago, last quarter, or the current one. */
export type QuarterKey = 'earlier' | 'last' | 'current';

/** The fate of a value: approved, waiting for review, or returned to the reporter with a comment. */
export type ValueOutcome =
  { status: 'approved'; comment: string } | { status: 'submitted' } | { status: 'returned'; comment: string };

export interface DemoValue {
  project: ProjectKey;
  indicator: IndicatorKey;
  quarter: QuarterKey;
  value: number;
  /** The target of that quarter (the project's target is for the three years). */
  target: number;
  disaggregatedValues?: Record<string, number>;
  narrative: string;
  outcome: ValueOutcome;
}

export const VALUES: readonly DemoValue[] = [
  {
    project: 'water',
    indicator: 'waterAccess',
    quarter: 'earlier',
    value: 2_450,
    target: 2_500,
    disaggregatedValues: { female: 1_300, male: 1_150, 'under 18': 1_350, '18 and over': 1_100 },
    narrative:
      'Six boreholes in Nakwamoru and Kalemngorok handed over; users counted from committee registers.',
    outcome: { status: 'approved', comment: 'Matches the committee registers we sampled.' },
  },
  {
    project: 'water',
    indicator: 'waterPoints',
    quarter: 'earlier',
    value: 6,
    target: 6,
    narrative: 'Six water points rehabilitated, each with a signed handover certificate.',
    outcome: { status: 'approved', comment: 'Certificates on file.' },
  },
  {
    project: 'water',
    indicator: 'waterAccess',
    quarter: 'last',
    value: 3_120,
    target: 2_500,
    disaggregatedValues: { female: 1_640, male: 1_480, 'under 18': 1_700, '18 and over': 1_420 },
    narrative: 'Five more boreholes in Lokori and Kalokol; dry-season demand raised the user counts.',
    outcome: { status: 'submitted' },
  },
  {
    project: 'water',
    indicator: 'waterPoints',
    quarter: 'last',
    value: 7,
    target: 6,
    narrative: 'Seven water points (five boreholes, two tap stands) rehabilitated this quarter.',
    outcome: {
      status: 'returned',
      comment:
        'The Kalemngorok borehole handed over last quarter is counted again here. Please check against the handover certificates and resubmit.',
    },
  },
  {
    project: 'hygiene',
    indicator: 'pupilsReached',
    quarter: 'earlier',
    value: 860,
    target: 900,
    disaggregatedValues: { female: 450, male: 410 },
    narrative: 'Health clubs started in six primary schools; sessions on handwashing and safe water storage.',
    outcome: { status: 'approved', comment: 'Attendance sheets checked.' },
  },
  {
    project: 'hygiene',
    indicator: 'schoolStations',
    quarter: 'earlier',
    value: 5,
    target: 8,
    narrative: 'Five schools have a working handwashing station with soap at the spot check.',
    outcome: { status: 'approved', comment: 'Confirmed by the county public health officer.' },
  },
  {
    project: 'hygiene',
    indicator: 'pupilsReached',
    quarter: 'last',
    value: 1_040,
    target: 900,
    disaggregatedValues: { female: 560, male: 480 },
    narrative: 'Two more schools joined; girls-only sessions on menstrual hygiene added.',
    outcome: { status: 'submitted' },
  },
];

/** The periods of each project: the water project also has the current quarter, which its form counts into. */
export const PERIODS: Record<ProjectKey, readonly QuarterKey[]> = {
  water: ['earlier', 'last', 'current'],
  hygiene: ['earlier', 'last'],
};

export const BUDGET_LINES = [
  { category: 'Borehole rehabilitation works', plannedAmount: 320_000, actualAmount: 186_500 },
  { category: 'Water committee training', plannedAmount: 40_000, actualAmount: 22_800 },
] as const;

export const ACTIVITY = {
  title: 'Water management committee training at Nakwamoru borehole',
  description: 'Three days on operation, minor repairs, record keeping and setting a fair water tariff.',
  location: 'Nakwamoru, Turkana Central',
  facilitator: 'Turkana WASH Partners field team',
  status: 'completed',
} as const;

/** The committee members who came: invented people, with no phone number or national id. */
export const PARTICIPANTS = [
  { firstName: 'Akai', sex: 'female', dateOfBirth: '1984-03-12', attended: true, role: 'chairperson' },
  { firstName: 'Ekiru', sex: 'male', dateOfBirth: '1979-07-02', attended: true, role: 'treasurer' },
  { firstName: 'Nakwawi', sex: 'female', dateOfBirth: '1991-11-23', attended: true, role: 'secretary' },
  { firstName: 'Lokwang', sex: 'male', dateOfBirth: '1968-01-30', attended: true, role: 'attendee' },
  { firstName: 'Ayanae', sex: 'female', dateOfBirth: '2001-05-17', attended: true, role: 'attendee' },
  { firstName: 'Ewoi', sex: 'male', dateOfBirth: '1995-09-08', attended: false, role: 'attendee' },
].map((person) => ({
  ...person,
  lastName: 'Demo',
  village: 'Nakwamoru',
  district: 'Turkana Central',
}));

export const FORM = {
  title: 'Household WASH visit',
  description:
    'Filled in by community health promoters at each household they visit. Each answer counts one visit.',
  fields: [
    {
      type: 'select',
      key: 'village',
      label: 'Village',
      required: true,
      options: ['Nakwamoru', 'Lokori', 'Kalokol'],
    },
    { type: 'number', key: 'household_size', label: 'People living in the household', required: true },
    {
      type: 'select',
      key: 'water_source',
      label: 'Main source of drinking water',
      required: true,
      options: ['Rehabilitated borehole', 'Unprotected well', 'River or lugga', 'Water vendor'],
    },
    {
      type: 'boolean',
      key: 'treats_water',
      label: 'Treats drinking water at home (boiling, chlorine, filter)',
    },
    { type: 'boolean', key: 'soap_at_handwashing', label: 'Soap and water at the handwashing place' },
  ],
} as const;

/** Answers as three visits would bring them in. */
export const FORM_ANSWERS = [
  {
    village: 'Nakwamoru',
    household_size: 7,
    water_source: 'Rehabilitated borehole',
    treats_water: true,
    soap_at_handwashing: true,
  },
  {
    village: 'Lokori',
    household_size: 5,
    water_source: 'River or lugga',
    treats_water: false,
    soap_at_handwashing: false,
  },
  {
    village: 'Kalokol',
    household_size: 9,
    water_source: 'Rehabilitated borehole',
    treats_water: true,
    soap_at_handwashing: false,
  },
] as const;

export const REPORT_SECTIONS = {
  executiveSummary:
    'Eleven boreholes are back in service and run by trained water committees, giving about 5,500 people a ' +
    'basic drinking water service. Water points for the last quarter are being corrected and will follow.',
  challengesLessons:
    'Dry-season demand doubled queues at two boreholes; committees that agreed a tariff early kept their ' +
    'spare-parts fund. A double count was caught at review, before the figures reached this report.',
  recommendations:
    'Train committees before handover, not after; add a second tap stand where queues pass one hour.',
} as const;

/** The report's title for the two quarters it covers; a second run finds the report by its start. */
export const REPORT_TITLE_START = `${PROGRAM.name}: progress`;
export const reportTitle = (from: string, to: string) => `${REPORT_TITLE_START} ${from} to ${to}`;

export interface Quarter {
  label: string;
  startDate: string;
  endDate: string;
  dueDate: string;
}

const iso = (date: Date) => date.toISOString().slice(0, 10);

/** The calendar quarter `offset` quarters from the one holding `today` (UTC); due 15 days after it ends. */
export function quarter(today: Date, offset: number): Quarter {
  const index = today.getUTCFullYear() * 4 + Math.floor(today.getUTCMonth() / 3) + offset;
  const year = Math.floor(index / 4);
  const q = index - year * 4;
  const start = new Date(Date.UTC(year, q * 3, 1));
  const end = new Date(Date.UTC(year, q * 3 + 3, 0));
  const due = new Date(Date.UTC(year, q * 3 + 3, 15));
  return { label: `Q${q + 1} ${year}`, startDate: iso(start), endDate: iso(end), dueDate: iso(due) };
}

/** The three quarters of the story: two quarters ago, last quarter, and this one. */
export function quarters(today: Date): Record<QuarterKey, Quarter> {
  return { earlier: quarter(today, -2), last: quarter(today, -1), current: quarter(today, 0) };
}

/** The program and both projects run three years from the first quarter of the story. */
export function programDates(today: Date): { startDate: string; endDate: string } {
  const first = quarter(today, -2);
  const end = quarter(today, 9);
  return { startDate: first.startDate, endDate: end.endDate };
}

/** The training took place early in last quarter, over three days. */
export function activityDates(today: Date): { startDate: string; endDate: string } {
  const start = new Date(`${quarter(today, -1).startDate}T00:00:00Z`);
  start.setUTCDate(start.getUTCDate() + 20);
  const end = new Date(start);
  end.setUTCDate(end.getUTCDate() + 2);
  return { startDate: iso(start), endDate: iso(end) };
}
