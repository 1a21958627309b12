import { cellKey, isCross, type Dimension } from '../../lib/crosses.js';
import { ageRangeOf, overlap, UNKNOWN_AGE, type AgeRange } from '../../lib/demographics.js';
import { answerOf, type FormField } from './form-fields.js';

// Forms that fill disaggregations (docs/counting.md): each mapping names a plain disaggregation of the
// form's indicator and the field whose answer places a submission in one of its categories; crosses are
// filled from their parts. Pure: the form's checks and the counting share it.

/** One mapping of a form field to a disaggregation of the indicator. */
export interface DisaggregateBy {
  disaggregation: string;
  field: string;
  /** Answer to category; an answer equal to a category name maps to it anyway. */
  categories?: Record<string, string>;
}

/** Field types a mapping can read: one answer, a category by name (select, text) or an age (number). */
const BY_NAME: readonly string[] = ['select', 'text'];

const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The age ranges of an age disaggregation's categories (`unknown` aside); null when it is not one. */
function ageRangesOf(categories: readonly string[]): AgeRange[] | null {
  const labels = categories.filter((c) => c !== UNKNOWN_AGE);
  const ranges = labels.map(ageRangeOf);
  if (labels.length === 0 || ranges.some((r) => r === null)) return null;
  const sorted = (ranges as AgeRange[]).sort((a, b) => a.from - b.from);
  for (let i = 1; i < sorted.length; i++) if (overlap(sorted[i - 1]!, sorted[i]!)) return null;
  return sorted;
}

/**
 * What is wrong with a form's `disaggregateBy` against its fields and its indicator's disaggregations
 * (`dimensions`, null when the form counts into no indicator): one message per problem.
 */
export function disaggregateByProblems(
  mappings: readonly DisaggregateBy[],
  fields: readonly FormField[],
  dimensions: readonly Dimension[] | null,
): string[] {
  if (mappings.length === 0) return [];
  if (dimensions === null) return ['disaggregateBy needs indicatorId'];
  const problems: string[] = [];
  const plain = dimensions.filter((d) => !isCross(d));
  const mapped = new Set<string>();
  mappings.forEach((mapping, i) => {
    const at = `disaggregateBy[${i}]`;
    const dimension = dimensions.find((d) => sameName(d.name, mapping.disaggregation));
    if (!dimension) {
      const names = plain.map((d) => d.name).join(', ');
      problems.push(
        `${at}.disaggregation must be a disaggregation of the indicator` +
          (names ? ` (${names})` : ': it has none'),
      );
    } else if (isCross(dimension)) {
      problems.push(
        `${at}.disaggregation ${dimension.name} is a cross: map the disaggregations it crosses ` +
          `(${dimension.crosses!.join(', ')}), its cells are filled from them`,
      );
    } else if (mapped.has(dimension.name)) {
      problems.push(`disaggregateBy maps ${dimension.name} more than once`);
    } else mapped.add(dimension.name);
    const field = fields.find((f) => f.key === mapping.field);
    if (!field) {
      problems.push(`${at}.field must be the key of a field of the form`);
    } else if (field.type === 'number') {
      if (dimension && !isCross(dimension) && !ageRangesOf(dimension.categories)) {
        problems.push(
          `${at}.field ${field.key} is a number field: ${dimension.name} must be an age disaggregation ` +
            '(categories written a-b or a+ that do not overlap, and unknown)',
        );
      }
    } else if (!BY_NAME.includes(field.type)) {
      problems.push(`${at}.field must be a select, text or number field (${field.key} is ${field.type})`);
    }
    if (dimension && !isCross(dimension)) {
      for (const [answer, category] of Object.entries(mapping.categories ?? {})) {
        if (!dimension.categories.includes(category)) {
          problems.push(
            `${at}.categories.${answer} must be a category of ${dimension.name} ` +
              `(${dimension.categories.join(', ')})`,
          );
        }
      }
    }
  });
  const missing = plain.filter((d) => !mapped.has(d.name)).map((d) => d.name);
  const unknownNames = problems.some((p) => p.includes('.disaggregation '));
  if (missing.length > 0 && !unknownNames) {
    problems.push(
      `disaggregateBy must map every disaggregation of the indicator, since together they add up to ` +
        `its value: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not mapped`,
    );
  }
  return problems;
}

/** The mappings with each disaggregation's name as the indicator spells it (names match without case). */
export function canonicalMappings(
  mappings: readonly DisaggregateBy[],
  dimensions: readonly Dimension[],
): DisaggregateBy[] {
  return mappings.map((mapping) => ({
    ...mapping,
    disaggregation:
      dimensions.find((d) => sameName(d.name, mapping.disaggregation))?.name ?? mapping.disaggregation,
  }));
}

/** The category an answer maps to in one disaggregation, or null. */
function categoryOf(mapping: DisaggregateBy, dimension: Dimension, answer: unknown): string | null {
  if (answer === undefined || answer === null || answer === '') {
    // An unanswered age is an unknown one, where the disaggregation lists it.
    return dimension.categories.includes(UNKNOWN_AGE) && ageRangesOf(dimension.categories)
      ? UNKNOWN_AGE
      : null;
  }
  if (typeof answer !== 'string' && typeof answer !== 'number') return null;
  // Own keys only: an answer such as `constructor` names no inherited property.
  const named =
    mapping.categories && Object.hasOwn(mapping.categories, String(answer))
      ? mapping.categories[String(answer)]
      : undefined;
  if (named !== undefined) return dimension.categories.includes(named) ? named : null;
  if (typeof answer === 'string') return dimension.categories.includes(answer) ? answer : null;
  if (typeof answer === 'number' && Number.isFinite(answer) && answer >= 0) {
    const age = Math.floor(answer);
    return (ageRangesOf(dimension.categories) ?? []).find((r) => r.from <= age && age <= r.to)?.label ?? null;
  }
  return null;
}

/**
 * The cells a submission adds `amount` to: one category of every plain disaggregation of the indicator,
 * and the cell of every cross (its parts' categories joined by `|`, in its order). Null when an answer
 * maps to no category, or a disaggregation has no mapping (added to the indicator since): the
 * disaggregations must add up to the value, so such a submission is not counted (`category_not_mapped`).
 */
export function cellsOf(
  mappings: readonly DisaggregateBy[],
  dimensions: readonly Dimension[],
  answers: Record<string, unknown>,
  amount: number,
): Record<string, number> | null {
  const placed = new Map<string, string>();
  for (const dimension of dimensions.filter((d) => !isCross(d))) {
    const mapping = mappings.find((m) => sameName(m.disaggregation, dimension.name));
    const category = mapping ? categoryOf(mapping, dimension, answerOf(answers, mapping.field)) : null;
    if (category === null) return null;
    placed.set(dimension.name, category);
  }
  const cells: Record<string, number> = {};
  for (const category of placed.values()) cells[category] = amount;
  for (const cross of dimensions.filter(isCross)) {
    const parts = cross.crosses!.map(
      (name) => [...placed].find(([placedName]) => sameName(placedName, name))?.[1],
    );
    if (parts.every((part) => part !== undefined)) cells[cellKey(parts)] = amount;
  }
  return cells;
}
