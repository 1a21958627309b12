/**
 * The one story the OpenAPI document's examples tell, with the same ids and times from the first request
 * to the last: Maji Safi Kenya, an NGO running a water, sanitation and hygiene (WASH) program in Kisumu
 * County, sets up its results framework, collects household surveys, reviews a quarter's figure and
 * shares the quarterly report with its donor. The modules' `*.examples.ts` files write their examples
 * from it.
 */

/** Where the example service runs (its BASE_URL and APP_URL): links in answers point there. */
export const EXAMPLE_URL = 'https://mel.example.org';

/** The people: the organization's admin, its M&E officer who reviews, and a field reporter. */
export const PEOPLE = {
  admin: {
    id: '0194a3c0-5e21-7b8a-9c4d-1f2e3a4b5c01',
    email: 'amina.wanjiru@majisafi.example.org',
    firstName: 'Amina',
    lastName: 'Wanjiru',
    password: 'Kisumu-boreholes-2026',
  },
  officer: {
    id: '0194a3c0-7d02-7c19-8b3e-2a4c6e8f0b02',
    email: 'otieno.ochieng@majisafi.example.org',
    firstName: 'Otieno',
    lastName: 'Ochieng',
  },
  reporter: {
    id: '0194a3c0-9a13-7d2a-a94f-3b5d7f9a1c03',
    email: 'grace.akinyi@majisafi.example.org',
    firstName: 'Grace',
    lastName: 'Akinyi',
  },
} as const;

/** Every id of the story, by what it names. */
export const IDS = {
  organization: '0194a3c1-0a10-7c3d-8e4f-5a6b7c8d9e01',
  donor: '0194a3c1-1b20-7c4e-9f50-6b7c8d9e0f02',
  program: '0194a3c1-2c30-7d5f-a061-7c8d9e0f1a03',
  project: '0194a3c1-3d40-7e60-b172-8d9e0f1a2b04',
  impact: '0194a3c1-4e50-7f71-8283-9e0f1a2b3c05',
  outcome: '0194a3c1-5f60-7082-9394-0f1a2b3c4d06',
  output: '0194a3c1-6071-7193-a4a5-1a2b3c4d5e07',
  indicator: '0194a3c2-0182-72a4-b5b6-2b3c4d5e6f08',
  disaggregation: '0194a3c2-1293-73b5-86c7-3c4d5e6f7a09',
  period: '0194a3c2-23a4-74c6-97d8-4d5e6f7a8b10',
  form: '0194a3c2-34b5-75d7-a8e9-5e6f7a8b9c11',
  formToken: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e12',
  submission: '0194a3c3-45c6-76e8-b9fa-6f7a8b9c0d13',
  indicatorReport: '0194a3c3-56d7-77f9-8a0b-7a8b9c0d1e14',
  activity: '0194a3c3-67e8-780a-9b1c-8b9c0d1e2f15',
  budgetLine: '0194a3c3-78f9-791b-ac2d-9c0d1e2f3a16',
  trainingLine: '0194a3c3-890a-7a2c-bd3e-0d1e2f3a4b17',
  report: '0194a3c4-9a1b-7b3d-8e4f-1e2f3a4b5c18',
  shareToken: '8e2d4c6b-0a1f-4e3d-9c5b-7a6f8e0d2c19',
} as const;

/** When each step happened (UTC, as the service writes timestamps). */
export const TIMES = {
  registered: '2026-01-05T08:12:31.204Z',
  organizationCreated: '2026-01-05T08:15:02.518Z',
  programCreated: '2026-01-05T08:21:47.090Z',
  projectCreated: '2026-01-05T08:30:12.377Z',
  frameworkCreated: '2026-01-06T09:02:40.615Z',
  indicatorCreated: '2026-01-06T09:40:05.733Z',
  disaggregationCreated: '2026-01-06T09:42:18.250Z',
  indicatorLinked: '2026-01-06T09:45:51.902Z',
  periodCreated: '2026-01-06T10:05:33.118Z',
  formCreated: '2026-01-07T07:50:09.441Z',
  formPublished: '2026-01-07T08:00:27.006Z',
  submitted: '2026-02-14T11:23:05.812Z',
  reportDrafted: '2026-04-08T14:10:44.530Z',
  reportSubmitted: '2026-04-09T16:45:12.087Z',
  reportReturned: '2026-04-10T09:20:58.364Z',
  reportResubmitted: '2026-04-11T15:02:33.719Z',
  reportApproved: '2026-04-12T10:05:16.842Z',
  donorReportCreated: '2026-04-14T08:00:03.275Z',
  donorReportAssembled: '2026-04-14T08:30:41.660Z',
  donorReportPublished: '2026-04-15T09:00:19.128Z',
  shareExpires: '2026-07-31T23:59:59.000Z',
} as const;

/** The first quarter, the period the story reports on. */
export const QUARTER = {
  label: '2026 Q1',
  startDate: '2026-01-01',
  endDate: '2026-03-31',
  dueDate: '2026-04-15',
} as const;

/** The quarter's figure: households with safe water, by the sex of the head of household. */
export const FIGURE = {
  value: 340,
  disaggregatedValues: { female: 190, male: 150 },
  target: 300,
  narrative:
    'Three boreholes in Nyakach were rehabilitated and handed over to their water committees; 340 ' +
    'households now draw safe water within 500 m of home.',
  returnComment:
    'Please attach the handover sheets of the three Nyakach boreholes before resubmitting: the figure ' +
    'must match the committees’ registers.',
  approvalComment: 'Checked against the committees’ registers. Thank you, Grace.',
} as const;
