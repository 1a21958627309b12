/**
 * Schema-violating requests for every route (issue 10, suite 3), generated with fast-check from a fixed
 * seed: wrong types, missing and unknown fields, huge strings, deep nesting, prototype keys, lone
 * surrogates, numbers JSON cannot hold, garbage in path parameters and queries. And, since issue 20:
 * NUL and lone surrogates in every string of a valid body, `1e309`/`-1e309` as raw JSON in every number,
 * valid shapes with extreme values (sums that overflow a double among them), adversarial query strings,
 * repeated and bracketed query keys. Since issue 36: bodies of thousands of unknown keys, and multipart
 * content types whose boundary is too long or missing. Used by fuzz.test.ts and `npm run fuzz -- --requests N`.
 */
import { STATUS_CODES } from 'node:http';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { FORBIDDEN_REASONS } from '../../src/errors/catalogue.js';
import { ERROR_CODES } from '../../src/errors/codes.js';
import { ORG_ROLES } from '../../src/http/pipeline/access.js';
import { JSON_POINTER } from './http.js';
import type { TestUser } from './factories.js';
import { answers } from './forms.js';
import { BODIES, pathFor, routeName, type Ids, type Route } from './route-calls.js';

export interface FuzzRequest {
  method: string;
  url: string;
  payload?: string;
  contentType?: string;
  as: 'admin' | 'nobody';
}

/** Raw JSON texts a parser or validator may choke on. */
const NASTY_TEXT = [
  '1e309',
  '-1e309',
  '-0',
  '1e-400',
  '123456789012345678901234567890',
  '"\\ud800"',
  '{"name":"\\udfff\\u0000"}',
  '{"__proto__":{"role":"org_admin"}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"a":1,"a":2}',
  '[]',
  'null',
  'true',
  '"text"',
  '{',
  '{"unterminated":"',
  '\u0000',
];

const deep = fc.integer({ min: 20, max: 3000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`);
const deepObject = fc.integer({ min: 20, max: 1000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`);
const huge = fc.integer({ min: 1_000, max: 200_000 }).map((n) => JSON.stringify({ name: 'x'.repeat(n) }));
/** Many unknown keys, at the top or in the answers (issue 36: one problem each was a 16 MB 400). */
const keysOf = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
const manyKeys = fc
  .tuple(fc.integer({ min: 30, max: 20_000 }), fc.boolean())
  .map(([n, inAnswers]) => JSON.stringify(inAnswers ? { answers: keysOf(n) } : keysOf(n)));
/** Multipart content types with a boundary busboy cannot take (over 256 characters: a 500 once) or none. */
const MULTIPART_TYPES = [
  `multipart/form-data; boundary=${'b'.repeat(300)}`,
  `multipart/form-data; boundary="${'q'.repeat(257)}"`,
  'multipart/form-data',
  'multipart/form-data; boundary=',
];
/** Any JSON value, and the values JSON.stringify cannot make. */
const oddValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom('', ' ', '\u0000', '\ud800', 'x'.repeat(5000), '-0', '1e309', 'NaN', 'null'),
  fc.constantFrom(-0, 0, -1, 2 ** 53, 1e300, -1e300, 0.1, Number.MIN_VALUE),
  fc.constantFrom(true, false, null),
);
const KEYS = ['__proto__', 'constructor', 'prototype', 'id', 'orgId', 'role', 'name', 'unknownField'];

type Path = (string | number)[];

/** The paths of the strings and numbers inside a valid body (`participants.0.firstName`). */
function leaves(value: unknown, path: Path = []): { path: Path; kind: 'string' | 'number' }[] {
  if (typeof value === 'string') return [{ path, kind: 'string' }];
  if (typeof value === 'number') return [{ path, kind: 'number' }];
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, child]) =>
      leaves(child, [...path, Array.isArray(value) ? Number(key) : key]),
    );
  }
  return [];
}

function withLeaf(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<
    string | number,
    unknown
  >;
  copy[head!] = withLeaf(copy[head!], rest, replacement);
  return copy;
}

/** Stands for a raw number JSON.stringify cannot write; replaced in the text. */
const RAW = '\u2063raw\u2063';
const HUGE = ['1e309', '-1e309', '1e400', '-2e308'];

const BAD_TEXT = ['a\u0000b', '\u0000', 'x\ud800', '\udfff', 'a\udc00\ud800b', `${'é'.repeat(100)}\u0000`];
/** Of the right type, and as far from ordinary as such a value goes. */
const EXTREME_NUMBERS = [
  1e308,
  -1e308,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  2 ** 53 + 1,
  -0,
];
const EXTREME_TEXT = [
  'x'.repeat(2000),
  'x'.repeat(20_001),
  '\u202e\u0645\u0631\u062d\u0628\u0627',
  '😀'.repeat(500),
  '0001-01-01',
  '0000-01-01',
  '0001-01-01T00:00:00+14:00',
  '9999-12-31',
  '2026-02-30',
  ' ',
  '=HYPERLINK("http://evil.example")',
];

/**
 * A valid body with one string or number inside it swapped: NUL or a lone surrogate for a string, a
 * number no double holds written as raw JSON, or an extreme value of the right type. Several numbers
 * set to 1e308 at once make sums (disaggregated values, totals) overflow.
 */
function leafAttack(valid: unknown) {
  const found = leaves(valid);
  if (found.length === 0) return null;
  // A hostile key beside the valid ones: free-form objects (disaggregated values) store their keys.
  const inner = found.filter((leaf) => leaf.path.length > 1);
  const key = inner.length
    ? fc
        .constantFrom(...inner)
        .chain(({ path }) =>
          fc
            .constantFrom(...BAD_TEXT)
            .map((bad) => JSON.stringify(withLeaf(valid, [...path.slice(0, -1), bad], 1))),
        )
    : null;
  const one = fc.constantFrom(...found).chain(({ path, kind }) =>
    kind === 'string'
      ? fc
          .constantFrom(...BAD_TEXT, ...EXTREME_TEXT)
          .map((text) => JSON.stringify(withLeaf(valid, path, text)))
      : fc.oneof(
          fc
            .constantFrom(...HUGE)
            .map((raw) => JSON.stringify(withLeaf(valid, path, RAW)).replace(`"${RAW}"`, raw)),
          fc.constantFrom(...EXTREME_NUMBERS).map((n) => JSON.stringify(withLeaf(valid, path, n))),
        ),
  );
  const numbers = found.filter((leaf) => leaf.kind === 'number');
  const overflow = fc.constant(
    JSON.stringify(numbers.reduce((body, leaf) => withLeaf(body, leaf.path, 1e308), valid)),
  );
  return fc.oneof(
    { weight: 4, arbitrary: one },
    ...(numbers.length > 0 ? [{ weight: 1, arbitrary: overflow }] : []),
    ...(key ? [{ weight: 1, arbitrary: key }] : []),
  );
}

/** A valid body with one field changed, dropped or added, or a raw text that is no body at all. */
function bodyFor(valid: unknown) {
  const fields = valid && typeof valid === 'object' ? Object.keys(valid) : [];
  const mutated = fc
    .tuple(fc.constantFrom(...(fields.length ? fields : KEYS), ...KEYS), oddValue, fc.boolean())
    .map(([key, value, drop]) => {
      const body = { ...(valid as Record<string, unknown>) };
      if (drop) delete body[key];
      else if (key !== '__proto__') body[key] = value;
      if (key !== '__proto__') return JSON.stringify(body);
      // JSON.stringify drops a __proto__ key: written by hand, as an attacker would send it.
      const rest = JSON.stringify(body).slice(1);
      return `{"__proto__":${JSON.stringify(value) ?? 'null'}${rest === '}' ? '' : ','}${rest}`;
    });
  const leaf = leafAttack(valid);
  return fc.oneof(
    ...(leaf ? [{ weight: 6, arbitrary: leaf }] : []),
    { weight: 5, arbitrary: mutated },
    { weight: 2, arbitrary: fc.constantFrom(...NASTY_TEXT) },
    { weight: 1, arbitrary: deep },
    { weight: 1, arbitrary: deepObject },
    { weight: 1, arbitrary: huge },
    { weight: 1, arbitrary: manyKeys },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null') },
  );
}

const garbageSegment = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '..',
    '%00',
    '%E0%A4%A',
    'null',
    '-1',
    '1e309',
    'x'.repeat(3000),
    '00000000-0000-0000-0000-000000000000',
  ),
);
const QUERY_NAMES = [
  'page',
  'pageSize',
  'status',
  'projectId',
  'search',
  'from',
  'to',
  'type',
  'resultNodeId',
  'sort',
];
const queryPairs = fc
  .array(
    fc.tuple(
      fc.constantFrom(...QUERY_NAMES, 'limit', 'token', 'code', '__proto__'),
      fc.oneof(
        fc.string({ maxLength: 30 }),
        fc.constantFrom(
          '1e309',
          '-1e309',
          'Infinity',
          'NaN',
          '-0',
          '-1',
          '0',
          '99999999999999999999',
          '%',
          '[]',
        ),
        fc.constantFrom('a\u0000b', 'x'.repeat(3000)),
      ),
    ),
    { maxLength: 3 },
  )
  .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));
/** Query strings written by hand: what a regular expression might choke on, keys twice, keys with brackets. */
const rawQuery = fc.constantFrom(
  `?${'?token'.repeat(2650)}`,
  `token=${'%3Ftoken'.repeat(3000)}`,
  `${'a=&'.repeat(5000)}code=x`,
  'page=1&page=2',
  'limit=5&limit=500&limit=20',
  'page[]=1',
  'status[]=on_track&status[]=off_track',
  'projectId[x]=1',
  'search[$gt]=&search=a',
  'token[]=a&token=b',
  '__proto__[role]=org_admin',
  'search=%ED%A0%80',
  'search=%00',
  'page=%00',
  '&&&=&=',
);
const query = fc.oneof({ weight: 4, arbitrary: queryPairs }, { weight: 1, arbitrary: rawQuery });

let signIns = 0;
/** Valid bodies of public routes, so that their mutations get as far as the database. */
const PUBLIC_BODIES: Record<string, () => unknown> = {
  'POST /forms/public/:token/submit': () => ({ answers: answers(), location: { lat: 1.5, lng: 36.8 } }),
  'POST /auth/register': () => ({
    email: 'fuzz@example.org',
    password: 'correct horse battery',
    firstName: 'Fuzz',
    lastName: 'Tester',
  }),
  // A new account each time: failed sign-ins of one account are slowed down (finding 9), by design.
  'POST /auth/login': () => ({
    email: `fuzz-${(signIns += 1)}@example.org`,
    password: 'correct horse battery',
  }),
  'POST /auth/forgot-password': () => ({ email: 'fuzz@example.org' }),
  'POST /auth/reset-password': () => ({ token: 'x'.repeat(43), password: 'correct horse battery' }),
  'POST /auth/verify-email': () => ({ token: 'x'.repeat(43) }),
};

/**
 * Requests for `routes`, reproducible from `seed`. `ids.formToken` and `ids.shareToken`, when given, are a
 * published form's and a shared report's tokens for the public routes.
 */
export function fuzzRequests(
  routes: Route[],
  orgId: string,
  ids: Ids,
  count: number,
  seed: number,
): FuzzRequest[] {
  const request = fc.constantFrom(...routes).chain((route) => {
    let path: string;
    try {
      path = pathFor(route, orgId, ids);
    } catch {
      // Public routes: the live form's and shared report's tokens where the caller has them, else made up.
      const token = /^\/(forms\/public|f)\//.test(route.url)
        ? ids.formToken
        : /^\/(reports\/share|r)\//.test(route.url)
          ? ids.shareToken
          : undefined;
      path = route.url.replace(/:[a-zA-Z]+/g, (param) =>
        param === ':orgId'
          ? orgId
          : param === ':token' && token
            ? token
            : param === ':attachmentId' && ids.attachment
              ? ids.attachment
              : '0f8e4cd2-5c57-4f54-9c1a-5a9d5c0b7e11',
      );
    }
    const segments = path.split('/');
    const params = route.url.split('/').flatMap((segment, index) => (segment.startsWith(':') ? [index] : []));
    const valid = (BODIES[routeName(route)] ?? PUBLIC_BODIES[routeName(route)])?.(ids) ?? {};
    const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
    return fc
      .record({
        route: fc.constant(route),
        segment: params.length
          ? fc.option(fc.tuple(fc.constantFrom(...params), garbageSegment))
          : fc.constant(null),
        query,
        payload: hasBody ? fc.option(bodyFor(valid), { freq: 8 }) : fc.constant(null),
        contentType: fc.oneof(
          {
            weight: 9,
            arbitrary: fc.constantFrom(
              'application/json',
              'application/json',
              'application/json; charset=utf-8',
              'text/plain',
              'application/x-www-form-urlencoded',
            ),
          },
          { weight: 1, arbitrary: fc.constantFrom(...MULTIPART_TYPES) },
        ),
        nobody: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      })
      .map(({ route, segment, query, payload, contentType, nobody }) => {
        const parts = [...segments];
        if (segment) parts[segment[0]] = encodeURIComponent(segment[1]);
        const search = query.length ? `?${query}` : '';
        return {
          method: route.method,
          url: parts.join('/') + search,
          ...(payload !== null ? { payload, contentType } : {}),
          as: nobody ? 'nobody' : 'admin',
        } satisfies FuzzRequest;
      });
  });
  return fc.sample(request, { numRuns: count, seed });
}

/**
 * What is wrong with an answer: a 5xx, or an error without the contract's body. The public pages answer
 * a link that leads nowhere with a page of their own (404, 410), never anything else.
 */
export function problemWith(status: number, text: string, contentType = ''): string | null {
  if (status >= 500) return `${status} ${text.slice(0, 200)}`;
  if (status < 400) return null;
  if (contentType.startsWith('text/html')) {
    // The pages answer their refusals as pages: no access (403), nothing there (404), closed (410).
    return [403, 404, 410].includes(status) && text.startsWith('<!doctype html>')
      ? null
      : `${status} page: ${text.slice(0, 100)}`;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${status} without a JSON body: ${text.slice(0, 100)}`;
  }
  const { statusCode, message, error, code, details, allowedRoles, reason, ...extra } = (body ??
    {}) as Record<string, unknown>;
  const messageOk =
    typeof message === 'string' || (Array.isArray(message) && message.every((m) => typeof m === 'string'));
  if (
    statusCode !== status ||
    !messageOk ||
    error !== STATUS_CODES[status] ||
    typeof code !== 'string' ||
    !Object.hasOwn(ERROR_CODES, code) ||
    !detailsOk(status, message, details) ||
    !refusalOk(code, allowedRoles, reason) ||
    Object.keys(extra).length > 0
  ) {
    return `${status} with a body that is not the contract's: ${text.slice(0, 200)}`;
  }
  return null;
}

/** Only a 403 `forbidden` names the roles that may (known roles, none twice) and why, when not the role. */
function refusalOk(code: unknown, allowedRoles: unknown, reason: unknown): boolean {
  if (code !== 'forbidden') return allowedRoles === undefined && reason === undefined;
  const rolesOk =
    allowedRoles === undefined ||
    (Array.isArray(allowedRoles) &&
      new Set(allowedRoles).size === allowedRoles.length &&
      allowedRoles.every((role) => (ORG_ROLES as readonly unknown[]).includes(role)));
  return (
    rolesOk &&
    (reason === undefined || (typeof reason === 'string' && Object.hasOwn(FORBIDDEN_REASONS, reason)))
  );
}

/** A 400 has one detail per message, in order, each pointing somewhere; other errors have none. */
function detailsOk(status: number, message: unknown, details: unknown): boolean {
  if (status !== 400) return details === undefined;
  if (!Array.isArray(details) || !Array.isArray(message) || details.length !== message.length) return false;
  return (details as Record<string, unknown>[]).every(
    (detail, i) =>
      detail.message === message[i] &&
      typeof detail.path === 'string' &&
      JSON_POINTER.test(detail.path) &&
      typeof detail.rule === 'string' &&
      ['body', 'query', 'path', 'header'].includes(detail.in as string),
  );
}

const STALL_MS = 10_000;

/** Sends the requests one after another; returns what went wrong, with the request that did it. */
export async function runFuzz(
  app: FastifyInstance,
  requests: FuzzRequest[],
  admin: TestUser,
): Promise<string[]> {
  const problems: string[] = [];
  for (const request of requests) {
    const started = performance.now();
    const res = await app.inject({
      method: request.method as 'GET',
      url: request.url,
      headers: {
        ...(request.as === 'admin' ? { authorization: `Bearer ${admin.token}` } : {}),
        ...(request.contentType ? { 'content-type': request.contentType } : {}),
      },
      ...(request.payload !== undefined ? { payload: request.payload } : {}),
    });
    // A generous bound, not a speed test: what it catches is an answer that holds the process (a
    // backtracking pattern took 33 s for one request before issue 20).
    const took = performance.now() - started;
    const problem =
      took > STALL_MS
        ? `took ${Math.round(took)} ms: the service stalled`
        : problemWith(res.statusCode, res.body, res.headers['content-type'] as string | undefined);
    if (problem)
      problems.push(
        `${request.method} ${request.url.slice(0, 160)} ${request.payload?.slice(0, 120) ?? ''} -> ${problem}`,
      );
  }
  return problems;
}
