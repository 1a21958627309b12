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
export const KEY_PATTERN = '^[a-z][a-z0-9_]{0,63}$';

export interface FormField {
  type: FieldType;
  label: string;
  key: string;
  options?: string[];
  required?: boolean;
  showIf?: { field: string; equals: string | number | boolean };
}

/** GPS coordinates as a browser reports them. */
export interface Location {
  lat: number;
  lng: number;
  accuracy?: number;
}

const CHOICE_TYPES: readonly FieldType[] = ['select', 'multi_select'];

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
 * always on choice fields, `showIf` naming an earlier field with a value its answer can take.
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
 * `required`, `showIf`, order, new fields and new options are free. Returns the keys that break this.
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
