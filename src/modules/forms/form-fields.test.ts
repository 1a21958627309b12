import { describe, expect, it } from 'vitest';
import { answers, SURVEY_FIELDS } from '../../../test/helpers/forms.js';
import { checkSubmission } from './answers.js';
import { breakingEdits, fieldProblems, isShown, type FormField } from './form-fields.js';

const survey = SURVEY_FIELDS as FormField[];
const field = (type: FormField['type'], key: string, extra: Partial<FormField> = {}): FormField => ({
  type,
  label: key,
  key,
  ...extra,
});

/** One field of each type, none required. */
const EVERY_TYPE: FormField[] = [
  field('text', 'note'),
  field('textarea', 'story'),
  field('number', 'size'),
  field('select', 'source', { options: ['well', 'river', 'tap'] }),
  field('multi_select', 'crops', { options: ['maize', 'beans', 'rice'] }),
  field('date', 'visited'),
  field('boolean', 'consent'),
  field('location', 'place'),
  field('file', 'photo'),
];

const problemsOf = (fields: FormField[], body: unknown, fileKeys: string[] = []) =>
  checkSubmission(fields, body, fileKeys).problems;
const kept = (fields: FormField[], given: Record<string, unknown>, fileKeys: string[] = []) =>
  checkSubmission(fields, { answers: given }, fileKeys).submission;

describe('fieldProblems (DECISIONS.md section 10)', () => {
  it('accepts the survey: unique keys, options on choices, showIf on an earlier select', () => {
    expect(fieldProblems(survey)).toEqual([]);
    expect(fieldProblems(EVERY_TYPE)).toEqual([]);
  });

  it('refuses a key used twice, naming the later field', () => {
    expect(fieldProblems([field('text', 'name'), field('number', 'age'), field('date', 'name')])).toEqual([
      'fields.2.key must be unique; name is used before',
    ]);
  });

  it('requires options on select and multi_select and refuses them elsewhere', () => {
    expect(
      fieldProblems([
        field('select', 'a'),
        field('multi_select', 'b'),
        field('text', 'c', { options: ['x'] }),
        field('boolean', 'd', { options: ['yes'] }),
      ]),
    ).toEqual([
      'fields.0.options is required for select fields',
      'fields.1.options is required for multi_select fields',
      'fields.2.options should not exist for text fields',
      'fields.3.options should not exist for boolean fields',
    ]);
  });

  it('refuses showIf naming a later, unknown or its own field', () => {
    expect(
      fieldProblems([
        field('text', 'a', { showIf: { field: 'b', equals: 'x' } }),
        field('text', 'b', { showIf: { field: 'nowhere', equals: 'x' } }),
        field('text', 'c', { showIf: { field: 'c', equals: 'x' } }),
      ]),
    ).toEqual([
      'fields.0.showIf.field must be the key of an earlier field',
      'fields.1.showIf.field must be the key of an earlier field',
      'fields.2.showIf.field must be the key of an earlier field',
    ]);
  });

  it('checks showIf.equals against what the earlier field can answer', () => {
    const fields = [...EVERY_TYPE];
    const when = (key: string, equals: string | number | boolean) =>
      fieldProblems([...fields, field('text', 'then', { showIf: { field: key, equals } })]);
    const at = 'fields.9.showIf.equals must';
    expect(when('source', 'lake')).toEqual([`${at} be one of well, river, tap`]);
    expect(when('crops', 'wheat')).toEqual([`${at} be one of maize, beans, rice`]);
    expect(when('consent', 'true')).toEqual([`${at} be a boolean`]);
    expect(when('size', '3')).toEqual([`${at} be a number`]);
    expect(when('note', 3)).toEqual([`${at} be a string`]);
    expect(when('visited', true)).toEqual([`${at} be a string`]);
    expect(when('place', 'Kibera')).toEqual([`${at} not be compared with a location field`]);
    expect(when('photo', 'x')).toEqual([`${at} not be compared with a file field`]);
    for (const [key, equals] of [
      ['source', 'river'],
      ['crops', 'beans'],
      ['consent', false],
      ['size', 0],
      ['note', 'yes'],
      ['story', ''],
      ['visited', '2026-01-01'],
    ] as const) {
      expect(when(key, equals)).toEqual([]);
    }
  });

  it('lists every problem at once', () => {
    expect(
      fieldProblems([
        field('select', 'a'),
        field('select', 'a', { options: ['x'] }),
        field('date', 'd', { options: ['x'] }),
      ]),
    ).toEqual([
      'fields.0.options is required for select fields',
      'fields.1.key must be unique; a is used before',
      'fields.2.options should not exist for date fields',
    ]);
  });
});

describe('breakingEdits (a form with submissions)', () => {
  it('allows relabelling, reordering, required, showIf, new fields and new options', () => {
    const [name, size, source, reason, consent] = survey as [
      FormField,
      FormField,
      FormField,
      FormField,
      FormField,
    ];
    const after: FormField[] = [
      { ...consent, label: 'Agreed', required: true },
      { ...source, options: ['tap', 'river', 'well', 'borehole'] },
      { ...reason, required: false, showIf: undefined },
      field('date', 'visited'),
      size,
      { ...name, required: false },
    ];
    expect(breakingEdits(survey, after)).toEqual([]);
  });

  it('names each removed field, changed type and field that lost an option, in the old order', () => {
    const [name, size, source, , consent] = survey;
    const after: FormField[] = [
      { ...consent!, type: 'text' },
      { ...source!, options: ['well', 'tap'] },
      size!,
      { ...name!, type: 'textarea' },
    ];
    expect(breakingEdits(survey, after)).toEqual(['name', 'source', 'river_reason', 'consent']);
  });

  it('counts turning a select into a multi_select with the same options as a type change', () => {
    const before = [field('select', 'a', { options: ['x'] })];
    expect(breakingEdits(before, [field('multi_select', 'a', { options: ['x'] })])).toEqual(['a']);
  });
});

describe('isShown', () => {
  const reason = survey[3]!;
  it('shows a field without showIf, and one whose earlier answer equals the value', () => {
    expect(isShown(survey[0]!, {})).toBe(true);
    expect(isShown(reason, { source: 'river' })).toBe(true);
  });

  it('hides it for another answer, no answer, or a value of another type', () => {
    expect(isShown(reason, { source: 'well' })).toBe(false);
    expect(isShown(reason, {})).toBe(false);
    const bySize = field('text', 'why', { showIf: { field: 'size', equals: 5 } });
    expect(isShown(bySize, { size: '5' })).toBe(false);
    expect(isShown(bySize, { size: 5 })).toBe(true);
  });

  it('shows a field after a multi_select when the value is among the chosen options', () => {
    const why = field('text', 'why', { showIf: { field: 'crops', equals: 'rice' } });
    expect(isShown(why, { crops: ['maize', 'rice'] })).toBe(true);
    expect(isShown(why, { crops: ['maize'] })).toBe(false);
  });
});

describe('checkSubmission: answers by field type', () => {
  const valid: [string, unknown][] = [
    ['note', 'x'.repeat(2000)],
    ['story', 'x'.repeat(20_000)],
    ['size', 0],
    ['size', -3.5],
    ['source', 'river'],
    ['crops', ['rice', 'maize']],
    ['visited', '2024-02-29'],
    ['consent', false],
    ['place', { lat: -1.2921, lng: 36.8219, accuracy: 12 }],
    ['place', { lat: 90, lng: -180 }],
    ['place', 'Kibera, Nairobi'],
  ];
  it.each(valid)('keeps a valid %s answer %j', (key, value) => {
    expect(checkSubmission(EVERY_TYPE, { answers: { [key]: value } })).toEqual({
      submission: { answers: { [key]: value }, location: null, files: [] },
      problems: [],
    });
  });

  const invalid: [string, unknown, string][] = [
    ['note', 'x'.repeat(2001), 'answers.note must be at most 2000 characters'],
    ['note', 42, 'answers.note must be a string'],
    ['story', 'x'.repeat(20_001), 'answers.story must be at most 20000 characters'],
    ['story', ['a'], 'answers.story must be a string'],
    ['size', '5', 'answers.size must be a number'],
    ['size', Number.NaN, 'answers.size must be a number'],
    ['size', Number.POSITIVE_INFINITY, 'answers.size must be a number'],
    ['source', 'lake', 'answers.source must be one of well, river, tap'],
    ['source', ['well'], 'answers.source must be one of well, river, tap'],
    ['crops', ['rice', 'wheat'], 'answers.crops must be a list of options from maize, beans, rice'],
    ['crops', 'rice', 'answers.crops must be a list of options from maize, beans, rice'],
    ['crops', ['rice', 'rice'], 'answers.crops must not contain duplicates'],
    ['visited', '2026-02-30', 'answers.visited must be a valid date (YYYY-MM-DD)'],
    ['visited', '2025-02-29', 'answers.visited must be a valid date (YYYY-MM-DD)'],
    ['visited', '2026-13-01', 'answers.visited must be a valid date (YYYY-MM-DD)'],
    ['visited', '2026-2-3', 'answers.visited must be a valid date (YYYY-MM-DD)'],
    ['visited', '2026-02-03T10:00:00Z', 'answers.visited must be a valid date (YYYY-MM-DD)'],
    ['visited', 20260203, 'answers.visited must be a valid date (YYYY-MM-DD)'],
    ['consent', 'true', 'answers.consent must be a boolean'],
    ['consent', 1, 'answers.consent must be a boolean'],
    ['place', { lat: 90.5, lng: 0 }, 'answers.place.lat must be between -90 and 90'],
    ['place', { lat: 0, lng: 181 }, 'answers.place.lng must be between -180 and 180'],
    ['place', { lat: 0 }, 'answers.place.lng is required'],
    ['place', { lat: '1', lng: 2 }, 'answers.place.lat must be a number'],
    ['place', { lat: 1, lng: 2, alt: 3 }, 'property answers.place.alt should not exist'],
    ['place', 'x'.repeat(501), 'answers.place must be at most 500 characters'],
    ['place', 7, 'answers.place must be coordinates { lat, lng } or the name of a place'],
    ['place', [1, 2], 'answers.place must be coordinates { lat, lng } or the name of a place'],
    ['photo', 'photo.jpg', 'answers.photo must be sent as a file part of a multipart/form-data body'],
  ];
  it.each(invalid)('refuses %s = %j', (key, value, message) => {
    expect(checkSubmission(EVERY_TYPE, { answers: { [key]: value } })).toEqual({ problems: [message] });
  });

  it('takes a blank value (empty or spaces, null, empty list) as no answer', () => {
    const blank = { note: '   ', story: '', size: null, source: '', crops: [], visited: '', place: ' ' };
    expect(kept(EVERY_TYPE, blank)).toEqual({ answers: {}, location: null, files: [] });
    const required = EVERY_TYPE.map((f) => ({ ...f, required: true }));
    expect(problemsOf(required, { answers: { ...blank, consent: null, photo: '' } })).toEqual(
      EVERY_TYPE.map((f) => `answers.${f.key} is required`),
    );
  });

  it('keeps a file field that came as a part, and requires it when required', () => {
    expect(kept(EVERY_TYPE, {}, ['photo'])).toEqual({ answers: {}, location: null, files: ['photo'] });
    const photo = [field('file', 'photo', { required: true })];
    expect(problemsOf(photo, { answers: {} })).toEqual(['answers.photo is required']);
  });
});

describe('checkSubmission: shown fields', () => {
  it('requires a required field only when it is shown', () => {
    expect(kept(survey, answers())).toEqual({ answers: answers(), location: null, files: [] });
    expect(problemsOf(survey, { answers: answers({ source: 'river' }) })).toEqual([
      'answers.river_reason is required',
    ]);
    expect(problemsOf(survey, { answers: {} })).toEqual([
      'answers.name is required',
      'answers.source is required',
    ]);
  });

  it('discards the answer of a hidden field, even a wrong one', () => {
    expect(kept(survey, answers({ river_reason: 'Closer' }))?.answers).toEqual(answers());
    expect(kept(survey, answers({ river_reason: 42 }))?.answers).toEqual(answers());
    const reason = 'The well is dry';
    expect(kept(survey, answers({ source: 'river', river_reason: reason }))?.answers).toEqual(
      answers({ source: 'river', river_reason: reason }),
    );
  });

  it('discards the file of a hidden file field', () => {
    const fields = [
      field('boolean', 'has_id'),
      field('file', 'id_card', { showIf: { field: 'has_id', equals: true } }),
    ];
    expect(kept(fields, { has_id: false }, ['id_card'])).toEqual({
      answers: { has_id: false },
      location: null,
      files: [],
    });
    expect(kept(fields, { has_id: true }, ['id_card'])?.files).toEqual(['id_card']);
  });

  it('follows a chain of showIf: a field behind a hidden field is hidden too', () => {
    const fields = [
      field('boolean', 'has_farm', { required: true }),
      field('select', 'irrigated', { options: ['yes', 'no'], showIf: { field: 'has_farm', equals: true } }),
      field('text', 'method', { required: true, showIf: { field: 'irrigated', equals: 'yes' } }),
    ];
    expect(kept(fields, { has_farm: false, irrigated: 'yes', method: 'drip' })?.answers).toEqual({
      has_farm: false,
    });
    expect(problemsOf(fields, { answers: { has_farm: true, irrigated: 'yes' } })).toEqual([
      'answers.method is required',
    ]);
    expect(kept(fields, { has_farm: true, irrigated: 'yes', method: 'drip' })?.answers).toEqual({
      has_farm: true,
      irrigated: 'yes',
      method: 'drip',
    });
  });

  it('hides what depends on a wrong answer rather than requiring it', () => {
    expect(problemsOf(survey, { answers: answers({ source: 'lake' }) })).toEqual([
      'answers.source must be one of well, river, tap',
    ]);
  });

  it('shows a field after a multi_select when its value was chosen', () => {
    const fields = [
      field('multi_select', 'crops', { options: ['maize', 'rice'] }),
      field('number', 'rice_bags', { required: true, showIf: { field: 'crops', equals: 'rice' } }),
    ];
    expect(problemsOf(fields, { answers: { crops: ['maize', 'rice'] } })).toEqual([
      'answers.rice_bags is required',
    ]);
    expect(kept(fields, { crops: ['maize'], rice_bags: 3 })?.answers).toEqual({ crops: ['maize'] });
  });
});

describe('checkSubmission: the body', () => {
  it('refuses answers to keys the form does not have, and file parts for them', () => {
    expect(problemsOf(survey, { answers: answers({ colour: 'blue' }) }, ['receipt'])).toEqual([
      'answers.colour is not a field of this form',
      'answers.receipt is not a field of this form',
    ]);
  });

  it('refuses a body that is not an object, and answers missing or not an object', () => {
    for (const body of [null, [], 'answers', 3]) {
      expect(checkSubmission(survey, body)).toEqual({ problems: ['body must be an object'] });
    }
    expect(problemsOf(EVERY_TYPE, {})).toEqual(['answers is required']);
    expect(problemsOf(EVERY_TYPE, { answers: ['x'] })).toEqual(['answers must be an object']);
    expect(problemsOf(EVERY_TYPE, { answers: 'x' })).toEqual(['answers must be an object']);
  });

  it('refuses properties beside answers and location', () => {
    expect(problemsOf(EVERY_TYPE, { answers: {}, formId: 'x', submittedAt: 'y' })).toEqual([
      'property formId should not exist',
      'property submittedAt should not exist',
    ]);
  });

  it('keeps a top-level location in range; null or absent is none', () => {
    const location = { lat: -4.05, lng: 39.66, accuracy: 8.5 };
    expect(checkSubmission(EVERY_TYPE, { answers: {}, location }).submission?.location).toEqual(location);
    expect(checkSubmission(EVERY_TYPE, { answers: {}, location: null }).submission?.location).toBeNull();
  });

  it('refuses a top-level location out of range, incomplete, with extras or not an object', () => {
    const cases: [unknown, string[]][] = [
      [{ lat: -91, lng: 0 }, ['location.lat must be between -90 and 90']],
      [{ lat: 0, lng: -180.5 }, ['location.lng must be between -180 and 180']],
      [{}, ['location.lat is required', 'location.lng is required']],
      [{ lat: 0, lng: 0, accuracy: 'good' }, ['location.accuracy must be a number']],
      [{ lat: 0, lng: 0, accuracy: -1 }, [`location.accuracy must be between 0 and ${Number.MAX_VALUE}`]],
      [{ lat: 0, lng: 0, altitude: 5 }, ['property location.altitude should not exist']],
      ['Nairobi', ['location must be an object']],
      [[1, 2], ['location must be an object']],
    ];
    for (const [location, messages] of cases) {
      expect(problemsOf(EVERY_TYPE, { answers: {}, location })).toEqual(messages);
    }
  });

  it('reports every problem once, with the file problems it was given last', () => {
    const body = { answers: { note: 1, size: 'x', extra: 1 }, location: 'here', more: true };
    expect(checkSubmission(EVERY_TYPE, body, [], ['answers.photo must be a PDF file'])).toEqual({
      problems: [
        'property more should not exist',
        'location must be an object',
        'answers.extra is not a field of this form',
        'answers.note must be a string',
        'answers.size must be a number',
        'answers.photo must be a PDF file',
      ],
    });
    expect(problemsOf(survey, { answers: answers({ x: 1 }) }, ['x'])).toEqual([
      'answers.x is not a field of this form',
    ]);
  });
});
