import { codeOfStatus, type ErrorCode } from './codes.js';

/**
 * The domain's errors (DECISIONS.md section 2): what services throw, each a status, a stable `code` and
 * its message. No HTTP here: `src/http/errors/replies.ts` turns them into the contract's body.
 */

/**
 * One problem of a 400: `path` is a JSON Pointer (RFC 6901) into the part of the request named by `in`
 * (`''` is the part as a whole), `rule` the rule broken (a JSON Schema keyword, or the service's own).
 */
export interface ErrorDetail {
  in: RequestPart;
  path: string;
  rule: string;
  message: string;
}

export type RequestPart = 'body' | 'query' | 'path' | 'header';

/** A problem a service names itself; `in` defaults to the body. */
export type Problem = string | (Omit<ErrorDetail, 'in'> & { in?: RequestPart });

/**
 * Why a 403 `forbidden` refused, besides a role the route does not allow (which has no reason): the
 * body's `reason`, so that a client can tell the caller what would succeed.
 */
export const FORBIDDEN_REASONS = {
  not_a_member:
    'The caller is not a member of the organization: the same answer whether or not the organization exists.',
  project_not_assigned: 'The caller is a reporter, and the project is not assigned to them.',
  origin_not_allowed:
    'A cookie-authenticated change came from an origin the service does not know (send Origin, or a bearer token).',
  invitation_for_another_email: 'The invitation was sent to another email address than the signed-in user’s.',
  read_only_token: 'The personal access token has the read scope: GET and HEAD only.',
  token_outside_organization:
    'A personal access token reaches the routes of its own organization only (not the account’s or the tokens’).',
} as const satisfies Record<string, string>;

export type ForbiddenReason = keyof typeof FORBIDDEN_REASONS;

/** What a 403 `forbidden` adds to the body: the roles that may do the action there, and why it refused. */
export interface Refusal {
  /**
   * The organization roles that may do this: given by the refusal, or else, for a refusal on a route that
   * declares roles (and is not about the request's origin or an invitation), the route's own.
   */
  allowedRoles?: readonly string[];
  reason?: ForbiddenReason;
}

/** Domain code throws these; the error handler turns them into the contract's body. */
export class AppError extends Error {
  readonly messages: string | string[];
  /** For a 400: one per message, in the same order (the handler fills in the ones not given). */
  readonly details?: readonly Problem[];

  constructor(
    readonly statusCode: number,
    message: string | string[],
    readonly headers: Record<string, string> = {},
    readonly code: ErrorCode = codeOfStatus(statusCode),
    details?: readonly Problem[],
    /** For a 403 `forbidden`: what the body says beyond the message. */
    readonly refusal?: Refusal,
  ) {
    super(Array.isArray(message) ? message.join('; ') : message);
    this.messages = message;
    this.details = details;
  }
}

/** The problems one 400 lists at most; the rest are counted in one last problem. */
export const MAX_PROBLEMS = 20;

/**
 * The first MAX_PROBLEMS problems, then `and N more problems` (rule `maxProblems`): an answer is never
 * larger than the mistakes worth reading, however many a body holds (issue 36, finding 1).
 */
export function capped<P extends { message: string }>(
  problems: P[],
  part: RequestPart = 'body',
): (P | ErrorDetail)[] {
  if (problems.length <= MAX_PROBLEMS) return problems;
  return [...problems.slice(0, MAX_PROBLEMS), moreProblems(problems.length - MAX_PROBLEMS, part)];
}

/** The last problem of a capped 400: how many were left out. */
export const moreProblems = (count: number, part: RequestPart): ErrorDetail => ({
  in: part,
  path: '',
  rule: 'maxProblems',
  message: `and ${count} more ${count === 1 ? 'problem' : 'problems'}`,
});

export const FORBIDDEN_MESSAGE = 'You do not have permission to perform this action';
export const PERIOD_LOCKED = 'Reporting period is locked';

/** The challenge every 401 carries (RFC 6750); a refused token also says why. */
const BEARER = { 'www-authenticate': 'Bearer' };
export const BEARER_INVALID_TOKEN = { 'www-authenticate': 'Bearer error="invalid_token"' };

/**
 * A 400 for rules the schema cannot say. A problem given as a string gets its path from the field it
 * starts with, when the request has that field (the error handler finds it); as an object it says its own.
 * The same message twice is one problem.
 */
export const badRequest = (...problems: Problem[]) => {
  const unique = capped(
    [...new Map(problems.map((p) => [typeof p === 'string' ? p : p.message, p])).values()].map((p) =>
      typeof p === 'string' ? { message: p, text: p } : p,
    ),
  ).map((p) => ('text' in p ? p.text : p));
  return new AppError(
    400,
    unique.map((p) => (typeof p === 'string' ? p : p.message)),
    {},
    'validation_failed',
    unique,
  );
};
/** A reset or verification token that is unknown, used or expired: a 400 about the `token` field. */
export const invalidToken = (message: string) =>
  new AppError(400, [message], {}, 'invalid_token', [{ path: '/token', rule: 'invalid', message }]);
export const unauthorized = (message = 'Unauthorized') => new AppError(401, message, BEARER, 'unauthorized');
/** A session token was presented and is invalid, expired or revoked (or its user is gone). */
export const tokenRefused = () => new AppError(401, 'Unauthorized', BEARER_INVALID_TOKEN, 'unauthorized');
/**
 * HTTP Basic credentials that hold no valid personal access token (the password must be one): the
 * challenge names Basic, so that Excel and Power BI ask for the token again.
 */
export const basicRefused = () =>
  new AppError(
    401,
    'Unauthorized',
    { 'www-authenticate': 'Basic realm="mel", charset="UTF-8"' },
    'unauthorized',
  );
export const invalidCredentials = () =>
  new AppError(401, 'Invalid email or password', BEARER, 'invalid_credentials');
/** The 403 of an action the caller may not do; its message is always the contract's FORBIDDEN_MESSAGE. */
export const forbidden = (refusal: Refusal = {}) =>
  new AppError(403, FORBIDDEN_MESSAGE, {}, 'forbidden', undefined, refusal);
/** Under REGISTRATION=invite, an address with no open invitation. */
export const INVITE_ONLY =
  'New accounts are by invitation only: ask an administrator of your organization to invite this email ' +
  'address, then follow the link in the invitation email. If you already have an account, sign in.';
/** An account refused by REGISTRATION (`invite`, `domains`); `message` says what the person can do. */
export const registrationClosed = (message: string) => new AppError(403, message, {}, 'registration_closed');
export const ADMINS_CREATE_ORGANIZATIONS =
  'On this service, new organizations are created by administrators only: ask an org admin of your ' +
  'organization to invite you to it, or whoever runs the service to create your organization.';
/** POST /orgs by someone who is no org_admin anywhere, under ORG_CREATION=admins. */
export const orgCreationClosed = () =>
  new AppError(403, ADMINS_CREATE_ORGANIZATIONS, {}, 'org_creation_closed');
export const SUBMITTED_IT =
  'You submitted this indicator report, and this organization requires someone else to review it ' +
  '(separateApproval): ask another M&E officer or org admin to approve or reject it.';
/** A review by the person who last submitted the report, in an organization with separateApproval on. */
export const separateApprovalRequired = () =>
  new AppError(403, SUBMITTED_IT, {}, 'separate_approval_required');
/** A change to a locked reporting period: 403 for its reports (the contract), 409 for the period itself. */
/** `period`: names the locked period after the contract's words, where a request names several. */
export const periodLocked = (statusCode: 403 | 409 = 403, period?: string) =>
  new AppError(statusCode, period ? `${PERIOD_LOCKED}: ${period}` : PERIOD_LOCKED, {}, 'period_locked');
export const notFound = (what: string) => new AppError(404, `${what} not found`, {}, 'not_found');
export const conflict = (message: string, code: ErrorCode = 'conflict') =>
  new AppError(409, message, {}, code);
export const duplicate = (message: string) => conflict(message, 'duplicate');
export const hasDependents = (message: string) => conflict(message, 'has_dependents');
export const invalidTransition = (message: string) => conflict(message, 'invalid_transition');
/** The same Idempotency-Key while its first request still runs. */
export const idempotencyInProgress = (message: string, headers: Record<string, string> = {}) =>
  new AppError(409, message, headers, 'idempotency_in_progress');
export const idempotencyConflict = (message: string) =>
  new AppError(422, message, {}, 'idempotency_conflict');
export const preconditionFailed = (message: string, headers: Record<string, string> = {}) =>
  new AppError(412, message, headers, 'precondition_failed');
export const methodNotAllowed = (message: string, allow: readonly string[]) =>
  new AppError(405, message, { allow: allow.join(', ') }, 'method_not_allowed');
export const gone = (message: string) => new AppError(410, message, {}, 'form_closed');
/** A body that cannot be read at all (multipart that breaks off): `rule` names the format. */
export const malformedRequest = (message: string, rule: string) =>
  new AppError(400, [message], {}, 'malformed_request', [{ path: '', rule, message }]);
export const payloadTooLarge = (message: string) => new AppError(413, message, {}, 'payload_too_large');
/** Stored files would pass FORM_FILES_QUOTA or ORG_FILES_QUOTA (`message` names which): retrying will not help. */
export const uploadQuotaExceeded = (message: string) =>
  new AppError(507, message, {}, 'upload_quota_exceeded');
export const unsupportedMediaType = (message: string) =>
  new AppError(415, message, {}, 'unsupported_media_type');
/** The rate limit's answer (DECISIONS.md section 2), for a limit a service keeps itself. */
export const rateLimited = (retryAfterSeconds: number) =>
  new AppError(
    429,
    `Too many requests, retry in ${retryAfterSeconds} seconds`,
    { 'retry-after': String(retryAfterSeconds) },
    'rate_limited',
  );
