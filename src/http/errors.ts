import { STATUS_CODES } from 'node:http';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';

/** Domain code throws these; the error handler turns them into the contract's body. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string | string[],
    readonly headers: Record<string, string> = {},
  ) {
    super(Array.isArray(message) ? message.join('; ') : message);
    this.messages = message;
  }
  readonly messages: string | string[];
}

export const FORBIDDEN_MESSAGE = 'You do not have permission to perform this action';

export const badRequest = (...messages: string[]) => new AppError(400, messages);
export const unauthorized = (message = 'Unauthorized') => new AppError(401, message);
export const forbidden = (message = FORBIDDEN_MESSAGE) => new AppError(403, message);
export const notFound = (what: string) => new AppError(404, `${what} not found`);
export const conflict = (message: string) => new AppError(409, message);
export const gone = (message: string) => new AppError(410, message);

export const ErrorBody = Type.Object(
  {
    statusCode: Type.Integer(),
    message: Type.Union([Type.String(), Type.Array(Type.String())]),
    error: Type.String(),
  },
  { $id: 'Error', description: 'Every error has this body; 400 lists one message per violation.' },
);

/** A route's own error response for the OpenAPI document, e.g. `409: errorResponse('Code taken')`. */
export const errorResponse = (description: string) =>
  Type.Unsafe<{ statusCode: number; message: string | string[]; error: string }>({
    $ref: 'Error#',
    description,
  });

const body = (statusCode: number, message: string | string[]) => ({
  statusCode,
  message,
  error: STATUS_CODES[statusCode] ?? 'Error',
});

/** The Postgres error code behind an error; Drizzle wraps driver errors and keeps them as `cause`. */
export function pgErrorCode(err: unknown): { code?: string; constraint?: string } {
  for (let e = err as { code?: unknown; constraint?: unknown; cause?: unknown } | undefined; e;) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) {
      return { code: e.code, constraint: typeof e.constraint === 'string' ? e.constraint : undefined };
    }
    e = e.cause as typeof e;
  }
  return {};
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
 * For a delete's `.catch`: a foreign key's refusal becomes its 409 from the table above (or the
 * generic one); any other error passes through. `what` names the deleted resource as `notFound` does.
 */
export function refusedDelete(what: string): (err: unknown) => never {
  return (err) => {
    const { code, constraint } = pgErrorCode(err);
    if (code !== '23503') throw err;
    throw conflict((constraint && REFERENCED_BY[constraint]?.[what]) ?? REFERENCED_ELSEWHERE);
  };
}

const REFERENCED_ELSEWHERE = 'The record is referenced by other data';

/**
 * For a write's `.catch`: a unique index's refusal (a race lost after the service's own check, or
 * the only check) becomes a 409 with `message`; any other error passes through.
 */
export function refusedDuplicate(message: string): (err: unknown) => never {
  return (err) => {
    if (pgErrorCode(err).code === '23505') throw conflict(message);
    throw err;
  };
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof AppError) {
      void reply.headers(err.headers);
      return reply.status(err.statusCode).send(body(err.statusCode, err.messages));
    }
    if (err.validation) {
      return reply.status(400).send(body(400, validationMessages(err)));
    }
    // Constraint errors that slipped past the service's own checks: a race between two requests.
    const { code } = pgErrorCode(err);
    if (code === '23505') return reply.status(409).send(body(409, 'The record already exists'));
    if (code === '23503') return reply.status(409).send(body(409, REFERENCED_ELSEWHERE));
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply
        .status(status)
        .send(body(status, status === 400 ? [clientMessage(err)] : clientMessage(err)));
    }
    request.log.error({ err }, 'request failed');
    return reply.status(500).send(body(500, 'Internal server error'));
  });

  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send(body(404, `Route ${request.method} ${request.url.split('?')[0]} not found`)),
  );
}

/**
 * What the router refuses before any route runs (Fastify's `frameworkErrors`), in the contract's body:
 * a URL that does not decode (400) and a path value over the router's limit (414), without echoing it.
 */
export function frameworkError(err: FastifyError, _request: unknown, reply: FastifyReply): void {
  const status = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : (err.statusCode ?? 400);
  const message =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'A value in the path is too long'
      : err.code === 'FST_ERR_BAD_URL'
        ? 'The URL is not valid'
        : clientMessage(err);
  void reply.status(status).send(body(status, status === 400 ? [message] : message));
}

function clientMessage(err: FastifyError): string {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'Body is not valid JSON';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is larger than 1 MiB';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return `Unsupported content type; send application/json`;
    default:
      return err instanceof SyntaxError ? 'Body is not valid JSON' : err.message;
  }
}

/** Keywords every request string and number gets (validation.ts); their messages are below. */
export const NO_NUL = 'noNul';
export const WELL_FORMED = 'wellFormedText';
export const FINITE = 'finiteNumber';

interface AjvIssue {
  keyword: string;
  instancePath: string;
  /** Set on the problems of an object's keys (`propertyNames`). */
  propertyName?: string;
  params: Record<string, unknown>;
  message?: string;
}

/** One message per violation, each naming the field (`fields.0.key`) the way a form would show it. */
export function validationMessages(err: { validation?: unknown; validationContext?: string }): string[] {
  const issues = (err.validation ?? []) as AjvIssue[];
  // A nullable field (`anyOf [X, null]`) that fails both branches reports X's problem, not "must be null".
  const otherwiseWrong = new Set(
    issues.filter((i) => !(i.keyword === 'type' && i.params.type === 'null')).map((i) => i.instancePath),
  );
  const messages = issues
    .filter((issue) => !['anyOf', 'oneOf', 'if', 'propertyNames'].includes(issue.keyword))
    .filter(
      (issue) =>
        !(issue.keyword === 'type' && issue.params.type === 'null' && otherwiseWrong.has(issue.instancePath)),
    )
    .map((issue) => describe(issue));
  return [...new Set(messages.length > 0 ? messages : ['Request is not valid'])];
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
      return `${name()} has an invalid format`;
    case 'minItems':
      return `${name()} must contain at least ${String(params.limit)} items`;
    case 'maxItems':
      return `${name()} must contain at most ${String(params.limit)} items`;
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
