/**
 * `npm run build` (and `prepare`, at install): compiles src/ into dist/ for `npm start`.
 *
 * - Every `src/**\/*.ts` but tests and declarations is transpiled by esbuild, file by file (no bundle),
 *   with the settings of tsconfig.build.json, into the same path under dist/ with a source map beside it
 *   (`node --enable-source-maps` then reports .ts lines). esbuild is what `tsx` and the tests already
 *   run the sources through; it does not type-check: `npm run typecheck` does (in CI).
 * - Every other file under src/ (migrations, page assets, whatever the code reads at run time next to
 *   itself) is copied to the same path under dist/, so `import.meta.url`-relative reads work there.
 * - The output is written to a fresh folder and swapped in whole, so files deleted or moved in src/
 *   leave nothing behind, and a process starting meanwhile never sees half a build.
 * - dist/.build-stamp records when the build started: `scripts/start.mjs` rebuilds when any input is
 *   newer (see `buildState`).
 *
 * `--prepare`: as run by `npm install`; when esbuild is absent (`npm ci --omit=dev`) says so and exits 0.
 */
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const srcDir = path.join(root, 'src');
export const outDir = path.join(root, 'dist');
export const stampFile = path.join(outDir, '.build-stamp');
/** Exit code when esbuild is not installed (a production install without dev dependencies). */
export const NO_COMPILER = 3;

/** Inputs besides src/: what decides how src/ is compiled. */
const configInputs = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs'];

const isSource = (name) => name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.test.ts');

/** Every file under `dir`, as paths relative to it. */
function walk(dir, rel = '') {
  const files = [];
  for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const child = path.join(rel, entry.name);
    if (entry.isDirectory()) files.push(...walk(dir, child));
    else files.push(child);
  }
  return files;
}

/**
 * The newest modification time among the inputs of a build: files and folders under src/ (a folder's
 * time changes when a file in it is added, deleted or renamed, which a moved file's own time does not
 * show) and the configuration files.
 */
export function newestInput() {
  let newest = 0;
  const visit = (dir) => {
    newest = Math.max(newest, statSync(dir).mtimeMs);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else newest = Math.max(newest, statSync(full).mtimeMs);
    }
  };
  visit(srcDir);
  for (const file of configInputs) newest = Math.max(newest, statSync(path.join(root, file)).mtimeMs);
  return newest;
}

/** 'missing' (never built), 'stale' (an input changed since the build started) or 'current'. */
export function buildState() {
  let built;
  try {
    built = statSync(stampFile).mtimeMs;
  } catch {
    return 'missing';
  }
  return newestInput() >= built ? 'stale' : 'current';
}

export async function build() {
  // Taken before reading any source: a file saved during the build is newer than the stamp.
  const started = new Date();
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch (err) {
    if (err?.code !== 'ERR_MODULE_NOT_FOUND') throw err;
    return false;
  }
  const files = walk(srcDir);
  const staging = `${outDir}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    await esbuild.build({
      entryPoints: files.filter(isSource).map((file) => path.join(srcDir, file)),
      outdir: staging,
      outbase: srcDir,
      tsconfig: path.join(root, 'tsconfig.build.json'),
      platform: 'node',
      format: 'esm',
      target: 'node20',
      sourcemap: true,
      // The map points at src/, which is read when a stack trace needs a line: no copy in the map.
      sourcesContent: false,
      logLevel: 'warning',
    });
    for (const file of files.filter((name) => !name.endsWith('.ts'))) {
      const target = path.join(staging, file);
      mkdirSync(path.dirname(target), { recursive: true });
      copyFileSync(path.join(srcDir, file), target);
    }
    writeFileSync(path.join(staging, '.build-stamp'), `${started.toISOString()}\n`);
    utimesSync(path.join(staging, '.build-stamp'), started, started);
    // Swap: the old build moves aside and is removed once the new one is in place.
    const old = `${outDir}.old-${process.pid}`;
    try {
      renameSync(outDir, old);
    } catch (err) {
      if (err?.code !== 'ENOENT') throw err;
    }
    try {
      renameSync(staging, outDir);
    } catch (err) {
      // Another start built the same sources at the same moment and swapped first: keep that one.
      if (err?.code !== 'ENOTEMPTY' && err?.code !== 'EEXIST') throw err;
    }
    rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(staging, { recursive: true, force: true });
    await esbuild.stop();
  }
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const prepare = process.argv.includes('--prepare');
  const started = performance.now();
  let built;
  try {
    built = await build();
  } catch (err) {
    // esbuild has already printed what it refused, with file and line; dist/ is left as it was.
    if (!Array.isArray(err?.errors)) throw err;
    console.error('build: failed, dist/ unchanged');
    process.exit(1);
  }
  if (built) {
    const ms = Math.round(performance.now() - started);
    console.error(`build: src/ compiled into dist/ in ${ms} ms`);
  } else if (prepare) {
    console.error('build: esbuild is not installed (dev dependencies omitted?): dist/ not built');
  } else {
    console.error('build: esbuild is not installed: run `npm install` (with dev dependencies) first');
    process.exitCode = NO_COMPILER;
  }
}
