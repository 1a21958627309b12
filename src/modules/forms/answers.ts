import { MAX_PROBLEMS } from '../../errors/catalogue.js';
import { textProblem } from '../../lib/text.js';
import { isShown, names, PLACE_MAX, TEXT_MAX, type FormField, type Location } from './form-fields.js';

// The limits are field rules (form-fields.ts); pages/form-page.ts reads them here.
export { PLACE_MAX, TEXT_MAX };
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export interface Submission {
  /** Answers of the shown fields, files excepted. */
  answers: Record<string, unknown>;
  location: Location | null;
  /** Keys of the shown file fields that got a file. */
  files: string[];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** No answer: absent, null, an empty string or an empty list (what an untouched input sends). */
const isBlank = (value: unknown) =>
  value === undefined ||
  value === null ||
  (typeof value === 'string' && value.trim() === '') ||
  (Array.isArray(value) && value.length === 0);

function isRealDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

/** Problems with coordinates `{ lat, lng, accuracy? }`, each named under `at`. */
export function coordinateProblems(value: Record<string, unknown>, at: string): string[] {
  const problems: string[] = [];
  const inRange = (name: string, min: number, max: number, required = true) => {
    const n = value[name];
    if (n === undefined) {
      if (required) problems.push(`${at}.${name} is required`);
    } else if (typeof n !== 'number' || !Number.isFinite(n)) problems.push(`${at}.${name} must be a number`);
    else if (n < min || n > max) problems.push(`${at}.${name} must be between ${min} and ${max}`);
  };
  inRange('lat', -90, 90);
  inRange('lng', -180, 180);
  inRange('accuracy', 0, Number.MAX_VALUE, false);
  problems.push(
    ...unknownKeys(value, (name) => ['lat', 'lng', 'accuracy'].includes(name), `property ${at}.`),
  );
  return problems;
}

/** A respondent's words keep their tabs and line breaks (a place name too): nothing they type is lost. */
const textProblems = (text: string, at: string): string[] => {
  const problem = textProblem(text, 'several');
  return problem ? [`${at} ${problem}`] : [];
};

/** The problem with one answer, or null; `at` names it (`answers.age`). */
function answerProblem(field: FormField, value: unknown, at: string): string[] {
  switch (field.type) {
    case 'text':
    case 'textarea': {
      if (typeof value !== 'string') return [`${at} must be a string`];
      const max = TEXT_MAX[field.type];
      if (value.length > max) return [`${at} must be at most ${max} characters`];
      return textProblems(value, at);
    }
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? [] : [`${at} must be a number`];
    case 'select':
      return typeof value === 'string' && names(field).includes(value)
        ? []
        : [`${at} must be one of ${names(field).join(', ')}`];
    case 'multi_select': {
      if (!Array.isArray(value) || value.some((item) => !names(field).includes(item as string))) {
        return [`${at} must be a list of options from ${names(field).join(', ')}`];
      }
      return new Set(value).size === value.length ? [] : [`${at} must not contain duplicates`];
    }
    case 'date':
      return typeof value === 'string' && isRealDate(value)
        ? []
        : [`${at} must be a valid date (YYYY-MM-DD)`];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${at} must be a boolean`];
    case 'location':
      if (typeof value === 'string') {
        return value.length > PLACE_MAX
          ? [`${at} must be at most ${PLACE_MAX} characters`]
          : textProblems(value, at);
      }
      return isObject(value)
        ? coordinateProblems(value, at)
        : [`${at} must be coordinates { lat, lng } or the name of a place`];
    case 'file':
      return [`${at} must be sent as a file part of a multipart/form-data body`];
    case 'note':
    case 'calculate':
    case 'group':
    case 'repeat':
      return [`${at} is not answered`];
  }
}

/** The problems of the keys `known` refuses, the first MAX_PROBLEMS + 1 of them (a 400 lists no more). */
function unknownKeys(
  value: Record<string, unknown>,
  known: (key: string) => boolean,
  before: string,
  after = ' should not exist',
): string[] {
  const problems: string[] = [];
  for (const key in value) {
    if (!Object.hasOwn(value, key) || known(key)) continue;
    problems.push(`${before}${key}${after}`);
    if (problems.length > MAX_PROBLEMS) break;
  }
  return problems;
}

/**
 * Checks a respondent's submission against the form (DECISIONS.md section 10) and returns what is kept.
 * Fields are visited in order; a field hidden by `showIf` is neither required nor kept, and its answer
 * (or file) is dropped. Every problem is reported, one message each. `fileKeys` are the parts of a
 * multipart body that carried a file; `fileProblems` what was already wrong with them.
 */
export function checkSubmission(
  fields: FormField[],
  body: unknown,
  fileKeys: string[] = [],
  fileProblems: string[] = [],
): { submission?: Submission; problems: string[] } {
  const problems: string[] = [];
  if (!isObject(body)) return { problems: ['body must be an object'] };
  const unknown = unknownKeys(body, (name) => name === 'answers' || name === 'location', 'property ');
  // Past the cap the keys are counted, not named (a body may hold 110,000 of them: issue 36, finding 1).
  problems.push(...(unknown.length > MAX_PROBLEMS ? ['body must have at most 2 properties'] : unknown));
  let location: Location | null = null;
  if (body.location !== undefined && body.location !== null) {
    if (!isObject(body.location)) problems.push('location must be an object');
    else {
      const found = coordinateProblems(body.location, 'location');
      problems.push(...found);
      if (found.length === 0) location = body.location as unknown as Location;
    }
  }
  if (body.answers === undefined) problems.push('answers is required');
  else if (!isObject(body.answers)) problems.push('answers must be an object');
  const given = isObject(body.answers) ? body.answers : {};
  const byKey = new Set(fields.map((field) => field.key));
  if (Object.keys(given).length > fields.length + MAX_PROBLEMS) {
    problems.push(`answers must have at most ${fields.length} properties (one per field of this form)`);
  } else {
    problems.push(...unknownKeys(given, (key) => byKey.has(key), 'answers.', ' is not a field of this form'));
  }
  for (const key of fileKeys) {
    if (!byKey.has(key)) problems.push(`answers.${key} is not a field of this form`);
  }

  const answers: Record<string, unknown> = {};
  const files: string[] = [];
  for (const field of fields) {
    if (!isShown(field, answers)) continue;
    const at = `answers.${field.key}`;
    if (field.type === 'file') {
      if (!isBlank(given[field.key])) problems.push(...answerProblem(field, given[field.key], at));
      else if (fileKeys.includes(field.key)) files.push(field.key);
      else if (field.required) problems.push(`${at} is required`);
      continue;
    }
    const value = given[field.key];
    if (isBlank(value)) {
      if (field.required) problems.push(`${at} is required`);
      continue;
    }
    const found = answerProblem(field, value, at);
    if (found.length === 0) answers[field.key] = value;
    problems.push(...found);
  }
  problems.push(...fileProblems);
  return problems.length > 0
    ? { problems: [...new Set(problems)] }
    : { submission: { answers, location, files }, problems };
}
