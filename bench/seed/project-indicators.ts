import { PERIODS_PER_PROJECT } from './calendar.js';
import type { Cell } from './bulk.js';
import { kindRule } from './indicator-kinds.js';
import { BIG, type IndicatorSeed, type LinkSeed, type Seeding } from './model.js';
import type { Random } from './random.js';

const LINKED = Date.UTC(2024, 5, 20);

/**
 * The indicators each project tracks, with targets. The big project links the first indicators and the
 * formulas over them; the others link some of their program's indicators and a few more.
 */
export async function seedProjectIndicators(s: Seeding): Promise<void> {
  const random = s.random('project-indicators');
  const nonFormula = s.indicators.filter((indicator) => !indicator.isFormula);
  const formulas = s.indicators.filter((indicator) => indicator.isFormula);
  const rows: Cell[][] = [];
  for (const project of s.projects) {
    let chosen: IndicatorSeed[];
    if (project.index === BIG) {
      const { indicators, formulas: bigFormulas } = s.plan.big;
      chosen = [...nonFormula.slice(0, indicators - bigFormulas), ...formulas.slice(0, bigFormulas)];
    } else {
      const count = Math.min(nonFormula.length, random.int(8, 14));
      const own = nonFormula.filter((indicator) => indicator.programIndex === project.programIndex);
      const first = random.sample(own, Math.min(own.length, Math.ceil(count / 2)));
      const rest = random.sample(
        nonFormula.filter((indicator) => !first.includes(indicator)),
        count - first.length,
      );
      chosen = [...first, ...rest].sort((a, b) => a.index - b.index);
    }
    const time = LINKED + project.index * 40 * 60_000;
    for (const [i, indicator] of chosen.entries()) {
      const link = linkFor(indicator, random, project.index === BIG);
      project.links.push(link);
      const baseline = baselineOf(link, random);
      const at = new Date(time + i * 1000);
      rows.push([
        s.orgId,
        project.id,
        indicator.id,
        link.target,
        baseline,
        baseline === null ? null : random.pick([2023, 2024]),
        at,
        at,
      ]);
    }
  }
  await s.writer.insert(
    'project_indicators',
    [
      ['org_id', 'uuid'],
      ['project_id', 'uuid'],
      ['indicator_id', 'uuid'],
      ['target', 'float8'],
      ['baseline', 'float8'],
      ['baseline_year', 'int4'],
      ['created_at', 'timestamptz'],
      ['updated_at', 'timestamptz'],
    ],
    rows.length,
    rows,
  );
}

/** A target, and how well the project meets it: spread so scores land in every band. */
function linkFor(indicator: IndicatorSeed, random: Random, big: boolean): LinkSeed {
  const performance = random.weighted([
    [random.between(0.92, 1.2), 45],
    [random.between(0.72, 0.88), 30],
    [random.between(0.25, 0.66), 25],
  ] as const);
  const rule = kindRule(indicator.kind);
  if (!rule || random.chance(0.04)) return { indicator, target: null, performance };
  // The big project works at three times the scale of the others.
  const monthly = random.int(...rule.monthly) * (big && indicator.method === 'sum' ? 3 : 1);
  const target = indicator.method === 'sum' ? monthly * PERIODS_PER_PROJECT : monthly;
  return { indicator, target, performance };
}

function baselineOf(link: LinkSeed, random: Random): number | null {
  if (link.target === null || random.chance(0.1)) return null;
  if (link.indicator.method === 'sum')
    return random.chance(0.7) ? 0 : Math.round(link.target * random.between(0.05, 0.2));
  return Math.round(link.target * random.between(0.3, 0.7));
}
