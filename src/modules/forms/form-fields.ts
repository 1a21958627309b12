import { Type, type Static } from '@sinclair/typebox';
import { SINGLE_LINE, Text } from '../../http/schemas/schemas.js';
import { FIELD_KEY } from '../../lib/patterns.js';
import { PERSONAL_FIELD_TYPES } from '../../lib/personal-data.js';

/** The field types of SPEC.md FormField. */
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
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const MAX_FIELDS = 200;
export const KEY_PATTERN = FIELD_KEY.pattern;
/** The longest text answers, and the longest place name given instead of coordinates. */
export const TEXT_MAX = { text: 2000, textarea: 20_000 } as const;
export const PLACE_MAX = 500;

/** `a, b and c`, as field rules name types. */
function typeNames(types: readonly string[]): string {
  return types.length > 1 ? `${types.slice(0, -1).join(', ')} and ${types.at(-1)}` : types.join('');
}

const Key = (description: string) => Type.String({ pattern: KEY_PATTERN, description });

/** A field of a form (SPEC.md FormField); `FormField` is its type. */
export const FormFieldSchema = Type.Object(
  {
    type: Type.Unsafe<FieldType>({ type: 'string', enum: [...FIELD_TYPES] }),
    label: Text(500),
    key: Key('The answer identifier: a lowercase letter, then up to 63 lowercase letters, digits or _'),
    options: Type.Optional(
      Type.Array(Text(200), {
        minItems: 1,
        maxItems: 200,
        uniqueItems: true,
        description: 'Required for select and multi_select, not allowed otherwise',
      }),
    ),
    required: Type.Optional(
      Type.Boolean({ description: 'false by default; only shown fields are required' }),
    ),
    personal: Type.Optional(
      Type.Boolean({
        description:
          `false by default; only on ${typeNames(PERSONAL_FIELD_TYPES)} fields. The answers name or ` +
          'describe a person: viewers get them as null (empty in CSV), an org_admin can erase them from a ' +
          "submission, the form's personalDataRetentionDays erases them from older submissions, and every " +
          'response that carries them in clear is recorded in the audit log.',
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
  },
  {
    additionalProperties: false,
    description:
      `Answers: text up to ${TEXT_MAX.text} characters, textarea up to ${TEXT_MAX.textarea}; number a ` +
      'finite number; select one of the options; multi_select a list of distinct options; date ' +
      'YYYY-MM-DD; boolean true or false; location { lat, lng, accuracy? } or the name of a place; file ' +
      'a part of a multipart body (PDF, JPEG, PNG, WebP, DOCX, XLSX or CSV, 10 MiB at most).',
  },
);
export type FormField = Static<typeof FormFieldSchema>;

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
      return target.options?.includes(equals as string) ? null : `be one of ${target.options?.join(', ')}`;
    case 'boolean':
      return typeof equals === 'boolean' ? null : 'be a boolean';
    case 'number':
      return typeof equals === 'number' ? null : 'be a number';
    case 'location':
    case 'file':
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
    if (CHOICE_TYPES.includes(field.type) && field.options === undefined) {
      problems.push(`${at}.options is required for ${field.type} fields`);
    }
    if (!CHOICE_TYPES.includes(field.type) && field.options !== undefined) {
      problems.push(`${at}.options should not exist for ${field.type} fields`);
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
      return (old.options ?? []).some((option) => !field.options?.includes(option));
    })
    .map((old) => old.key);
}

/** Whether the respondent sees the field, given the answers to the fields before it. */
export function isShown(field: FormField, shownAnswers: Record<string, unknown>): boolean {
  if (!field.showIf) return true;
  const answer = shownAnswers[field.showIf.field];
  return Array.isArray(answer) ? answer.includes(field.showIf.equals) : answer === field.showIf.equals;
}
