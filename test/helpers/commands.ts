import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** scripts/build.mjs once, so that the runs of a file do not each find the build stale and rebuild. */
export async function buildOnce(): Promise<void> {
  await promisify(execFile)(process.execPath, [path.join(root, 'scripts/build.mjs')]);
}

export interface EntryRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Both, in the order they came. */
  output: () => string;
  /** The exit code (null when killed, after `killAfterMs`) and the milliseconds it ran. */
  exited: Promise<{ code: number | null; ms: number }>;
}

/**
 * `npm run <entry>` as deployed: `node scripts/start.mjs <entry> [args]`, the compiled entry point, with
 * only `env` besides PATH and HOME (none of the test's own environment: its database, Redis, npm's
 * variables). Killed after `killAfterMs`: a command that should have ended runs on no longer.
 */
export function startEntry(
  entry: string,
  args: string[],
  env: Record<string, string | undefined>,
  killAfterMs = 90_000,
): EntryRun {
  const started = Date.now();
  const child = spawn(
    process.execPath,
    ['--enable-source-maps', path.join(root, 'scripts/start.mjs'), entry, ...args],
    {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    output += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  const exited = new Promise<{ code: number | null; ms: number }>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, ms: Date.now() - started });
    });
  });
  return { child, stdout: () => stdout, stderr: () => stderr, output: () => output, exited };
}

/** `startEntry` run to its end: its exit code and what it printed. */
export async function runEntry(
  entry: string,
  args: string[],
  env: Record<string, string | undefined>,
  killAfterMs?: number,
): Promise<{ code: number | null; out: string; err: string; output: string }> {
  const run = startEntry(entry, args, env, killAfterMs);
  const { code } = await run.exited;
  return { code, out: run.stdout(), err: run.stderr(), output: run.output() };
}
