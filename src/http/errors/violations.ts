import {
  capped,
  type ErrorDetail,
  MAX_PROBLEMS,
  moreProblems,
  type RequestPart,
} from '../../errors/catalogue.js';
import { ruleOfPattern } from '../../lib/patterns.js';
import { CONTROL_PROBLEM } from '../../lib/text.js';

/** Keywords every request string and number gets (validation.ts); their messages are below. */
export const NO_NUL = 'noNul';
export const WELL_FORMED = 'wellFormedText';
export const FINITE = 'finiteNumber';
/** Text of one line: no control character at all; of several (`multiline: true`): tabs and line breaks. */
export const SINGLE_LINE = 'singleLine';
export const MULTI_LINE = 'noControlCharacters';

interface AjvIssue {
  keyword: string;
  instancePath: string;
  /** Set on the problems of an object's keys (`propertyNames`). */
  propertyName?: string;
  params: Record<string, unknown>;
  message?: string;
}

/**
 * One problem per violation, in Ajv's order: its message names the field (`fields.0.key`) the way a
 * form would show it; its path points at it. The same message twice is one problem.
 */
export function violations(err: { validation?: unknown; validationContext?: string }): ErrorDetail[] {
  const issues = (err.validation ?? []) as AjvIssue[];
  const part = PARTS[err.validationContext ?? 'body'] ?? 'body';
  // A nullable field (`anyOf [X, null]`) that fails both branches reports X's problem, not "must be null".
  const otherwiseWrong = new Set(
    issues.filter((i) => !(i.keyword === 'type' && i.params.type === 'null')).map((i) => i.instancePath),
  );
  const shown = issues
    .filter((issue) => !['anyOf', 'oneOf', 'if', 'propertyNames'].includes(issue.keyword))
    .filter(
      (issue) =>
        !(issue.keyword === 'type' && issue.params.type === 'null' && otherwiseWrong.has(issue.instancePath)),
    );
  // Described only up to the cap: the rest are counted, not written (a body can hold 10,000 bad values).
  const problems = new Map<string, ErrorDetail>();
  let rest = 0;
  for (const issue of shown) {
    if (problems.size > MAX_PROBLEMS) {
      rest++;
      continue;
    }
    const message = describe(issue);
    if (!problems.has(message))
      problems.set(message, { in: part, path: pointerOf(issue), rule: issue.keyword, message });
  }
  if (problems.size === 0)
    problems.set('', { in: part, path: '', rule: 'invalid', message: 'Request is not valid' });
  const listed = [...problems.values()];
  return rest === 0
    ? capped(listed, part)
    : [...listed.slice(0, MAX_PROBLEMS), moreProblems(listed.length - MAX_PROBLEMS + rest, part)];
}

export const validationMessages = (err: { validation?: unknown; validationContext?: string }): string[] =>
  violations(err).map((p) => p.message);

/** Fastify's name of a request part, in OpenAPI's words. */
const PARTS: Readonly<Record<string, RequestPart>> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

/** The field a problem is about: a missing or unknown property is pointed at as if it were there. */
function pointerOf({ keyword, instancePath, propertyName, params }: AjvIssue): string {
  const child =
    propertyName ??
    (keyword === 'required' ? (params.missingProperty as string) : undefined) ??
    (keyword === 'additionalProperties' ? (params.additionalProperty as string) : undefined);
  return child === undefined ? instancePath : `${instancePath}/${escapePointer(child)}`;
}

/** RFC 6901: `~` and `/` in a key are written `~0` and `~1`. */
export const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The problem a service names by message alone: when the message starts with a field the request
 * sent (`password must ...`, `fields.0.key ...`), the problem points at it, else at the request.
 */
export function problemOf(message: string, request: { body?: unknown; query?: unknown }): ErrorDetail {
  const field = /^[A-Za-z_$][\w$]*(?:\.[\w$]+)*/.exec(message)?.[0];
  const keys = field?.split('.') ?? [];
  const found =
    keys.length > 0 ? (['body', 'query'] as const).find((part) => holds(request[part], keys)) : undefined;
  return found
    ? {
        in: found,
        path: keys.map((k) => `/${escapePointer(k)}`).join(''),
        rule: 'invalid',
        message,
      }
    : { in: 'body', path: '', rule: 'invalid', message };
}

function holds(value: unknown, keys: readonly string[]): boolean {
  let node = value;
  for (const key of keys) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return true;
}

function describe({ keyword, instancePath, propertyName, params, message }: AjvIssue): string {
  const path = instancePath.replace(/^\//, '').replace(/\//g, '.');
  // A key's problem names the object's keys: `disaggregatedValues keys must not contain NUL characters`.
  const field = propertyName === undefined ? path : [path, 'keys'].filter(Boolean).join(' ');
  const name = (child?: unknown) =>
    [field, child].filter((p) => p !== undefined && p !== '').join('.') || 'body';
  switch (keyword) {
    case 'additionalProperties':
      return `property ${name(params.additionalProperty)} should not exist`;
    case 'required':
      return `${name(params.missingProperty)} is required`;
    case 'type':
      return `${name()} must be ${article(String(params.type))}`;
    case 'format':
      return `${name()} must be ${FORMAT_NAMES[String(params.format)] ?? `a valid ${String(params.format)}`}`;
    case 'notBlank':
      return `${name()} should not be empty`;
    case NO_NUL:
      return `${name()} must not contain NUL characters`;
    case WELL_FORMED:
      return `${name()} must be valid Unicode text`;
    case SINGLE_LINE:
      return `${name()} ${CONTROL_PROBLEM.one}`;
    case MULTI_LINE:
      return `${name()} ${CONTROL_PROBLEM.several}`;
    case FINITE:
      return `${name()} must be a finite number`;
    case 'minLength':
      return Number(params.limit) === 1
        ? `${name()} should not be empty`
        : `${name()} must be at least ${String(params.limit)} characters`;
    case 'maxLength':
      return `${name()} must be at most ${String(params.limit)} characters`;
    case 'minimum':
      return `${name()} must not be less than ${String(params.limit)}`;
    case 'maximum':
      return `${name()} must not be greater than ${String(params.limit)}`;
    case 'enum':
      return `${name()} must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'pattern':
      return `${name()} ${ruleOfPattern(String(params.pattern)) ?? `must match the pattern ${String(params.pattern)}`}`;
    case 'minItems':
      return `${name()} must contain at least ${String(params.limit)} items`;
    case 'maxItems':
      return `${name()} must contain at most ${String(params.limit)} items`;
    case 'maxProperties':
      return `${name()} must have at most ${String(params.limit)} properties`;
    case 'uniqueItems':
      return `${name()} must not contain duplicates`;
    default:
      return `${name()} ${message ?? 'is not valid'}`;
  }
}

const FORMAT_NAMES: Record<string, string> = {
  uuid: 'a UUID',
  email: 'an email',
  date: 'a valid date (YYYY-MM-DD)',
  'date-time': 'a valid ISO 8601 timestamp',
  uri: 'a valid URL',
};

function article(type: string): string {
  const first = type.split(',')[0] ?? type;
  if (first === 'null') return 'null';
  return `${/^[aeiou]/.test(first) ? 'an' : 'a'} ${first}`;
}
