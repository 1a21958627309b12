/**
 * Issue 39, "Container recipe": no container engine runs here, so scripts/container-recipe.mjs performs
 * the Dockerfile's stages outside one (the context as .dockerignore filters it, `npm ci`, the build, the
 * prune), then starts the runtime stage's command with its environment on a new PostgreSQL database:
 * ready by the HEALTHCHECK's own command, one registration, the first administrator, the worker as
 * compose.yaml runs it, and SIGTERM ending each with exit 0 within 10 s.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const testUrl = process.env.TEST_DATABASE_URL;
// A step of its own in .ci/run, not part of `npm test`: its `npm ci` of every dependency alone takes 20 to 35 s.
const asked = process.env.CONTAINER_RECIPE === '1';
if (!testUrl || !asked) {
  console.warn(
    'container-recipe.test.ts: not run (it runs with CONTAINER_RECIPE=1 and TEST_DATABASE_URL set, as .ci/run does: ' +
      'the image runs on PostgreSQL)',
  );
}

interface Outcome {
  error?: string;
  stages: Record<string, { command: string; ms: number }[]>;
  devPackagesInRuntime: string[];
  migrationsInRuntime: boolean;
  sourcesInRuntime: boolean;
  user: string | null;
  imageEnv: Record<string, string>;
  expose: number[];
  command: string[];
  readyMs: number;
  healthReady: { status: number; body: unknown };
  register: { status: number; email: string };
  adminCreate: { status: number; link: boolean };
  workerStop: { code: number | null; signal: string | null; ms: number };
  stop: { code: number | null; signal: string | null; ms: number };
}

/** On the maintenance database of TEST_DATABASE_URL's server. */
async function admin(statement: string): Promise<void> {
  const url = new URL(testUrl!);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

function recipe(databaseUrl: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['scripts/container-recipe.mjs'], {
    cwd: root,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

describe.skipIf(!testUrl || !asked)('the Dockerfile, performed outside a container', () => {
  it('builds without a compiler left in, starts on PostgreSQL, answers, and stops on SIGTERM', async () => {
    const name = `${inject('testDatabasePrefix')}recipe`;
    await admin(`CREATE DATABASE "${name}"`);
    const url = new URL(testUrl!);
    url.pathname = `/${name}`;
    const started = performance.now();
    try {
      const run = await recipe(url.toString());
      const outcome = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Outcome;
      console.info(
        `container recipe: ${Math.round((performance.now() - started) / 1000)} s in all; ` +
          outcome.stages.build!.map(({ command, ms }) => `${command.split(' --')[0]} ${ms} ms`).join(', ') +
          `; ready ${outcome.readyMs} ms`,
      );
      expect(outcome.error, run.stderr.slice(-4000)).toBeUndefined();
      expect(run.code).toBe(0);

      // The build stage compiled and pruned; the runtime holds dist/ with its migrations, not the sources.
      expect(outcome.stages.build!.map(({ command }) => command.split(' --')[0])).toEqual([
        'npm ci',
        'npm run build',
        'npm prune',
      ]);
      expect(outcome.stages.build![2]!.command).toContain('--omit=dev');
      expect(outcome.devPackagesInRuntime).toEqual([]);
      expect(outcome.migrationsInRuntime).toBe(true);
      expect(outcome.sourcesInRuntime).toBe(false);
      expect(outcome.user).toBe('node');

      // The runtime stage's environment and command: production, the exposed port is the one listened on.
      expect(outcome.imageEnv.NODE_ENV).toBe('production');
      expect(outcome.expose).toEqual([Number(outcome.imageEnv.PORT)]);
      expect(outcome.command.slice(-3)).toEqual(['node', '--enable-source-maps', 'dist/server.js']);

      expect(outcome.healthReady).toEqual({ status: 200, body: { status: 'ready' } });
      expect(outcome.register.status).toBe(201);
      expect(outcome.adminCreate).toEqual({ status: 0, link: true });
      expect(outcome.workerStop).toMatchObject({ code: 0, signal: null });
      expect(outcome.stop).toMatchObject({ code: 0, signal: null });
      expect(outcome.stop.ms).toBeLessThan(10_000);
    } finally {
      await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    }
  }, 300_000);
});
