import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pgErrorCode } from '../db/errors.js';
import { databaseFailure, type DatabaseOutage } from '../db/outage.js';
import { refusedMethod } from './allowed-methods.js';
import { codeOfStatus, type ErrorCode, ERROR_CODES } from './error-codes.js';
import { capped, type ErrorDetail, type RequestPart, problemOf, violations } from './violations.js';

export type { ErrorDetail, RequestPart } from './violations.js';
export { MAX_PROBLEMS, validationMessages, violations } from './violations.js';
export { codeOfStatus, ERROR_CODES, type ErrorCode } from './error-codes.js';
export { pgErrorCode } from '../db/errors.js';

/** A problem a service names itself; `in` defaults to the body. */
export type Problem = string | (Omit<ErrorDetail, 'in'> & { in?: RequestPart });

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
  ) {
    super(Array.isArray(message) ? message.join('; ') : message);
    this.messages = message;
    this.details = details;
  }
}

export const FORBIDDEN_MESSAGE = 'You do not have permission to perform this action';
export const PERIOD_LOCKED = 'Reporting period is locked';

/** The challenge every 401 carries (RFC 6750); a refused token also says why. */
const BEARER = { 'www-authenticate': 'Bearer' };
export const BEARER_INVALID_TOKEN = { 'www-authenticate': 'Bearer error="invalid_token"' };

/**
 * A 400 for rules the schema cannot say. A problem given as a string gets its path from the field it
 * starts with, when the request has that field (see `problemOf`); as an object it says its own.
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
export const invalidCredentials = () =>
  new AppError(401, 'Invalid email or password', BEARER, 'invalid_credentials');
export const forbidden = (message = FORBIDDEN_MESSAGE) => new AppError(403, message, {}, 'forbidden');
/** A change to a locked reporting period: 403 for its reports (the contract), 409 for the period itself. */
export const periodLocked = (statusCode: 403 | 409 = 403) =>
  new AppError(statusCode, PERIOD_LOCKED, {}, 'period_locked');
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

const DetailBody = Type.Object(
  {
    in: Type.Union(
      [Type.Literal('body'), Type.Literal('query'), Type.Literal('path'), Type.Literal('header')],
      {
        description: 'The part of the request `path` points into.',
      },
    ),
    path: Type.String({
      description: "JSON Pointer (RFC 6901) to the field within that part; '' is the part as a whole.",
    }),
    rule: Type.String({
      description: 'The rule broken: a JSON Schema keyword (`required`, `maxLength`) or `invalid`.',
    }),
    message: Type.String({ description: 'The same text as the matching entry of `message`.' }),
  },
  { additionalProperties: false },
);

export const ErrorBody = Type.Object(
  {
    statusCode: Type.Integer(),
    message: Type.Union([Type.String(), Type.Array(Type.String())]),
    error: Type.String(),
    code: Type.Unsafe<ErrorCode>({
      type: 'string',
      enum: Object.keys(ERROR_CODES),
      description: 'Stable identifier of the kind of error; branch on this, not on `message`.',
    }),
    details: Type.Optional(
      Type.Array(DetailBody, { description: 'On a 400: one entry per `message` entry, in the same order.' }),
    ),
  },
  {
    $id: 'Error',
    description:
      'Every error has this body. `code` is stable: branch on it, not on `message`. A 400 lists one ' +
      'message per violation and, in `details`, where each is and which rule it breaks.',
  },
);

/** A route's own error response for the OpenAPI document, e.g. `409: errorResponse('Code taken')`. */
export const errorResponse = (description: string) =>
  Type.Unsafe<{
    statusCode: number;
    message: string | string[];
    error: string;
    code: ErrorCode;
    details?: ErrorDetail[];
  }>({
    $ref: 'Error#',
    description,
  });

interface Body {
  statusCode: number;
  message: string | string[];
  error: string;
  code: ErrorCode;
  details?: ErrorDetail[];
}

const body = (
  statusCode: number,
  message: string | string[],
  code: ErrorCode = codeOfStatus(statusCode),
  details?: ErrorDetail[],
): Body => ({
  statusCode,
  message,
  error: STATUS_CODES[statusCode] ?? 'Error',
  code,
  ...(details ? { details } : {}),
});

/** A 400 the request could not even be read for (JSON, URL): one problem about the whole part. */
const unreadable = (message: string, part: RequestPart, rule: string): Body =>
  body(400, [message], 'malformed_request', [{ in: part, path: '', rule, message }]);

/** An AppError's body; a 400 gets one detail per message, the service's own or found from the message. */
function bodyOf(err: AppError, request: FastifyRequest): Body {
  if (err.statusCode !== 400) return body(err.statusCode, err.messages, err.code);
  const messages = [err.messages].flat();
  const details = messages.map((message, i) => {
    const given = err.details?.[i];
    if (given === undefined || typeof given === 'string') return problemOf(message, request);
    return { ...given, in: given.in ?? 'body' };
  });
  return body(400, err.messages, err.code, details);
}

/**
 * Deletes that the database refuses because other rows still point at the one deleted (foreign keys
 * without cascade), by constraint name and what was being deleted: the contract's 409 messages
 * (SPEC.md, "Refusals"). An owner does not look for its dependents before deleting (that would make
 * it import them); it deletes, and the foreign key of the dependent refuses.
 */
const REFERENCED_BY: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  indicator_reports_project_indicator_fk: {
    Indicator: 'Indicator has indicator reports',
    'Project indicator': 'Indicator has indicator reports in this project',
  },
  forms_project_indicator_fk: {
    Indicator: 'Indicator is used by a form',
    'Project indicator': 'Indicator is used by a form of this project',
  },
  indicator_reports_reporting_period_fk: { 'Reporting period': 'Reporting period has submissions' },
  form_submissions_reporting_period_id_reporting_periods_id_fk: {
    'Reporting period': 'Reporting period has submissions',
  },
  forms_reporting_period_fk: { 'Reporting period': 'Reporting period is used by a form' },
};

/**
 * For a delete's `.catch`: a foreign key's refusal becomes its 409 `has_dependents` from the table
 * above (or the generic one); any other error passes through. `what` names the deleted resource as `notFound` does.
 */
export function refusedDelete(what: string): (err: unknown) => never {
  return (err) => {
    const { code, constraint } = pgErrorCode(err);
    if (code !== '23503') throw err;
    throw hasDependents((constraint && REFERENCED_BY[constraint]?.[what]) ?? REFERENCED_ELSEWHERE);
  };
}

const REFERENCED_ELSEWHERE = 'The record is referenced by other data';

/**
 * For a write's `.catch`: a unique index's refusal (a race lost after the service's own check, or
 * the only check) becomes a 409 `duplicate` with `message`; any other error passes through.
 */
export function refusedDuplicate(message: string): (err: unknown) => never {
  return (err) => {
    if (pgErrorCode(err).code === '23505') throw duplicate(message);
    throw err;
  };
}

/**
 * How long a client is told to wait when the database is out of reach or busy: a restart or a failover
 * takes seconds, and retrying sooner only adds load to a server coming back or a table still locked.
 */
export const DATABASE_RETRY_SECONDS = 5;

/** `outage` hears of every request that failed for want of the database, and logs the outage once. */
export function registerErrorHandler(app: FastifyInstance, outage?: DatabaseOutage): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof AppError) {
      void reply.headers(err.headers);
      return reply.status(err.statusCode).send(bodyOf(err, request));
    }
    if (err.validation) {
      const problems = violations(err);
      return reply.status(400).send(
        body(
          400,
          problems.map((p) => p.message),
          'validation_failed',
          problems,
        ),
      );
    }
    const status = err.statusCode ?? 500;
    // The client's own fault (a body it aborted: ECONNRESET 'aborted') says nothing of the database.
    const failure = status >= 400 && status < 500 ? null : databaseFailure(err);
    const retryLater = (message: string, code: ErrorCode) =>
      reply
        .status(503)
        .header('retry-after', String(DATABASE_RETRY_SECONDS))
        .send(body(503, message, code));
    if (failure?.kind === 'timeout') {
      // A locked table or a statement past its limit (DATABASE_LOCK_TIMEOUT, DATABASE_STATEMENT_TIMEOUT):
      // the server answers, so no outage; logged once per spell, whichever pool's statement it was.
      outage?.timedOut(failure);
      return retryLater(
        `The database did not answer in time, retry in ${DATABASE_RETRY_SECONDS} seconds`,
        'database_busy',
      );
    }
    if (failure) {
      // 503, not 500: load balancers and clients retry it. Logged once per outage, not per request; a
      // full pool (an overload: the server answers) apart, at most once a minute, and it is no outage.
      // The tracker hears its own pool's failures: a replica's are its read routing's to tell.
      if (outage?.pool === failure.pool) {
        if (failure.kind === 'busy') outage.busy(failure);
        else outage.failed(failure, Date.now() - reply.elapsedTime);
      }
      return retryLater(
        `Database unavailable, retry in ${DATABASE_RETRY_SECONDS} seconds`,
        'database_unavailable',
      );
    }
    // Constraint errors that slipped past the service's own checks: a race between two requests.
    const { code } = pgErrorCode(err);
    if (code === '23505') return reply.status(409).send(body(409, 'The record already exists', 'duplicate'));
    if (code === '23503') return reply.status(409).send(body(409, REFERENCED_ELSEWHERE, 'has_dependents'));
    if (status === 400) {
      const message = clientMessage(err);
      return reply.status(400).send(unreadable(message, 'body', message === NOT_JSON ? 'json' : 'readable'));
    }
    if (status > 400 && status < 500) return reply.status(status).send(body(status, clientMessage(err)));
    request.log.error({ err }, 'request failed');
    return reply.status(500).send(body(500, 'Internal server error'));
  });

  app.setNotFoundHandler((request, reply) => {
    const refused = refusedMethod(request);
    if (refused) throw methodNotAllowed(refused.message, refused.allow);
    return reply
      .status(404)
      .send(body(404, `Route ${request.method} ${request.url.split('?')[0]} not found`));
  });
}

/**
 * What the router refuses before any route runs (Fastify's `frameworkErrors`), in the contract's body:
 * a URL that does not decode (400) and a path value over the router's limit (414), without echoing it.
 */
export function frameworkError(err: FastifyError, _request: unknown, reply: FastifyReply): void {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.status(414).send(body(414, 'A value in the path is too long'));
    return;
  }
  const status = err.statusCode ?? 400;
  if (status !== 400) {
    void reply.status(status).send(body(status, clientMessage(err)));
    return;
  }
  const message = err.code === 'FST_ERR_BAD_URL' ? 'The URL is not valid' : clientMessage(err);
  void reply.status(400).send(unreadable(message, 'path', 'url'));
}

/**
 * What Node's parser refuses before Fastify sees a request (Fastify's `clientErrorHandler`): its default
 * answers, written to the socket as it does, in the contract's body with a code.
 */
export function clientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset connection has nobody to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Client Timeout']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Exceeded maximum allowed HTTP header size']
        : [400, 'Client Error'];
  const answer = JSON.stringify(
    status === 400 ? unreadable(message, 'header', 'http') : body(status, message),
  );
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(answer)}\r\n` +
        `Content-Type: application/json\r\n\r\n${answer}`,
    );
  }
  socket.destroy(err);
}

const NOT_JSON = 'Body is not valid JSON';

function clientMessage(err: FastifyError): string {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return NOT_JSON;
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is larger than 1 MiB';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return `Unsupported content type; send application/json`;
    default:
      return err instanceof SyntaxError ? NOT_JSON : err.message;
  }
}
