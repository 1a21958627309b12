import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { API_TITLE } from '../../src/http/documentation/api-page.js';
import { PEOPLE } from '../../src/http/documentation/story.js';
import { buildTestApp } from '../helpers/app.js';
import { artifact, browserSuite, hasChromium } from '../helpers/browser.js';

/**
 * The interactive documentation at /api in Chromium: titled with the service's name, without Swagger's
 * stock logo, and loaded under its CSP without a violation or a console error (the suite fails a test
 * whose page logged an error; a CSP violation is logged as one, and counted here as well).
 */
describe.skipIf(!hasChromium)('the API documentation in Chromium', () => {
  const suite = browserSuite(buildTestApp);

  /** The page, with every CSP violation it meets recorded in `window.cspViolations`. */
  async function openDocumentation(): Promise<{ page: Page; csp: string }> {
    const page = await suite.newPage(await suite.newContext({ viewport: { width: 1280, height: 900 } }));
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (event) => {
        seen.push(`${event.violatedDirective} ${event.sourceFile}:${event.lineNumber}`);
      });
    });
    const answer = await page.goto(`${suite.base}/api`);
    expect(answer?.status()).toBe(200);
    await page.locator('.opblock').first().waitFor();
    return { page, csp: (await answer?.headerValue('content-security-policy')) ?? '' };
  }

  // Opened once for the file: drawing the whole document takes Swagger UI seconds.
  let opened: Promise<{ page: Page; csp: string }> | undefined;
  const documentation = () => (opened ??= openDocumentation());

  const violations = (page: Page) =>
    page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);

  it("is titled with the service's name, in the page title and the top bar, without Swagger's logo", async () => {
    const { page } = await documentation();
    expect(await page.title()).toBe(API_TITLE);
    await expect.poll(() => page.locator('.topbar .service-name').textContent()).toBe(API_TITLE);
    // No logo, Swagger's or the plugin's (an image), in the top bar: the name alone.
    expect(await page.locator('.topbar .link').innerHTML()).toBe(
      `<span class="service-name">${API_TITLE}</span>`,
    );
    // The tab's icon is the service's too, not Swagger's.
    const icon = await page.locator('link[rel="icon"]').evaluate((link) => (link as HTMLLinkElement).href);
    expect(icon).toBe(`${suite.base}/api/static/theme/icon.svg`);
    const served = await page.request.get(icon);
    expect([served.status(), served.headers()['content-type']]).toEqual([200, 'image/svg+xml']);
    expect(await page.locator('.info .title').textContent()).toMatch(new RegExp(`^${API_TITLE}`));
    await page.screenshot({ path: artifact('api-docs.png') });
    expect(await violations(page)).toEqual([]);
  });

  it('keeps its CSP closed to inline style and script, and breaks none of it', async () => {
    const { page, csp } = await documentation();
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    // An operation opened, its example and schemas drawn: no inline style or script on the way.
    await page.locator('#operations-Authentication-registerUser .opblock-summary').click();
    const example = page.locator('#operations-Authentication-registerUser .body-param__example');
    // The example of the main story, not a sample made up from the schema.
    await expect.poll(() => example.textContent()).toContain(PEOPLE.admin.email);
    await page.locator('#operations-Authentication-registerUser').screenshot({
      path: artifact('api-docs-register.png'),
    });
    expect(await violations(page)).toEqual([]);
  });
});
