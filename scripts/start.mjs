/**
 * `npm start`, `npm run worker`, `npm run migrate`: `node scripts/start.mjs <entry> [args]` runs
 * dist/<entry>.js in this process, as `node dist/<entry>.js [args]` would (same signals, same exit
 * code, same process.argv), after building it when a source is newer than the last build
 * (scripts/build.mjs; a build takes about a second). Run with `--enable-source-maps` so stack traces
 * name the .ts lines.
 *
 * The npm scripts `exec` it, so that it is npm's own child: npm passes SIGTERM and SIGINT on to it (a
 * shell in between died of them and left the server running, holding its port). Run by npm, it also
 * stops as on SIGTERM when npm is gone without passing anything on (SIGKILL, SIGHUP).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { pathToFileURL } from 'node:url';
import { NO_COMPILER, buildState, outDir, root } from './build.mjs';

const [name, ...args] = process.argv.slice(2);
if (!name) {
  console.error('usage: node scripts/start.mjs <entry under src/, e.g. server> [args]');
  process.exit(2);
}

if (process.env.npm_lifecycle_script?.includes('scripts/start.mjs')) stopWithParent();

/** Polls the parent's pid: a process whose parent died is handed to another (init), and its ppid changes. */
function stopWithParent() {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, 500);
  watch.unref();
}

const state = buildState();
if (state !== 'current') {
  console.error(state === 'missing' ? 'start: no build yet, building' : 'start: sources changed, rebuilding');
  // A separate process: the compiler is never loaded into the service's memory.
  const result = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
  if (result.status === NO_COMPILER && state === 'stale') {
    console.error('start: running the existing build in dist/, older than the sources');
  } else if (result.status !== 0) {
    process.exit(result.status ?? 1);
  }
}

const entry = path.join(outDir, `${name}.js`);
if (!existsSync(entry)) {
  console.error(`start: ${path.relative(root, entry)} does not exist (is there a src/${name}.ts?)`);
  process.exit(2);
}
process.argv = [process.argv[0], entry, ...args];
await import(pathToFileURL(entry).href);
