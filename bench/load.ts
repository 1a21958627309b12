import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';

/** The methods the scenarios send. */
export type Method = 'GET' | 'POST' | 'PATCH';

/**
 * Requests that each go to one of several resources, never two at once to the same (writes of one
 * resource would wait for each other's lock): `take` answers a free one's path and body, and keeps it
 * until `release` is called with what it answered.
 */
export interface Rotation {
  take(): { path: string; body: string };
  release(path: string): void;
}

export interface LoadOptions {
  url: string;
  method?: Method;
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  /** Seconds. */
  duration: number;
  /** Statuses besides 2xx that are the expected answer (304 to a matching If-None-Match). */
  accept?: number[];
  /** A header given a new random UUID on every request (an `Idempotency-Key`). */
  freshHeader?: string;
  /** Each request's path and body taken from here (`url` gives only the origin then). */
  rotation?: Rotation;
}

/** Per connection, between a request and its answer: the resource it holds. */
interface Held {
  path?: string;
}

export interface LoadResult {
  /** Expected answers: 2xx, and the statuses of `accept`. */
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  /** Other answers, and connection errors: a run with any is not a measurement. */
  failures: number;
}

/** One autocannon run; latencies in milliseconds. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const { freshHeader, rotation } = options;
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    connections: options.connections,
    duration: options.duration,
    timeout: 30,
    // The request is built again for each one (only then), with its own value.
    requests:
      freshHeader || rotation
        ? [
            {
              setupRequest: (request, context: Held) => {
                const taken = rotation?.take();
                context.path = taken?.path;
                return {
                  ...request,
                  ...taken,
                  headers: freshHeader
                    ? { ...request.headers, [freshHeader]: randomUUID() }
                    : request.headers,
                };
              },
              onResponse: (_status, _body, context: Held) => {
                if (context.path) rotation?.release(context.path);
              },
            },
          ]
        : undefined,
  });
  const accepted = (options.accept ?? []).reduce(
    (sum, status) => sum + (result.statusCodeStats?.[`${status}`]?.count ?? 0),
    0,
  );
  const requests = result['2xx'] + accepted;
  return {
    requests,
    rps: requests / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx - accepted + result.errors,
  };
}

/**
 * Runs of the same load as one: requests and failures added, the rate over their summed time, p50 the
 * mean of theirs and p99 the worst.
 */
export function combined(runs: LoadResult[]): LoadResult {
  const requests = runs.reduce((sum, r) => sum + r.requests, 0);
  const seconds = runs.reduce((sum, r) => sum + (r.rps > 0 ? r.requests / r.rps : 0), 0);
  return {
    requests,
    rps: seconds > 0 ? requests / seconds : 0,
    p50: runs.reduce((sum, r) => sum + r.p50, 0) / runs.length,
    p99: Math.max(...runs.map((r) => r.p99)),
    failures: runs.reduce((sum, r) => sum + r.failures, 0),
  };
}
