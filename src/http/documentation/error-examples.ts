import { STATUS_CODES } from 'node:http';
import type { Static } from '@sinclair/typebox';
import {
  ADMINS_CREATE_ORGANIZATIONS,
  FORBIDDEN_MESSAGE,
  INVITE_ONLY,
  PERIOD_LOCKED,
  SUBMITTED_IT,
} from '../../errors/catalogue.js';
import { ERROR_CODES, type ErrorCode } from '../../errors/codes.js';
import type { ErrorBody } from '../errors/replies.js';
import { ORGANIZATION_CODE } from '../../lib/patterns.js';
import {
  IDEMPOTENCY_ANSWER_LOST,
  IDEMPOTENCY_KEY_REUSED,
  IDEMPOTENCY_KEY_RUNNING,
} from '../pipeline/idempotency.js';
import { CHANGED } from '../pipeline/conditional.js';

/**
 * One example body of every error code (src/errors/codes.ts), in the words of the story the document's
 * other examples tell (story.ts): the `Error` schema lists them all, and each error answer of the
 * document shows those of its status.
 */

type ErrorExample = Static<typeof ErrorBody>;

const error = (statusCode: number, code: ErrorCode, message: string | string[]): ErrorExample => ({
  statusCode,
  message,
  error: STATUS_CODES[statusCode] ?? 'Error',
  code,
});

const problem = (path: string, rule: string, message: string, part: 'body' | 'path' = 'body') => ({
  in: part,
  path,
  rule,
  message,
});

const NAME_REQUIRED = 'name is required';
const CODE_RULE = `code ${ORGANIZATION_CODE.rule}`;
const NOT_JSON = 'Body is not valid JSON';
const INVALID_RESET = 'Invalid or expired reset token';
const RETRY = 'retry in 5 seconds';

export const ERROR_EXAMPLES: Readonly<Record<ErrorCode, ErrorExample>> = {
  validation_failed: {
    ...error(400, 'validation_failed', [NAME_REQUIRED, CODE_RULE]),
    details: [problem('/name', 'required', NAME_REQUIRED), problem('/code', 'pattern', CODE_RULE)],
  },
  malformed_request: {
    ...error(400, 'malformed_request', [NOT_JSON]),
    details: [problem('', 'json', NOT_JSON)],
  },
  invalid_token: {
    ...error(400, 'invalid_token', [INVALID_RESET]),
    details: [problem('/token', 'invalid', INVALID_RESET)],
  },
  unauthorized: error(401, 'unauthorized', 'Unauthorized'),
  invalid_credentials: error(401, 'invalid_credentials', 'Invalid email or password'),
  forbidden: { ...error(403, 'forbidden', FORBIDDEN_MESSAGE), allowedRoles: ['org_admin', 'me_officer'] },
  registration_closed: error(403, 'registration_closed', INVITE_ONLY),
  org_creation_closed: error(403, 'org_creation_closed', ADMINS_CREATE_ORGANIZATIONS),
  separate_approval_required: error(403, 'separate_approval_required', SUBMITTED_IT),
  period_locked: error(403, 'period_locked', PERIOD_LOCKED),
  not_found: error(404, 'not_found', 'Program not found'),
  // Of the documentation's own path: src/http names no module's.
  method_not_allowed: error(405, 'method_not_allowed', 'Method DELETE is not allowed on /api/openapi.json'),
  duplicate: error(409, 'duplicate', 'A project with this code already exists'),
  has_dependents: error(409, 'has_dependents', 'Program has active projects'),
  invalid_transition: error(
    409,
    'invalid_transition',
    'Cannot change program status from draft to completed',
  ),
  overlap: error(409, 'overlap', 'Reporting period overlaps 2026 Q1'),
  personal_data_erased: error(
    409,
    'personal_data_erased',
    'The personal data of this participant is already erased',
  ),
  idempotency_in_progress: error(409, 'idempotency_in_progress', IDEMPOTENCY_KEY_RUNNING),
  idempotency_answer_lost: error(409, 'idempotency_answer_lost', IDEMPOTENCY_ANSWER_LOST),
  conflict: error(409, 'conflict', 'An organization can have at most 20 webhook endpoints'),
  form_closed: error(410, 'form_closed', 'This form is no longer accepting responses'),
  request_timeout: error(408, 'request_timeout', 'Client Timeout'),
  precondition_failed: error(412, 'precondition_failed', CHANGED),
  payload_too_large: error(413, 'payload_too_large', 'Request body is larger than 1 MiB'),
  uri_too_long: error(414, 'uri_too_long', 'A value in the path is too long'),
  headers_too_large: error(431, 'headers_too_large', 'Exceeded maximum allowed HTTP header size'),
  unsupported_media_type: error(
    415,
    'unsupported_media_type',
    'Unsupported content type; send application/json',
  ),
  idempotency_conflict: error(422, 'idempotency_conflict', IDEMPOTENCY_KEY_REUSED),
  precondition_required: error(428, 'precondition_required', 'This change needs an If-Match header'),
  rate_limited: error(429, 'rate_limited', 'Too many requests, retry in 42 seconds'),
  client_error: error(416, 'client_error', 'Range Not Satisfiable'),
  internal_error: error(500, 'internal_error', 'Internal server error'),
  unavailable: error(503, 'unavailable', `The service is busy, ${RETRY}`),
  database_unavailable: error(503, 'database_unavailable', `Database unavailable, ${RETRY}`),
  database_busy: error(503, 'database_busy', `The database did not answer in time, ${RETRY}`),
  upload_quota_exceeded: error(
    507,
    'upload_quota_exceeded',
    'Stored files of this organization would exceed its quota of 10 GiB',
  ),
};

/** The other refusals of a 403 `forbidden`, beside the role's. */
const FORBIDDEN_VARIANTS = {
  forbidden_not_a_member: {
    summary: 'forbidden: not a member of the organization (or no such organization)',
    value: { ...ERROR_EXAMPLES.forbidden, allowedRoles: ['org_admin'], reason: 'not_a_member' },
  },
  forbidden_project_not_assigned: {
    summary: 'forbidden: a reporter, on a project not assigned to them',
    value: {
      ...ERROR_EXAMPLES.forbidden,
      allowedRoles: ['org_admin', 'me_officer', 'reporter'],
      reason: 'project_not_assigned',
    },
  },
} satisfies Record<string, { summary: string; value: ErrorExample }>;

/** An example of the document's `components.examples`, by name: every code's, and the 403's variants. */
export const EXAMPLE_OBJECTS: Readonly<Record<string, { summary: string; value: ErrorExample }>> = {
  ...Object.fromEntries(
    Object.entries(ERROR_EXAMPLES).map(([code, value]) => [
      code,
      { summary: `${code}: ${ERROR_CODES[code as ErrorCode]}`, value },
    ]),
  ),
  ...FORBIDDEN_VARIANTS,
};

/** The examples each error answer under `components.responses` shows. */
export const EXAMPLES_OF_RESPONSE: Readonly<Record<string, readonly string[]>> = {
  BadRequest: ['validation_failed', 'malformed_request'],
  Unauthorized: ['unauthorized'],
  Forbidden: ['forbidden', 'forbidden_not_a_member', 'forbidden_project_not_assigned'],
  NotFound: ['not_found'],
  PayloadTooLarge: ['payload_too_large'],
  UnsupportedMediaType: ['unsupported_media_type'],
  TooManyRequests: ['rate_limited'],
  InternalServerError: ['internal_error'],
  PreconditionFailed: ['precondition_failed'],
  IdempotencyKeyReused: ['idempotency_conflict'],
  IdempotencyKeyRunning: ['idempotency_in_progress'],
};

/** The examples a route's own error answer of this status shows: every code of that status. */
export const examplesOfStatus = (status: number): string[] =>
  Object.entries(ERROR_EXAMPLES)
    .filter(([, body]) => body.statusCode === status)
    .map(([code]) => code);
