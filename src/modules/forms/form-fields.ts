import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { SINGLE_LINE, Text } from '../../http/schemas/schemas.js';
import { FIELD_KEY } from '../../lib/patterns.js';
import { PERSONAL_FIELD_TYPES } from '../../lib/personal-data.js';

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

/** The keys of the fields marked personal: the answers viewers never get and erasure removes. */
export const personalKeys = (fields: FormField[]): string[] =>
  fields.filter((field) => field.personal === true).map((field) => field.key);

/** What a `showIf.equals` can be compared with, by the type of the field it points at. */
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

/**
 * The rules of DECISIONS.md section 10 that a schema cannot express: unique keys, options only and
 * always on choice fields, `showIf` naming an earlier field with a value its answer can take, `personal`
 * only on the types whose answers can hold a person's words or numbers.
 */
export function fieldProblems(fields: FormField[]): string[] {
  const problems: string[] = [];
  const earlier = new Map<string, FormField>();
  fields.forEach((field, index) => {
    const at = `fields.${index}`;
    if (earlier.has(field.key)) problems.push(`${at}.key must be unique; ${field.key} is used before`);
    if (field.label === undefined && field.type !== 'calculate') problems.push(`${at}.label is required`);
    if (CHOICE_TYPES.includes(field.type) && field.options === undefined && field.choices === undefined) {
      problems.push(`${at}.options is required for ${field.type} fields`);
    }
    if (field.options !== undefined && field.choices !== undefined) {
      problems.push(`${at}.choices should not exist beside options: give one of the two`);
    }
    for (const name of ['options', 'choices'] as const) {
      if (!CHOICE_TYPES.includes(field.type) && field[name] !== undefined) {
        problems.push(`${at}.${name} should not exist for ${field.type} fields`);
      }
    }
    if (field.personal === true && !PERSONAL_TYPES.includes(field.type)) {
      problems.push(
        `${at}.personal is allowed only on ${typeNames(PERSONAL_TYPES)} fields, not ${field.type}`,
      );
    }
    if (field.showIf) {
      const target = earlier.get(field.showIf.field);
      if (!target) problems.push(`${at}.showIf.field must be the key of an earlier field`);
      else {
        const problem = equalsProblem(target, field.showIf.equals);
        if (problem) problems.push(`${at}.showIf.equals must ${problem}`);
      }
    }
    if (!earlier.has(field.key)) earlier.set(field.key, field);
  });
  return problems;
}

/**
 * Edits that would leave stored answers without their field or make them wrong for it: a form with
 * submissions keeps every field key, each field's type, and every option of its choice fields. Labels,
 * `required`, `showIf`, `personal`, order, new fields and new options are free. Returns the keys that
 * break this.
 */
export function breakingEdits(before: FormField[], after: FormField[]): string[] {
  const next = new Map(after.map((field) => [field.key, field]));
  return before
    .filter((old) => {
      const field = next.get(old.key);
      if (!field || field.type !== old.type) return true;
      return names(old).some((name) => !names(field).includes(name));
    })
    .map((old) => old.key);
}

/** Whether the respondent sees the field, given the answers to the fields before it. */
export function isShown(field: FormField, shownAnswers: Record<string, unknown>): boolean {
  if (!field.showIf) return true;
  const answer = shownAnswers[field.showIf.field];
  return Array.isArray(answer) ? answer.includes(field.showIf.equals) : answer === field.showIf.equals;
}
