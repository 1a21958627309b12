import { LOCKED_PERIODS, OPEN_PERIOD, PERIODS } from './calendar.js';
import type { Cell } from './bulk.js';
import { BIG, type IndicatorSeed, type LinkSeed, type Seeding } from './model.js';
import { IdFactory } from './random.js';

/**
 * The data-quality set-up the `quality` benchmark writes in: in the big project, indicators whose saved
 * values the validation rules and the default outlier check (modified z-score over the past periods)
 * read, and as many equivalent ones with every check off (`qualityChecks` `off`, named by no rule).
 * Their reports of the open past periods are drafts holding a value, so a save of each is accepted.
 */

/** Written indicators on each side: six open periods each, so 24 reports a side to spread the load over. */
const PER_SIDE = 4;
/**
 * How much bigger the partner's values are than a checked indicator's, on average: a month's value is
 * 0.85 to 1.15 of the average, so at this ratio every seeded value keeps the rule `written <= partner`.
 */
const PARTNER_MARGIN = 1.36;
/** The share of women the cell rule asks for at least. */
export const WOMEN_AT_LEAST = 0.2;

export interface QualityPlan {
  /** The indicator the comparison rule holds the checked ones against: a bigger count of people. */
  partner: IndicatorSeed;
  checked: IndicatorSeed[];
  unchecked: IndicatorSeed[];
  /** The reports of the open past periods, filled in as they are written (by indicator id). */
  reports: Map<string, QualityReport[]>;
}

export interface QualityReport {
  id: string;
  periodId: string;
  value: number;
  disaggregatedValues: Record<string, number>;
}

/** What the manifest keeps of it: the bench writes the drafts of both sides. */
export interface QualityManifest {
  projectId: string;
  partnerId: string;
  ruleIds: string[];
  checked: QualityIndicator[];
  unchecked: QualityIndicator[];
}

export interface QualityIndicator {
  id: string;
  code: string;
  reports: QualityReport[];
}

/** A month's value of the link, on average: what its reports are drawn around. */
const scale = (link: LinkSeed) => (link.target ?? 0) * link.performance;

/**
 * Chooses the indicators before the reports are written: disaggregated people counts of the big project
 * that no form counts into, paired by size (one of each pair checked, the other not), and the largest
 * other people count as the partner.
 */
export function planQuality(s: Seeding): QualityPlan {
  const big = s.projects[BIG]!;
  const counted = new Set(s.counted.filter((c) => c.projectIndex === BIG).map((c) => c.indicatorId));
  const people = big.links.filter(
    (link) =>
      link.indicator.kind === 'people' &&
      !link.indicator.isFormula &&
      link.target !== null &&
      !counted.has(link.indicator.id),
  );
  const partner = people.reduce((a, b) => (scale(b) > scale(a) ? b : a), people[0]!);
  if (!partner) throw new Error('The big project links no count of people for the quality benchmark');
  const candidates = people
    .filter((link) => link !== partner && link.indicator.disaggregated)
    .filter((link) => scale(link) * PARTNER_MARGIN <= scale(partner))
    .sort((a, b) => scale(b) - scale(a) || a.indicator.index - b.indicator.index);
  const pairs = Math.min(PER_SIDE, Math.floor(candidates.length / 2));
  if (pairs < 2)
    throw new Error(`The big project has ${candidates.length} indicators for the quality benchmark`);
  const chosen = candidates.slice(0, pairs * 2);
  return {
    partner: partner.indicator,
    checked: chosen.filter((_, i) => i % 2 === 0).map((link) => link.indicator),
    unchecked: chosen.filter((_, i) => i % 2 === 1).map((link) => link.indicator),
    reports: new Map(),
  };
}

/**
 * Whether a report of the big project is one the benchmark needs as an editable draft with a value: an
 * open past period of a written indicator, or of the partner (whose value the rule reads).
 */
export function isQualityDraft(plan: QualityPlan, projectIndex: number, indicatorId: string, period: number) {
  if (projectIndex !== BIG || period < LOCKED_PERIODS || period > OPEN_PERIOD) return false;
  return [plan.partner, ...plan.checked, ...plan.unchecked].some((indicator) => indicator.id === indicatorId);
}

const RULE_COLUMNS = [
  ['id', 'uuid'],
  ['org_id', 'uuid'],
  ['name', 'text'],
  ['left_expression', 'text'],
  ['operator', 'text'],
  ['right_expression', 'text'],
  ['importance', 'text'],
  ['instruction', 'text'],
  ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
] as const;

/**
 * Writes the rules (two per checked indicator, for the big project: no more than the partner's count,
 * and at least a fifth women) and turns the unchecked indicators' outlier check off. The checked ones
 * keep the default check. Ids come from a stream of their own: every other row stays as it was.
 */
export async function seedQuality(s: Seeding, plan: QualityPlan): Promise<QualityManifest> {
  const ids = new IdFactory(s.random('quality-ids'));
  const big = s.projects[BIG]!;
  const made = PERIODS[OPEN_PERIOD]!.end + 20 * 86_400_000;
  const rules: Cell[][] = [];
  const inputs: Cell[][] = [];
  for (const [i, indicator] of plan.checked.entries()) {
    const { code } = indicator;
    const partnerCode = plan.partner.code;
    const sides = [
      {
        name: `Trained within registered (${code})`,
        left: code,
        operator: '<=',
        right: partnerCode,
        importance: 'high',
        instruction: `Nobody is trained who is not registered: check ${code} against ${partnerCode}.`,
        reads: [indicator, plan.partner],
      },
      {
        name: `Women among the trained (${code})`,
        left: `${code}[female]`,
        operator: '>=',
        right: `${WOMEN_AT_LEAST} * ${code}`,
        importance: 'medium',
        instruction: 'Check the attendance sheets: women are at least a fifth of every session.',
        reads: [indicator],
      },
    ];
    for (const [r, rule] of sides.entries()) {
      const at = new Date(made + (i * 2 + r) * 60_000);
      const id = ids.at(at.getTime());
      rules.push([
        id,
        s.orgId,
        rule.name,
        rule.left,
        rule.operator,
        rule.right,
        rule.importance,
        rule.instruction,
        at,
        at,
      ]);
      for (const read of rule.reads) inputs.push([s.orgId, id, read.id, read.code]);
    }
  }
  await s.writer.insert('validation_rules', RULE_COLUMNS, rules.length, rules);
  await s.writer.insert(
    'validation_rule_inputs',
    [
      ['org_id', 'uuid'],
      ['rule_id', 'uuid'],
      ['indicator_id', 'uuid'],
      ['code', 'text'],
    ],
    inputs.length,
    inputs,
  );
  // Uuid arrays are no column type the bulk writer casts to: the rules get their project here.
  await s.writer.query(
    'UPDATE validation_rules SET project_ids = ARRAY[$2::uuid] WHERE org_id = $1 AND id = ANY($3::uuid[])',
    [s.orgId, big.id, rules.map((rule) => rule[0] as string)],
  );
  await s.writer.query(
    `UPDATE indicators SET quality_checks = '{"method":"off"}'::jsonb WHERE org_id = $1 AND id = ANY($2::uuid[])`,
    [s.orgId, plan.unchecked.map((indicator) => indicator.id)],
  );
  const side = (indicators: IndicatorSeed[]): QualityIndicator[] =>
    indicators.map((indicator) => ({
      id: indicator.id,
      code: indicator.code,
      reports: plan.reports.get(indicator.id) ?? [],
    }));
  return {
    projectId: big.id,
    partnerId: plan.partner.id,
    ruleIds: rules.map((rule) => rule[0] as string),
    checked: side(plan.checked),
    unchecked: side(plan.unchecked),
  };
}
