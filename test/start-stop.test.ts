/**
 * Issue 39, "Start and stop cleanly": `npm start` and `npm run worker`, started as a person starts them,
 * leave no process behind when npm is signalled (SIGTERM, a terminal's Ctrl-C to the whole group, even
 * SIGKILL, which npm cannot pass on), and the port is free again; a second start on a taken port says so
 * in one line. A server whose output nobody reads any more still stops. The embedded database runs here in production only as allowed, with the warning an http
 * BASE_URL away from loopback gets.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../bench/processes.js';
import { migratedDataDir } from './helpers/embedded.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Started {
  npm: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `npm <args>` in the repository, in a process group of its own (as a terminal's foreground job). */
function npm(args: string[], env: Record<string, string>): Started {
  const child = spawn('npm', args, {
    cwd: root,
    // Nothing of the test's own environment (its database, Redis, npm's variables), as a fresh shell.
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { npm: child, output: () => output, exited };
}

/** Waits until `ready()` or the process ends; fails after 60 s. */
async function until(started: Started, ready: () => Promise<boolean> | boolean): Promise<void> {
  let ended = false;
  void started.exited.then(() => (ended = true));
  const deadline = Date.now() + 60_000;
  while (!(await ready())) {
    if (ended) throw new Error(`npm ended before it was ready:\n${started.output()}`);
    if (Date.now() > deadline) throw new Error(`not ready within 60 s:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const answers = (port: number) => () =>
  fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(2000) }).then(
    (res) => res.ok,
    () => false,
  );

/** `npm start` on a free port, answering: the npm process and every process below it then. */
async function serving(dataDir: string) {
  const port = await freePort();
  const env = baseEnv(dataDir, port);
  const started = npm(['start'], env);
  await until(started, answers(port));
  const tree = descendants(started.npm.pid!);
  expect(tree.length).toBeGreaterThan(0);
  return { port, env, started, tree };
}

/** npm ended as `exit` says, nothing of its tree is left within 5 s, and (for a server) its port is free. */
async function expectAllGone(
  started: Started,
  tree: number[],
  exit: { code: number | null; signal: NodeJS.Signals | null },
  port?: number,
) {
  expect(await started.exited).toEqual(exit);
  expect(await survivors(tree, 5000)).toEqual([]);
  if (port !== undefined) expect(await portFree(port)).toBe(true);
}

/** The state letter of /proc/<pid>/stat, null once the process is gone. */
function stateOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] ?? null;
  } catch {
    return null;
  }
}

/** Every process below `pid` now (from /proc's parent links). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(
        readFileSync(`/proc/${entry}/stat`, 'utf8')
          .replace(/^.*\) /s, '')
          .split(' ')[1],
      );
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const child of parents.get(parent) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** Processes among `pids` still running after up to `ms` (an exited one left unreaped holds nothing). */
async function survivors(pids: number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const running = pids.filter((pid) => ![null, 'Z', 'X'].includes(stateOf(pid)));
    if (running.length === 0 || Date.now() > deadline) return running;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function portFree(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

const PUBLIC_HTTP = 'http://mel.example.org';
// The same keys for every start: they share one database.
const JWT_SECRET = randomBytes(32).toString('base64url');
const PII_KEY = randomBytes(32).toString('base64');
const baseEnv = (dataDir: string, port: number) => ({
  NODE_ENV: 'production',
  ALLOW_EMBEDDED_IN_PRODUCTION: 'true',
  JWT_SECRET,
  PII_KEY,
  BASE_URL: PUBLIC_HTTP,
  DATA_DIR: dataDir,
  PORT: String(port),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
});

describe('npm start and npm run worker, signalled', () => {
  // One embedded database, used by one process at a time: only the first start migrates it.
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'mel-start-stop-'));
    // Built once here, so that no start below spends its time building.
    await Promise.all([
      promisify(execFile)(process.execPath, [path.join(root, 'scripts/build.mjs')]),
      migratedDataDir(dataDir),
    ]);
  }, 60_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it(
    'SIGTERM to npm start: npm exits 0, its server with it, the port is free',
    { timeout: 90_000 },
    async () => {
      const { port, env, started, tree } = await serving(dataDir);

      // A second start on the taken port: one line, at once, before any database is opened.
      const otherDir = mkdtempSync(path.join(tmpdir(), 'mel-start-second-'));
      try {
        const second = npm(['start'], { ...env, DATA_DIR: otherDir });
        expect(await second.exited).toEqual({ code: 1, signal: null });
        expect(second.output()).toContain(
          `\ncannot listen on port ${port} (HOST 127.0.0.1): another process holds it, perhaps the service ` +
            'already running; stop that process or set PORT to a free port\n',
        );
        expect(second.output()).not.toMatch(/EADDRINUSE|\n\s+at /);
        expect(readdirSync(otherDir)).not.toContain('pglite');
      } finally {
        rmSync(otherDir, { recursive: true, force: true });
      }

      process.kill(started.npm.pid!, 'SIGTERM');
      await expectAllGone(started, tree, { code: 0, signal: null }, port);
      const log = started.output();
      expect(log).toContain('"msg":"SIGTERM received, shutting down"');
      expect(log).toContain('"msg":"stopped"');
      // Production on the embedded database, allowed; an http BASE_URL on a public name: one warning.
      expect(log).toContain(`embedded PGlite in ${dataDir}`);
      const warnings = log.split('\n').filter((line) => line.includes('"level":40'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(
        `"msg":"BASE_URL ${PUBLIC_HTTP} is plain http on an address other than loopback: session cookies ` +
          'are sent without Secure and tokens cross the network in clear; serve the API over https and set ' +
          'BASE_URL to its https URL"',
      );
    },
  );

  it(
    'Ctrl-C (SIGINT to the whole group, npm passing its own on): one clean shutdown',
    { timeout: 60_000 },
    async () => {
      const { port, started, tree } = await serving(dataDir);
      process.kill(-started.npm.pid!, 'SIGINT');
      await expectAllGone(started, tree, { code: 0, signal: null }, port);
      // The server's second SIGINT (npm's) did not cut its shutdown short.
      expect(started.output().match(/SIGINT received, shutting down/g)).toHaveLength(1);
      expect(started.output()).toContain('"msg":"stopped"');
    },
  );

  it(
    'SIGKILL to npm start, its output unread (a closed terminal): the server stops by itself',
    { timeout: 60_000 },
    async () => {
      const { port, started, tree } = await serving(dataDir);
      // Writes to stdout and stderr now fail (EPIPE): pino's asynchronous default then looped at exit.
      started.npm.stdout!.destroy();
      started.npm.stderr!.destroy();
      process.kill(started.npm.pid!, 'SIGKILL');
      await expectAllGone(started, tree, { code: null, signal: 'SIGKILL' }, port);
    },
  );

  it('a process exits after logging to a stdout nobody reads', { timeout: 20_000 }, async () => {
    // A line being written and one waiting when process.exit() comes: with pino's asynchronous default,
    // flushing the waiting one at exit retried EPIPE without end (the compiled module, as the server loads it).
    const output = pathToFileURL(path.join(root, 'dist/http/observability/log-output.js')).href;
    const script =
      `import pino from 'pino'; import { logOutput } from '${output}';` +
      `const log = pino({}, await logOutput({ logFormat: 'json' }));` +
      `log.info('one'); log.info('two'); process.exit(0);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout.destroy();
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const hung = new Promise((resolve) => setTimeout(() => resolve('still running after 10 s'), 10_000));
    const outcome = await Promise.race([exited, hung]);
    child.kill('SIGKILL');
    expect(outcome).toEqual({ code: 0, signal: null });
  });

  it('SIGTERM to npm run worker: the worker stops, nothing is left', { timeout: 60_000 }, async () => {
    const started = npm(['run', 'worker'], baseEnv(dataDir, await freePort()));
    await until(started, () => started.output().includes('reminder and retention jobs started'));
    const tree = descendants(started.npm.pid!);
    expect(tree.length).toBeGreaterThan(0);
    process.kill(started.npm.pid!, 'SIGTERM');
    await expectAllGone(started, tree, { code: 0, signal: null });
    expect(started.output()).toContain('"msg":"SIGTERM received, stopping the worker"');
    expect(started.output()).toContain('"msg":"stopped"');
  });
});
