/**
 * The stable `code` of every error body, with what it means (issue 23). Clients branch on `code`, never
 * on `message`; a code once published keeps its meaning. The `Error` schema's enum reads this object, and
 * docs/api.md lists it.
 */
export const ERROR_CODES = {
  validation_failed: 'The request breaks the schema or a rule; `details` names each field and rule.',
  malformed_request: 'The body or the URL cannot be read at all: JSON that does not parse, a bad URL.',
  invalid_token: 'A password-reset or email-verification token is unknown, used or expired.',
  unauthorized: 'No session, or its token is invalid, expired or revoked.',
  invalid_credentials: 'Failed login: unknown email or wrong password (one answer for both).',
  forbidden:
    'Not a member of the organization, or the role may not do this; `allowedRoles` names the roles that may, `reason` says when it is not only the role.',
  registration_closed:
    'No account is created for this address: the service takes invited addresses or chosen email domains only (REGISTRATION).',
  org_creation_closed:
    'Only org_admins of an organization may create another one on this service (ORG_CREATION=admins).',
  separate_approval_required:
    'The organization requires another person to review an indicator report than the one who submitted it (separateApproval).',
  period_locked: 'The reporting period is locked: its reports and dates cannot change.',
  not_found: 'The resource (or the route) does not exist, or not in this organization.',
  method_not_allowed: 'The path exists, not with this method; `Allow` lists the methods it has.',
  duplicate: 'Something with the same identity already exists (email, code, name, membership).',
  has_dependents: 'Refused because other data depends on it (reports, projects, formulas, the last admin).',
  invalid_transition: 'The status of the resource does not allow this change now.',
  overlap: "A reporting period's dates overlap another period of the project.",
  personal_data_erased: 'The personal data was erased: it cannot be erased again, given again or added to.',
  idempotency_in_progress: 'A request with the same Idempotency-Key is still running; retry later.',
  idempotency_answer_lost:
    'The request with this Idempotency-Key was carried out, but its answer could not be kept: read the resource instead of retrying.',
  conflict: 'The request clashes with the current state in a way no other code names.',
  form_closed: 'The public form is past its closing time.',
  request_timeout: 'The request did not arrive in time (slow client); the connection is closed.',
  precondition_failed: 'If-Match does not match the current version of the resource.',
  payload_too_large: 'The body is over 1 MiB, or a file over 10 MiB.',
  uri_too_long: 'A value in the path is too long.',
  headers_too_large: 'The request headers are larger than the server takes.',
  unsupported_media_type: 'The content type, or a file type, is not accepted.',
  idempotency_conflict: 'The Idempotency-Key was already used with a different request.',
  precondition_required: 'The change needs an If-Match header.',
  rate_limited: 'Too many requests; `Retry-After` says when to retry.',
  client_error: 'Any other refusal of the request; `message` says why.',
  internal_error: 'The service failed; the body hides the cause.',
  unavailable: 'The service is busy or not ready; `Retry-After` when known.',
  database_unavailable: 'The database cannot be reached right now; retry after `Retry-After` seconds.',
  database_busy:
    'The database did not answer in time (a statement or lock timeout); retry after `Retry-After` seconds.',
  upload_quota_exceeded: "The form's or the organization's stored files would pass their quota.",
} as const satisfies Record<string, string>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The code of an error that names none: what its status alone says. */
const CODE_OF_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'validation_failed',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  410: 'form_closed',
  412: 'precondition_failed',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  422: 'idempotency_conflict',
  428: 'precondition_required',
  429: 'rate_limited',
  431: 'headers_too_large',
  500: 'internal_error',
  503: 'unavailable',
};

export function codeOfStatus(statusCode: number): ErrorCode {
  return CODE_OF_STATUS[statusCode] ?? (statusCode >= 500 ? 'internal_error' : 'client_error');
}
