import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A server of ours running as a child process, answering on `url`. */
export interface Server {
  name: string;
  url: string;
  pid: number;
  /** The resident memory of the process now, in bytes (Linux). */
  rss(): number;
  stop(): Promise<void>;
  /** SIGKILL: no shutdown, no flush (the crash test). */
  kill(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function residentBytes(pid: number): number {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return 0; // gone
  }
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  return kib ? Number(kib) * 1024 : 0;
}

/**
 * Starts an entry point as one Node process and waits until `readyPath` answers 200. The service
 * (`src/server.ts`) runs as `npm start` runs it: compiled (scripts/start.mjs builds when a source is
 * newer, in a child process, then imports dist/server.js in its own), so the bench measures what is
 * deployed. Other entries (the floor) run through `node --import tsx`. Either way the pid is the
 * server's own.
 */
let built: Promise<unknown> | undefined;

/**
 * Builds dist/ once per process before the first compiled start, so servers started together never
 * each rebuild (and swap dist/ under one another's imports).
 */
function buildOnce(): Promise<unknown> {
  built ??= promisify(execFile)(process.execPath, [path.join(root, 'scripts/build.mjs')]);
  return built;
}

/**
 * With BENCH_CPU_PROF set to a folder, each server writes V8 CPU profiles under `<folder>/<name>/` when
 * it stops: the service and the floor of one run, side by side (open them in Chrome's DevTools). The
 * main thread's file is the one named `CPU.*.0.001.cpuprofile`; tsx's loader thread writes its own.
 */
function profiling(name: string): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(path.resolve(dir), name)}`] : [];
}

export async function startServer(
  name: string,
  entry: string,
  env: Record<string, string>,
  readyPath = '/health/ready',
): Promise<Server> {
  const port = await freePort();
  const compiled = path.resolve(entry) === path.resolve(root, 'src/server.ts');
  if (compiled) await buildOnce();
  const args = [
    ...profiling(name),
    ...(compiled
      ? ['--enable-source-maps', path.join(root, 'scripts/start.mjs'), 'server']
      : ['--import', 'tsx', entry]),
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  // However the bench ends, its servers end with it.
  process.once('exit', () => child.kill('SIGKILL'));
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`${name} exited with code ${code} before it was ready`))),
  );
  exited.catch(() => undefined);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await Promise.race([
      fetch(`${url}${readyPath}`, { signal: AbortSignal.timeout(2000) }).then(
        (res) => res.ok,
        () => false,
      ),
      exited,
    ]);
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} was not ready within 60 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    name,
    url,
    pid: child.pid!,
    rss: () => residentBytes(child.pid!),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(killer);
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await gone;
    },
  };
}
