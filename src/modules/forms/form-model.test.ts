import { describe, expect, it } from 'vitest';
import { checkSubmission } from './answers.js';
import { tallyOf } from './counting.js';
import { breakingEdits, fieldProblems, personalShape, type FormField } from './form-fields.js';

// Issue 41's field model: the rules of fieldProblems and the answer checks of checkSubmission, pure.

const f = (type: FormField['type'], key: string, extra: Partial<FormField> = {}): FormField => ({
  type,
  label: key,
  key,
  ...extra,
});

/** A household survey: a group, a calculate, a roster with a nested group and a relevant field. */
const HOUSEHOLD: FormField[] = [
  f('note', 'intro'),
  f('group', 'head', {
    fields: [
      f('text', 'head_name', { required: true, personal: true }),
      f('number', 'head_age', {
        integer: true,
        constraint: '. >= 15 and . < 120',
        constraintMessage: 'Age 15 to 119',
      }),
    ],
  }),
  f('repeat', 'members', {
    minCount: 1,
    maxCount: 10,
    fields: [
      f('text', 'member_name', { required: true, personal: true }),
      f('number', 'age', { required: true, integer: true }),
      f('select', 'sex', {
        choices: [
          { name: 'f', label: 'Female' },
          { name: 'm', label: 'Male' },
        ],
      }),
      f('boolean', 'in_school', { relevant: '${age} >= 5 and ${age} < 18' }),
      f('calculate', 'is_child', { calculation: 'if(${age} < 5, 1, 0)' }),
    ],
  }),
  f('calculate', 'size', { calculation: 'count(${members})' }),
  f('calculate', 'children', { calculation: 'sum(${is_child})' }),
  f('text', 'why_large', { relevant: '${size} > 5', required: true }),
  f('date', 'visited', { constraint: '. <= today()' }),
];

const member = (age: number, extra: Record<string, unknown> = {}) => ({
  member_name: `M${age}`,
  age,
  sex: 'f',
  ...extra,
});
const check = (fields: FormField[], answers: unknown, today = '2026-11-28') =>
  checkSubmission(fields, { answers }, [], [], today);

describe('fieldProblems: issue 41 rules', () => {
  it('accepts the household form', () => {
    expect(fieldProblems(HOUSEHOLD)).toEqual([]);
  });

  it('refuses a key used twice at any depth', () => {
    expect(
      fieldProblems([
        f('text', 'a'),
        f('group', 'g', { fields: [f('text', 'b'), f('repeat', 'r', { fields: [f('text', 'a')] })] }),
      ]),
    ).toEqual(['fields.1.fields.1.fields.0.key must be unique; a is used before']);
  });

  it('counts every field at every depth against MAX_FIELDS', () => {
    const inner = Array.from({ length: 199 }, (_, i) => f('text', `t${i}`));
    expect(fieldProblems([f('group', 'g', { fields: inner })])).toEqual([]);
    expect(fieldProblems([f('group', 'g', { fields: inner }), f('text', 'extra')])).toEqual([
      'fields must hold at most 200 fields in all, at every depth (201 here)',
    ]);
  });

  it('gives each type its own properties', () => {
    expect(
      fieldProblems([
        f('group', 'g'),
        f('repeat', 'r', { minCount: 3, maxCount: 2 }),
        f('text', 't', { fields: [f('text', 'x')] }),
        f('calculate', 'c'),
        f('number', 'n', { calculation: '1', constraintMessage: 'no', minCount: 1 }),
        f('text', 'i', { integer: true, maxCount: 3 }),
        f('note', 'o', { constraint: '. > 1', required: true }),
        f('calculate', 'c2', { calculation: '1', required: true }),
        f('group', 'g2', { fields: [f('text', 'y')], required: true }),
        f('repeat', 'r2', { fields: [f('text', 'z')], required: true }),
        f('select', 's', {
          choices: [
            { name: 'a', label: 'A' },
            { name: 'a', label: 'B' },
          ],
        }),
      ]),
    ).toEqual([
      'fields.0.fields is required for group fields',
      'fields.1.fields is required for repeat fields',
      'fields.1.minCount must not be more than maxCount',
      'fields.2.fields should not exist for text fields',
      'fields.3.calculation is required for calculate fields',
      'fields.4.calculation should not exist for number fields',
      'fields.4.constraintMessage needs constraint',
      'fields.4.minCount should not exist for number fields',
      'fields.5.integer should not exist for text fields',
      'fields.5.maxCount should not exist for text fields',
      'fields.6.constraint should not exist for note fields',
      'fields.6.required should not exist for note fields',
      'fields.7.required should not exist for calculate fields',
      'fields.8.required should not exist for group fields',
      'fields.9.required should not exist for repeat fields (its minCount says how many entries are required)',
      'fields.10.choices.1.name must be unique; a is used before',
    ]);
  });

  it('allows personal inside repeats, on the same types, and refuses file fields there', () => {
    expect(
      fieldProblems([
        f('repeat', 'r', {
          fields: [
            f('text', 'n', { personal: true }),
            f('select', 's', { options: ['a'], personal: true }),
            f('file', 'p'),
          ],
        }),
      ]),
    ).toEqual([
      'fields.0.fields.1.personal is allowed only on text, textarea, number, date, location and calculate fields, not select',
      'fields.0.fields.2: file fields cannot be inside a repeat (a file is a part of the body, named by its key)',
    ]);
  });

  it('names an expression that does not parse, with the parser message', () => {
    expect(
      fieldProblems([
        f('text', 'a'),
        f('text', 'b', { relevant: '${a} = ' }),
        f('text', 'c', { relevant: 'foo(1)' }),
      ]),
    ).toEqual([
      'fields.1.relevant: the expression ends too early',
      'fields.2.relevant: foo() is not a function expressions may use',
    ]);
  });

  it('refuses references to later, unknown, valueless or unreachable fields', () => {
    const fields = [
      f('text', 'a', { relevant: '${b} = 1' }),
      f('text', 'b', { relevant: '${nowhere} = 1 or ${b} = 2' }),
      f('note', 'n'),
      f('group', 'g', { fields: [f('text', 'in_group')] }),
      f('repeat', 'r', {
        fields: [f('number', 'x'), f('number', 'y', { relevant: '${x} > 1 and ${in_group} = 1' })],
      }),
      f('text', 'c', { relevant: '${n} = 1 or ${g} = 1' }),
      f('text', 'd', { relevant: '${x} > 1' }),
      f('text', 'e', { relevant: '${r} > 1' }),
      f('calculate', 'ok', { calculation: 'count(${r}) + sum(${x}) + count(${x})' }),
    ];
    expect(fieldProblems(fields)).toEqual([
      'fields.0.relevant refers to ${b}, which does not come before it',
      'fields.1.relevant refers to ${nowhere}, which is not a field of this form',
      'fields.1.relevant refers to ${b}, which does not come before it',
      'fields.5.relevant refers to ${n}, a note field, which has no value',
      'fields.5.relevant refers to ${g}, a group field, which has no value',
      'fields.6.relevant refers to ${x} inside the repeat r: from outside its entries only count(${x}) or sum(${x}) can',
      'fields.7.relevant refers to the repeat ${r}: only count(${r}) can',
    ]);
  });

  it('takes `.` and its own key in constraints only; regex patterns quoted and accepted by RE2', () => {
    expect(
      fieldProblems([
        f('text', 'a', { constraint: "regex(., '^[A-Z]+$') and string-length(${a}) < 9" }),
        f('text', 'b', { relevant: '. = 1' }),
        f('text', 'c', { constraint: 'regex(., ${a})' }),
        f('text', 'd', { constraint: "regex(., '(?=x)')" }),
      ]),
    ).toEqual([
      'fields.1.relevant uses ".", which stands for the answer in constraints only',
      "fields.2.constraint: regex()'s pattern must be a string in quotes",
      "fields.3.constraint: regex() pattern '(?=x)' is refused: invalid or unsupported Perl syntax: `(?=`",
    ]);
  });

  it('keeps showIf as it was, inside repeats too', () => {
    const inRepeat = (equals: string) =>
      fieldProblems([
        f('repeat', 'r', {
          fields: [f('select', 's', { options: ['a'] }), f('text', 't', { showIf: { field: 's', equals } })],
        }),
      ]);
    expect(inRepeat('a')).toEqual([]);
    expect(inRepeat('b')).toEqual(['fields.0.fields.1.showIf.equals must be one of a']);
    expect(
      fieldProblems([
        f('repeat', 'r', { fields: [f('text', 's')] }),
        f('text', 't', { showIf: { field: 's', equals: 'x' } }),
      ]),
    ).toEqual(['fields.1.showIf.field must be the key of an earlier field']);
  });
});

describe('breakingEdits at every depth', () => {
  const before = [
    f('group', 'g', { fields: [f('text', 'a')] }),
    f('repeat', 'r', { fields: [f('number', 'b')] }),
  ];
  it('lets a key move into or out of a group, not into or out of a repeat', () => {
    expect(
      breakingEdits(before, [
        f('text', 'a'),
        f('group', 'g', { fields: [f('note', 'n')] }),
        f('repeat', 'r', { fields: [f('number', 'b')] }),
      ]),
    ).toEqual([]);
    expect(
      breakingEdits(before, [
        f('group', 'g', { fields: [f('text', 'a')] }),
        f('number', 'b'),
        f('repeat', 'r', { fields: [f('text', 'c')] }),
      ]),
    ).toEqual(['b']);
    expect(
      breakingEdits(before, [
        f('group', 'g', { fields: [f('text', 'x')] }),
        f('repeat', 'r', { fields: [f('number', 'b'), f('text', 'a')] }),
      ]),
    ).toEqual(['a']);
    expect(
      breakingEdits(before, [
        f('group', 'g', { fields: [f('text', 'a')] }),
        f('group', 'r', { fields: [f('number', 'b')] }),
      ]),
    ).toEqual(['r', 'b']);
  });
});

describe('checkSubmission: issue 41 answers', () => {
  const good = {
    head_name: 'Amina',
    head_age: 40,
    members: [member(3), member(8, { in_school: true })],
    visited: '2026-11-20',
  };

  it('keeps groups as top-level answers, entries as lists, calculations computed and stored', () => {
    const { submission, problems } = check(HOUSEHOLD, good);
    expect(problems).toEqual([]);
    expect(submission!.answers).toEqual({
      head_name: 'Amina',
      head_age: 40,
      members: [
        { member_name: 'M3', age: 3, sex: 'f', is_child: 1 },
        { member_name: 'M8', age: 8, sex: 'f', in_school: true, is_child: 0 },
      ],
      size: 2,
      children: 1,
      visited: '2026-11-20',
    });
  });

  it('refuses answers to calculate and note fields, unknown entry keys, bad entries', () => {
    expect(
      check(HOUSEHOLD, { ...good, size: 3, intro: 'x', members: [{ ...member(3), shoe: 4 }, 'x'] }).problems,
    ).toEqual([
      'answers.intro is not answered',
      'answers.members.0.shoe is not a field of the repeat members',
      "answers.members.1 must be an object of the repeat's answers",
      'answers.size is calculated, not answered',
    ]);
    expect(check(HOUSEHOLD, { ...good, age: 4 }).problems).toEqual([
      'answers.age belongs to the repeat members: send it in its entries',
    ]);
    expect(check(HOUSEHOLD, { ...good, members: { age: 3 } }).problems).toEqual([
      "answers.members must be a list of entries, each an object of its fields' answers",
    ]);
  });

  it('bounds entries by minCount (when relevant) and maxCount', () => {
    expect(check(HOUSEHOLD, { ...good, members: [] }).problems).toEqual([
      'answers.members must have at least 1 entries',
    ]);
    const eleven = Array.from({ length: 11 }, (_, i) => member(20 + i));
    expect(check(HOUSEHOLD, { ...good, members: eleven }).problems).toEqual([
      'answers.members must have at most 10 entries',
    ]);
    const hidden = [
      f('boolean', 'has'),
      f('repeat', 'r', { minCount: 2, relevant: '${has}', fields: [f('text', 't')] }),
    ];
    expect(check(hidden, { has: false }).problems).toEqual([]);
    expect(check(hidden, { has: true, r: [{ t: 'x' }] }).problems).toEqual([
      'answers.r must have at least 2 entries',
    ]);
  });

  it('refuses an answer to a field that is not relevant, requires only relevant required ones', () => {
    expect(check(HOUSEHOLD, { ...good, members: [member(3, { in_school: false })] }).problems).toEqual([
      'answers.members.0.in_school is not asked: its relevant condition is false',
    ]);
    const six = Array.from({ length: 6 }, (_, i) => member(30 + i));
    expect(check(HOUSEHOLD, { ...good, members: six }).problems).toEqual(['answers.why_large is required']);
    expect(check(HOUSEHOLD, { ...good, why_large: 'x' }).problems).toEqual([
      'answers.why_large is not asked: its relevant condition is false',
    ]);
    const group = [
      f('boolean', 'b'),
      f('group', 'g', { relevant: '${b}', fields: [f('text', 'in', { required: true })] }),
    ];
    expect(check(group, { b: false, in: 'x' }).problems).toEqual([
      'answers.in is not asked: its relevant condition is false',
    ]);
    expect(check(group, { b: false }).problems).toEqual([]);
    expect(check(group, { b: true }).problems).toEqual(['answers.in is required']);
  });

  it('still drops an answer to a field hidden by showIf (DECISIONS.md section 10)', () => {
    const fields = [
      f('select', 's', { options: ['a', 'b'] }),
      f('text', 't', { showIf: { field: 's', equals: 'a' }, relevant: '1 = 1' }),
    ];
    expect(check(fields, { s: 'b', t: 'x' })).toEqual({
      submission: { answers: { s: 'b' }, location: null, files: [] },
      problems: [],
    });
  });

  it('checks constraints with `.` the answer, integers whole, today() the submission date', () => {
    expect(check(HOUSEHOLD, { ...good, head_age: 12 }).problems).toEqual(['answers.head_age: Age 15 to 119']);
    expect(check(HOUSEHOLD, { ...good, head_age: 40.5 }).problems).toEqual([
      'answers.head_age must be a whole number',
    ]);
    expect(check(HOUSEHOLD, { ...good, visited: '2026-11-29' }).problems).toEqual([
      'answers.visited does not satisfy its constraint',
    ]);
    expect(check(HOUSEHOLD, { ...good, visited: '2026-11-29' }, '2026-11-29').problems).toEqual([]);
    const regex = [f('text', 'code', { constraint: "regex(., '^[A-Z]{3}$')" })];
    expect(check(regex, { code: 'ABC' }).problems).toEqual([]);
    expect(check(regex, { code: 'abc' }).problems).toEqual(['answers.code does not satisfy its constraint']);
  });

  it('stores choice names, and a calculation that is no number as text, none when empty or not finite', () => {
    expect(check(HOUSEHOLD, { ...good, members: [member(3, { sex: 'Female' })] }).problems).toEqual([
      'answers.members.0.sex must be one of f, m',
    ]);
    const calc = [
      f('text', 'a'),
      f('calculate', 'label', { calculation: "concat('x-', ${a})" }),
      f('calculate', 'ratio', { calculation: '1 div 0' }),
      f('calculate', 'blank', { calculation: '${a}' }),
    ];
    expect(check(calc, {}).submission!.answers).toEqual({ label: 'x-' });
    expect(check(calc, { a: 'y' }).submission!.answers).toEqual({ a: 'y', label: 'x-y', blank: 'y' });
  });

  it('caps the problems of many bad entries', () => {
    const fields = [f('repeat', 'r', { fields: [f('number', 'n')] })];
    const bad = Array.from({ length: 400 }, () => ({ n: 'x' }));
    expect(check(fields, { r: bad }).problems.length).toBeLessThanOrEqual(22);
  });

  it('gives a nested repeat its entries and the outer answers', () => {
    const fields = [
      f('number', 'limit'),
      f('repeat', 'plots', {
        fields: [
          f('number', 'area'),
          f('repeat', 'crops', {
            fields: [f('number', 'share', { constraint: '. <= ${area} and . <= ${limit}' })],
          }),
          f('calculate', 'n_crops', { calculation: 'count(${crops})' }),
        ],
      }),
      f('calculate', 'all_crops', { calculation: 'count(${crops})' }),
    ];
    expect(fieldProblems(fields)).toEqual([]);
    const { submission, problems } = check(fields, {
      limit: 5,
      plots: [
        { area: 3, crops: [{ share: 2 }, { share: 3 }] },
        { area: 10, crops: [{ share: 6 }] },
      ],
    });
    expect(problems).toEqual(['answers.plots.1.crops.0.share does not satisfy its constraint']);
    expect(submission).toBeUndefined();
    expect(
      check(fields, {
        limit: 5,
        plots: [
          { area: 3, crops: [{ share: 2 }] },
          { area: 10, crops: [{ share: 4 }] },
        ],
      }).submission!.answers.all_crops,
    ).toBe(2);
  });
});

describe('personalShape', () => {
  it('lists the personal keys of the top level (groups included) and of each repeat', () => {
    expect(personalShape(HOUSEHOLD)).toEqual({
      keys: ['head_name'],
      repeats: [{ key: 'members', shape: { keys: ['member_name'], repeats: [] } }],
    });
  });
});

describe('tallyOf: counting a repeat entry by entry', () => {
  const fields = [
    f('repeat', 'members', {
      fields: [f('number', 'age'), f('select', 'sex', { options: ['f', 'm', 'x'] }), f('number', 'income')],
    }),
  ];
  const dimensions = [{ name: 'Sex', categories: ['female', 'male'] }];
  const mappings = [{ disaggregation: 'Sex', field: 'sex', categories: { f: 'female', m: 'male' } }];
  const form = (extra: Record<string, unknown> = {}) => ({
    fields,
    valueFieldKey: null,
    countRepeat: 'members',
    countWhere: '${age} < 5',
    disaggregateBy: null,
    ...extra,
  });
  const members = [
    { age: 2, sex: 'f', income: 10 },
    { age: 3, sex: 'm' },
    { age: 30, sex: 'x', income: 100 },
  ];

  it('adds 1 per entry taken, or its value field; 0 when none is taken', () => {
    expect(tallyOf(form(), { members }, [], '2026-11-28')).toEqual({ amount: 2, cells: null });
    expect(tallyOf(form({ valueFieldKey: 'income' }), { members }, [], '2026-11-28')).toEqual({
      amount: 10,
      cells: null,
    });
    expect(tallyOf(form({ countWhere: null }), { members }, [], '2026-11-28')).toEqual({
      amount: 3,
      cells: null,
    });
    expect(tallyOf(form(), { members: [] }, [], '2026-11-28')).toEqual({ amount: 0, cells: null });
    expect(tallyOf(form(), {}, [], '2026-11-28')).toEqual({ amount: 0, cells: null });
  });

  it('sums the cells of the entries; one entry mapping to no category leaves the submission out', () => {
    expect(tallyOf(form({ disaggregateBy: mappings }), { members }, dimensions, '2026-11-28')).toEqual({
      amount: 2,
      cells: { female: 1, male: 1 },
    });
    expect(
      tallyOf(form({ disaggregateBy: mappings, countWhere: null }), { members }, dimensions, '2026-11-28'),
    ).toEqual({ refused: 'category_not_mapped' });
  });
});

describe('checkSubmission: a full roster stays quick', () => {
  it('checks 500 entries of ten fields with relevance and constraints in well under a second', () => {
    const inner = Array.from({ length: 10 }, (_, i) =>
      f('number', `n${i}`, i > 0 ? { relevant: `\${n${i - 1}} >= 0`, constraint: '. < 1000' } : {}),
    );
    const fields = [f('repeat', 'r', { fields: inner })];
    const entry = Object.fromEntries(inner.map((field, i) => [field.key, i]));
    const started = performance.now();
    const { problems } = check(fields, { r: Array.from({ length: 500 }, () => entry) });
    expect(problems).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
