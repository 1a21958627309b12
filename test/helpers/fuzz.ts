/**
 * Schema-violating requests for every route (issue 10, suite 3), generated with fast-check from a fixed
 * seed: wrong types, missing and unknown fields, huge strings, deep nesting, prototype keys, lone
 * surrogates, numbers JSON cannot hold, garbage in path parameters and queries. Used by fuzz.test.ts
 * (2,000 requests) and `npm run fuzz -- --requests N` (test/fuzz.ts).
 */
import { STATUS_CODES } from 'node:http';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import type { TestUser } from './factories.js';
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
/** Any JSON value, and the values JSON.stringify cannot make. */
const oddValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom('', ' ', '\u0000', '\ud800', 'x'.repeat(5000), '-0', '1e309', 'NaN', 'null'),
  fc.constantFrom(-0, 0, -1, 2 ** 53, 1e300, -1e300, 0.1, Number.MIN_VALUE),
  fc.constantFrom(true, false, null),
);
const KEYS = ['__proto__', 'constructor', 'prototype', 'id', 'orgId', 'role', 'name', 'unknownField'];

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
  return fc.oneof(
    { weight: 5, arbitrary: mutated },
    { weight: 2, arbitrary: fc.constantFrom(...NASTY_TEXT) },
    { weight: 1, arbitrary: deep },
    { weight: 1, arbitrary: deepObject },
    { weight: 1, arbitrary: huge },
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
const query = fc.array(
  fc.tuple(
    fc.constantFrom(...QUERY_NAMES, '__proto__'),
    fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom('1e309', '-0', '-1', '0', '99999999999999999999', '%', '[]'),
    ),
  ),
  {
    maxLength: 3,
  },
);

/** Requests for `routes`, reproducible from `seed`. */
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
      // Public routes' tokens: made up.
      path = route.url.replace(/:[a-zA-Z]+/g, (param) =>
        param === ':orgId' ? orgId : '0f8e4cd2-5c57-4f54-9c1a-5a9d5c0b7e11',
      );
    }
    const segments = path.split('/');
    const params = route.url.split('/').flatMap((segment, index) => (segment.startsWith(':') ? [index] : []));
    const valid = BODIES[routeName(route)]?.(ids) ?? {};
    const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
    return fc
      .record({
        route: fc.constant(route),
        segment: params.length
          ? fc.option(fc.tuple(fc.constantFrom(...params), garbageSegment))
          : fc.constant(null),
        query,
        payload: hasBody ? fc.option(bodyFor(valid), { freq: 8 }) : fc.constant(null),
        contentType: fc.constantFrom(
          'application/json',
          'application/json',
          'application/json; charset=utf-8',
          'text/plain',
          'application/x-www-form-urlencoded',
        ),
        nobody: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      })
      .map(({ route, segment, query, payload, contentType, nobody }) => {
        const parts = [...segments];
        if (segment) parts[segment[0]] = encodeURIComponent(segment[1]);
        const search = query.length
          ? `?${query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`
          : '';
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
    return [404, 410].includes(status) && text.startsWith('<!doctype html>')
      ? null
      : `${status} page: ${text.slice(0, 100)}`;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${status} without a JSON body: ${text.slice(0, 100)}`;
  }
  const { statusCode, message, error, ...extra } = (body ?? {}) as Record<string, unknown>;
  const messageOk =
    typeof message === 'string' || (Array.isArray(message) && message.every((m) => typeof m === 'string'));
  if (
    statusCode !== status ||
    !messageOk ||
    error !== STATUS_CODES[status] ||
    Object.keys(extra).length > 0
  ) {
    return `${status} with a body that is not the contract's: ${text.slice(0, 200)}`;
  }
  return null;
}

/** Sends the requests one after another; returns what went wrong, with the request that did it. */
export async function runFuzz(
  app: FastifyInstance,
  requests: FuzzRequest[],
  admin: TestUser,
): Promise<string[]> {
  const problems: string[] = [];
  for (const request of requests) {
    const res = await app.inject({
      method: request.method as 'GET',
      url: request.url,
      headers: {
        ...(request.as === 'admin' ? { authorization: `Bearer ${admin.token}` } : {}),
        ...(request.contentType ? { 'content-type': request.contentType } : {}),
      },
      ...(request.payload !== undefined ? { payload: request.payload } : {}),
    });
    const problem = problemWith(res.statusCode, res.body, res.headers['content-type'] as string | undefined);
    if (problem)
      problems.push(
        `${request.method} ${request.url.slice(0, 160)} ${request.payload?.slice(0, 120) ?? ''} -> ${problem}`,
      );
  }
  return problems;
}
