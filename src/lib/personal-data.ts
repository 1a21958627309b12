/**
 * What is personal data, in one place (issue 22, DECISIONS.md section 5): every view, erasure, export
 * and audit entry reads these lists, so a field added here is hidden, erased and audited everywhere.
 */

/** A participant's fields that name or reach the person; phone and national id are also stored sealed. */
export const PARTICIPANT_PERSONAL_FIELDS = [
  'firstName',
  'lastName',
  'dateOfBirth',
  'phone',
  'nationalId',
] as const;

/** A household member's fields that name or describe the person. */
export const HOUSEHOLD_PERSONAL_FIELDS = ['name', 'age'] as const;

/**
 * Form field types whose answers can hold a person's words or numbers, and so may be marked
 * `personal: true` by the form's author: their answers are then hidden from viewers, erasable and
 * subject to the form's retention. A calculate reading a personal answer must be marked so too.
 */
export const PERSONAL_FIELD_TYPES = ['text', 'textarea', 'number', 'date', 'location', 'calculate'] as const;

/** Viewers never get personal data; every other role does, within the projects it reaches. */
export const seesPersonalData = (role: string): boolean => role !== 'viewer';

/** Every named field null: what erasure writes. */
export const nulled = <K extends string>(fields: readonly K[]) =>
  Object.fromEntries(fields.map((field) => [field, null])) as Record<K, null>;

/** The record with the named fields null: what a viewer, or anyone after erasure, gets. */
export function withoutFields<T extends object, K extends keyof T>(record: T, fields: readonly K[]): T {
  const copy = { ...record };
  for (const field of fields) copy[field] = null as T[K];
  return copy;
}
