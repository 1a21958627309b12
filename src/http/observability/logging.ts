import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import pino, { type LogFn, type Logger, type LoggerOptions } from 'pino';
import type { Config } from '../../config.js';

/** Longer URLs are logged cut: enough to tell requests apart, too little to fill the log. */
export const MAX_LOGGED_URL = 2048;
const REDACTED = '[redacted]';

/**
 * pino options: link tokens (invitation, reset, form, share) and the identity provider's authorization
 * code never reach the logs, and neither do the values of a failed query, which may hold emails, phones
 * and hashes. A request is logged as its method, its route's template (absent when no route matched), its
 * URL redacted, and the client's address.
 */
export function loggerOptions(config: Pick<Config, 'logLevel'>): LoggerOptions {
  return {
    level: config.logLevel,
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        route: request.routeOptions.url,
        url: redactedUrl(request),
        remoteAddress: request.ip,
      }),
      res: (reply: Pick<FastifyReply, 'statusCode'>) => ({ statusCode: reply.statusCode }),
      err: redactedError,
    },
    hooks: { logMethod: withRedactedMessage },
  };
}

/**
 * Fastify's request lines, one a request: the completion line carries the request (method, route, URL),
 * the status and the time in ms, so that it reads alone; the line on arrival is debug.
 */
export class RequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: Math.round(reply.elapsedTime * 10) / 10 };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

/**
 * The request's URL for the log, in time linear in its length (a backtracking pattern here once let one
 * 16 KB query stall the process for 33 s): path values of `*token*` parameters, and the values of query
 * keys containing `token` or named `code`, are replaced; the result is cut at MAX_LOGGED_URL.
 */
export function redactedUrl(request: Pick<FastifyRequest, 'url' | 'params'>): string {
  const url = request.url;
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  const query = mark === -1 ? null : url.slice(mark + 1);
  const redacted =
    query === null
      ? redactedPath(path, request.params)
      : `${redactedPath(path, request.params)}?${redactedQuery(query)}`;
  return redacted.length > MAX_LOGGED_URL
    ? `${redacted.slice(0, MAX_LOGGED_URL)}...[cut: ${redacted.length} characters in all]`
    : redacted;
}

/** Whole path segments that decode to a token parameter's value, however the client encoded them. */
function redactedPath(path: string, params: unknown): string {
  const secrets = new Set<string>();
  for (const [name, value] of Object.entries((params ?? {}) as Record<string, unknown>)) {
    if (name.toLowerCase().includes('token') && typeof value === 'string' && value !== '') secrets.add(value);
  }
  if (secrets.size === 0) return path;
  return path
    .split('/')
    .map((segment) => (secrets.has(segment) || secrets.has(decoded(segment)) ? REDACTED : segment))
    .join('/');
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The query as sent, with the values of secret keys replaced. Keys are read as URLSearchParams reads
 * them (`to%6Ben` is `token`): its entries are the query's non-empty `&`-separated pairs, in order.
 */
function redactedQuery(query: string): string {
  // The leading `&` keeps URLSearchParams from dropping a leading `?` (`??token=x`).
  const keys = [...new URLSearchParams(`&${query}`).keys()];
  let entry = 0;
  return query
    .split('&')
    .map((pair) => {
      if (pair === '') return pair;
      const key = keys[entry++] ?? '';
      const equals = pair.indexOf('=');
      return equals !== -1 && isSecretKey(key) ? `${pair.slice(0, equals + 1)}${REDACTED}` : pair;
    })
    .join('&');
}

/**
 * `token`, `refreshToken`, `token[]`...; the identity provider's one-time `code` (`code[]` too); and
 * `search`, the one free-text filter, which holds participants' names, phones and national ids.
 */
function isSecretKey(key: string): boolean {
  const name = key.toLowerCase();
  return (
    name.includes('token') ||
    ['code', 'search'].some((secret) => name === secret || name.startsWith(`${secret}[`))
  );
}

/** Error fields that carry values: Drizzle's and PGlite's `params`, PostgreSQL's `detail` and `where`. */
const VALUE_FIELDS = new Set(['params', 'parameters', 'detail', 'where']);

/**
 * pino's error serializer on a copy of the error, and of its causes, without the values of a failed
 * query: Drizzle repeats them in its message (`Failed query: ...\nparams: a@b.org,+254...`) and so in
 * the stack; PostgreSQL puts them in `detail` (`Key (email)=(a@b.org) already exists.`, `Failing row
 * contains (...)`) and quotes them in the messages of data errors (`invalid input syntax ...: "..."`).
 */
export function redactedError(err: unknown): unknown {
  return isErrorLike(err) ? pino.stdSerializers.err(redactedCopy(err, new Map()) as Error) : err;
}

/**
 * pino takes an error's message as the line's `msg` when none is given (`log.error(err)`), and Fastify's
 * default error handler passes it as the message: either way it is the redacted one.
 */
function withRedactedMessage(this: Logger, args: Parameters<LogFn>, method: LogFn): void {
  const [first, second, ...rest] = args as unknown[];
  if (isErrorLike(first) && typeof second !== 'string') {
    method.apply(this, [first, redactedMessage(first), ...(second === undefined ? [] : [second]), ...rest]);
    return;
  }
  const err = typeof first === 'object' && first !== null ? (first as { err?: unknown }).err : undefined;
  if (isErrorLike(err) && second === err.message) {
    method.apply(this, [first, redactedMessage(err), ...rest]);
    return;
  }
  method.apply(this, args);
}

interface ErrorLike {
  message: string;
  stack?: unknown;
  name?: unknown;
  code?: unknown;
}

const isErrorLike = (value: unknown): value is ErrorLike =>
  typeof value === 'object' && value !== null && typeof (value as ErrorLike).message === 'string';

function redactedCopy(err: ErrorLike, copies: Map<object, object>): object {
  const known = copies.get(err);
  if (known) return known;
  const copy = Object.create(Object.getPrototypeOf(err) as object | null) as Record<string, unknown>;
  copies.set(err, copy);
  for (const key of Object.getOwnPropertyNames(err)) {
    const descriptor = Object.getOwnPropertyDescriptor(err, key)!;
    if ('value' in descriptor) descriptor.value = redactedValue(key, descriptor.value, copies);
    Object.defineProperty(copy, key, descriptor);
  }
  // Set apart: either may be inherited rather than the error's own.
  const message = redactedMessage(err);
  const hidden = { enumerable: false, writable: true, configurable: true };
  Object.defineProperty(copy, 'message', { ...hidden, value: message });
  Object.defineProperty(copy, 'stack', { ...hidden, value: redactedStack(err, message) });
  return copy;
}

function redactedValue(key: string, value: unknown, copies: Map<object, object>): unknown {
  if (VALUE_FIELDS.has(key) && value != null) return REDACTED;
  if (isErrorLike(value)) return redactedCopy(value, copies);
  if (key === 'errors' && Array.isArray(value)) {
    return value.map((e: unknown) => (isErrorLike(e) ? redactedCopy(e, copies) : e));
  }
  return value;
}

function redactedMessage(err: ErrorLike): string {
  const { message } = err;
  const params = message.indexOf('\nparams: ');
  if (params !== -1) return `${message.slice(0, params)}\nparams: ${REDACTED}`;
  // SQLSTATE class 22 (data exception): the offending value follows, in double quotes.
  const quote = message.indexOf('"');
  if (typeof err.code === 'string' && err.code.startsWith('22') && quote !== -1) {
    return `${message.slice(0, quote)}${REDACTED}`;
  }
  return message;
}

/** The stack with the message replaced; a stack that does not hold the message keeps only the header. */
function redactedStack(err: ErrorLike, message: string): unknown {
  const { stack } = err;
  if (typeof stack !== 'string' || message === err.message) return stack;
  const at = stack.indexOf(err.message);
  if (at === -1) return `${typeof err.name === 'string' ? err.name : 'Error'}: ${message}`;
  return `${stack.slice(0, at)}${message}${stack.slice(at + err.message.length)}`;
}
