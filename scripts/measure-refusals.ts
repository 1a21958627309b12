/**
 * Issue 36, finding 1's check: `/health` latency while four clients send 1 MiB bodies of about 110,000
 * unknown keys to the sign-in routes as fast as they are refused. `tsx scripts/measure-refusals.ts
 * [seconds]`, on an embedded database of its own; prints /health's p50/p90/p99 quiet and under the load.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

const seconds = Number(process.argv[2] ?? 10);
const dataDir = mkdtempSync(path.join(tmpdir(), 'mel-refusals-'));
const config = loadConfig({
  NODE_ENV: 'test',
  DATA_DIR: dataDir,
  JWT_SECRET: 'a-secret-that-is-long-enough-for-hs256-signing',
  PII_KEY: Buffer.alloc(32, 7).toString('base64'),
  LOG_LEVEL: 'silent',
  RATE_LIMIT_MAX: '1000000',
  PUBLIC_RATE_LIMIT_MAX: '1000000',
  AUTH_RATE_LIMIT_MAX: '1000000',
});
const app = await buildApp(config, { worker: false, webhooks: false, reminders: false });
await app.listen({ port: 0, host: '127.0.0.1' });
const { port } = app.server.address() as { port: number };
const base = `http://127.0.0.1:${port}`;

const keys: Record<string, number> = { email: 0, password: 0 };
let size = 40;
for (let i = 0; size < 1_040_000; i++) {
  keys[`_${i.toString(36)}`] = 0;
  size += i.toString(36).length + 6;
}
const body = JSON.stringify(keys);

async function health() {
  const result = await autocannon({ url: `${base}/health`, connections: 1, duration: seconds });
  return `p50 ${result.latency.p50} ms, p90 ${result.latency.p90} ms, p99 ${result.latency.p99} ms, ${result.requests.average} req/s`;
}

console.log(`body ${body.length} bytes, ${Object.keys(keys).length} keys`);
console.log(`quiet:       /health ${await health()}`);
let refused = 0;
let running = true;
const senders = Array.from({ length: 4 }, async () => {
  while (running) {
    const res = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    await res.arrayBuffer();
    refused += res.status === 400 ? 1 : 0;
  }
});
const started = Date.now();
const loaded = await health();
running = false;
await Promise.all(senders);
console.log(`under load:  /health ${loaded}`);
console.log(`refused ${refused} bodies in ${((Date.now() - started) / 1000).toFixed(1)} s`);
await app.close();
rmSync(dataDir, { recursive: true, force: true });
