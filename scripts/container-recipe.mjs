/**
 * `DATABASE_URL=postgres://... node scripts/container-recipe.mjs [--keep]`: performs the Dockerfile's
 * stages outside a container (no container engine runs where this project is developed) and proves the
 * image's recipe: its build stage, its runtime stage's files, command and environment, on PostgreSQL.
 *
 * It reads the Dockerfile and does what it says, so that the two cannot drift apart unnoticed:
 * - the build context is the repository filtered by .dockerignore (its simple rules: `*`, `**`, `?`, `!`);
 * - each stage's filesystem is a folder of a temporary directory (`/app` of the build stage is
 *   `<tmp>/build/app`); COPY copies from the context or, with `--from`, from another stage's folder;
 * - RUN: `npm ...` runs in the stage's WORKDIR (npm's local cache preferred: `npm_config_prefer_offline`),
 *   `mkdir -p` makes the stage's folders; `apt-get`, `rm -rf /var/lib/apt/lists/*` and `chown` are the
 *   image's system set-up and are skipped, said so; any other command stops the recipe (teach it here);
 * - the runtime stage's ENV is its environment (absolute paths mapped into its folder: DATA_DIR=/data is
 *   `<tmp>/runtime/data`), EXPOSE must be its PORT, and ENTRYPOINT + CMD is the command (`node` is this
 *   Node; tini when installed here, else the CMD alone, said so), run in its WORKDIR with DATABASE_URL,
 *   JWT_SECRET, PII_KEY, BASE_URL and APP_URL added as compose.yaml adds them, PORT a free one;
 * - ready is when the HEALTHCHECK's own command exits 0. Then GET /health/ready, POST /auth/register, the
 *   first administrator with `node dist/admin-create.js`, the worker as compose.yaml runs it, and SIGTERM
 *   to each: exit 0 within 10 s.
 *
 * Prints what it does on stderr and, last, one JSON line on stdout with the outcome and the times (the
 * test reads it). Exit 0 when every step held, 1 otherwise.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';

// Node's own fetch (the HEALTHCHECK uses it too).
const { fetch } = globalThis;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const say = (line) => console.error(`recipe: ${line}`);

/** The Dockerfile's instructions, by stage: continuation lines joined, comments dropped. */
export function parseDockerfile(text) {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  const stages = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [, keyword, rest] = /^(\S+)\s+(.*)$/.exec(line) ?? [];
    if (!keyword) throw new Error(`Dockerfile: cannot read "${line}"`);
    const instruction = { keyword: keyword.toUpperCase(), args: rest.trim() };
    if (instruction.keyword === 'FROM') {
      const [, image, name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args) ?? [];
      stages.push({ image, name: name ?? String(stages.length), instructions: [] });
    } else if (stages.length === 0) {
      throw new Error(`Dockerfile: ${instruction.keyword} before FROM`);
    } else {
      stages.at(-1).instructions.push(instruction);
    }
  }
  return stages;
}

/** ENV's `A=1 B="two words"` (or the old `A 1`) as pairs. */
function parseEnv(args) {
  if (!/^\S+=/.test(args)) {
    const [, key, value] = /^(\S+)\s+(.*)$/.exec(args);
    return [[key, value]];
  }
  const pairs = [];
  for (const [, key, quoted, bare] of args.matchAll(/(\w+)=(?:"((?:[^"\\]|\\.)*)"|(\S*))/g))
    pairs.push([key, quoted ?? bare]);
  return pairs;
}

/** `--flag=value ... rest` of COPY and HEALTHCHECK. */
function splitFlags(args) {
  const flags = {};
  let rest = args;
  for (let match; (match = /^--([\w-]+)=(\S+)\s+/.exec(rest)); rest = rest.slice(match[0].length))
    flags[match[1]] = match[2];
  return { flags, rest };
}

/** A .dockerignore pattern as a regular expression over paths relative to the context. */
function patternRegExp(pattern) {
  const body = pattern
    .replace(/^\/+|\/+$/g, '')
    .split(/(\*\*\/?|\*|\?)/)
    .map((part) => {
      if (part === '**/') return '(?:.*/)?';
      if (part === '**') return '.*';
      if (part === '*') return '[^/]*';
      if (part === '?') return '[^/]';
      return part.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${body}$`);
}

/** Whether .dockerignore's rules leave `rel` out (the last matching rule decides; a folder left out takes its files). */
export function ignoredBy(rules) {
  const compiled = rules.map((rule) => ({
    negate: rule.startsWith('!'),
    regexp: patternRegExp(rule.replace(/^!/, '')),
  }));
  return (rel) => {
    let ignored = false;
    const parts = rel.split('/');
    for (const { negate, regexp } of compiled) {
      for (let i = 1; i <= parts.length; i++) {
        if (regexp.test(parts.slice(0, i).join('/'))) {
          ignored = !negate;
          break;
        }
      }
    }
    return ignored;
  };
}

/** Copies the repository into `target` as `docker build` sends it: .dockerignore applied. */
function copyContext(target) {
  const rules = readFileSync(path.join(root, '.dockerignore'), 'utf8')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const ignored = ignoredBy(rules);
  let files = 0;
  const visit = (rel) => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (ignored(child)) continue;
      if (entry.isDirectory()) {
        visit(child);
      } else {
        mkdirSync(path.join(target, rel), { recursive: true });
        cpSync(path.join(root, child), path.join(target, child), {
          dereference: true,
          preserveTimestamps: true,
        });
        files++;
      }
    }
  };
  visit('');
  return files;
}

/** A container path inside a stage's folder. */
const inside = (stageDir, containerPath) => path.join(stageDir, containerPath);

function runCommand(command, cwd, env) {
  say(`RUN ${command}`);
  const result = spawnSync('sh', ['-c', command], { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`RUN ${command}: exit ${result.status ?? result.signal}`);
}

/** Performs one RUN line, command by command (`&&`). */
function run(args, stage) {
  const skipped = [];
  for (const command of args.split('&&').map((part) => part.trim())) {
    const [program, ...words] = command.split(/\s+/);
    if (program === 'npm') {
      const started = performance.now();
      runCommand(command, stage.cwd, {
        ...process.env,
        ...stage.env,
        npm_config_prefer_offline: 'true',
        npm_config_update_notifier: 'false',
      });
      stage.timings.push({ command, ms: Math.round(performance.now() - started) });
    } else if (program === 'mkdir' && words[0] === '-p') {
      for (const dir of words.slice(1)) mkdirSync(inside(stage.dir, dir), { recursive: true });
    } else if (program === 'apt-get' || program === 'chown' || command === 'rm -rf /var/lib/apt/lists/*') {
      skipped.push(command);
    } else {
      throw new Error(
        `RUN: the recipe does not know how to perform "${command}": teach scripts/container-recipe.mjs`,
      );
    }
  }
  if (skipped.length > 0) say(`skipped (the image's system set-up): ${skipped.join(' && ')}`);
}

/** Performs a stage's instructions; returns what the runtime needs of it. */
function performStage(stage, dirs, contextDir) {
  const state = {
    name: stage.name,
    dir: dirs[stage.name],
    cwd: dirs[stage.name],
    workdir: '/',
    env: {},
    user: null,
    expose: [],
    healthcheck: null,
    entrypoint: [],
    cmd: [],
    timings: [],
  };
  mkdirSync(state.dir, { recursive: true });
  say(`stage ${stage.name} (FROM ${stage.image})`);
  for (const { keyword, args } of stage.instructions) {
    switch (keyword) {
      case 'WORKDIR':
        state.workdir = path.posix.resolve(state.workdir, args);
        state.cwd = inside(state.dir, state.workdir);
        mkdirSync(state.cwd, { recursive: true });
        break;
      case 'COPY': {
        const { flags, rest } = splitFlags(args);
        const words = rest.split(/\s+/);
        const dest = path.posix.resolve(state.workdir, words.pop());
        const from = flags.from ? dirs[flags.from] : contextDir;
        if (!from) throw new Error(`COPY --from=${flags.from}: no such stage`);
        for (const source of words) {
          const src = flags.from ? inside(from, path.posix.resolve('/', source)) : path.join(from, source);
          const many = words.length > 1 || rest.trim().endsWith('/');
          const target = inside(
            state.dir,
            many && lstatSync(src).isFile() ? path.posix.join(dest, path.basename(src)) : dest,
          );
          cpSync(src, target, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
        }
        break;
      }
      case 'RUN':
        run(args, state);
        break;
      case 'ENV':
        for (const [key, value] of parseEnv(args)) state.env[key] = value;
        break;
      case 'USER':
        state.user = args;
        break;
      case 'VOLUME':
        for (const dir of JSON.parse(args)) mkdirSync(inside(state.dir, dir), { recursive: true });
        break;
      case 'EXPOSE':
        state.expose.push(...args.split(/\s+/).map((port) => Number(port.replace(/\/tcp$/, ''))));
        break;
      case 'HEALTHCHECK': {
        const { flags, rest } = splitFlags(args);
        const [, command] = /^CMD\s+(\[.*\])$/.exec(rest) ?? [];
        if (!command) throw new Error('HEALTHCHECK: the recipe reads only the exec form, CMD ["...", ...]');
        state.healthcheck = { flags, command: JSON.parse(command) };
        break;
      }
      case 'ENTRYPOINT':
        state.entrypoint = JSON.parse(args);
        break;
      case 'CMD':
        state.cmd = JSON.parse(args);
        break;
      default:
        throw new Error(
          `Dockerfile: the recipe does not know ${keyword}: teach scripts/container-recipe.mjs`,
        );
    }
  }
  return state;
}

async function freePort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** `argv` started in `cwd` with `env`; its output collected (and passed on to stderr). */
function start(argv, cwd, env) {
  const child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk) => {
    output += chunk.toString();
    process.stderr.write(chunk);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, exited, output: () => output };
}

/** SIGTERM, then the exit and how long it took (SIGKILL after 15 s). */
async function terminate(started) {
  const sent = performance.now();
  started.child.kill('SIGTERM');
  const killer = setTimeout(() => started.child.kill('SIGKILL'), 15_000);
  const exit = await started.exited;
  clearTimeout(killer);
  return { ...exit, ms: Math.round(performance.now() - sent) };
}

/** compose.yaml's `command:` of a service, in its exec form. */
function composeCommand(service) {
  const text = readFileSync(path.join(root, 'compose.yaml'), 'utf8');
  const block = new RegExp(`^  ${service}:\\n((?:    .*\\n|\\s*\\n)*)`, 'm').exec(text)?.[1] ?? '';
  const [, command] = /^\s+command:\s*(\[.*\])\s*$/m.exec(block) ?? [];
  if (!command) throw new Error(`compose.yaml: no command: [...] for the service ${service}`);
  // A YAML flow sequence of plain quoted words (as prettier writes it, in single quotes).
  return [...command.matchAll(/'((?:[^']|'')*)'|"((?:[^"\\]|\\.)*)"/g)].map(([, single, double]) =>
    single !== undefined ? single.replaceAll("''", "'") : JSON.parse(`"${double}"`),
  );
}

async function main() {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    console.error('usage: DATABASE_URL=postgres://... node scripts/container-recipe.mjs [--keep]');
    process.exit(2);
  }
  const keep = process.argv.includes('--keep');
  const tmp = mkdtempSync(path.join(tmpdir(), 'mel-recipe-'));
  const outcome = { dir: tmp, stages: {} };
  const processes = [];
  try {
    const stages = parseDockerfile(readFileSync(path.join(root, 'Dockerfile'), 'utf8'));
    const contextDir = path.join(tmp, 'context');
    outcome.contextFiles = copyContext(contextDir);
    say(`build context: ${outcome.contextFiles} files (.dockerignore applied) in ${contextDir}`);
    const dirs = Object.fromEntries(stages.map((stage) => [stage.name, path.join(tmp, stage.name)]));
    let runtime;
    for (const stage of stages) {
      runtime = performStage(stage, dirs, contextDir);
      outcome.stages[stage.name] = runtime.timings;
    }

    // The runtime stage is the last: what it holds.
    const modules = path.join(runtime.cwd, 'node_modules');
    outcome.devPackagesInRuntime = ['esbuild', 'tsx', 'typescript', 'vitest'].filter((name) =>
      existsSync(path.join(modules, name)),
    );
    outcome.migrationsInRuntime = existsSync(path.join(runtime.cwd, 'dist/db/migrations/meta/_journal.json'));
    outcome.sourcesInRuntime = existsSync(path.join(runtime.cwd, 'src'));
    outcome.user = runtime.user;

    // Its environment: the image's ENV, paths mapped into the stage's folder, and what compose.yaml adds.
    const imageEnv = Object.fromEntries(
      Object.entries(runtime.env).map(([key, value]) => [
        key,
        value.startsWith('/') ? inside(runtime.dir, value) : value,
      ]),
    );
    outcome.imageEnv = runtime.env;
    outcome.expose = runtime.expose;
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const env = {
      PATH: process.env.PATH,
      ...imageEnv,
      // A container has its own network: here the port must be one that is free.
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      JWT_SECRET: randomBytes(48).toString('base64url'),
      PII_KEY: randomBytes(32).toString('base64'),
      BASE_URL: baseUrl,
      APP_URL: 'https://app.example.org',
    };
    const node = (argv) => (argv[0] === 'node' ? [process.execPath, ...argv.slice(1)] : argv);
    let argv = [...runtime.entrypoint, ...runtime.cmd];
    outcome.tini = runtime.entrypoint[0]?.endsWith('tini') ? existsSync(runtime.entrypoint[0]) : null;
    if (outcome.tini === false) {
      say(`${runtime.entrypoint[0]} is not installed here: running the CMD without it`);
      argv = runtime.cmd;
    }
    outcome.command = argv;
    say(`start: ${argv.join(' ')} (in ${runtime.workdir}, NODE_ENV=${env.NODE_ENV}, PORT ${port})`);
    const startedAt = performance.now();
    const server = start(node(argv), runtime.cwd, env);
    processes.push(server);

    // Ready when the HEALTHCHECK's own command says so.
    const health = node(runtime.healthcheck.command);
    let serverEnded = false;
    void server.exited.then(() => (serverEnded = true));
    for (;;) {
      if (spawnSync(health[0], health.slice(1), { cwd: runtime.cwd, env }).status === 0) break;
      if (serverEnded) throw new Error('the server ended before it was ready');
      if (performance.now() - startedAt > 90_000) throw new Error('not ready within 90 s');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    outcome.readyMs = Math.round(performance.now() - startedAt);
    say(`ready (the HEALTHCHECK command exited 0) after ${outcome.readyMs} ms`);

    const ready = await fetch(`${baseUrl}/health/ready`);
    outcome.healthReady = { status: ready.status, body: await ready.json() };
    const email = `recipe-${randomBytes(4).toString('hex')}@example.org`;
    const registered = await fetch(`${baseUrl}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email,
        password: 'correct horse battery',
        firstName: 'Amina',
        lastName: 'Okafor',
      }),
    });
    outcome.register = { status: registered.status, email: (await registered.json()).email };

    // The first administrator, as docs/operations.md tells it in the container.
    const admin = spawnSync(
      process.execPath,
      ['dist/admin-create.js', '--email', 'ada@ngo.example.org', '--org-name', 'Clean Water Turkana'],
      { cwd: runtime.cwd, env, encoding: 'utf8' },
    );
    outcome.adminCreate = {
      status: admin.status,
      link: /https:\/\/app\.example\.org\/reset-password\?token=\S+/.test(admin.stdout + admin.stderr),
    };
    if (admin.status !== 0) say(`admin-create: ${admin.stdout}${admin.stderr}`);

    // The worker, as compose.yaml runs it: same image, same environment.
    const workerArgv = composeCommand('worker');
    say(`worker: ${workerArgv.join(' ')}`);
    const worker = start(node(workerArgv), runtime.cwd, env);
    processes.push(worker);
    const workerDeadline = performance.now() + 60_000;
    let workerEnded = false;
    void worker.exited.then(() => (workerEnded = true));
    while (!worker.output().includes('workers, reminder and retention jobs started')) {
      if (workerEnded || performance.now() > workerDeadline) throw new Error('the worker did not start');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    outcome.workerStop = await terminate(worker);
    outcome.stop = await terminate(server);
    say(
      `SIGTERM: server exit ${outcome.stop.code} in ${outcome.stop.ms} ms, worker exit ${outcome.workerStop.code}`,
    );
  } catch (err) {
    outcome.error = err instanceof Error ? err.message : String(err);
    say(`failed: ${outcome.error}`);
  } finally {
    for (const { child } of processes)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (!keep) rmSync(tmp, { recursive: true, force: true });
  }
  console.log(JSON.stringify(outcome));
  const held =
    !outcome.error &&
    outcome.healthReady?.status === 200 &&
    outcome.register?.status === 201 &&
    outcome.adminCreate?.status === 0 &&
    outcome.stop?.code === 0 &&
    outcome.stop.ms < 10_000 &&
    outcome.workerStop?.code === 0;
  process.exit(held ? 0 : 1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
