import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { FastifyInstance, FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import { normalizeEmail } from '../../lib/email.js';
import { UUID_PATTERN } from '../../lib/ids.js';
import { hasControl, hasLoneSurrogate, hasNul } from '../../lib/text.js';
import { badRequest, malformedRequest, MAX_PROBLEMS } from '../../errors/catalogue.js';
import { escapePointer, FINITE, MULTI_LINE, NO_NUL, SINGLE_LINE, WELL_FORMED } from '../errors/violations.js';

const shared: Options = {
  allErrors: true,
  removeAdditional: false,
  useDefaults: true,
  strict: false,
  // Fastify and TypeBox keywords that are documentation, not validation; `multiline` is read by `guarded`.
  keywords: ['example', 'multiline'],
};

/** The Ajv the routes validate requests with (also what checks an imported XLSForm as a FormCreate body). */
export function build(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ ...shared, coerceTypes });
  addFormats.default(ajv, { mode: 'full' });
  // ajv-formats' `uuid` also takes a `urn:uuid:` prefix, which PostgreSQL refuses (a path id was a 500).
  ajv.addFormat('uuid', UUID_PATTERN);
  // ISO 8601 has a year 0000; PostgreSQL's dates and timestamps do not (`0000-01-01` was a 500), and an
  // offset can carry `0001-01-01T00:00+14:00` back into it: the day, in UTC, must fall in years 1-9999.
  for (const name of ['date', 'date-time'] as const) {
    const { validate, compare } = fullFormats[name] as { validate: (s: string) => boolean; compare: never };
    ajv.addFormat(name, { validate: (data: string) => validate(data) && inCalendar(data), compare });
  }
  // OpenAPI's `password`: a secret compared, never shown, so any text (a password set before the control
  // character rules still signs in).
  ajv.addFormat('password', () => true);
  // `notBlank: true` on a string schema: spaces alone are as empty as nothing (names, titles).
  ajv.addKeyword({
    keyword: 'notBlank',
    type: 'string',
    schemaType: 'boolean',
    errors: false,
    validate: (enabled: boolean, data: string) => !enabled || data.trim().length > 0,
  });
  // PostgreSQL refuses NUL in text and lone surrogates in jsonb: refused here, named, never a 500.
  // `1e309` parses to Infinity and passes `type: number`. Their messages are in errors.ts.
  const checks: [string, 'string' | 'number', (data: unknown) => boolean][] = [
    [NO_NUL, 'string', (data) => !hasNul(data as string)],
    [WELL_FORMED, 'string', (data) => !hasLoneSurrogate(data as string)],
    [SINGLE_LINE, 'string', (data) => !hasControl(data as string, 'one')],
    [MULTI_LINE, 'string', (data) => !hasControl(data as string, 'several')],
    [FINITE, 'number', (data) => Number.isFinite(data)],
  ];
  for (const [keyword, type, valid] of checks) {
    ajv.addKeyword({
      keyword,
      type,
      schemaType: 'boolean',
      errors: false,
      validate: (_enabled: boolean, data: unknown) => valid(data),
    });
  }
  return ajv;
}

/** Whether a date or date-time (already well formed) falls, in UTC, in years 1 to 9999. */
function inCalendar(data: string): boolean {
  const year = new Date(data.length === 10 ? `${data}T00:00:00Z` : data).getUTCFullYear();
  return year >= 1 && year <= 9999;
}

/** How deep a JSON body may nest arrays and objects: no form, answer or filter comes near it. */
export const MAX_DEPTH = 64;

/** Whether `value` nests deeper than MAX_DEPTH, found without recursion. */
function tooDeep(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > MAX_DEPTH) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node as object)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

const BOUNDARY = /;\s*boundary=(?:"([^"]*)"|([^;\s]*))/i;

/** The keys a free-form object of a request may have at most, unless its schema says otherwise. */
export const MAP_MAX_KEYS = 10_000;

const SUBSCHEMAS = ['additionalProperties', 'items', 'not', 'if', 'then', 'else', 'contains'];
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'];
/** Conditions, not assertions: a control character there would pick a branch instead of being named. */
const CONDITIONS = new Set(['if', 'not']);

/**
 * The control characters a request string may hold, by its own schema: text of several lines says
 * `multiline: true`; every other string is one line, except those a format or a fixed set of values
 * already confines (and `format: password`, any text).
 */
function lineRule(node: Record<string, unknown>): string | null {
  if (node.multiline === true) return MULTI_LINE;
  if (node.format !== undefined || node.enum !== undefined || node.const !== undefined) return null;
  return SINGLE_LINE;
}

/**
 * A copy of a request schema in which every string must be well-formed text without the control
 * characters its kind of text refuses, and every number finite, so that no route can forget it. The
 * route's own schema is left as it is: the OpenAPI document and the serializer read it.
 */
export function guarded(schema: unknown, condition = false): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const node: Record<string, unknown> = { ...(schema as Record<string, unknown>) };
  const types = [node.type].flat();
  if (types.includes('string')) {
    Object.assign(node, { [NO_NUL]: true, [WELL_FORMED]: true });
    const rule = condition ? null : lineRule(node);
    if (rule) node[rule] = true;
  }
  if (types.includes('number') || types.includes('integer')) node[FINITE] = true;
  // The keys of a free-form object (disaggregated values) are text that is stored too.
  if (types.includes('object') || node.properties || node.patternProperties) {
    node.propertyNames = guarded(
      { type: 'string', ...(node.propertyNames as object | undefined) },
      condition,
    );
    // A free-form object (a map) takes at most MAP_MAX_KEYS keys (a closed one: see keyLimits).
    const open = node.additionalProperties !== false || node.patternProperties;
    if (open && node.maxProperties === undefined) node.maxProperties = MAP_MAX_KEYS;
  }
  const sub = (key: string) => (child: unknown) => guarded(child, condition || CONDITIONS.has(key));
  for (const key of SUBSCHEMAS) {
    if (node[key] !== undefined && !Array.isArray(node[key])) node[key] = sub(key)(node[key]);
  }
  for (const key of SUBSCHEMA_LISTS) {
    if (Array.isArray(node[key])) node[key] = (node[key] as unknown[]).map(sub(key));
  }
  for (const key of SUBSCHEMA_MAPS) {
    const map = node[key];
    if (map && typeof map === 'object') {
      node[key] = Object.fromEntries(Object.entries(map).map(([name, child]) => [name, sub(key)(child)]));
    }
  }
  return node;
}

/**
 * Bodies are validated strictly (no coercion: `"5"` is not a number); params and query strings arrive
 * as text, so they are coerced. Unknown properties are reported, never silently dropped.
 */
export function registerValidation(app: FastifyInstance): void {
  // Many clients send `Content-Type: application/json` with no body on action routes (publish, logout):
  // an empty body is "no body", not malformed JSON. Prototype poisoning is still refused.
  const parseJson = app.getDefaultJsonParser('error', 'remove');
  app.removeContentTypeParser('application/json');
  // Only JSON is accepted (multipart is added by the routes that take files); anything else is a 415.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    void parseJson(request, text, (err, value) => {
      // Refused before anything walks it recursively (the Idempotency-Key digest overflowed the stack on a
      // 100,000-deep array: a 500; issue 36, finding 10).
      if (!err && tooDeep(value)) {
        done(
          badRequest({
            path: '',
            rule: 'maxDepth',
            message: `body must not nest arrays and objects more than ${MAX_DEPTH} levels deep`,
          }),
          undefined,
        );
        return;
      }
      done(err, value);
    });
  });

  // A multipart boundary is 1 to 70 characters (RFC 2046); busboy threw on one over 256 (a 500).
  app.addHook('preValidation', async (request) => {
    const type = request.headers['content-type'];
    if (type === undefined || !/^\s*multipart\//i.test(type)) return;
    const boundary = BOUNDARY.exec(type);
    const length = (boundary?.[1] ?? boundary?.[2] ?? '').length;
    if (length < 1 || length > 70) {
      throw malformedRequest('A multipart body needs a boundary of 1 to 70 characters', 'multipart');
    }
  });

  const strict = build(false);
  const coercing = build(true);
  // One validator per distinct schema: 301 route parts share 84 schemas (an org and an id in the path
  // on most routes), and Ajv caches by object, not by content.
  const compiled = new Map<string, ValidateFunction>();
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    const checked = guarded(schema) as object;
    const key = `${httpPart === 'body' ? 'strict' : 'coercing'}:${JSON.stringify(checked)}`;
    let validate = compiled.get(key);
    if (!validate) {
      validate = bounded(ajv.compile(checked), keyLimits(checked));
      compiled.set(key, validate);
    }
    return validate;
  });
}

/**
 * How many keys an object may have (`max`, as its problem says) and past how many the object is refused
 * by one count before Ajv runs (`over`): a closed object's declared properties plus MAX_PROBLEMS (so that a
 * few unknown keys are still each named), a map's maxProperties; and the same of its properties.
 */
interface KeyLimits {
  max: number;
  over: number;
  properties: Record<string, KeyLimits>;
  /** An array's maxItems: a longer one is refused before Ajv visits each item. */
  maxItems?: number;
}

function keyLimits(schema: unknown): KeyLimits | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const node = schema as {
    maxProperties?: number;
    maxItems?: number;
    properties?: Record<string, unknown>;
    additionalProperties?: unknown;
  };
  if (node.maxItems !== undefined)
    return { max: node.maxItems, over: node.maxItems, properties: {}, maxItems: node.maxItems };
  const declared = Object.keys(node.properties ?? {}).length;
  const limit =
    node.maxProperties !== undefined
      ? { max: node.maxProperties, over: node.maxProperties }
      : node.additionalProperties === false
        ? { max: declared, over: declared + MAX_PROBLEMS }
        : undefined;
  if (!limit) return undefined;
  const properties: Record<string, KeyLimits> = {};
  for (const [name, sub] of Object.entries(node.properties ?? {})) {
    const limits = keyLimits(sub);
    if (limits) properties[name] = limits;
  }
  return { ...limit, properties };
}

/** The first object (by JSON Pointer) with more keys than its limit, counted before anything else is checked. */
function overLimit(
  data: unknown,
  limits: KeyLimits,
  at: string,
): { at: string; max: number; keyword: 'maxProperties' | 'maxItems' } | null {
  if (Array.isArray(data)) {
    const max = limits.maxItems;
    return max !== undefined && data.length > max ? { at, max, keyword: 'maxItems' } : null;
  }
  if (typeof data !== 'object' || data === null) return null;
  let keys = 0;
  for (const name in data) {
    if (Object.hasOwn(data, name) && ++keys > limits.over)
      return { at, max: limits.max, keyword: 'maxProperties' };
  }
  for (const [name, sub] of Object.entries(limits.properties)) {
    const child = Object.hasOwn(data, name) ? (data as Record<string, unknown>)[name] : undefined;
    const over = overLimit(child, sub, `${at}/${escapePointer(name)}`);
    if (over) return over;
  }
  return null;
}

/**
 * Ajv with `allErrors` makes a problem for every unknown key and every bad item: a 1 MiB body made
 * 110,000 of them and a 16 MB answer in seconds of the only thread (issue 36, finding 1). An object over
 * its key limit is refused by one count first; what Ajv still reports is cut to the first MAX_PROBLEMS.
 */
function bounded(validate: ValidateFunction, limits: KeyLimits | undefined): ValidateFunction {
  const check = ((data: unknown) => {
    const over = limits ? overLimit(data, limits, '') : null;
    if (over) {
      check.errors = [
        {
          keyword: over.keyword,
          instancePath: over.at,
          schemaPath: '',
          params: { limit: over.max },
          message: `must NOT have more than ${over.max} ${over.keyword === 'maxItems' ? 'items' : 'properties'}`,
        },
      ];
      return false;
    }
    const valid = validate(data);
    check.errors = validate.errors ?? null;
    return valid;
  }) as ValidateFunction;
  return check;
}

/**
 * For routes whose body is optional as a whole (an approval with an optional comment): no body at all
 * is an empty object, so the schema's own rules apply to what was sent.
 */
export const optionalBody = async (request: FastifyRequest): Promise<void> => {
  request.body ??= {};
};

/** Emails are trimmed and lower-cased before they are validated (DECISIONS.md section 3). */
export const normalizeEmailField: preValidationAsyncHookHandler = async (request) => {
  const body = request.body as { email?: unknown } | null | undefined;
  if (body && typeof body === 'object' && typeof body.email === 'string') {
    body.email = normalizeEmail(body.email);
  }
};
