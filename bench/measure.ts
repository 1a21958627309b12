import type { LoadResult } from './load.js';
import type { Server } from './processes.js';
import type { Row } from './report.js';

/** A POST of JSON that must succeed; answers the parsed body. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** One export read to the end, with the server's resident memory sampled every 20 ms. */
export async function exportOnce(server: Server, path: string, headers: Record<string, string>) {
  let peak = server.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, server.rss())), 20);
  const started = performance.now();
  try {
    const res = await fetch(`${server.url}${path}`, { headers, signal: AbortSignal.timeout(600_000) });
    if (!res.ok) throw new Error(`${server.name} export: ${res.status}`);
    let lines = 0;
    for await (const chunk of res.body ?? []) {
      for (const byte of chunk as Uint8Array) if (byte === 10) lines += 1;
    }
    const seconds = (performance.now() - started) / 1000;
    return { rows: lines - (server.name === 'service' ? 1 : 0), seconds, peakRss: peak };
  } finally {
    clearInterval(sampler);
  }
}

export type Export = Awaited<ReturnType<typeof exportOnce>>;

/** The value below which `share` of the sorted values lie (nearest rank). */
const percentile = (sorted: number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))] ?? 0;

/**
 * A heavy document (an export of seconds) read whole, one request after another, for at least `seconds`
 * and at least `atLeast` times: its latencies (p99 is the slowest of so few) and the server's peak
 * resident memory. autocannon would count none of a request that outlasts its run.
 */
export async function documents(
  server: Server,
  path: string,
  headers: Record<string, string>,
  { seconds, atLeast }: { seconds: number; atLeast: number },
): Promise<LoadResult & { peakRss: number }> {
  let peak = server.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, server.rss())), 20);
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  try {
    while (latencies.length + failures < atLeast || performance.now() - started < seconds * 1000) {
      const sent = performance.now();
      const res = await fetch(`${server.url}${path}`, { headers, signal: AbortSignal.timeout(600_000) });
      await res.arrayBuffer();
      if (res.ok) latencies.push(performance.now() - sent);
      else failures += 1;
    }
  } finally {
    clearInterval(sampler);
  }
  const sorted = latencies.sort((a, b) => a - b);
  return {
    requests: sorted.length,
    rps: sorted.length / ((performance.now() - started) / 1000),
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    failures,
    peakRss: peak,
  };
}

/** An export's row: rows a second, against another export's. */
export function exportRow(name: string, scenario: string, ours: Export, bare: Export, note: string): Row {
  const rate = (run: Export) => run.rows / run.seconds;
  return {
    name,
    scenario,
    connections: 1,
    rps: rate(ours),
    p50: ours.seconds * 1000,
    p99: null,
    floorRps: rate(bare),
    ratio: rate(ours) / rate(bare),
    note,
    peakRss: ours.peakRss,
  };
}

/** A load scenario's row: the service's run against its floor's (or another run standing for it). */
export function loadRow(
  name: string,
  scenario: string,
  connections: number,
  service: LoadResult,
  floor: LoadResult | null,
  note = '',
): Row {
  const failures = service.failures + (floor?.failures ?? 0);
  return {
    name,
    scenario,
    connections,
    rps: service.rps,
    p50: service.p50,
    p99: service.p99,
    floorRps: floor?.rps ?? null,
    ratio: floor ? service.rps / floor.rps : null,
    note: [failures ? `failures ${service.failures}/${floor?.failures ?? 0}` : '', note]
      .filter(Boolean)
      .join('; '),
    failures,
  };
}
