import type { Static } from '@sinclair/typebox';
import { EXAMPLE_URL, IDS, TIMES } from '../../http/documentation/story.js';
import type { CreateFormBody, Form, PublicForm, SubmitBody, Submitted } from './forms.schemas.js';

/** The OpenAPI document's examples of the household survey and one answer to it (story.ts). */

const RIVER = 'River, lake or pond';

const survey = {
  title: 'Household water survey, 2026 Q1',
  description:
    'Ask the head of the household or their spouse; it takes about five minutes. Answers are confidential.',
  closesAt: '2026-03-31T20:59:59.000Z',
  personalDataRetentionDays: 365,
  fields: [
    { type: 'text', label: 'Name of the respondent', key: 'respondent_name', required: true, personal: true },
    { type: 'text', label: 'Village', key: 'village', required: true },
    { type: 'number', label: 'People living in the household', key: 'household_size', required: true },
    {
      type: 'select',
      label: 'Main source of drinking water',
      key: 'water_source',
      options: [
        'Rehabilitated borehole',
        'Other protected well or spring',
        'Piped water',
        RIVER,
        'Rainwater',
      ],
      required: true,
    },
    {
      type: 'boolean',
      label: 'Is the water treated (boiled, filtered or chlorinated) before drinking?',
      key: 'treats_water',
      required: true,
      showIf: { field: 'water_source', equals: RIVER },
    },
  ],
  defaultLanguage: 'en',
  translations: {
    sw: {
      title: 'Utafiti wa maji ya kaya, 2026 Q1',
      fields: {
        village: { label: 'Kijiji' },
        household_size: { label: 'Watu wanaoishi katika kaya' },
      },
    },
  },
} satisfies Partial<Static<typeof CreateFormBody>>;

export const FORM_CREATE: Static<typeof CreateFormBody> = { projectId: IDS.project, ...survey };

export const FORM: Static<typeof Form> = {
  id: IDS.form,
  orgId: IDS.organization,
  projectId: IDS.project,
  indicatorId: null,
  reportingPeriodId: null,
  valueFieldKey: null,
  countInto: 'fixed_period',
  countDateField: null,
  disaggregateBy: null,
  countRepeat: null,
  countWhere: null,
  ...survey,
  publicToken: IDS.formToken,
  publicUrl: `${EXAMPLE_URL}/f/${IDS.formToken}`,
  isPublished: false,
  submissionCount: 0,
  uncountedCount: 0,
  uncountedBy: {},
  createdAt: TIMES.formCreated,
  updatedAt: TIMES.formCreated,
};

export const FORM_PUBLISHED: Static<typeof Form> = {
  ...FORM,
  isPublished: true,
  updatedAt: TIMES.formPublished,
};

export const PUBLIC_FORM: Static<typeof PublicForm> = {
  title: survey.title,
  description: survey.description,
  fields: survey.fields,
  closesAt: survey.closesAt,
  language: 'en',
  languages: [
    { code: 'en', name: 'English' },
    { code: 'sw', name: 'Kiswahili' },
  ],
};

export const SUBMISSION: Static<typeof SubmitBody> = {
  answers: {
    respondent_name: 'Mary Atieno',
    village: 'Pap Onditi',
    household_size: 6,
    water_source: 'Rehabilitated borehole',
  },
  location: { lat: -0.3341, lng: 34.9487, accuracy: 12 },
};

export const SUBMISSION_RECEIPT: Static<typeof Submitted> = {
  id: IDS.submission,
  submittedAt: TIMES.submitted,
};
