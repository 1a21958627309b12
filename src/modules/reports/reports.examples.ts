import type { Static } from '@sinclair/typebox';
import { EXAMPLE_URL, FIGURE, IDS, PEOPLE, QUARTER, TIMES } from '../../http/documentation/story.js';
import type {
  CreateProjectReportBody,
  CreateReportBody,
  Report,
  ShareBody,
  ShareLink,
  UpdateReportBody,
} from './reports.schemas.js';

/**
 * The OpenAPI document's examples of the quarterly report to the donor: created (assembled) as a draft,
 * assembled again, given its narratives and published, then shared (src/http/documentation/story.ts).
 */

const TITLE = 'Kisumu County WASH: first quarter 2026';
const name = (person: { firstName: string; lastName: string }) => `${person.firstName} ${person.lastName}`;

export const PROJECT_REPORT_CREATE: Static<typeof CreateProjectReportBody> = {
  title: TITLE,
  startDate: QUARTER.startDate,
  endDate: QUARTER.endDate,
  reportType: 'quarterly',
};

export const REPORT_CREATE: Static<typeof CreateReportBody> = {
  title: TITLE,
  projectId: IDS.project,
  reportType: 'quarterly',
  periodIds: [IDS.period],
};

const DRAFT: Static<typeof Report> = {
  id: IDS.report,
  orgId: IDS.organization,
  title: TITLE,
  projectId: IDS.project,
  reportType: 'quarterly',
  startDate: QUARTER.startDate,
  endDate: QUARTER.endDate,
  status: 'draft',
  shareToken: null,
  shareUrl: null,
  shareExpiresAt: null,
  publishedAt: null,
  createdAt: TIMES.donorReportCreated,
  updatedAt: TIMES.donorReportCreated,
  periodIds: [IDS.period],
  project: {
    id: IDS.project,
    name: 'Kisumu County WASH',
    code: 'KSM-WASH-01',
    programId: IDS.program,
    programName: 'Safe Water for Western Kenya',
    status: 'active',
    startDate: '2026-01-01',
    endDate: '2027-06-30',
    currency: 'USD',
    budget: 450000,
    location: 'Kisumu County, Kenya',
    lead: name(PEOPLE.officer),
    description:
      'Rehabilitation of 24 community boreholes, training of their water committees and hygiene promotion ' +
      'in Nyakach and Nyando sub-counties.',
  },
  cover: {
    projectName: 'Kisumu County WASH',
    donors: [{ id: IDS.donor, name: 'Global Water Fund', code: 'GWF' }],
    organization: { name: 'Maji Safi Kenya', logoUrl: 'https://majisafi.example.org/logo.png' },
    period: { startDate: QUARTER.startDate, endDate: QUARTER.endDate },
  },
  sections: {
    executiveSummary: '',
    challengesLessons: '',
    recommendations: '',
    indicators: [
      {
        indicatorId: IDS.indicator,
        indicatorName: 'Households with access to safe drinking water',
        code: 'HH_SAFE_WATER',
        unit: 'households',
        aggregationMethod: 'sum',
        value: FIGURE.value,
        target: FIGURE.target,
        baseline: 300,
        progressPct: 113.3,
        status: 'on_track',
        targetToDate: FIGURE.target,
        progressToDatePct: 113.3,
        statusToDate: 'on_track',
        narrative: FIGURE.narrative,
        disaggregatedValues: FIGURE.disaggregatedValues,
        disaggregations: [{ name: 'Sex of the head of household', categories: ['female', 'male'] }],
        resultNode: {
          id: IDS.outcome,
          level: 'outcome',
          title: 'Households drink safe water all year round',
        },
        provenance: {
          counted: 0,
          manual: FIGURE.value,
          prefill: null,
          submissions: 0,
          lastChangedAt: TIMES.reportDrafted,
          lastChangedBy: name(PEOPLE.reporter),
          lastChangedKind: 'created',
          approvedBy: name(PEOPLE.officer),
          approvedAt: TIMES.reportApproved,
        },
        inputs: null,
        periods: [{ periodId: IDS.period, label: QUARTER.label, value: FIGURE.value, target: FIGURE.target }],
      },
    ],
    activities: [
      {
        id: IDS.activity,
        title: 'Water committee training, Nyakach',
        status: 'completed',
        startDate: '2026-02-10',
        endDate: '2026-02-12',
        location: 'Nyakach sub-county',
        outputId: IDS.output,
        participantCount: 36,
        attendedCount: 33,
      },
    ],
    budget: {
      currency: 'USD',
      totalPlanned: 204000,
      totalActual: 58500,
      burnRate: 28.7,
      lines: [
        {
          id: IDS.budgetLine,
          category: 'Borehole rehabilitation',
          description: 'Pumps, aprons and fencing for 24 boreholes',
          plannedAmount: 180000,
          actualAmount: 52400,
        },
        {
          id: IDS.trainingLine,
          category: 'Training',
          description: 'Water committee training and hygiene promotion',
          plannedAmount: 24000,
          actualAmount: 6100,
        },
      ],
    },
  },
  attachments: [],
};

export const REPORT_DRAFT = DRAFT;

export const REPORT_ASSEMBLED: Static<typeof Report> = { ...DRAFT, updatedAt: TIMES.donorReportAssembled };

const NARRATIVES = {
  executiveSummary:
    'In its first quarter the project rehabilitated three boreholes in Nyakach and trained their water ' +
    'committees: 340 households now have safe drinking water, ahead of the quarter’s target of 300.',
  challengesLessons:
    'Spare parts for hand pumps took six weeks to reach Kisumu; committees with a woman treasurer ' +
    'collected user fees more regularly.',
  recommendations:
    'Stock common hand-pump spares in the county office, and encourage committees to elect women to ' +
    'financial roles.',
};

/** Narratives written and the report published in one change. */
export const REPORT_PUBLISH: Static<typeof UpdateReportBody> = { sections: NARRATIVES, status: 'published' };

export const PUBLISHED_REPORT: Static<typeof Report> = {
  ...REPORT_ASSEMBLED,
  status: 'published',
  publishedAt: TIMES.donorReportPublished,
  updatedAt: TIMES.donorReportPublished,
  sections: { ...DRAFT.sections, ...NARRATIVES },
};

export const SHARE_REQUEST: Static<typeof ShareBody> = { expiresAt: TIMES.shareExpires };

export const SHARE_LINK: Static<typeof ShareLink> = {
  shareToken: IDS.shareToken,
  shareUrl: `${EXAMPLE_URL}/r/${IDS.shareToken}`,
  shareExpiresAt: TIMES.shareExpires,
};

/** What the donor reads through the link. */
export const SHARED_REPORT: Static<typeof Report> = { ...PUBLISHED_REPORT, ...SHARE_LINK };
