import pino, { type DestinationStream } from 'pino';
import type { Config } from '../../config.js';

/** LOG_FORMAT=pretty without pino-pretty installed: the process does not start. */
export class LogOutputUnavailable extends Error {}

type PrettyOptions = Record<string, unknown>;
type PrettyModule = { default: (options: PrettyOptions) => DestinationStream };

// A name, not a literal: the package is loaded only for LOG_FORMAT=pretty, and may be absent otherwise.
const PRETTY = 'pino-pretty';
const loadPretty = (): Promise<unknown> => import(PRETTY);

/** Fields the pretty line's message carries itself, or that no person reads. */
const SHOWN_IN_MESSAGE = 'pid,hostname,reqId,req,res,responseTime';

/**
 * stdout, written synchronously. pino's default writes asynchronously and, at process.exit(), flushes with
 * sonic-boom's flushSync, which retries a failed write without end: a service whose stdout had no reader
 * any more (its terminal closed, or the pipe of a supervisor that died) never exited, SIGTERM or not
 * (measured: `write(1) = EPIPE` in a loop, the port held). Written synchronously nothing waits at exit, and
 * a line that cannot be written (EPIPE, EIO) is lost while the service goes on and stops when told.
 */
export function stdoutDestination(): DestinationStream {
  const destination = pino.destination({ dest: 1, sync: true });
  destination.on('error', () => undefined);
  return destination;
}

/** Where log lines go: JSON lines on stdout, or through pino-pretty (LOG_FORMAT=pretty) for people. */
export async function logOutput(
  config: Pick<Config, 'logFormat'>,
  load: () => Promise<unknown> = loadPretty,
): Promise<DestinationStream> {
  if (config.logFormat === 'json') return stdoutDestination();
  let pretty: PrettyModule;
  try {
    pretty = (await load()) as PrettyModule;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw err;
    throw new LogOutputUnavailable(
      'LOG_FORMAT=pretty needs the pino-pretty package, which is not installed here: install the ' +
        'dependencies again (npm ci), or set LOG_FORMAT=json',
    );
  }
  return pretty.default({ destination: stdoutDestination(), ...PRETTY_OPTIONS });
}

/** How pino-pretty writes a line for people: the time, the level, then `prettyMessage`. */
export const PRETTY_OPTIONS = {
  translateTime: 'SYS:HH:MM:ss.l',
  ignore: SHOWN_IN_MESSAGE,
  messageFormat: prettyMessage,
};

interface LoggedRequest {
  method?: string;
  route?: string;
  url?: string;
}

/**
 * A line's message as people read it: a request's completion as `GET /health/ready 200 1.5 ms`, then
 * its route's template and request id; any other line's message, with the request it concerns.
 */
export function prettyMessage(log: Record<string, unknown>, messageKey: string): string {
  const text = log[messageKey];
  const message = typeof text === 'string' ? text : '';
  const req = log.req as LoggedRequest | undefined;
  const status = (log.res as { statusCode?: number } | undefined)?.statusCode;
  const parts: string[] = [];
  if (req && typeof log.responseTime === 'number' && status !== undefined) {
    parts.push(`${req.method} ${req.url} ${status} ${log.responseTime} ms`);
    if (message !== 'request completed') parts.push(`(${message})`);
  } else {
    parts.push(message);
    if (req) parts.push(`${req.method} ${req.url}`);
    if (status !== undefined) parts.push(String(status));
  }
  if (req?.route) parts.push(`route=${req.route}`);
  if (typeof log.reqId === 'string') parts.push(`reqId=${log.reqId}`);
  return parts.filter((part) => part !== '').join(' ');
}
