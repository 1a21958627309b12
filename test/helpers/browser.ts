import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { TestApp } from './app.js';
import { createTeam, type Team } from './factories.js';

/** Debian's Chromium (`apt-get install chromium`); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/** Screenshots and PDFs of the browser tests: kept by CI as artifacts, ignored by git. */
export const ARTIFACTS = path.resolve('artifacts', 'browser');

if (!hasChromium) {
  // CI installs Chromium (.ci/run): there a missing browser is a failure, never a silent skip.
  if (process.env.CI) throw new Error(`Browser tests need Chromium at ${CHROMIUM}`);
  console.warn(
    `\n*** Browser tests SKIPPED: no Chromium at ${CHROMIUM}. Install it (apt-get install chromium) ` +
      'or set CHROMIUM_PATH to run them. ***\n',
  );
}

/** Headless Chromium with the flags this machine's closed network needs (no background connections). */
async function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A port free at the moment, so that BASE_URL and APP_URL can name it before the server listens. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export const artifact = (name: string) => path.join(ARTIFACTS, name);

/**
 * Collects what a page's scripts threw or the browser logged as an error into `errors`. Chromium logs
 * every failed load (a 4xx answer to fetch, a request made without a connection): those are expected.
 */
function collectScriptErrors(page: Page, errors: string[]): void {
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      errors.push(message.text());
    }
  });
}

/** What the tests of a browser suite use; each is there once the suite's beforeAll ran. */
export interface BrowserSuite<A extends TestApp> {
  /** The real app, listening at `base`. */
  readonly t: A;
  /** The app's origin, which its BASE_URL and APP_URL name too. */
  readonly base: string;
  readonly team: Team;
  /** A fresh browser profile (no cookies, no storage), closed after the suite. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** A page whose scripts' errors fail the test it opened in. */
  newPage(context: BrowserContext): Promise<Page>;
}

/**
 * Registers the hooks of a suite of pages in Chromium against the real app (built by `build`) listening
 * on a free port, with a team of its own; every test fails when a page's script threw or logged an error.
 */
export function browserSuite<A extends TestApp>(
  build: (env: Record<string, string>) => Promise<A>,
): BrowserSuite<A> {
  let t: A | undefined;
  let base: string | undefined;
  let team: Team | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  // One array for the suite, emptied before each test: a page opened earlier reports to the test running.
  const scriptErrors: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await build({ BASE_URL: base, APP_URL: base });
    await t.app.listen({ port, host: '127.0.0.1' });
    team = await createTeam(t.app, t.database.db);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    await browser?.close();
    await t?.close();
  });
  beforeEach(() => {
    scriptErrors.length = 0;
  });
  afterEach(() => {
    expect(scriptErrors).toEqual([]);
  });

  function ready<T>(value: T | undefined, name: string): T {
    if (value === undefined) throw new Error(`The browser suite's ${name} is there once its beforeAll ran`);
    return value;
  }
  return {
    get t() {
      return ready(t, 't');
    },
    get base() {
      return ready(base, 'base');
    },
    get team() {
      return ready(team, 'team');
    },
    async newContext(options = {}) {
      const context = await ready(browser, 'browser').newContext(options);
      contexts.push(context);
      return context;
    },
    async newPage(context) {
      const page = await context.newPage();
      collectScriptErrors(page, scriptErrors);
      return page;
    },
  };
}
