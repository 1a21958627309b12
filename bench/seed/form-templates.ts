import { isShown, type FormField, type Location } from '../../src/modules/forms/form-fields.js';
import { DAY, isoDate } from './calendar.js';
import { personName, VILLAGES, type District } from './names.js';
import type { Random } from './random.js';

/** Where and when one respondent answers. */
export interface Respondent {
  time: number;
  district: District;
}

/** A field and how a respondent answers it; `undefined` leaves it blank (the service then stores nothing). */
interface TemplateField {
  field: FormField;
  answer: (random: Random, at: Respondent) => unknown;
}

export interface FormTemplate {
  title: string;
  description: string;
  fields: TemplateField[];
  /** The number field a counting form adds up; none: each submission counts 1. */
  valueFieldKey: string | null;
}

const dayBefore = (at: Respondent, random: Random, days: number) =>
  isoDate(at.time - random.int(0, days) * DAY);
const sometimes = <T>(random: Random, probability: number, value: () => T) =>
  random.chance(probability) ? value() : undefined;
const SEXES = ['female', 'male', 'other'];
const sexOf = (random: Random) =>
  random.weighted([
    ['female', 52],
    ['male', 46],
    ['other', 2],
  ] as const);
const SATISFACTION = ['Very satisfied', 'Satisfied', 'Neutral', 'Dissatisfied'];
const COMPLAINTS = [
  'The distribution point was far from our village.',
  'Some items were missing from the kit.',
  'We waited most of the day before being served.',
  'The quantity was not enough for the size of my household.',
];

/** Coordinates near the district's centre, as a phone reports them. */
export function coordinates(random: Random, district: District): Location {
  return {
    lat: Math.round((district.lat + random.between(-0.3, 0.3)) * 1e5) / 1e5,
    lng: Math.round((district.lng + random.between(-0.3, 0.3)) * 1e5) / 1e5,
    accuracy: random.int(3, 40),
  };
}

const text = (key: string, label: string, required = false): FormField => ({
  type: 'text',
  label,
  key,
  required,
});
const choice = (
  type: 'select' | 'multi_select',
  key: string,
  label: string,
  options: string[],
  required = false,
): FormField => ({ type, label, key, options, required });
const typed = (type: FormField['type'], key: string, label: string, required = false): FormField => ({
  type,
  label,
  key,
  required,
});

const DISTRIBUTION: FormTemplate = {
  title: 'Household distribution survey',
  description: 'Filled in at the distribution point for each household served.',
  valueFieldKey: 'household_size',
  fields: [
    // Marked personal: the export and its audit entry carry what protecting them costs (bench/run.ts).
    {
      field: { ...text('respondent_name', 'Name of the respondent', true), personal: true },
      answer: personName,
    },
    {
      field: choice('select', 'village', 'Village', VILLAGES.slice(0, 12), true),
      answer: (r) => r.pick(VILLAGES.slice(0, 12)),
    },
    {
      field: typed('number', 'household_size', 'People in the household', true),
      answer: (r) => r.int(1, 12),
    },
    {
      field: typed('boolean', 'female_headed', 'Female-headed household'),
      answer: (r) => sometimes(r, 0.95, () => r.chance(0.35)),
    },
    {
      field: choice(
        'multi_select',
        'items_received',
        'Items received',
        ['Food basket', 'Hygiene kit', 'Cash voucher', 'Seeds', 'Blanket'],
        true,
      ),
      answer: (r) =>
        r.sample(['Food basket', 'Hygiene kit', 'Cash voucher', 'Seeds', 'Blanket'], r.int(1, 3)),
    },
    {
      field: typed('date', 'distributed_on', 'Date of distribution', true),
      answer: (r, at) => dayBefore(at, r, 3),
    },
    {
      field: choice('select', 'satisfaction', 'How satisfied are you?', SATISFACTION, true),
      answer: (r) =>
        r.weighted([
          ['Very satisfied', 35],
          ['Satisfied', 40],
          ['Neutral', 15],
          ['Dissatisfied', 10],
        ] as const),
    },
    {
      field: {
        ...typed('textarea', 'complaint', 'What went wrong?'),
        showIf: { field: 'satisfaction', equals: 'Dissatisfied' },
      },
      answer: (r) => sometimes(r, 0.8, () => r.pick(COMPLAINTS)),
    },
    {
      field: { ...typed('location', 'gps', 'Location of the household'), personal: true },
      answer: (r, at) =>
        r.weighted<() => unknown>([
          [() => coordinates(r, at.district), 70],
          [() => r.pick(VILLAGES), 10],
          [() => undefined, 20],
        ])(),
    },
  ],
};

export const REGISTRATION: FormTemplate = {
  title: 'Beneficiary registration',
  description: 'Registers a household for assistance; the household counts towards the people reached.',
  valueFieldKey: 'household_size',
  fields: [
    { field: text('full_name', 'Full name', true), answer: personName },
    { field: choice('select', 'sex', 'Sex', SEXES, true), answer: sexOf },
    { field: typed('number', 'age', 'Age in years', true), answer: (r) => r.int(16, 85) },
    {
      field: typed('number', 'household_size', 'People in the household', true),
      answer: (r) => r.int(1, 12),
    },
    {
      field: text('phone', 'Phone number'),
      answer: (r) => sometimes(r, 0.5, () => `+2547${r.int(10_000_000, 99_999_999)}`),
    },
    { field: typed('boolean', 'consent', 'Consents to data use', true), answer: () => true },
    {
      field: typed('date', 'registered_on', 'Date of registration', true),
      answer: (r, at) => dayBefore(at, r, 1),
    },
    { field: typed('location', 'village', 'Village'), answer: (r) => r.pick(VILLAGES) },
  ],
};

/** A complete answer to the registration form: what the bench submits again and again. */
export const REGISTRATION_ANSWERS = {
  full_name: 'Amina Okello',
  sex: 'female',
  age: 34,
  household_size: 5,
  phone: '+254712345678',
  consent: true,
  registered_on: '2025-12-15',
  village: 'Pabbo',
};

const TRAINING: FormTemplate = {
  title: 'Training feedback',
  description: 'Given to every participant at the end of a training.',
  valueFieldKey: null,
  fields: [
    { field: text('participant_name', 'Participant', true), answer: personName },
    { field: choice('select', 'sex', 'Sex', SEXES, true), answer: sexOf },
    { field: typed('number', 'sessions_attended', 'Sessions attended', true), answer: (r) => r.int(1, 5) },
    { field: typed('boolean', 'useful', 'Was the training useful?', true), answer: (r) => r.chance(0.85) },
    {
      field: typed('textarea', 'suggestions', 'Suggestions'),
      answer: (r) =>
        sometimes(r, 0.4, () =>
          r.pick([
            'More practical sessions, please.',
            'The venue was too small.',
            'Please translate the handouts.',
            'Longer sessions would help.',
          ]),
        ),
    },
    {
      field: typed('date', 'trained_on', 'Date of the training', true),
      answer: (r, at) => dayBefore(at, r, 2),
    },
  ],
};

const WATER_POINT: FormTemplate = {
  title: 'Water point functionality check',
  description: 'Monthly check of each water point by the water committee.',
  valueFieldKey: 'people_served',
  fields: [
    {
      field: text('water_point', 'Water point', true),
      answer: (r) => `${r.pick(VILLAGES)} borehole ${r.int(1, 9)}`,
    },
    { field: typed('boolean', 'functional', 'Functional', true), answer: (r) => r.chance(0.8) },
    {
      field: {
        ...choice('multi_select', 'issues', 'Issues found', [
          'Broken pump',
          'Low yield',
          'Contamination',
          'Long queues',
        ]),
        showIf: { field: 'functional', equals: false },
      },
      answer: (r) => r.sample(['Broken pump', 'Low yield', 'Contamination', 'Long queues'], r.int(1, 2)),
    },
    { field: typed('number', 'people_served', 'People served per day', true), answer: (r) => r.int(50, 800) },
    {
      field: typed('date', 'inspected_on', 'Date of inspection', true),
      answer: (r, at) => dayBefore(at, r, 1),
    },
    {
      field: typed('location', 'location', 'Location', true),
      answer: (r, at) => coordinates(r, at.district),
    },
  ],
};

const HOUSEHOLD_VISIT: FormTemplate = {
  title: 'Household follow-up visit',
  description: 'Follow-up of registered households by community volunteers.',
  valueFieldKey: 'household_size',
  fields: [
    { field: text('head_of_household', 'Head of household', true), answer: personName },
    {
      field: typed('number', 'household_size', 'People in the household', true),
      answer: (r) => r.int(1, 12),
    },
    {
      field: typed('number', 'children_under_five', 'Children under five'),
      answer: (r) => sometimes(r, 0.9, () => r.int(0, 4)),
    },
    { field: typed('boolean', 'has_latrine', 'Has a latrine'), answer: (r) => r.chance(0.6) },
    {
      field: choice(
        'select',
        'visit_outcome',
        'Outcome of the visit',
        ['Visited', 'Not at home', 'Moved away'],
        true,
      ),
      answer: (r) =>
        r.weighted([
          ['Visited', 85],
          ['Not at home', 12],
          ['Moved away', 3],
        ] as const),
    },
    {
      field: {
        ...typed('textarea', 'notes', 'Notes'),
        showIf: { field: 'visit_outcome', equals: 'Visited' },
      },
      answer: (r) =>
        sometimes(r, 0.5, () =>
          r.pick([
            'Family doing well.',
            'Needs a referral to the clinic.',
            'Requested seeds for next season.',
          ]),
        ),
    },
    { field: typed('date', 'visited_on', 'Date of the visit', true), answer: (r, at) => dayBefore(at, r, 1) },
  ],
};

export const CSV_TEMPLATE = DISTRIBUTION;
/** The templates the other forms take in turn. */
export const TEMPLATES = [TRAINING, WATER_POINT, HOUSEHOLD_VISIT, DISTRIBUTION, REGISTRATION];

export const fieldsOf = (template: FormTemplate): FormField[] => template.fields.map(({ field }) => field);

/** The answers the service would keep: shown fields only, blanks left out, in field order. */
export function answer(template: FormTemplate, random: Random, at: Respondent): Record<string, unknown> {
  const answers: Record<string, unknown> = {};
  for (const { field, answer: give } of template.fields) {
    if (!isShown(field, answers)) continue;
    const value = give(random, at);
    if (value !== undefined) answers[field.key] = value;
  }
  return answers;
}
