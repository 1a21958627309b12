import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { ErrorCode } from '../../src/errors/codes.js';
import type { ForbiddenReason, RequestPart } from '../../src/errors/catalogue.js';
import { ORG_ROLES, type OrgRole } from '../../src/http/pipeline/access.js';
import type { Team } from './factories.js';

/** BASE_URL and APP_URL of every test app unless a test sets its own. */
export const TEST_BASE_URL = 'http://api.test';
export const TEST_APP_URL = 'http://app.test';

export interface Caller {
  token: string;
}

export interface Call {
  status: number;
  body: any;
  headers: LightMyRequestResponse['headers'];
  response: LightMyRequestResponse;
}

/** One request through the real app; `as` signs it with a bearer token. */
export async function call(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  url: string,
  options: { as?: Caller | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Call> {
  const response = await app.inject({
    method,
    url,
    headers: {
      ...(options.as ? { authorization: `Bearer ${options.as.token}` } : {}),
      ...options.headers,
    },
    ...(options.body !== undefined ? { payload: options.body as object } : {}),
  });
  const text = response.body;
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: response.statusCode, body, headers: response.headers, response };
}

/** The value of the `jwt` cookie a response set, if any. */
export function sessionCookie(call: Call): string | undefined {
  return call.response.cookies.find((c) => c.name === 'jwt')?.value;
}

/** A 403 `forbidden` without a word on roles: a refusal about the request's origin or an invitation. */
export const FORBIDDEN = {
  statusCode: 403,
  message: 'You do not have permission to perform this action',
  error: 'Forbidden',
  code: 'forbidden' as const,
};

/** The roles of the routes' access rules, as the 403s name them (in ORG_ROLES order). */
export { ADMINS, ALL_ROLES, CONTRIBUTORS, MANAGERS } from '../../src/http/pipeline/access.js';

/** A 403 `forbidden` naming the roles that may (`allowedRoles`, in ORG_ROLES order) and why, if not the role. */
export const forbiddenBody = (allowedRoles?: readonly OrgRole[], reason?: ForbiddenReason) => ({
  ...FORBIDDEN,
  ...(allowedRoles ? { allowedRoles: ORG_ROLES.filter((role) => allowedRoles.includes(role)) } : {}),
  ...(reason ? { reason } : {}),
});
/** The 403 of a route open to `roles`, to a member whose role is not one of them. */
export const roleRefused = (roles: readonly OrgRole[]) => forbiddenBody(roles);
/** The 403 of a route open to `roles`, to a caller who is not a member of the organization of the path. */
export const notAMember = (roles: readonly OrgRole[]) => forbiddenBody(roles, 'not_a_member');
/** The 403 of a route open to `roles`, to a reporter on a project not assigned to them. */
export const notAssigned = (roles: readonly OrgRole[]) => forbiddenBody(roles, 'project_not_assigned');

/**
 * The 403 a route open to `roles` gives `user` of `team`: the outsider is not a member; a member whose
 * role is allowed can only be a reporter outside their projects; any other member has the wrong role.
 */
export function refusedTo(team: Team, user: { id: string }, roles: readonly OrgRole[]) {
  if (user.id === team.outsider.id) return notAMember(roles);
  const role = (
    [
      [team.admin, 'org_admin'],
      [team.officer, 'me_officer'],
      [team.reporter, 'reporter'],
      [team.viewer, 'viewer'],
    ] as const
  ).find(([member]) => member.id === user.id)?.[1];
  if (role === undefined) throw new Error('refusedTo: the user is not one of the team');
  return roles.includes(role) ? notAssigned(roles) : roleRefused(roles);
}
export const UNAUTHORIZED = {
  statusCode: 401,
  message: 'Unauthorized',
  error: 'Unauthorized',
  code: 'unauthorized' as const,
};
export const notFoundBody = (what: string) => ({
  statusCode: 404,
  message: `${what} not found`,
  error: 'Not Found',
  code: 'not_found' as const,
});
/**
 * The code the contract gives each 409 (DECISIONS.md section 2, SPEC.md "Refusals"), by its message:
 * the tests' own statement of it, so a 409 thrown with the wrong code fails.
 */
const CONFLICT_CODES: readonly [RegExp, ErrorCode][] = [
  [/^Reporting period is locked$/, 'period_locked'],
  [/^Reporting period overlaps /, 'overlap'],
  [/erased/, 'personal_data_erased'],
  [/nothing to erase$/, 'conflict'],
  [
    /already exists|already (a member|assigned|linked)|already used by disaggregation|registered in a project you/,
    'duplicate',
  ],
  [
    /^Cannot change \w+ status|^Only .* can be|can only be edited|published|^Report is not shared$/,
    'invalid_transition',
  ],
  [
    /has (active projects|indicator reports|submissions)|is used (by|in)|last org_admin|referenced by other/,
    'has_dependents',
  ],
];

export function conflictCode(message: string): ErrorCode {
  const found = CONFLICT_CODES.find(([pattern]) => pattern.test(message));
  if (!found) throw new Error(`no code known for the 409 "${message}": add it to CONFLICT_CODES`);
  return found[1];
}

/** A 409 body; its code from the message as the contract gives it, unless named. */
export const conflictBody = (message: string, code: ErrorCode = conflictCode(message)) => ({
  statusCode: 409,
  message,
  error: 'Conflict',
  code,
});

/** ISO 8601 UTC with milliseconds, as every timestamp leaves the service. */
export const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * A detail of a 400 for `message`: its place and rule are asserted by test/error-codes.test.ts; here,
 * that there is one per message, in order, pointing somewhere well-formed.
 */
const detailFor = (message: string) => ({
  in: expect.stringMatching(/^(body|query|path|header)$/),
  path: expect.stringMatching(JSON_POINTER),
  rule: expect.stringMatching(/^\w+$/),
  message,
});

/** RFC 6901: '' or `/`-separated tokens in which `~` only appears as `~0` or `~1`. */
export const JSON_POINTER = /^(\/([^~/]|~[01])*)*$/;

export const badRequest = (...message: string[]) => ({
  statusCode: 400,
  message,
  error: 'Bad Request',
  code: 'validation_failed' as const,
  details: message.map(detailFor),
});

/** A 400 with exactly these problems, each `[in, path, rule, message]`, in this order. */
export const badRequestAt = (...problems: [RequestPart, string, string, string][]) => ({
  statusCode: 400,
  message: problems.map(([, , , message]) => message),
  error: 'Bad Request',
  code: 'validation_failed' as const,
  details: problems.map(([part, path, rule, message]) => ({ in: part, path, rule, message })),
});

/** The 400 of a bad, used or expired reset or verification token. */
export const invalidTokenBody = (message: string) => ({
  statusCode: 400,
  message: [message],
  error: 'Bad Request',
  code: 'invalid_token' as const,
  details: [{ in: 'body', path: '/token', rule: 'invalid', message }],
});

/** A 400 listing exactly these messages, in any order; `details` follow `message`, one each. */
export function expectViolations(res: Call, ...messages: string[]): void {
  expect(res.status).toBe(400);
  expect(res.body.details?.map((d: { message: string }) => d.message)).toEqual(res.body.message);
  const byMessage = (a: { message: string }, b: { message: string }) => (a.message < b.message ? -1 : 1);
  expect({
    ...res.body,
    message: [...res.body.message].sort(),
    details: [...res.body.details].sort(byMessage),
  }).toEqual(badRequest(...messages.sort()));
}

/** Status and the whole error body at once. */
export function expectError(
  res: Call,
  body: { statusCode: number; message: unknown; error: string; code: ErrorCode; details?: unknown[] },
): void {
  expect([res.status, res.body]).toEqual([body.statusCode, body]);
}

/** A well-formed id that exists nowhere. */
export const MISSING_ID = '00000000-0000-4000-8000-000000000000';
