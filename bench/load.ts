import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  /** Seconds. */
  duration: number;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  /** Answers outside 2xx, and connection errors: a run with any is not a measurement. */
  failures: number;
}

/** One autocannon run; latencies in milliseconds. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    connections: options.connections,
    duration: options.duration,
    timeout: 30,
  });
  return {
    requests: result['2xx'],
    rps: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors,
  };
}
