import { ANCHOR, DAY, OPEN_PERIOD, PERIODS, WINDOW } from './calendar.js';
import type { Cell } from './bulk.js';
import {
  answer,
  coordinates,
  CSV_TEMPLATE,
  fieldsOf,
  REGISTRATION,
  TEMPLATES,
  type FormTemplate,
} from './form-templates.js';
import {
  BIG,
  TYPICAL,
  type CountedPair,
  type IndicatorSeed,
  type ProjectSeed,
  type Seeding,
} from './model.js';
import type { Random } from './random.js';

export interface FormSeed {
  id: string;
  token: string;
  project: ProjectSeed;
  template: FormTemplate;
  title: string;
  created: number;
  /** Set on forms that count into an indicator report of the open period. */
  indicator: IndicatorSeed | null;
  /** Rows of the forms with a few dozen submissions, made up front because reports hold their sums. */
  submissions: Cell[][];
}

export interface FormsPlan {
  forms: FormSeed[];
  csv: FormSeed;
  intake: FormSeed;
}

/** The project of the intake form: ordinary, and not the one the read benchmarks use. */
export const intakeProjectIndex = (s: Seeding) => Math.min(TYPICAL + 1, s.projects.length - 1);

/** A people-counting indicator the project links, for a form to count into. */
function countable(project: ProjectSeed, random: Random): IndicatorSeed | null {
  const links = project.links.map((link) => link.indicator).filter((indicator) => !indicator.isFormula);
  const people = links.filter((indicator) => indicator.kind === 'people' || indicator.kind === 'households');
  if (people.length > 0) return random.pick(people);
  return links.length > 0 ? random.pick(links) : null;
}

/**
 * The forms and the submissions of all but the CSV form. Counting forms (the intake form and about one
 * in eight others) count into the open period, so their submissions are counted and the draft reports
 * they fed hold the sums (collected in `s.counted`).
 */
export function planForms(s: Seeding): FormsPlan {
  const random = s.random('forms');
  const forms: FormSeed[] = [];
  const newForm = (project: ProjectSeed, template: FormTemplate, counting: boolean, created: number) => {
    const form: FormSeed = {
      id: s.ids.at(created),
      token: s.ids.token(),
      project,
      template,
      title: `${template.title}: ${project.code}`,
      created,
      indicator: counting ? countable(project, random) : null,
      submissions: [],
    };
    forms.push(form);
    return form;
  };
  const csvProject = s.projects[Math.min(3, s.projects.length - 1)]!;
  const csv = newForm(csvProject, CSV_TEMPLATE, false, WINDOW.start - 5 * DAY);
  csv.title = `${CSV_TEMPLATE.title} (all distribution points)`;
  const intake = newForm(
    s.projects[intakeProjectIndex(s)]!,
    REGISTRATION,
    true,
    PERIODS[OPEN_PERIOD]!.start - 7 * DAY,
  );
  const others = s.projects.filter((project) => project.index !== BIG);
  for (let i = 2; i < s.plan.forms; i += 1) {
    const counting = random.chance(0.12);
    const created = counting
      ? PERIODS[OPEN_PERIOD]!.start - random.int(3, 20) * DAY
      : WINDOW.start + random.int(0, 300) * DAY + random.int(0, DAY);
    newForm(
      i === 2 ? s.projects[BIG]! : random.pick(others),
      TEMPLATES[i % TEMPLATES.length]!,
      counting,
      created,
    );
  }
  for (const form of forms) if (form !== csv) addSubmissions(s, form, random);
  return { forms, csv, intake };
}

function addSubmissions(s: Seeding, form: FormSeed, random: Random): void {
  const counting = form.indicator !== null;
  const open = PERIODS[OPEN_PERIOD]!;
  const from = counting ? open.start : form.created + DAY;
  const to = counting ? open.end : ANCHOR;
  const count = random.int(12, 48);
  const times = Array.from({ length: count }, () => from + Math.floor(random.next() * (to - from))).sort(
    (a, b) => a - b,
  );
  // The report the counted submissions go into, their source link's target.
  const pair = counting ? countedPair(s, form, times) : null;
  for (const time of times) {
    const at = { time, district: form.project.district };
    const answers = answer(form.template, random, at);
    const key = form.template.valueFieldKey;
    const amount = key ? (answers[key] as number) : 1;
    const location = random.chance(0.6) ? coordinates(random, at.district) : null;
    const periodId = counting ? form.project.periodIds[OPEN_PERIOD]! : null;
    const id = s.ids.at(time);
    if (pair) {
      pair.value += amount;
      pair.submissions += 1;
      pair.sources.push({ submissionId: id, time, amount });
    }
    form.submissions.push([
      id,
      s.orgId,
      form.id,
      periodId,
      answers,
      location,
      counting,
      new Date(time),
      pair?.reportId ?? null,
      pair ? amount : null,
    ]);
  }
}

/** The pair a counting form's submissions go into, shared with other forms counting into it. */
function countedPair(s: Seeding, form: FormSeed, times: number[]): CountedPair {
  const found = s.counted.find(
    (p) => p.projectIndex === form.project.index && p.indicatorId === form.indicator!.id,
  );
  if (found) {
    found.firstSubmission = Math.min(found.firstSubmission, times[0]!);
    found.lastSubmission = Math.max(found.lastSubmission, times.at(-1)!);
    return found;
  }
  const pair: CountedPair = {
    reportId: s.ids.at(times[0]!),
    projectIndex: form.project.index,
    indicatorId: form.indicator!.id,
    periodIndex: OPEN_PERIOD,
    value: 0,
    submissions: 0,
    firstSubmission: times[0]!,
    lastSubmission: times.at(-1)!,
    sources: [],
  };
  s.counted.push(pair);
  return pair;
}

const SUBMISSION_COLUMNS = [
  ['id', 'uuid'],
  ['org_id', 'uuid'],
  ['form_id', 'uuid'],
  ['reporting_period_id', 'uuid'],
  ['answers', 'jsonb'],
  ['location', 'jsonb'],
  ['counted', 'bool'],
  ['submitted_at', 'timestamptz'],
  ['indicator_report_id', 'uuid'],
  ['counted_amount', 'float8'],
] as const;

/** The forms, published, then their submissions: the CSV form's spread evenly over the reporting window. */
export async function seedForms(s: Seeding, plan: FormsPlan): Promise<void> {
  await s.writer.insert(
    'forms',
    [
      ['id', 'uuid'],
      ['org_id', 'uuid'],
      ['project_id', 'uuid'],
      ['indicator_id', 'uuid'],
      ['reporting_period_id', 'uuid'],
      ['value_field_key', 'text'],
      ['title', 'text'],
      ['description', 'text'],
      ['public_token', 'uuid'],
      ['is_published', 'bool'],
      ['fields', 'jsonb'],
      ['created_at', 'timestamptz'],
      ['updated_at', 'timestamptz'],
    ],
    plan.forms.length,
    plan.forms.map((form) => {
      const counting = form.indicator !== null;
      return [
        form.id,
        s.orgId,
        form.project.id,
        form.indicator?.id ?? null,
        counting ? form.project.periodIds[OPEN_PERIOD]! : null,
        counting ? form.template.valueFieldKey : null,
        form.title,
        form.template.description,
        form.token,
        true,
        fieldsOf(form.template),
        new Date(form.created),
        new Date(form.created + DAY),
      ];
    }),
  );
  const few = plan.forms.flatMap((form) => form.submissions);
  await s.writer.insert('form_submissions', SUBMISSION_COLUMNS, few.length, few);

  const random = s.random('csv-submissions');
  const total = s.plan.csvSubmissions;
  const { csv } = plan;
  const span = ANCHOR - WINDOW.start;
  function* rows(): Generator<Cell[]> {
    for (let i = 0; i < total; i += 1) {
      // Evenly spread and increasing, so ids (time first) arrive in index order.
      const time = WINDOW.start + Math.floor(((i + random.next()) * span) / total);
      const at = { time, district: csv.project.district };
      const answers = answer(csv.template, random, at);
      const location = random.chance(0.6) ? coordinates(random, at.district) : null;
      yield [s.ids.at(time), s.orgId, csv.id, null, answers, location, false, new Date(time), null, null];
    }
  }
  await s.writer.insert('form_submissions', SUBMISSION_COLUMNS, total, rows(), 5000);
}
