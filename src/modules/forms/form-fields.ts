import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { SINGLE_LINE, Text } from '../../http/schemas/schemas.js';
import { FIELD_KEY } from '../../lib/patterns.js';
import { PERSONAL_FIELD_TYPES } from '../../lib/personal-data.js';
import {
  cachedParser,
  ExpressionError,
  references,
  usesSelf,
  type ExpressionNode,
} from '../../lib/form-expressions.js';
import { patternProblem } from '../../lib/form-regex.js';

/**
 * The field types: the nine of SPEC.md FormField, then what issue 41 added. `note` shows its label and
 * asks nothing; `calculate` asks nothing and stores its `calculation`'s result; `group` shows its
 * `fields` under its label, together; `repeat` asks its `fields` once per entry (a household roster),
 * its answer a list of entries.
 */
export const FIELD_TYPES = [
  'text',
  'textarea',
  'number',
  'select',
  'multi_select',
  'date',
  'boolean',
  'location',
  'file',
  'note',
  'calculate',
  'group',
  'repeat',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
/** The types holding other fields. */
export const CONTAINER_TYPES = ['group', 'repeat'] as const;

/** Fields in all, at every depth. */
export const MAX_FIELDS = 200;
/** Containers nest this deep at most: a group in a repeat in a group. */
export const MAX_DEPTH = 3;
/** Entries of a repeat at most (and the largest maxCount). */
export const MAX_REPEAT_COUNT = 500;
/** The longest expression (relevant, constraint, calculation). */
export const MAX_EXPRESSION = 1000;
export const KEY_PATTERN = FIELD_KEY.pattern;
/** The longest text answers, and the longest place name given instead of coordinates. */
export const TEXT_MAX = { text: 2000, textarea: 20_000 } as const;
export const PLACE_MAX = 500;

/** `a, b and c`, as field rules name types. */
function typeNames(types: readonly string[]): string {
  return types.length > 1 ? `${types.slice(0, -1).join(', ')} and ${types.at(-1)}` : types.join('');
}

const Key = (description: string) => Type.String({ pattern: KEY_PATTERN, description });

const Expression = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: MAX_EXPRESSION,
    notBlank: true,
    ...SINGLE_LINE,
    description: `${description}. An expression in XLSForm's syntax (docs/forms.md, "Expressions").`,
  });

/** A choice of a select or multi_select: the stored `name`, the shown `label`. */
export const ChoiceSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 200,
      notBlank: true,
      ...SINGLE_LINE,
      description: 'What an answer stores',
    }),
    label: Text(500),
  },
  { additionalProperties: false },
);
export type Choice = Static<typeof ChoiceSchema>;

/** The properties every field may have, whatever its depth. */
const fieldProperties = {
  type: Type.Unsafe<FieldType>({ type: 'string', enum: [...FIELD_TYPES] }),
  label: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 500,
      notBlank: true,
      ...SINGLE_LINE,
      description: 'What the respondent sees; required but on calculate fields',
    }),
  ),
  key: Key(
    'The answer identifier: a lowercase letter, then up to 63 lowercase letters, digits or _; unique in ' +
      'the whole form, groups and repeats included',
  ),
  hint: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1000,
      notBlank: true,
      ...SINGLE_LINE,
      description: 'Shown under the label',
    }),
  ),
  options: Type.Optional(
    Type.Array(Text(200), {
      minItems: 1,
      maxItems: 200,
      uniqueItems: true,
      description:
        'The choices of a select or multi_select, each its own name and label (or `choices`: one of ' +
        'the two on choice fields, neither on others)',
    }),
  ),
  choices: Type.Optional(
    Type.Array(ChoiceSchema, {
      minItems: 1,
      maxItems: 500,
      description:
        'The choices of a select or multi_select with a stored name and a shown label (names unique); ' +
        'an answer stores the name',
    }),
  ),
  required: Type.Optional(
    Type.Boolean({ description: 'false by default; only relevant (shown) fields are required' }),
  ),
  personal: Type.Optional(
    Type.Boolean({
      description:
        `false by default; only on ${typeNames(PERSONAL_FIELD_TYPES)} fields. The answers name or ` +
        'describe a person: viewers get them as null (empty in CSV), an org_admin can erase them from a ' +
        "submission, the form's personalDataRetentionDays erases them from older submissions, and every " +
        'response that carries them in clear is recorded in the audit log. Inside repeats too.',
    }),
  ),
  showIf: Type.Optional(
    Type.Object(
      {
        field: Key('The key of an earlier field'),
        equals: Type.Unsafe<string | number | boolean>({
          type: ['string', 'number', 'boolean'],
          ...SINGLE_LINE,
          description:
            'The answer that shows this field: one of the options of a select (for a multi_select, ' +
            'one of the chosen options), a boolean, a number, or the exact text',
        }),
      },
      { additionalProperties: false },
    ),
  ),
  relevant: Type.Optional(
    Expression(
      'When the field is asked (with showIf, both must hold); a field not relevant is neither required ' +
        'nor kept, and an answer sent to it is refused',
    ),
  ),
  constraint: Type.Optional(
    Expression('What an answer must satisfy, `.` being the answer; checked when answered'),
  ),
  constraintMessage: Type.Optional(Text(500)),
  calculation: Type.Optional(
    Expression('calculate fields only: the value stored, computed from earlier answers'),
  ),
  integer: Type.Optional(
    Type.Boolean({ description: 'number fields only: whole numbers only (XLSForm integer)' }),
  ),
  minCount: Type.Optional(
    Type.Integer({ minimum: 0, maximum: MAX_REPEAT_COUNT, description: 'repeat fields only: 0 by default' }),
  ),
  maxCount: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_REPEAT_COUNT,
      description: `repeat fields only: ${MAX_REPEAT_COUNT} by default`,
    }),
  ),
};

/** A field at `depth` (1 at the top): containers hold fields one level deeper, none past MAX_DEPTH. */
function fieldSchema(depth: number): TUnsafe<FormField> {
  const fields: Record<string, TSchema> =
    depth < MAX_DEPTH + 1
      ? {
          fields: Type.Optional(
            Type.Array(fieldSchema(depth + 1), {
              minItems: 1,
              maxItems: MAX_FIELDS,
              description: 'group and repeat fields only: the fields they hold, in order',
            }),
          ),
        }
      : {};
  const schema = Type.Object(
    { ...fieldProperties, ...fields },
    {
      additionalProperties: false,
      ...(depth > 1 && { title: `FormFieldLevel${depth}` }),
      description:
        `Answers: text up to ${TEXT_MAX.text} characters, textarea up to ${TEXT_MAX.textarea}; number a ` +
        'finite number; select one of the choices; multi_select a list of distinct choices; date ' +
        'YYYY-MM-DD; boolean true or false; location { lat, lng, accuracy? } or the name of a place; file ' +
        'a part of a multipart body (PDF, JPEG, PNG, WebP, DOCX, XLSX or CSV, 10 MiB at most); repeat a ' +
        "list of entries, each an object of its fields' answers; group fields answered as top-level " +
        'fields; note nothing; calculate nothing (the service computes it).',
    },
  );
  return Type.Unsafe<FormField>(schema);
}

/** A field of a form (SPEC.md FormField, extended); `FormField` is its type. */
export const FormFieldSchema = fieldSchema(1);

export interface FormField {
  type: FieldType;
  label?: string;
  key: string;
  hint?: string;
  options?: string[];
  choices?: Choice[];
  required?: boolean;
  personal?: boolean;
  showIf?: { field: string; equals: string | number | boolean };
  relevant?: string;
  constraint?: string;
  constraintMessage?: string;
  calculation?: string;
  integer?: boolean;
  minCount?: number;
  maxCount?: number;
  fields?: FormField[];
}

/**
 * The answer stored under a key, own properties only: a field keyed `constructor` left unanswered is
 * undefined, not Object's constructor (answers are plain objects read from JSON).
 */
export const ownValue = <T>(record: Record<string, T>, key: string): T | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;
export const answerOf: (answers: Record<string, unknown>, key: string) => unknown = ownValue;

/** The choices of a choice field, from `choices` or from `options` (each its own name and label). */
export const choicesOf = (field: FormField): Choice[] =>
  field.choices ?? (field.options ?? []).map((option) => ({ name: option, label: option }));

/** The names an answer of a choice field can hold. */
export const names = (field: FormField): string[] => choicesOf(field).map((choice) => choice.name);

/** Every field at every depth, in order, a container before what it holds. */
export function allFields(fields: FormField[]): FormField[] {
  return fields.flatMap((field) => [field, ...(field.fields ? allFields(field.fields) : [])]);
}

/**
 * The fields answered once per submission, at every depth but inside repeats (a group's fields are
 * top-level answers); repeats themselves are listed, not what they hold.
 */
export function topLevelFields(fields: FormField[]): FormField[] {
  return fields.flatMap((field) =>
    field.type === 'group' && field.fields ? [field, ...topLevelFields(field.fields)] : [field],
  );
}

/** GPS coordinates as a browser reports them; `Location` is their type. */
export const Coordinates = Type.Object({
  lat: Type.Number({ minimum: -90, maximum: 90 }),
  lng: Type.Number({ minimum: -180, maximum: 180 }),
  accuracy: Type.Optional(Type.Number({ minimum: 0, description: 'metres' })),
});
export type Location = Static<typeof Coordinates>;

const CHOICE_TYPES: readonly FieldType[] = ['select', 'multi_select'];
const PERSONAL_TYPES: readonly FieldType[] = PERSONAL_FIELD_TYPES;
/** The types that ask nothing: `required` has no meaning on them. */
const UNASKED_TYPES: readonly FieldType[] = ['note', 'calculate', 'group', 'repeat'];
/** The types a constraint can check (`.` is their answer); a file is a part, not a value. */
const CONSTRAINED_TYPES: readonly FieldType[] = [
  'text',
  'textarea',
  'number',
  'select',
  'multi_select',
  'date',
  'boolean',
  'location',
];
/** The types with a value an expression can read (a repeat's is its list of entries, through count()). */
const VALUE_TYPES: readonly FieldType[] = [...CONSTRAINED_TYPES, 'calculate', 'file', 'repeat'];

/** The keys of the fields marked personal answered at the top level (groups' fields included). */
export const personalKeys = (fields: FormField[]): string[] =>
  topLevelFields(fields)
    .filter((field) => field.personal === true)
    .map((field) => field.key);

/**
 * Where a form's personal answers are: the top-level keys marked personal, and per repeat holding some
 * (at any depth), the keys marked personal in its entries. What viewers lose, erasure and retention remove.
 */
export interface PersonalShape {
  keys: string[];
  repeats: { key: string; shape: PersonalShape }[];
}

export function personalShape(fields: FormField[]): PersonalShape {
  const level = topLevelFields(fields);
  return {
    keys: level.filter((field) => field.personal === true).map((field) => field.key),
    repeats: level
      .filter((field) => field.type === 'repeat' && field.fields)
      .map((field) => ({ key: field.key, shape: personalShape(field.fields!) }))
      .filter(({ shape }) => !isEmptyShape(shape)),
  };
}

export const isEmptyShape = (shape: PersonalShape): boolean =>
  shape.keys.length === 0 && shape.repeats.length === 0;

/** What `equals` can be compared with, by the type of the field it points at. */
function equalsProblem(target: FormField, equals: unknown): string | null {
  switch (target.type) {
    case 'select':
    case 'multi_select':
      return names(target).includes(equals as string) ? null : `be one of ${names(target).join(', ')}`;
    case 'boolean':
      return typeof equals === 'boolean' ? null : 'be a boolean';
    case 'number':
      return typeof equals === 'number' ? null : 'be a number';
    case 'location':
    case 'file':
    case 'note':
    case 'calculate':
    case 'group':
    case 'repeat':
      return `not be compared with a ${target.type} field`;
    case 'text':
    case 'textarea':
    case 'date':
      return typeof equals === 'string' ? null : 'be a string';
  }
}

/** A field with where it stands: its order at every depth and the keys of the repeats holding it. */
export interface PlacedField {
  field: FormField;
  order: number;
  repeats: string[];
  path: string;
}

/** Every field at every depth, in order, with its place; a key used twice keeps its first place. */
export function placeFields(fields: FormField[]): Map<string, PlacedField> {
  const placed = new Map<string, PlacedField>();
  let order = 0;
  const visit = (list: FormField[], repeats: string[], path: string) =>
    list.forEach((field, index) => {
      const at = `${path}.${index}`;
      if (!placed.has(field.key)) placed.set(field.key, { field, order, repeats, path: at });
      order += 1;
      if (field.fields)
        visit(field.fields, field.type === 'repeat' ? [...repeats, field.key] : repeats, `${at}.fields`);
    });
  visit(fields, [], 'fields');
  return placed;
}

const isPrefix = (prefix: string[], of: string[]) => prefix.every((key, i) => of[i] === key);

/** Where an expression is evaluated from: the fields before `order`, inside the repeats `repeats`. */
export interface ExpressionScope {
  order: number;
  repeats: string[];
  /** Whether `.` (the answer) may be used: constraints only. */
  self: boolean;
}

const parse = cachedParser(2000);

/**
 * What is wrong with an expression evaluated from `scope`: it parses, refers only to earlier fields with
 * a value, each of the same repeat entry or outside it (a field inside a repeat seen from outside only as
 * count()'s or sum()'s argument), `.` only in constraints, regex() patterns quoted strings RE2 accepts.
 */
export function expressionProblems(
  text: string,
  at: string,
  scope: ExpressionScope,
  placed: Map<string, PlacedField>,
): string[] {
  let tree: ExpressionNode;
  try {
    tree = parse(text);
  } catch (error) {
    return [`${at}: ${error instanceof ExpressionError ? error.message : 'the expression does not parse'}`];
  }
  const problems: string[] = [];
  if (!scope.self && usesSelf(tree)) {
    problems.push(`${at} uses ".", which stands for the answer in constraints only`);
  }
  const visit = (node: ExpressionNode, aggregated: boolean) => {
    if (node.kind === 'binary') {
      visit(node.left, false);
      visit(node.right, false);
    } else if (node.kind === 'negate') visit(node.operand, false);
    else if (node.kind === 'call') {
      node.args.forEach((arg) => visit(arg, node.name === 'count' || node.name === 'sum'));
      if (node.name === 'regex') {
        const pattern = node.args[1]!;
        if (pattern.kind !== 'string') problems.push(`${at}: regex()'s pattern must be a string in quotes`);
        else {
          const problem = patternProblem(pattern.value);
          if (problem) problems.push(`${at}: regex() pattern '${pattern.value}' is refused: ${problem}`);
        }
      }
    } else if (node.kind === 'ref') problems.push(...referenceProblem(node.name, aggregated));
  };
  const referenceProblem = (name: string, aggregated: boolean): string[] => {
    const target = placed.get(name);
    if (!target) return [`${at} refers to \${${name}}, which is not a field of this form`];
    if (target.order >= scope.order) return [`${at} refers to \${${name}}, which does not come before it`];
    if (!VALUE_TYPES.includes(target.field.type)) {
      return [`${at} refers to \${${name}}, a ${target.field.type} field, which has no value`];
    }
    // Inside a repeat holding the expression: the same entry's answer. Otherwise a list of them.
    const sameEntry = isPrefix(target.repeats, scope.repeats);
    if (target.field.type === 'repeat' && !(aggregated && !scope.repeats.includes(name))) {
      return [`${at} refers to the repeat \${${name}}: only count(\${${name}}) can`];
    }
    if (!sameEntry && !aggregated) {
      const repeat = target.repeats[target.repeats.findIndex((key, i) => scope.repeats[i] !== key)]!;
      return [
        `${at} refers to \${${name}} inside the repeat ${repeat}: from outside its entries only ` +
          `count(\${${name}}) or sum(\${${name}}) can`,
      ];
    }
    return [];
  };
  visit(tree, false);
  return [...new Set(problems)];
}

/** The problem with a field's properties for its type (which ones it needs, which it must not have). */
function propertyProblems(field: FormField, at: string, inRepeat: boolean): string[] {
  const problems: string[] = [];
  const type = field.type;
  const notFor = (name: string) => `${at}.${name} should not exist for ${type} fields`;
  if (field.label === undefined && type !== 'calculate') problems.push(`${at}.label is required`);
  if (CHOICE_TYPES.includes(type) && field.options === undefined && field.choices === undefined) {
    problems.push(`${at}.options is required for ${type} fields`);
  }
  if (field.options !== undefined && field.choices !== undefined) {
    problems.push(`${at}.choices should not exist beside options: give one of the two`);
  }
  for (const name of ['options', 'choices'] as const) {
    if (!CHOICE_TYPES.includes(type) && field[name] !== undefined) problems.push(notFor(name));
  }
  if (field.choices) {
    const seen = new Set<string>();
    field.choices.forEach((choice, i) => {
      if (seen.has(choice.name)) {
        problems.push(`${at}.choices.${i}.name must be unique; ${choice.name} is used before`);
      }
      seen.add(choice.name);
    });
  }
  if (field.personal === true && !PERSONAL_TYPES.includes(type)) {
    problems.push(`${at}.personal is allowed only on ${typeNames(PERSONAL_TYPES)} fields, not ${type}`);
  }
  const container = type === 'group' || type === 'repeat';
  if (container && field.fields === undefined) problems.push(`${at}.fields is required for ${type} fields`);
  if (!container && field.fields !== undefined) problems.push(notFor('fields'));
  if (type === 'calculate' && field.calculation === undefined) {
    problems.push(`${at}.calculation is required for calculate fields`);
  }
  if (type !== 'calculate' && field.calculation !== undefined) problems.push(notFor('calculation'));
  if (!CONSTRAINED_TYPES.includes(type)) {
    if (field.constraint !== undefined) problems.push(notFor('constraint'));
    if (field.constraintMessage !== undefined) problems.push(notFor('constraintMessage'));
  } else if (field.constraintMessage !== undefined && field.constraint === undefined) {
    problems.push(`${at}.constraintMessage needs constraint`);
  }
  if (type !== 'number' && field.integer !== undefined) problems.push(notFor('integer'));
  if (type !== 'repeat') {
    if (field.minCount !== undefined) problems.push(notFor('minCount'));
    if (field.maxCount !== undefined) problems.push(notFor('maxCount'));
  } else if ((field.minCount ?? 0) > (field.maxCount ?? MAX_REPEAT_COUNT)) {
    problems.push(`${at}.minCount must not be more than maxCount`);
  }
  if (field.required === true && UNASKED_TYPES.includes(type)) {
    problems.push(
      `${at}.required should not exist for ${type} fields` +
        (type === 'repeat' ? ' (its minCount says how many entries are required)' : ''),
    );
  }
  if (type === 'file' && inRepeat) {
    problems.push(
      `${at}: file fields cannot be inside a repeat (a file is a part of the body, named by its key)`,
    );
  }
  return problems;
}

/** The fields marked personal an expression reads; none when it does not parse (reported elsewhere). */
function personalReferences(text: string, placed: Map<string, PlacedField>): string[] {
  try {
    return references(parse(text)).filter((name) => placed.get(name)?.field.personal === true);
  } catch {
    return [];
  }
}

/**
 * The field rules a schema cannot express (DECISIONS.md section 10, extended by issue 41), every problem
 * at once, each named by its path (`fields.2.fields.0.relevant`): keys unique in the whole form, at most
 * MAX_FIELDS fields in all, each type's own properties and none of the others', `showIf` naming an
 * earlier field with a value its answer can take, `personal` only on the types whose answers can hold a
 * person's words or numbers, and every expression parsing and referring only to fields it may see.
 */
export function fieldProblems(fields: FormField[]): string[] {
  const problems: string[] = [];
  const placed = placeFields(fields);
  const total = allFields(fields).length;
  let order = 0;
  const seen = new Set<string>();
  const visit = (list: FormField[], repeats: string[], path: string) =>
    list.forEach((field, index) => {
      const at = `${path}.${index}`;
      const here = order;
      order += 1;
      if (seen.has(field.key)) problems.push(`${at}.key must be unique; ${field.key} is used before`);
      seen.add(field.key);
      problems.push(...propertyProblems(field, at, repeats.length > 0));
      if (field.showIf) {
        const target = placed.get(field.showIf.field);
        const visible =
          target !== undefined &&
          target.order < here &&
          isPrefix(target.repeats, repeats) &&
          target.field.type !== 'repeat';
        if (!visible) problems.push(`${at}.showIf.field must be the key of an earlier field`);
        else {
          const problem = equalsProblem(target.field, field.showIf.equals);
          if (problem) problems.push(`${at}.showIf.equals must ${problem}`);
        }
      }
      const scope = { order: here, repeats, self: false };
      for (const name of ['relevant', 'calculation'] as const) {
        const text = field[name];
        if (text !== undefined) problems.push(...expressionProblems(text, `${at}.${name}`, scope, placed));
      }
      if (field.type === 'calculate' && field.personal !== true && field.calculation !== undefined) {
        // A calculation copying a personal answer would show it to viewers and outlive its erasure.
        const read = personalReferences(field.calculation, placed);
        if (read.length > 0) {
          problems.push(`${at}.personal must be true: its calculation reads the personal ${read.join(', ')}`);
        }
      }
      if (field.constraint !== undefined && CONSTRAINED_TYPES.includes(field.type)) {
        problems.push(
          // Its own key is its answer, as `.` is.
          ...expressionProblems(
            field.constraint,
            `${at}.constraint`,
            { ...scope, order: here + 1, self: true },
            placed,
          ),
        );
      }
      if (field.fields) {
        visit(field.fields, field.type === 'repeat' ? [...repeats, field.key] : repeats, `${at}.fields`);
      }
    });
  visit(fields, [], 'fields');
  if (total > MAX_FIELDS) {
    problems.push(`fields must hold at most ${MAX_FIELDS} fields in all, at every depth (${total} here)`);
  }
  return problems;
}

/**
 * Edits that would leave stored answers without their field or make them wrong for it: a form with
 * submissions keeps every field key at every depth, each field's type, the repeat holding it (a key
 * moved into or out of a repeat moves its answers; into or out of a group does not), and every choice
 * name of its choice fields. Labels, `required`, `showIf`, expressions, `personal`, order, groups, new
 * fields and new choices are free. Returns the keys that break this.
 */
export function breakingEdits(before: FormField[], after: FormField[]): string[] {
  const next = placeFields(after);
  return [...placeFields(before).values()]
    .filter(({ field: old, repeats }) => {
      const now = next.get(old.key);
      if (!now || now.field.type !== old.type) return true;
      if (now.repeats.join('/') !== repeats.join('/')) return true;
      return names(old).some((name) => !names(now.field).includes(name));
    })
    .map(({ field }) => field.key);
}

/** Whether `showIf` lets the respondent see the field, given the answers kept before it. */
export function isShown(field: FormField, shownAnswers: Record<string, unknown>): boolean {
  if (!field.showIf) return true;
  const answer = shownAnswers[field.showIf.field];
  return Array.isArray(answer) ? answer.includes(field.showIf.equals) : answer === field.showIf.equals;
}
