import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AppError,
  type ErrorDetail,
  FORBIDDEN_REASONS,
  type ForbiddenReason,
  methodNotAllowed,
  type RequestPart,
} from '../../errors/catalogue.js';
import { codeOfStatus, type ErrorCode, ERROR_CODES } from '../../errors/codes.js';
import { refusalOf } from '../../errors/refusals.js';
import { databaseFailure, type DatabaseOutage } from '../../db/outage.js';
import { ORG_ROLES, type OrgRole } from '../pipeline/session.js';
import { problemOf, violations } from './violations.js';

/**
 * The HTTP answer to every error: the domain's (src/errors/catalogue.ts), a validation failure, a
 * database refusal or failure, and what Fastify and Node refuse before a route runs.
 */

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
    allowedRoles: Type.Optional(
      Type.Array(Type.Unsafe<OrgRole>({ type: 'string', enum: [...ORG_ROLES] }), {
        description:
          'On a 403 `forbidden` of a route of an organization: the roles that may do this action there ' +
          '(a route that also lets members act on themselves, such as leaving, lets them too). The same ' +
          'for every organization, so it tells a caller who is not a member nothing about the one asked.',
      }),
    ),
    reason: Type.Optional(
      Type.Unsafe<ForbiddenReason>({
        type: 'string',
        enum: Object.keys(FORBIDDEN_REASONS),
        description:
          'On a 403 `forbidden` that is not only about the role: ' +
          Object.entries(FORBIDDEN_REASONS)
            .map(([reason, meaning]) => `\`${reason}\`: ${meaning}`)
            .join(' '),
      }),
    ),
  },
  {
    $id: 'Error',
    description:
      'Every error has this body. `code` is stable: branch on it, not on `message`. A 400 lists one ' +
      'message per violation and, in `details`, where each is and which rule it breaks. A 403 ' +
      '`forbidden` keeps the message `You do not have permission to perform this action` and says how ' +
      'to succeed: `allowedRoles`, and `reason` when the role is not the only obstacle.',
  },
);

/** A route's own error response for the OpenAPI document, e.g. `409: errorResponse('Code taken')`. */
export const errorResponse = (description: string) =>
  Type.Unsafe<Body>({
    $ref: 'Error#',
    description,
  });

interface Body {
  statusCode: number;
  message: string | string[];
  error: string;
  code: ErrorCode;
  details?: ErrorDetail[];
  allowedRoles?: OrgRole[];
  reason?: ForbiddenReason;
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

/**
 * What a 403 `forbidden` adds: the roles the refusal names, or else the roles the route declares (unless
 * the refusal is about the request's origin or an invitation, where no role would help), and its reason.
 * Roles in the order of ORG_ROLES, whatever order a route wrote them in.
 */
function refusalOf403(err: AppError, request: FastifyRequest): Pick<Body, 'allowedRoles' | 'reason'> {
  const { allowedRoles, reason } = err.refusal ?? {};
  const access = request.routeOptions.config?.access;
  const roleless = reason === 'origin_not_allowed' || reason === 'invitation_for_another_email';
  const roles = allowedRoles ?? (typeof access === 'object' && !roleless ? access.roles : undefined);
  return {
    ...(roles ? { allowedRoles: ORG_ROLES.filter((role) => roles.includes(role)) } : {}),
    ...(reason ? { reason } : {}),
  };
}

/** An AppError's body; a 400 gets one detail per message, the service's own or found from the message. */
function bodyOf(err: AppError, request: FastifyRequest): Body {
  if (err.code === 'forbidden')
    return { ...body(403, err.messages, err.code), ...refusalOf403(err, request) };
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
    const refusal = refusalOf(err);
    if (refusal) return reply.status(refusal.statusCode).send(bodyOf(refusal, request));
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

/** OPTIONS is left out: the CORS plugin answers it on every path, known or not. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * For a request no route took: when its path is served with other methods, what a 405 says and its
 * `Allow` (RFC 9110 section 15.5.6; HEAD wherever GET is). Null when the path is unknown: a 404.
 */
export function refusedMethod(request: FastifyRequest): { message: string; allow: string[] } | null {
  const url = request.url.split('?')[0] ?? '';
  const allow = METHODS.filter((method) => request.server.findRoute({ method, url }) !== null);
  if (allow.length === 0) return null;
  return { message: `Method ${request.method} is not allowed on ${url}`, allow };
}
