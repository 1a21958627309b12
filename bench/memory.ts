/**
 * `npm run bench:memory`: the resident memory of the compiled server (as `npm start` runs it) with no
 * request, 10 s after it is ready: on a new embedded database (a first start, which creates and migrates
 * it), then again on the same DATA_DIR (a restart); then after `--load` seconds (default 30) of reads by
 * 10 clients, and 10 s after they stop. With DATABASE_URL set, the same on PostgreSQL: a new, empty
 * database (it is migrated; the keys are generated anew in a new DATA_DIR). Prints the figures in MB; docs/operations.md ("Memory") quotes them.
 *
 * `npm run bench:memory -- --exports`: instead, the peak resident memory of the service while it streams
 * the seeded CSV form's submissions (`npm run seed:bench` on DATABASE_URL: 1,000,000 at size large) as
 * CSV, then as an .xlsx workbook (a new service for each, after `--idle` seconds), each read to its end by
 * one client as fast as it can, the memory sampled every 20 ms; with the time, the rows a second and the bytes.
 * Not part of `npm test`: the numbers depend on the machine and what else runs on it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readManifest } from './manifest.js';
import { startServer, type Server } from './processes.js';
import { BENCH_PII_KEY } from './seed/participants.js';

const { values: args } = parseArgs({
  options: {
    load: { type: 'string', default: '30' },
    idle: { type: 'string', default: '10' },
    exports: { type: 'boolean', default: false },
  },
});
const idleMs = Number(args.idle) * 1000;
const loadMs = Number(args.load) * 1000;
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const env = (dataDir: string, databaseUrl?: string): Record<string, string> => ({
  DATA_DIR: dataDir,
  DATABASE_URL: databaseUrl ?? '',
  NODE_ENV: 'development',
  LOG_LEVEL: 'warn',
  BCRYPT_COST: '4',
  RATE_LIMIT_MAX: '1000000',
  AUTH_RATE_LIMIT_MAX: '1000',
});

async function idle(server: Server, began: number): Promise<string> {
  const ready = ((Date.now() - began) / 1000).toFixed(1);
  await sleep(idleMs);
  return `ready in ${ready} s, ${mb(server.rss())} MB`;
}

/** Reads by `clients` clients for `ms`: the caller's organizations, one's dashboard and participants, the caller. */
async function reads(server: Server, ms: number, clients = 10): Promise<number> {
  const json = { 'content-type': 'application/json' };
  let authorization = '';
  const registered = await fetch(`${server.url}/auth/register`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({
      email: `memory-${randomBytes(4).toString('hex')}@example.org`,
      password: 'a long enough password 1',
      firstName: 'Bench',
      lastName: 'Memory',
    }),
  });
  const token = /jwt=([^;]+)/.exec(registered.headers.get('set-cookie') ?? '')?.[1];
  if (!registered.ok || !token) throw new Error(`register: ${registered.status} ${await registered.text()}`);
  authorization = `Bearer ${token}`;
  const org = await fetch(`${server.url}/orgs`, {
    method: 'POST',
    headers: { ...json, authorization },
    body: JSON.stringify({ name: 'Memory bench', code: `mb-${randomBytes(3).toString('hex')}` }),
  });
  if (!org.ok) throw new Error(`create org: ${org.status} ${await org.text()}`);
  const { id } = (await org.json()) as { id: string };
  const paths = [
    '/orgs',
    `/orgs/${id}/dashboard-summary`,
    `/orgs/${id}/participants`,
    '/auth/me',
    `/orgs/${id}`,
  ];
  const end = Date.now() + ms;
  let done = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let i = client; Date.now() < end; i++) {
        const res = await fetch(`${server.url}${paths[i % paths.length]}`, { headers: { authorization } });
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`${paths[i % paths.length]}: ${res.status}`);
        done++;
      }
    }),
  );
  return done;
}

async function measure(label: string, dataDir: string, databaseUrl?: string): Promise<void> {
  let began = Date.now();
  let server = await startServer(label, 'src/server.ts', env(dataDir, databaseUrl));
  console.log(`${label}, first start: ${await idle(server, began)}`);
  await server.stop();
  began = Date.now();
  server = await startServer(label, 'src/server.ts', env(dataDir, databaseUrl));
  console.log(`${label}, restart: ${await idle(server, began)}`);
  if (loadMs > 0) {
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, server.rss())), 250);
    const count = await reads(server, loadMs);
    clearInterval(sampler);
    const after = mb(server.rss());
    await sleep(idleMs);
    console.log(
      `${label}, ${loadMs / 1000} s of reads (${Math.round(count / (loadMs / 1000))}/s): ` +
        `peak ${mb(peak)} MB, ${after} MB at the end, ${mb(server.rss())} MB ${idleMs / 1000} s later`,
    );
  }
  await server.stop();
}

/** One export read to its end: its time, bytes and the service's peak resident memory meanwhile. */
async function exported(server: Server, url: string, authorization: string) {
  const before = server.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, server.rss())), 20);
  const started = performance.now();
  let bytes = 0;
  try {
    const res = await fetch(`${server.url}${url}`, {
      headers: { authorization },
      signal: AbortSignal.timeout(3_600_000),
    });
    if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    for await (const chunk of res.body ?? []) bytes += (chunk as Uint8Array).length;
  } finally {
    clearInterval(sampler);
  }
  return { seconds: (performance.now() - started) / 1000, bytes, before, peak };
}

/**
 * The seeded CSV form exported as CSV, then as .xlsx, on the PostgreSQL of DATABASE_URL: each by a
 * service of its own, started for it, so that one export's garbage does not count in the other's peak.
 */
async function exports(databaseUrl: string, dataDir: string): Promise<void> {
  const manifest = readManifest();
  const rows = manifest.csvForm.submissions;
  const base = `/orgs/${manifest.orgId}/forms/${manifest.csvForm.id}/submissions`;
  for (const format of ['csv', 'xlsx']) {
    const server = await startServer('service', 'src/server.ts', {
      ...env(dataDir, databaseUrl),
      NODE_ENV: 'production',
      JWT_SECRET: randomBytes(32).toString('base64url'),
      PII_KEY: process.env.PII_KEY ?? BENCH_PII_KEY,
      BASE_URL: 'http://127.0.0.1',
    });
    try {
      await sleep(idleMs);
      const login = await fetch(`${server.url}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(manifest.admin),
      });
      if (!login.ok) throw new Error(`sign-in: ${login.status} ${await login.text()}`);
      const { accessToken } = (await login.json()) as { accessToken: string };
      const run = await exported(server, `${base}.${format}`, `Bearer ${accessToken}`);
      console.log(
        `${format}, ${rows.toLocaleString('en')} submissions: ${run.seconds.toFixed(1)} s ` +
          `(${Math.round(rows / run.seconds).toLocaleString('en')} rows/s), ${mb(run.bytes)} MB; ` +
          `RSS ${mb(run.before)} MB before, peak ${mb(run.peak)} MB`,
      );
    } finally {
      await server.stop();
    }
  }
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'mel-memory-'));
try {
  if (args.exports) {
    if (!process.env.DATABASE_URL)
      throw new Error('--exports needs DATABASE_URL (seeded by npm run seed:bench)');
    await exports(process.env.DATABASE_URL, dataDir);
  } else {
    await measure('embedded', dataDir);
    if (process.env.DATABASE_URL) await measure('PostgreSQL', dataDir, process.env.DATABASE_URL);
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
