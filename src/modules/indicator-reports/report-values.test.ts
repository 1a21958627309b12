import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors/catalogue.js';
import {
  reportValues,
  type Dimension,
  type DisaggregatedValues,
  type ReportValues,
} from './report-values.js';

type Sent = Parameters<typeof reportValues>[1];

const SEX: Dimension = { name: 'Sex', categories: ['female', 'male'] };
const AGE: Dimension = { name: 'Age', categories: ['child', 'adult'] };
const UNKNOWN = (key: string) =>
  `disaggregatedValues.${key} is not a category of the indicator’s disaggregations`;
const DIFFERS = (total: number) => `value must equal the total of disaggregatedValues (${total})`;
const UNEQUAL = (listed: string) =>
  `disaggregatedValues: every disaggregation must add up to the same total (${listed})`;

/** The status and messages of the AppError reportValues throws; fails when it returns instead. */
function refusal(dimensions: Dimension[], sent: Sent, stored?: ReportValues) {
  try {
    const result = reportValues(dimensions, sent, stored);
    throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { statusCode: err.statusCode, messages: err.messages };
  }
}

const refused = (...messages: string[]) => ({ statusCode: 400, messages });

describe('reportValues on create (nothing stored)', () => {
  const accepted: [string, Dimension[], Sent, ReportValues][] = [
    ['nothing sent', [], {}, { value: null, disaggregatedValues: {} }],
    ['only a value', [SEX], { value: 7 }, { value: 7, disaggregatedValues: {} }],
    ['value null', [], { value: null }, { value: null, disaggregatedValues: {} }],
    [
      'free keys without disaggregations add up',
      [],
      { disaggregatedValues: { north: 2, south: 3.5, east: 0 } },
      { value: 5.5, disaggregatedValues: { north: 2, south: 3.5, east: 0 } },
    ],
    [
      'free keys with an agreeing value',
      [],
      { value: 5, disaggregatedValues: { north: 2, south: 3 } },
      { value: 5, disaggregatedValues: { north: 2, south: 3 } },
    ],
    [
      'one dimension',
      [SEX],
      { disaggregatedValues: { female: 3, male: 4 } },
      { value: 7, disaggregatedValues: { female: 3, male: 4 } },
    ],
    [
      'one dimension, one category of it',
      [SEX],
      { value: 3, disaggregatedValues: { female: 3 } },
      { value: 3, disaggregatedValues: { female: 3 } },
    ],
    [
      'two dimensions with equal totals',
      [SEX, AGE],
      { disaggregatedValues: { female: 3, male: 4, child: 5, adult: 2 } },
      { value: 7, disaggregatedValues: { female: 3, male: 4, child: 5, adult: 2 } },
    ],
    [
      'two dimensions with an agreeing value',
      [SEX, AGE],
      { value: 7, disaggregatedValues: { female: 3, male: 4, child: 7 } },
      { value: 7, disaggregatedValues: { female: 3, male: 4, child: 7 } },
    ],
    [
      'a dimension left empty is skipped',
      [SEX, AGE],
      { disaggregatedValues: { child: 1, adult: 8 } },
      { value: 9, disaggregatedValues: { child: 1, adult: 8 } },
    ],
    [
      'value null with disaggregated values means their total',
      [SEX],
      { value: null, disaggregatedValues: { female: 1, male: 1 } },
      { value: 2, disaggregatedValues: { female: 1, male: 1 } },
    ],
    ['{} means none', [SEX], { value: 4, disaggregatedValues: {} }, { value: 4, disaggregatedValues: {} }],
    ['null means none', [], { value: 4, disaggregatedValues: null }, { value: 4, disaggregatedValues: {} }],
    [
      'float noise: 0.1 + 0.2 agrees with 0.3 and the total is 0.3',
      [],
      { value: 0.3, disaggregatedValues: { a: 0.1, b: 0.2 } },
      { value: 0.3, disaggregatedValues: { a: 0.1, b: 0.2 } },
    ],
    [
      'float noise between dimensions',
      [SEX, AGE],
      { disaggregatedValues: { female: 0.1, male: 0.2, adult: 0.3 } },
      { value: 0.3, disaggregatedValues: { female: 0.1, male: 0.2, adult: 0.3 } },
    ],
    [
      'negative and zero values add up like any other',
      [SEX],
      { disaggregatedValues: { female: -2, male: 0 } },
      { value: -2, disaggregatedValues: { female: -2, male: 0 } },
    ],
  ];

  it.each(accepted)('%s', (_, dimensions, sent, expected) => {
    expect(reportValues(dimensions, sent)).toEqual(expected);
  });

  const refusals: [string, Dimension[], Sent, ReturnType<typeof refused>][] = [
    [
      'free keys with a differing value',
      [],
      { value: 6, disaggregatedValues: { north: 2, south: 3 } },
      refused(DIFFERS(5)),
    ],
    [
      'one dimension with a differing value',
      [SEX],
      { value: 8, disaggregatedValues: { female: 3, male: 4 } },
      refused(DIFFERS(7)),
    ],
    [
      'two dimensions with unequal totals',
      [SEX, AGE],
      { disaggregatedValues: { female: 3, male: 4, child: 5, adult: 1 } },
      refused(UNEQUAL('Sex 7, Age 6')),
    ],
    [
      'unequal totals even with a value matching one of them',
      [SEX, AGE],
      { value: 7, disaggregatedValues: { female: 3, male: 4, adult: 1 } },
      refused(UNEQUAL('Sex 7, Age 1')),
    ],
    [
      'two dimensions agreeing with each other but not with the value',
      [SEX, AGE],
      { value: 6, disaggregatedValues: { female: 3, male: 4, child: 7 } },
      refused(DIFFERS(7)),
    ],
    [
      'an unknown category',
      [SEX],
      { disaggregatedValues: { female: 1, other: 2 } },
      refused(UNKNOWN('other')),
    ],
    [
      'every unknown category, one message each',
      [SEX, AGE],
      { disaggregatedValues: { Female: 1, female: 1, elderly: 2 } },
      refused(UNKNOWN('Female'), UNKNOWN('elderly')),
    ],
    [
      'a float total that really differs',
      [],
      { value: 0.3000001, disaggregatedValues: { a: 0.1, b: 0.2 } },
      refused(DIFFERS(0.3)),
    ],
  ];

  it.each(refusals)('refuses %s', (_, dimensions, sent, expected) => {
    expect(refusal(dimensions, sent)).toEqual(expected);
  });
});

describe('reportValues on update (merged with what is stored)', () => {
  const stored: ReportValues = { value: 7, disaggregatedValues: { female: 3, male: 4 } };
  const plain: ReportValues = { value: 5, disaggregatedValues: {} };

  const accepted: [string, Sent, ReportValues, ReportValues][] = [
    ['nothing sent keeps everything', {}, stored, stored],
    ['a value agreeing with the stored disaggregated values', { value: 7 }, stored, stored],
    ['value null keeps the stored total', { value: null }, stored, stored],
    [
      'a value without stored disaggregated values',
      { value: 9 },
      plain,
      { value: 9, disaggregatedValues: {} },
    ],
    [
      'value null without disaggregated values',
      { value: null },
      plain,
      { value: null, disaggregatedValues: {} },
    ],
    [
      'new disaggregated values recompute the value',
      { disaggregatedValues: { female: 5, male: 5 } },
      stored,
      { value: 10, disaggregatedValues: { female: 5, male: 5 } },
    ],
    [
      'new disaggregated values replace the stored ones, not merge with them',
      { disaggregatedValues: { male: 2 } },
      stored,
      { value: 2, disaggregatedValues: { male: 2 } },
    ],
    [
      'new disaggregated values with an agreeing value',
      { value: 1, disaggregatedValues: { female: 1 } },
      stored,
      { value: 1, disaggregatedValues: { female: 1 } },
    ],
    [
      'disaggregated values on a report that had only a value',
      { disaggregatedValues: { female: 2, male: 2 } },
      plain,
      { value: 4, disaggregatedValues: { female: 2, male: 2 } },
    ],
    [
      'null clears them and keeps the value that was their total',
      { disaggregatedValues: null },
      stored,
      { value: 7, disaggregatedValues: {} },
    ],
    ['{} clears them too', { disaggregatedValues: {} }, stored, { value: 7, disaggregatedValues: {} }],
    [
      'null with a new value',
      { value: 12, disaggregatedValues: null },
      stored,
      { value: 12, disaggregatedValues: {} },
    ],
  ];

  it.each(accepted)('%s', (_, sent, before, expected) => {
    expect(reportValues([SEX], sent, before)).toEqual(expected);
  });

  it('refuses a value alone that differs from the stored disaggregated values', () => {
    expect(refusal([SEX], { value: 8 }, stored)).toEqual(refused(DIFFERS(7)));
  });

  it('refuses new disaggregated values that differ from the value sent with them', () => {
    expect(refusal([SEX], { value: 7, disaggregatedValues: { female: 1 } }, stored)).toEqual(
      refused(DIFFERS(1)),
    );
  });

  it('checks stored values against the current disaggregations', () => {
    // The stored keys were valid once; a new value brings them back under the rules.
    const legacy: ReportValues = { value: 3, disaggregatedValues: { north: 3 } };
    expect(refusal([SEX], { value: 3 }, legacy)).toEqual(refused(UNKNOWN('north')));
  });

  it('leaves the stored object alone', () => {
    const before: ReportValues = { value: 7, disaggregatedValues: { female: 3, male: 4 } };
    reportValues([SEX], { disaggregatedValues: { female: 1 } }, before);
    expect(before).toEqual({ value: 7, disaggregatedValues: { female: 3, male: 4 } });
  });
});

describe('reportValues with hostile keys', () => {
  const withKey = (json: string) => JSON.parse(json) as DisaggregatedValues;

  it.each([
    ['constructor', withKey('{"female": 1, "constructor": 2}')],
    ['__proto__', withKey('{"female": 1, "__proto__": 2}')],
    ['toString', withKey('{"female": 1, "toString": 2}')],
    ['hasOwnProperty', withKey('{"female": 1, "hasOwnProperty": 2}')],
  ])('does not take %s for a category', (key, values) => {
    expect(refusal([SEX, AGE], { disaggregatedValues: values })).toEqual(refused(UNKNOWN(key)));
  });

  it('does not take an inherited name for a filled-in category', () => {
    // A category named like an Object.prototype member is filled in only when the request sends it.
    const odd: Dimension = { name: 'Odd', categories: ['toString', 'constructor', '__proto__'] };
    expect(reportValues([SEX, odd], { disaggregatedValues: { female: 2, male: 1 } })).toEqual({
      value: 3,
      disaggregatedValues: { female: 2, male: 1 },
    });
    const sent = withKey('{"female": 2, "male": 1, "__proto__": 3}');
    expect(reportValues([SEX, odd], { disaggregatedValues: sent })).toEqual({
      value: 3,
      disaggregatedValues: sent,
    });
    expect(refusal([SEX, odd], { disaggregatedValues: withKey('{"female": 2, "__proto__": 3}') })).toEqual(
      refused(UNEQUAL('Sex 2, Odd 3')),
    );
  });

  it('adds up own keys only without disaggregations, and pollutes nothing', () => {
    const hostile = withKey('{"__proto__": 5, "constructor": 1, "a": 1}');
    expect(reportValues([], { disaggregatedValues: hostile })).toEqual({
      value: 7,
      disaggregatedValues: hostile,
    });
    expect(Object.getPrototypeOf(hostile)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('reportValues for participant categories on an indicator without disaggregations', () => {
  // A pre-fill's breakdown: the sexes and the age bands, each adding up to the 8 people on its own.
  const PREFILLED: DisaggregatedValues = {
    female: 3,
    male: 3,
    other: 2,
    '0-17': 1,
    '18-35': 2,
    '36-59': 3,
    '60+': 1,
    unknown: 1,
  };

  const accepted: [string, Sent, ReportValues][] = [
    [
      'the sexes and the age bands are two dimensions, not 16 free keys',
      { disaggregatedValues: PREFILLED },
      {
        value: 8,
        disaggregatedValues: PREFILLED,
      },
    ],
    [
      'with an agreeing value',
      { value: 8, disaggregatedValues: PREFILLED },
      {
        value: 8,
        disaggregatedValues: PREFILLED,
      },
    ],
    [
      'the sexes alone',
      { disaggregatedValues: { female: 2, other: 1 } },
      {
        value: 3,
        disaggregatedValues: { female: 2, other: 1 },
      },
    ],
    [
      'the age bands alone, unknown included',
      { disaggregatedValues: { '60+': 4, unknown: 5 } },
      {
        value: 9,
        disaggregatedValues: { '60+': 4, unknown: 5 },
      },
    ],
    [
      'every category zero',
      { disaggregatedValues: { female: 0, male: 0, '0-17': 0, unknown: 0 } },
      {
        value: 0,
        disaggregatedValues: { female: 0, male: 0, '0-17': 0, unknown: 0 },
      },
    ],
    [
      'a participant category among free keys leaves them all free',
      { disaggregatedValues: { female: 2, north: 3, '60+': 4 } },
      {
        value: 9,
        disaggregatedValues: { female: 2, north: 3, '60+': 4 },
      },
    ],
    [
      'categories are matched exactly: Female is a free key',
      { disaggregatedValues: { Female: 2, male: 3 } },
      {
        value: 5,
        disaggregatedValues: { Female: 2, male: 3 },
      },
    ],
  ];

  it.each(accepted)('%s', (_, sent, expected) => {
    expect(reportValues([], sent)).toEqual(expected);
  });

  it('refuses sexes and age bands that add up to different totals, naming both', () => {
    expect(refusal([], { disaggregatedValues: { female: 2, male: 1, '18-35': 2 } })).toEqual(
      refused(UNEQUAL('sex 3, age band 2')),
    );
  });

  it('refuses a value that differs from their common total', () => {
    expect(refusal([], { value: 16, disaggregatedValues: PREFILLED })).toEqual(refused(DIFFERS(8)));
  });

  it('checks a value sent later against the pre-filled breakdowns stored', () => {
    const stored: ReportValues = { value: 8, disaggregatedValues: PREFILLED };
    expect(reportValues([], { value: 8 }, stored)).toEqual(stored);
    expect(reportValues([], { value: null }, stored)).toEqual(stored);
    expect(refusal([], { value: 9 }, stored)).toEqual(refused(DIFFERS(8)));
  });

  it('does not apply when the indicator has disaggregations of its own', () => {
    expect(refusal([SEX], { disaggregatedValues: { female: 1, other: 1, '0-17': 2 } })).toEqual(
      refused(UNKNOWN('other'), UNKNOWN('0-17')),
    );
  });
});
