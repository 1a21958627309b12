import { MAX_PROBLEMS } from '../../errors/catalogue.js';
import { textProblem } from '../../lib/text.js';
import {
  cachedParser,
  evaluate,
  toBoolean,
  toText,
  type ExpressionNode,
} from '../../lib/form-expressions.js';
import { patternMatches } from '../../lib/form-regex.js';
import {
  isShown,
  MAX_REPEAT_COUNT,
  names,
  placeFields,
  PLACE_MAX,
  TEXT_MAX,
  topLevelFields,
  type FormField,
  type Location,
  type PlacedField,
  answerOf,
} from './form-fields.js';

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
      if (typeof value !== 'number' || !Number.isFinite(value)) return [`${at} must be a number`];
      return field.integer && !Number.isInteger(value) ? [`${at} must be a whole number`] : [];
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
    case 'calculate':
      return [`${at} is calculated, not answered`];
    case 'note':
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

const parse = cachedParser(2000);

/** The tree of a stored form's expression; null when it does not parse (the form's rules refuse that). */
function treeOf(text: string | undefined): ExpressionNode | null {
  if (text === undefined) return null;
  try {
    return parse(text);
  } catch {
    return null;
  }
}

/**
 * The answers an expression sees, innermost first: the entry being checked, the entries holding it, then
 * the top level. A field inside a repeat seen from outside its entries gives the list of its answers
 * in every entry (count() and sum() read it).
 */
interface Scope {
  answers: Record<string, unknown>;
  /** The repeat whose entry this is (null at the top level), and the scope holding it. */
  repeat: string | null;
  outer: Scope | null;
}

/** The chain from the top level to `scope`. */
function chain(scope: Scope): Scope[] {
  const list: Scope[] = [];
  for (let s: Scope | null = scope; s; s = s.outer) list.unshift(s);
  return list;
}

/**
 * Every answer to `name` under the entries of `repeats` (keys, outermost first) reached from `answers`;
 * the entries themselves when `name` is a repeat. Unanswered ones are left out.
 */
function gather(
  answers: Record<string, unknown>,
  repeats: string[],
  name: string,
  repeat: boolean,
): unknown[] {
  if (repeats.length === 0) {
    const value = answerOf(answers, name);
    if (repeat) return Array.isArray(value) ? value : [];
    return value === undefined ? [] : [value];
  }
  const [first, ...rest] = repeats;
  const entries = answerOf(answers, first!);
  return Array.isArray(entries)
    ? entries.filter(isObject).flatMap((entry) => gather(entry, rest, name, repeat))
    : [];
}

/** How many repeats, outermost first, `scope` and the field `target` are both inside. */
function commonDepth(scope: Scope, target: PlacedField): number {
  const path = chain(scope)
    .slice(1)
    .map((level) => level.repeat!);
  let common = 0;
  while (common < target.repeats.length && path[common] === target.repeats[common]) common += 1;
  return common;
}

function valueIn(scope: Scope, placed: Map<string, PlacedField>, name: string): unknown {
  const target = placed.get(name);
  if (!target) return undefined;
  const common = commonDepth(scope, target);
  const level = chain(scope)[common]!;
  if (common === target.repeats.length) return answerOf(level.answers, name);
  return gather(level.answers, target.repeats.slice(common), name, target.field.type === 'repeat');
}

/** How a submission is checked: the form's places, today's date, where the problems go. */
interface Check {
  placed: Map<string, PlacedField>;
  today: string;
  problems: string[];
  /** Entries of every repeat at every depth met so far: MAX_ENTRIES bounds a submission's work. */
  entries: number;
  /**
   * What a field inside a repeat gives seen from outside it, by the level's answers: gathered once. A
   * reference names an earlier field, so that repeat is complete when it is read.
   */
  gathered: WeakMap<Record<string, unknown>, Map<string, unknown>>;
}

/**
 * Entries of all repeats together, at every depth, that one submission may hold: without it, repeats
 * nested in repeats (500 entries each) and expressions reading a sibling repeat from every entry made a
 * 760 KB body cost the one thread 45 s (issue 41's review).
 */
export const MAX_ENTRIES = 2000;

const newCheck = (placed: Map<string, PlacedField>, today: string, problems: string[] = []): Check => ({
  placed,
  today,
  problems,
  entries: 0,
  gathered: new WeakMap(),
});

/** valueIn, remembering what it gathered from outside the entries being checked. */
function lookUp(check: Check, scope: Scope, name: string): unknown {
  const target = check.placed.get(name);
  if (!target || target.repeats.length === 0) return valueIn(scope, check.placed, name);
  const level = chain(scope)[commonDepth(scope, target)]!;
  if (commonDepth(scope, target) === target.repeats.length) return answerOf(level.answers, name);
  let known = check.gathered.get(level.answers);
  if (!known) check.gathered.set(level.answers, (known = new Map<string, unknown>()));
  if (!known.has(name)) known.set(name, valueIn(scope, check.placed, name));
  return known.get(name);
}

const contextOf = (check: Check, scope: Scope, self?: { key: string; value: unknown }) => ({
  value: (name: string) => (self && name === self.key ? self.value : lookUp(check, scope, name)),
  self: self?.value,
  today: () => check.today,
  matches: patternMatches,
});

/** Evaluates a stored form's expression; a tree that cannot be evaluated gives `fallback`. */
function run(tree: ExpressionNode, context: ReturnType<typeof contextOf>, fallback: unknown): unknown {
  try {
    return evaluate(tree, context);
  } catch {
    return fallback;
  }
}

/** What a calculate field stores: a finite number, else a non-empty text (cut at 20,000 characters). */
function calculated(result: unknown): unknown {
  if (typeof result === 'number') return Number.isFinite(result) ? result : undefined;
  const text = toText(result);
  return text === '' ? undefined : text.slice(0, TEXT_MAX.textarea);
}

/** Why a field is not asked: hidden by showIf (its answer is dropped), or not relevant (refused). */
type Hidden = 'showIf' | 'relevant' | null;

/**
 * Checks the answers of `fields` (a level: the top one, or one repeat entry) given in `given`, keeping
 * the good ones in `scope.answers`; `hidden` is why an enclosing group is not asked.
 */
function checkLevel(
  check: Check,
  fields: FormField[],
  given: Record<string, unknown>,
  scope: Scope,
  at: string,
  hidden: Hidden,
  files: { keys: string[]; kept: string[] },
): void {
  const { problems } = check;
  for (const field of fields) {
    if (problems.length > MAX_PROBLEMS) return;
    const path = `${at}.${field.key}`;
    let why: Hidden = hidden;
    if (why === null && !shown(check, scope, field)) why = 'showIf';
    if (why === null) {
      const relevant = treeOf(field.relevant);
      if (relevant && !toBoolean(run(relevant, contextOf(check, scope), true))) why = 'relevant';
    }
    const value = answerOf(given, field.key);
    if (field.type === 'group') {
      if (!isBlank(value)) problems.push(...answerProblem(field, value, path));
      checkLevel(check, field.fields ?? [], given, scope, at, why, files);
      continue;
    }
    if (field.type === 'file') {
      const sent = !isBlank(value) || files.keys.includes(field.key);
      if (why === 'relevant' && sent) problems.push(notAsked(path));
      if (why !== null) continue;
      if (!isBlank(value)) problems.push(...answerProblem(field, value, path));
      else if (files.keys.includes(field.key)) files.kept.push(field.key);
      else if (field.required) problems.push(`${path} is required`);
      continue;
    }
    if (field.type === 'calculate' || field.type === 'note') {
      if (!isBlank(value)) problems.push(...answerProblem(field, value, path));
      const calculation = treeOf(field.calculation);
      if (why === null && field.type === 'calculate' && calculation) {
        const result = calculated(run(calculation, contextOf(check, scope), undefined));
        if (result !== undefined) scope.answers[field.key] = result;
      }
      continue;
    }
    if (why !== null) {
      if (why === 'relevant' && !isBlank(value)) problems.push(notAsked(path));
      continue;
    }
    if (field.type === 'repeat') {
      checkRepeat(check, field, value, scope, path, files);
      continue;
    }
    if (isBlank(value)) {
      if (field.required) problems.push(`${path} is required`);
      continue;
    }
    const found = answerProblem(field, value, path);
    problems.push(...found);
    if (found.length > 0) continue;
    const constraint = treeOf(field.constraint);
    const self = { key: field.key, value };
    if (constraint && !toBoolean(run(constraint, contextOf(check, scope, self), true))) {
      problems.push(
        field.constraintMessage !== undefined
          ? `${path}: ${field.constraintMessage}`
          : `${path} does not satisfy its constraint`,
      );
      continue;
    }
    scope.answers[field.key] = value;
  }
}

const notAsked = (path: string) => `${path} is not asked: its relevant condition is false`;

/** Whether `showIf` shows the field: the answer it names, of the same entry or an outer one, kept so far. */
function shown(check: Check, scope: Scope, field: FormField): boolean {
  if (!field.showIf) return true;
  const name = field.showIf.field;
  return isShown(field, { [name]: valueIn(scope, check.placed, name) });
}

/** A repeat's answer: a list of entries, each an object of its fields' answers, as many as allowed. */
function checkRepeat(
  check: Check,
  field: FormField,
  value: unknown,
  scope: Scope,
  path: string,
  files: { keys: string[]; kept: string[] },
): void {
  const { problems } = check;
  const min = field.minCount ?? 0;
  const max = field.maxCount ?? MAX_REPEAT_COUNT;
  if (!isBlank(value) && !Array.isArray(value)) {
    problems.push(`${path} must be a list of entries, each an object of its fields' answers`);
    return;
  }
  const entries = (value ?? []) as unknown[];
  if (entries.length > max) {
    problems.push(`${path} must have at most ${max} entries`);
    return;
  }
  if (entries.length < min) problems.push(`${path} must have at least ${min} entries`);
  check.entries += entries.length;
  if (check.entries > MAX_ENTRIES) {
    problems.push(`answers must hold at most ${MAX_ENTRIES} repeat entries in all, at every depth`);
    return;
  }
  const fields = field.fields ?? [];
  const known = new Set(topLevelFields(fields).map((inner) => inner.key));
  const kept: Record<string, unknown>[] = [];
  entries.forEach((entry, index) => {
    if (problems.length > MAX_PROBLEMS) return;
    const at = `${path}.${index}`;
    if (!isObject(entry)) {
      problems.push(`${at} must be an object of the repeat's answers`);
      return;
    }
    problems.push(
      ...unknownKeys(entry, (key) => known.has(key), `${at}.`, ` is not a field of the repeat ${field.key}`),
    );
    const inner: Scope = { answers: {}, repeat: field.key, outer: scope };
    checkLevel(check, fields, entry, inner, at, null, files);
    kept.push(inner.answers);
  });
  scope.answers[field.key] = kept;
}

/**
 * Checks a respondent's submission against the form (DECISIONS.md section 10, extended by issue 41) and
 * returns what is kept. Fields are visited in order, groups' fields as top-level answers, a repeat's
 * entries each in turn. A field hidden by `showIf` is neither required nor kept, and its answer (or
 * file) is dropped; a field whose `relevant` is false is neither required nor kept, and an answer sent
 * to it is refused. Constraints are checked with `.` the answer, calculations computed and stored.
 * Every problem is reported, one message each (MAX_PROBLEMS and one more at most from the answers).
 * `fileKeys` are the parts of a multipart body that carried a file; `fileProblems` what was already
 * wrong with them; `today` the submission's date (UTC) for today().
 */
export function checkSubmission(
  fields: FormField[],
  body: unknown,
  fileKeys: string[] = [],
  fileProblems: string[] = [],
  today = new Date().toISOString().slice(0, 10),
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
  const placed = placeFields(fields);
  const level = topLevelFields(fields);
  const byKey = new Set(level.map((field) => field.key));
  if (Object.keys(given).length > level.length + MAX_PROBLEMS) {
    problems.push(`answers must have at most ${level.length} properties (one per field of this form)`);
  } else {
    problems.push(
      ...unknownKeys(given, (key) => byKey.has(key), 'answers.', ' is not a field of this form').map(
        (problem) => {
          const key = problem.slice('answers.'.length, -' is not a field of this form'.length);
          const repeat = placed.get(key)?.repeats.at(-1);
          return repeat ? `answers.${key} belongs to the repeat ${repeat}: send it in its entries` : problem;
        },
      ),
    );
  }
  for (const key of fileKeys) {
    if (!byKey.has(key)) problems.push(`answers.${key} is not a field of this form`);
  }
  const scope: Scope = { answers: {}, repeat: null, outer: null };
  const files = { keys: fileKeys, kept: [] as string[] };
  checkLevel(newCheck(placed, today, problems), fields, given, scope, 'answers', null, files);
  problems.push(...fileProblems);
  return problems.length > 0
    ? { problems: [...new Set(problems)] }
    : { submission: { answers: scope.answers, location, files: files.kept }, problems };
}

/**
 * Evaluates expressions over one entry of a top-level repeat, as checkSubmission does (the entry's
 * answers first, then the top-level ones): what counting a repeat's entries (countWhere) needs. A text
 * that does not parse holds for no entry.
 */
export function entryEvaluator(fields: FormField[], today: string) {
  const check = newCheck(placeFields(fields), today);
  return (
    text: string,
    answers: Record<string, unknown>,
    repeat: string,
    entry: Record<string, unknown>,
  ): boolean => {
    const tree = treeOf(text);
    if (!tree) return false;
    const top: Scope = { answers, repeat: null, outer: null };
    return toBoolean(run(tree, contextOf(check, { answers: entry, repeat, outer: top }), false));
  };
}
