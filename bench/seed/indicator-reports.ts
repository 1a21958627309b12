import { AGE_BANDS, SEXES } from '../../src/lib/demographics.js';
import type { IndicatorReportStatus } from '../../src/modules/indicator-reports/indicator-reports.tables.js';
import { DAY, LOCKED_PERIODS, OPEN_PERIOD, PAST_PERIODS, PERIODS, PERIODS_PER_PROJECT } from './calendar.js';
import type { Cell } from './bulk.js';
import {
  BIG,
  TYPICAL,
  type CountedPair,
  type LinkSeed,
  type ProjectSeed,
  type Seeding,
  type UserSeed,
} from './model.js';
import { isQualityDraft, type QualityPlan } from './quality.js';
import { apportionWithin, splitWhole, type Random } from './random.js';
import { busyEntries, seedReportHistory, type FormFedReport, type WrittenReport } from './report-history.js';

const SEX_MIX = [0.52, 0.46, 0.02];
const AGE_MIX = [0.25, 0.35, 0.25, 0.1, 0.05];
const REJECTIONS = [
  'Please attach the attendance sheets for the figures reported.',
  'The value is far above last month; please check the tally.',
  'Disaggregation does not match the distribution lists.',
];

/** One report to write: a link of the project and a period (index into PERIODS). */
interface Pair {
  link: LinkSeed;
  period: number;
}

/**
 * Which pairs each project reports. The big project reports every past period of every indicator; the
 * others share the rest of the planned total, newest periods first (they started reporting later),
 * always including the pairs forms counted into.
 */
function choosePairs(s: Seeding, random: Random): Pair[][] {
  const reportable = (project: ProjectSeed) => project.links.filter((link) => !link.indicator.isFormula);
  const big = reportable(s.projects[BIG]!).length * PAST_PERIODS;
  const ordinary = s.projects.filter((project) => project.index !== BIG);
  const shares = apportionWithin(
    Math.max(0, s.plan.indicatorReports - big),
    ordinary.map(() => random.between(0.5, 1.5)),
    ordinary.map((project) => reportable(project).length * PAST_PERIODS),
  );
  return s.projects.map((project) => {
    const links = reportable(project);
    const forced = (link: LinkSeed, period: number) =>
      period === OPEN_PERIOD &&
      s.counted.some((c) => c.projectIndex === project.index && c.indicatorId === link.indicator.id);
    const all: Pair[] = [];
    for (let period = PAST_PERIODS - 1; period >= 0; period -= 1) {
      for (const link of links) all.push({ link, period });
    }
    if (project.index === BIG) return all;
    const share = shares[project.index - 1]!;
    const chosen = all.filter((pair) => forced(pair.link, pair.period));
    for (const pair of all) {
      if (chosen.length >= share) break;
      if (!forced(pair.link, pair.period)) chosen.push(pair);
    }
    return chosen.sort((a, b) => a.period - b.period);
  });
}

/** Locked periods were reviewed; the open ones still have drafts and pending reviews, the newest most. */
function statusFor(period: number, random: Random): IndicatorReportStatus {
  if (period < LOCKED_PERIODS) {
    return random.weighted([
      ['approved', 96],
      ['submitted', 4],
    ] as const);
  }
  const age = (OPEN_PERIOD - period) / (OPEN_PERIOD - LOCKED_PERIODS);
  return random.weighted([
    ['approved', 35 + 45 * age],
    ['submitted', 30 - 18 * age],
    ['draft', 25 - 21 * age],
    ['rejected', 10 - 6 * age],
  ] as const);
}

/** A month's target: sums spread the project target over the months, the others keep it. */
function periodTarget(link: LinkSeed): number | null {
  if (link.target === null) return null;
  return link.indicator.method === 'sum' ? Math.round(link.target / PERIODS_PER_PROJECT) : link.target;
}

/** A plausible value: the target times how well the project does, give or take a month's luck. */
function valueFor(link: LinkSeed, target: number | null, random: Random): number {
  const { kind } = link.indicator;
  const base = target ?? (kind === 'percent' || kind === 'score' ? 70 : 200);
  const value = base * link.performance * random.between(0.85, 1.15);
  if (kind === 'percent') return Math.min(100, Math.round(value * 10) / 10);
  if (kind === 'score') return Math.round(value * 10) / 10;
  return Math.max(0, Math.round(value));
}

function disaggregate(value: number, random: Random): Record<string, number> {
  const sexes = splitWhole(value, SEX_MIX, random);
  const ages = splitWhole(value, AGE_MIX, random);
  return Object.fromEntries([
    ...SEXES.map((sex, i) => [sex, sexes[i]!] as const),
    ...AGE_BANDS.map((band, i) => [band, ages[i]!] as const),
  ]);
}

const COLUMNS = [
  ['id', 'uuid'],
  ['org_id', 'uuid'],
  ['project_id', 'uuid'],
  ['indicator_id', 'uuid'],
  ['reporting_period_id', 'uuid'],
  ['value', 'float8'],
  ['target', 'float8'],
  ['narrative', 'text'],
  ['disaggregated_values', 'jsonb'],
  ['status', 'indicator_report_status'],
  ['comment', 'text'],
  ['submitted_at', 'timestamptz'],
  ['submitted_by', 'uuid'],
  ['reviewed_at', 'timestamptz'],
  ['reviewed_by', 'uuid'],
  ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
  ['counted_value', 'float8'],
  ['counted_submissions', 'int4'],
  ['first_submitted_at', 'timestamptz'],
] as const;

/**
 * The indicator reports, then their history. The busy report is the typical project's first report
 * that no form counts into, approved after thousands of changes (`busyHistory` in the plan): its id is
 * in the manifest. The reports the quality benchmark saves are drafts with a value (`quality`, which
 * collects them): drawn as any other (so the rest of the data set stays the same), then made so with a
 * random stream of their own.
 */
export async function seedIndicatorReports(
  s: Seeding,
  quality: QualityPlan,
): Promise<{ id: string; projectId: string; historyEntries: number }> {
  const random = s.random('indicator-reports');
  const qualityRandom = s.random('quality-reports');
  const pairs = choosePairs(s, random);
  const reviewers = [s.admin, ...s.users.filter((user) => user.role === 'me_officer')];
  const countedInto = (project: ProjectSeed, { link, period }: Pair) =>
    s.counted.find(
      (c) =>
        c.projectIndex === project.index && c.indicatorId === link.indicator.id && c.periodIndex === period,
    );
  const typical = s.projects[TYPICAL]!;
  const busyPair = pairs[TYPICAL]!.find((pair) => !countedInto(typical, pair));
  if (!busyPair) throw new Error('The typical project reports nothing that forms do not count into');
  const written: (WrittenReport | FormFedReport)[] = [];

  function* rows(): Generator<Cell[]> {
    for (const project of s.projects) {
      const submitters: UserSeed[] = project.reporters.length > 0 ? project.reporters : reviewers;
      for (const pair of pairs[project.index]!) {
        const { link, period } = pair;
        const key = [s.orgId, project.id, link.indicator.id, project.periodIds[period]!] as const;
        const counted = countedInto(project, pair);
        if (counted) {
          written.push({ counted });
          yield formFedReport(s, key, counted);
          continue;
        }
        const busy = pair === busyPair;
        const drawn = statusFor(period, random);
        const target = periodTarget(link);
        const fields = drawFields(
          link,
          target,
          busy ? 'approved' : drawn,
          period,
          { submitters, reviewers },
          random,
        );
        const forced = isQualityDraft(quality, project.index, link.indicator.id, period);
        const {
          status,
          value,
          created,
          submitted,
          reviewed,
          comment,
          narrative,
          disaggregatedValues,
          submitterId,
          reviewerId,
        } = forced ? asDraft(fields, link, target, qualityRandom) : fields;
        const id = s.ids.at(created);
        if (forced && value !== null) {
          const list = quality.reports.get(link.indicator.id) ?? [];
          quality.reports.set(link.indicator.id, [
            ...list,
            { id, periodId: project.periodIds[period]!, value, disaggregatedValues },
          ]);
        }
        written.push({
          id,
          value,
          target,
          narrative,
          disaggregatedValues,
          status,
          comment,
          created,
          submitted,
          reviewed,
          submitterId,
          reviewerId,
          reporters: submitters,
          busy,
        });
        yield [
          id,
          ...key,
          value,
          target,
          narrative,
          disaggregatedValues,
          status,
          comment,
          submitted === null ? null : new Date(submitted),
          submitterId,
          reviewed === null ? null : new Date(reviewed),
          reviewerId,
          new Date(created),
          new Date(reviewed ?? submitted ?? created),
          0,
          0,
          // One submission each: the first is the last.
          submitted === null ? null : new Date(submitted),
        ];
      }
    }
  }
  const total = pairs.reduce((sum, chosen) => sum + chosen.length, 0);
  await s.writer.insert('indicator_reports', COLUMNS, total, rows());
  await seedReportHistory(s, written, REJECTIONS);
  const busy = written.find((report): report is WrittenReport => 'busy' in report && report.busy)!;
  return { id: busy.id, projectId: typical.id, historyEntries: busyEntries(s) };
}

/** A hand-entered report's fields, drawn in the order the data set has always drawn them. */
function drawFields(
  link: LinkSeed,
  target: number | null,
  status: IndicatorReportStatus,
  period: number,
  people: { submitters: readonly UserSeed[]; reviewers: readonly UserSeed[] },
  random: Random,
) {
  const value = status === 'draft' && random.chance(0.3) ? null : valueFor(link, target, random);
  const created = PERIODS[period]!.end + random.int(0, 2) * DAY + random.int(0, DAY);
  const submitted = status === 'draft' ? null : created + random.int(0, 10) * DAY + random.int(0, DAY);
  const reviewed =
    status === 'approved' || status === 'rejected' ? submitted! + random.int(1, 10) * DAY : null;
  const comment =
    status === 'rejected'
      ? random.pick(REJECTIONS)
      : status === 'approved' && random.chance(0.1)
        ? 'Verified against source documents.'
        : null;
  const narrative = random.chance(0.25)
    ? `Reported from ${random.int(2, 12)} villages; figures from the monthly field reports.`
    : null;
  const disaggregatedValues =
    link.indicator.disaggregated && value !== null ? disaggregate(value, random) : {};
  const submitterId = submitted === null ? null : random.pick(people.submitters).id;
  const reviewerId = reviewed === null ? null : random.pick(people.reviewers).id;
  return {
    status,
    value,
    created,
    submitted,
    reviewed,
    comment,
    narrative,
    disaggregatedValues,
    submitterId,
    reviewerId,
  };
}

type Fields = ReturnType<typeof drawFields>;

/**
 * The same report as a draft nobody submitted yet, with a value (drawn from `random` when it had none):
 * what the quality benchmark saves again and again.
 */
function asDraft(fields: Fields, link: LinkSeed, target: number | null, random: Random): Fields {
  const value = fields.value ?? valueFor(link, target, random);
  return {
    ...fields,
    status: 'draft',
    value,
    submitted: null,
    reviewed: null,
    comment: null,
    disaggregatedValues:
      fields.value === null && link.indicator.disaggregated
        ? disaggregate(value, random)
        : fields.disaggregatedValues,
    submitterId: null,
    reviewerId: null,
  };
}

/** What the service's auto-count leaves: a draft with the running sum and nothing else. */
function formFedReport(s: Seeding, key: readonly string[], counted: CountedPair): Cell[] {
  const created = new Date(counted.firstSubmission);
  const updated = new Date(counted.lastSubmission);
  const row: Cell[] = [counted.reportId, ...key, counted.value, null, null, {}, 'draft'];
  return [...row, null, null, null, null, null, created, updated, counted.value, counted.submissions, null];
}
