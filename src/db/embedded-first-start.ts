import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Creates and migrates a new embedded database in a child process, which then exits: this process then
 * opens it as it opens an existing one. PGlite's initdb runs a second PostgreSQL instance and the initdb
 * program, each with its own WebAssembly memory, and the migrations' first run grows the first; done in
 * this process, most of that stayed resident (measured 600-830 MB 10 s after a first start, against
 * under 300 MB after a restart; in a worker thread, 390 MB: the thread's allocations outlive it). A child
 * process costs about 0.5 s of a start that takes 10-20 s anyway. Does nothing when `dataDir` already
 * holds a database.
 */
export async function createEmbeddedDatabase(dataDir: string): Promise<void> {
  if (existsSync(path.join(dataDir, 'pglite', 'PG_VERSION'))) return;
  // The compiled `.js` under `npm start`; the `.ts` under tsx, whose loader is in execArgv.
  const self = fileURLToPath(import.meta.url);
  const child = path.join(path.dirname(self), `embedded-first-start-child${path.extname(self)}`);
  // `--liftoff-only`: V8 compiles PostgreSQL's WebAssembly once, never again optimized, in a process that
  // runs a few seconds (the creation's peak, all processes: 745 MB with it, about 900 without).
  // Killed meanwhile, this process leaves the child to finish (it holds no port) or the next start to redo it.
  const proc = spawn(process.execPath, [...process.execArgv, '--liftoff-only', child, dataDir], {
    stdio: 'inherit',
  });
  await new Promise<void>((resolve, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code, signal) =>
      code === 0
        ? resolve()
        : reject(
            new Error(`creating the embedded database in ${dataDir} failed (${signal ?? `exit ${code}`})`),
          ),
    );
  });
}
