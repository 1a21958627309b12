/**
 * The README's "First steps", run as a reader runs them: every ```bash block under that heading, in order,
 * in one bash (with -euo pipefail: a refused call fails the test), against the app listening on a port,
 * the base address in MEL as the first block reads it. It must reach a shared report whose link answers 200.
 * So the section cannot rot: a change of route, body or answer that breaks it fails here.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.js';

/** The ```bash blocks of the README's "First steps" section, in order. */
function firstStepsBlocks(readme: string): string[] {
  const section = readme.split(/^## /m).find((part) => part.startsWith('First steps\n'));
  if (!section) throw new Error('README.md has no "## First steps" section');
  return [...section.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((block) => block[1]!);
}

/** A port nobody listens on now: the app must know its address (APP_URL) before it listens. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
  return port;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runBash(script: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-euo', 'pipefail', '-c', script],
      // No start-up file of the machine's, as in a reader's own shell: not BASH_ENV's, and not Debian's
      // /etc/bash.bashrc, which bash reads at shell level 1 when its stdin is a socket (Node's pipes are).
      { env: { ...process.env, BASH_ENV: undefined, ENV: undefined, SHLVL: '1', ...env }, timeout: 50_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

let t: TestApp;
let base: string;
beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // Its own app (an override): a shared app made to listen is closed for good afterwards.
  t = await buildTestApp({ BASE_URL: base, APP_URL: base });
  await t.app.listen({ port, host: '127.0.0.1' });
});
afterAll(() => t.close());

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

describe("the README's First steps", () => {
  const blocks = firstStepsBlocks(readFileSync(new URL('../README.md', import.meta.url), 'utf8'));

  it('are the bash blocks of that section, the first of them reading the address from MEL', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    expect(blocks[0]).toContain('MEL=${MEL:-http://localhost:3000}');
  });

  it('run as written, in order, up to a shared report whose link answers 200', async () => {
    const run = await runBash(blocks.join('\n'), { MEL: base });
    expect({ code: run.code, stderr: run.stderr }, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toEqual({
      code: 0,
      stderr: '',
    });

    const transcript = run.stdout
      .replaceAll(base, '$MEL')
      .replace(UUID, '<id>')
      .replace(/amina-\d+@/, 'amina-<n>@')
      .replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/m, '<time>');
    expect(transcript.split('\n')).toEqual([
      'amina-<n>@example.org',
      'organization <id>',
      'project <id>',
      '["female","male"]',
      '1000',
      'submitted',
      'approved',
      '$MEL/f/<id>',
      'Household water survey',
      '<time>',
      '6',
      'published',
      '$MEL/r/<id>',
      '200',
      '',
    ]);

    // The link printed is the one a donor opens: the page, and the report behind it with the approved value.
    const shareUrl = run.stdout.split('\n').find((line) => line.startsWith(`${base}/r/`))!;
    const page = await fetch(shareUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('Safe water, first quarter 2026');

    const token = shareUrl.slice(`${base}/r/`.length);
    const shared = await fetch(`${base}/reports/share/${token}`);
    expect(shared.status).toBe(200);
    const report = (await shared.json()) as {
      title: string;
      status: string;
      sections: { indicators: Record<string, unknown>[] };
    };
    expect({ title: report.title, status: report.status }).toEqual({
      title: 'Safe water, first quarter 2026',
      status: 'published',
    });
    expect(report.sections.indicators).toHaveLength(1);
    expect(report.sections.indicators[0]).toMatchObject({
      code: 'SAFE_WATER',
      unit: 'people',
      value: 420,
      target: 1000,
      progressPct: 42,
      status: 'off_track',
      disaggregatedValues: { female: 230, male: 190 },
      resultNode: expect.objectContaining({ title: 'Boreholes built and working' }),
    });
  });
});
