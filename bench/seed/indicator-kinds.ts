import type { AggregationMethod } from '../../src/lib/scoring.js';
import type { IndicatorKind } from './model.js';

/** What a kind of indicator measures, and the numbers that are plausible for it. */
export interface KindRule {
  kind: Exclude<IndicatorKind, 'formula'>;
  /** How many in 40 indicators are of this kind. */
  per40: number;
  unit: string;
  methods: readonly (readonly [AggregationMethod, number])[];
  /** Target of one month; sums add the months up, the others take it as it is. */
  monthly: [number, number];
  name: (words: { group: string; topic: string; service: string; item: string }) => string;
  source: string;
}

/** Most indicators count people, as in real results frameworks; the rest are rates, things and money. */
export const KINDS: KindRule[] = [
  {
    kind: 'people',
    per40: 28,
    unit: 'people',
    methods: [['sum', 1]],
    monthly: [40, 900],
    name: (w) => `Number of ${w.group} trained in ${w.topic}`,
    source: 'Attendance registers',
  },
  {
    kind: 'households',
    per40: 4,
    unit: 'households',
    methods: [['sum', 1]],
    monthly: [20, 400],
    name: (w) => `Number of households receiving ${w.item}`,
    source: 'Distribution lists',
  },
  {
    kind: 'percent',
    per40: 4,
    unit: '%',
    methods: [
      ['average', 3],
      ['latest', 2],
    ],
    monthly: [60, 95],
    name: (w) => `Percentage of ${w.group} practising ${w.topic}`,
    source: 'Household survey',
  },
  {
    kind: 'count',
    per40: 2,
    unit: 'sessions',
    methods: [['sum', 1]],
    monthly: [2, 30],
    name: (w) => `Number of ${w.service} sessions held`,
    source: 'Activity reports',
  },
  {
    kind: 'money',
    per40: 1,
    unit: 'USD',
    methods: [['sum', 1]],
    monthly: [5000, 200_000],
    name: (w) => `Value of ${w.item} distributed`,
    source: 'Finance records',
  },
  {
    kind: 'score',
    per40: 1,
    unit: 'score',
    methods: [
      ['max', 1],
      ['average', 1],
    ],
    monthly: [60, 90],
    name: (w) => `Average ${w.topic} knowledge score`,
    source: 'Pre- and post-tests',
  },
];

export const kindRule = (kind: IndicatorKind) => KINDS.find((rule) => rule.kind === kind);

/**
 * Kinds dealt in a fixed pattern rather than drawn, so even the small data set has the intended mix;
 * stepping by 17 (prime to 40) spreads each kind over the indicators.
 */
const KIND_CYCLE = KINDS.flatMap((rule) => Array.from({ length: rule.per40 }, () => rule));
export const kindOf = (index: number) => KIND_CYCLE[(index * 17) % KIND_CYCLE.length]!;

/** Formulas over two other indicators' codes. */
export const FORMULAS = [
  { template: (a: string, b: string) => `${a} / ${b} * 100`, unit: '%', name: 'Ratio' },
  { template: (a: string, b: string) => `${a} + ${b}`, unit: 'people', name: 'Combined reach' },
  { template: (a: string, b: string) => `(${a} + ${b}) / 2`, unit: 'people', name: 'Mean reach' },
  { template: (a: string, b: string) => `${a} - ${b}`, unit: 'people', name: 'Gap' },
];
