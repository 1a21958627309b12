import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

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
export async function launchChromium(): Promise<Browser> {
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
export function freePort(): Promise<number> {
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
export function collectScriptErrors(page: Page, errors: string[]): void {
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      errors.push(message.text());
    }
  });
}
