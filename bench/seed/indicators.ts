import { PARTICIPANT_DIMENSIONS } from '../../src/lib/demographics.js';
import type { Cell } from './bulk.js';
import { FORMULAS, kindOf } from './indicator-kinds.js';
import type { IndicatorSeed, Seeding } from './model.js';
import type { Theme } from './names.js';
import { capitalize } from './organization.js';
import type { Random } from './random.js';

const INDICATORS_CREATED = Date.UTC(2024, 1, 1);

/** An indicator as the service stores it, besides what the other parts of the data set need of it. */
interface Definition {
  seed: IndicatorSeed;
  name: string;
  unit: string;
  source: string | null;
  formula: string | null;
  inputs: IndicatorSeed[];
}

type Identity = Pick<IndicatorSeed, 'index' | 'id' | 'programIndex'>;

function measured(at: Identity, theme: Theme, disaggregated: boolean, random: Random): Definition {
  const rule = kindOf(at.index);
  const words = {
    group: random.pick(theme.groups),
    topic: random.pick(theme.topics),
    service: random.pick(theme.services),
    item: random.pick(theme.items),
  };
  const code = `${theme.short}_${String(at.index + 1).padStart(3, '0')}`;
  return {
    seed: {
      ...at,
      code,
      kind: rule.kind,
      method: random.weighted(rule.methods),
      disaggregated,
      isFormula: false,
    },
    name: capitalize(rule.name(words)),
    unit: rule.unit,
    source: rule.source,
    formula: null,
    inputs: [],
  };
}

/** A formula over two indicators the big project links, so that its formulas have values. */
function computed(
  at: Identity,
  theme: Theme,
  shape: number,
  pool: IndicatorSeed[],
  random: Random,
): Definition {
  const [a, b] = random.sample(pool, 2) as [IndicatorSeed, IndicatorSeed];
  const { template, unit, name } = FORMULAS[shape % FORMULAS.length]!;
  const code = `F_${theme.short}_${String(at.index + 1).padStart(3, '0')}`;
  return {
    seed: { ...at, code, kind: 'formula', method: null, disaggregated: false, isFormula: true },
    name: `${name} of ${a.code} and ${b.code}`,
    unit,
    source: null,
    formula: template(a.code, b.code),
    inputs: [a, b],
  };
}

const categoriesLiteral = (categories: string[]) => `{${categories.map((c) => `"${c}"`).join(',')}}`;

/**
 * The indicators of the organization, non-formula ones first and the formulas over them last, each
 * attached to a result node of a program; nine in ten people counts have the sex and age band
 * disaggregations a participant pre-fill reports.
 */
export async function seedIndicators(s: Seeding): Promise<void> {
  const random = s.random('indicators');
  const nonFormula = s.plan.indicators - s.plan.formulas;
  const rows: Cell[][] = [];
  const dimensions: Cell[][] = [];
  const inputs: Cell[][] = [];
  let peopleCounts = 0;
  for (let index = 0; index < s.plan.indicators; index += 1) {
    const programIndex = index % s.programs.length;
    const program = s.programs[programIndex]!;
    const time = INDICATORS_CREATED + index * 10 * 60_000;
    const at = { index, id: s.ids.at(time), programIndex };
    const nodeId = random.chance(0.7) ? random.pick(program.outputIds) : random.pick(program.outcomeIds);
    let definition: Definition;
    if (index < nonFormula) {
      const disaggregated = kindOf(index).kind === 'people' && (peopleCounts += 1) % 10 !== 0;
      definition = measured(at, program.theme, disaggregated, random);
    } else {
      const pool = s.indicators.slice(0, Math.max(2, s.plan.big.indicators - s.plan.big.formulas));
      definition = computed(at, program.theme, index - nonFormula, pool, random);
    }
    const { seed: indicator, name, unit } = definition;
    s.indicators.push(indicator);
    const created = new Date(time);
    rows.push([
      indicator.id,
      s.orgId,
      name,
      indicator.code,
      unit,
      indicator.method,
      `${name} (${unit}).`,
      definition.source,
      nodeId,
      indicator.isFormula,
      definition.formula,
      created,
      created,
    ]);
    for (const input of definition.inputs) inputs.push([s.orgId, indicator.id, input.id]);
    if (indicator.disaggregated) {
      PARTICIPANT_DIMENSIONS.forEach((dimension, d) => {
        const at = time + (d + 1) * 1000;
        dimensions.push([
          s.ids.at(at),
          s.orgId,
          indicator.id,
          dimension.name,
          categoriesLiteral(dimension.categories),
          new Date(at),
        ]);
      });
    }
  }
  await s.writer.insert(
    'indicators',
    [
      ['id', 'uuid'],
      ['org_id', 'uuid'],
      ['name', 'text'],
      ['code', 'text'],
      ['unit', 'text'],
      ['aggregation_method', 'aggregation_method'],
      ['description', 'text'],
      ['data_source', 'text'],
      ['result_node_id', 'uuid'],
      ['is_formula', 'bool'],
      ['formula', 'text'],
      ['created_at', 'timestamptz'],
      ['updated_at', 'timestamptz'],
    ],
    rows.length,
    rows,
  );
  await s.writer.insert(
    'indicator_disaggregations',
    [
      ['id', 'uuid'],
      ['org_id', 'uuid'],
      ['indicator_id', 'uuid'],
      ['name', 'text'],
      ['categories', 'text[]'],
      ['created_at', 'timestamptz'],
    ],
    dimensions.length,
    dimensions,
  );
  await s.writer.insert(
    'indicator_formula_inputs',
    [
      ['org_id', 'uuid'],
      ['indicator_id', 'uuid'],
      ['input_id', 'uuid'],
    ],
    inputs.length,
    inputs,
  );
}
