import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { artifact, browserSuite, hasChromium } from '../helpers/browser.js';
import type { TestUser } from '../helpers/factories.js';
import { call } from '../helpers/http.js';
import { reportUrl } from '../helpers/indicators.js';
import { periodPagePath, reportPagePath, returnedReportScene } from '../helpers/member-pages.js';
import { eq } from 'drizzle-orm';
import { webhookEndpoints } from '../../src/modules/webhooks/webhooks.tables.js';

/**
 * The member pages the service's emails link to, in headless Chromium against the real server: each
 * signed out (it leads through the sign-in page and back) and signed in, its action done through the API.
 */
describe.skipIf(!hasChromium)('member pages in Chromium', () => {
  const suite = browserSuite((env) => buildTestApp(env));
  const scene = () => returnedReportScene(suite.t.app, suite.t.database.db, suite.team);

  async function browse(as?: TestUser): Promise<{ context: BrowserContext; page: Page }> {
    const context = await suite.newContext({ viewport: { width: 900, height: 900 } });
    if (as) await context.addCookies([{ name: 'jwt', value: as.token, url: suite.base }]);
    return { context, page: await suite.newPage(context) };
  }
  const h1 = (page: Page) => page.locator('h1').innerText();

  it('leads a signed-out reporter through the sign-in page to the returned report, corrected and submitted', async () => {
    const { project, returned } = await scene();
    const { page } = await browse();
    const path = reportPagePath(project.id, returned.id);
    await page.goto(`${suite.base}${path}`);
    expect(page.url()).toBe(`${suite.base}/sign-in?next=${encodeURIComponent(path)}`);
    expect(await h1(page)).toBe('Sign in');

    await page.fill('#email', suite.team.reporter.email);
    await page.fill('#password', 'not the password');
    await page.click('button[type="submit"]');
    await page.locator('[data-summary] li', { hasText: 'Invalid email or password' }).waitFor();
    await page.fill('#password', suite.team.reporter.password);
    await page.click('button[type="submit"]');
    await page.waitForURL(`${suite.base}${path}`);

    expect(await page.locator('.returned h2').innerText()).toBe('Returned by Omar Officer');
    expect(await page.locator('.returned blockquote').innerText()).toBe(
      'The male count misses the second village.',
    );
    await page.screenshot({ path: artifact('indicator-report.png'), fullPage: true });
    const male = page.locator('[data-category="male"] input');
    await male.fill('sixty');
    await page.click('button[type="submit"]');
    await page.locator('[data-summary] li', { hasText: 'male must be a number' }).waitFor();
    // Arabic-Indic digits, as a phone keyboard may type them.
    await male.fill('٦٠');
    await page.click('button[type="submit"]');
    await page.locator('[data-step="done"] h2', { hasText: 'Submitted for review' }).waitFor();
    expect(await page.locator('[data-status]').innerText()).toBe('Submitted, waiting for review');

    const read = await call(suite.t.app, 'GET', reportUrl(suite.team.org.id, returned.id), {
      as: suite.team.reporter,
    });
    expect(read.body).toMatchObject({
      status: 'submitted',
      value: 130,
      disaggregatedValues: { female: 70, male: 60 },
    });
  });

  it('asks the justification a rule of high importance needs, and submits with it', async () => {
    const { project, returned, counted } = await scene();
    const rule = await call(suite.t.app, 'POST', `/orgs/${suite.team.org.id}/validation-rules`, {
      as: suite.team.officer,
      body: { name: 'At most 100', left: counted.code, operator: '<=', right: '100', importance: 'high' },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    const { page } = await browse(suite.team.reporter);
    await page.goto(`${suite.base}${reportPagePath(project.id, returned.id)}`);
    await page.locator('[data-category="male"] input').fill('60');
    await page.click('button[type="submit"]');
    await page
      .locator('[data-key="justification"] [data-error]', { hasText: 'Justification is required' })
      .waitFor();
    await page.fill('#justification', 'A second village joined this quarter');
    await page.click('button[type="submit"]');
    await page.locator('[data-step="done"] h2', { hasText: 'Submitted for review' }).waitFor();
    const read = await call(suite.t.app, 'GET', reportUrl(suite.team.org.id, returned.id), {
      as: suite.team.reporter,
    });
    expect(read.body).toMatchObject({
      status: 'submitted',
      flags: [{ rule: rule.body.id, justification: 'A second village joined this quarter' }],
    });
  });

  it('lists a period’s outstanding reports and starts a missing one, which a draft then saves', async () => {
    const { project, period, missing } = await scene();
    const path = periodPagePath(project.id, period.id);
    const signedOut = await browse();
    await signedOut.page.goto(`${suite.base}${path}`);
    expect(signedOut.page.url()).toBe(`${suite.base}/sign-in?next=${encodeURIComponent(path)}`);

    const { page } = await browse(suite.team.reporter);
    await page.goto(`${suite.base}${path}`);
    expect(await h1(page)).toBe('Reporting period Q1 2026');
    expect(await page.locator('h2').first().innerText()).toBe('Still to do (2)');
    await page.screenshot({ path: artifact('reporting-period.png'), fullPage: true });
    await page.click(`[data-start="${missing.id}"]`);
    await page.waitForURL(new RegExp(`/projects/${project.id}/indicator-reports/[0-9a-f-]{36}$`));
    expect(await page.locator('[data-status]').innerText()).toBe('Draft, not submitted yet');
    await page.fill('#value', '4');
    await page.click('[data-save]');
    await page.locator('[data-saved]', { hasText: 'Saved as draft' }).waitFor();

    const id = page.url().split('/').pop()!;
    const read = await call(suite.t.app, 'GET', reportUrl(suite.team.org.id, id), {
      as: suite.team.reporter,
    });
    expect(read.body).toMatchObject({ status: 'draft', value: 4, indicatorId: missing.id });
  });

  it('turns reminders off on the settings page, then signs out', async () => {
    const signedOut = await browse();
    await signedOut.page.goto(`${suite.base}/settings`);
    expect(signedOut.page.url()).toBe(`${suite.base}/sign-in?next=%2Fsettings`);

    const { page } = await browse(suite.team.officer);
    await page.goto(`${suite.base}/settings`);
    expect(await h1(page)).toBe('Your settings');
    expect(await page.isChecked('#reminders')).toBe(true);
    await page.uncheck('#reminders');
    await page.click('form[data-reminders] button[type="submit"]');
    await page.locator('[data-saved]', { hasText: 'Saved: you no longer get deadline reminders.' }).waitFor();
    await page.screenshot({ path: artifact('settings.png'), fullPage: true });
    const me = await call(suite.t.app, 'GET', '/auth/me', { as: suite.team.officer });
    expect(me.body.notifications).toEqual({ reminders: false });

    await page.click('[data-sign-out]');
    await page.waitForURL(`${suite.base}/sign-in`);
    await page.goto(`${suite.base}/settings`);
    expect(page.url()).toBe(`${suite.base}/sign-in?next=%2Fsettings`);
  });

  it('shows admins the endpoint the service turned off and turns it back on; others get the 403 page', async () => {
    const created = await call(suite.t.app, 'POST', `/orgs/${suite.team.org.id}/webhooks`, {
      as: suite.team.admin,
      body: { url: 'https://crm.example.org/mel', events: ['indicator_report.approved'] },
    });
    expect(created.status).toBe(201);
    await suite.t.database.db
      .update(webhookEndpoints)
      .set({ active: false, disabledReason: 'failing', disabledAt: new Date(), failingSince: new Date() })
      .where(eq(webhookEndpoints.id, created.body.id as string));
    const path = `/orgs/${suite.team.org.id}/settings/webhooks`;
    const signedOut = await browse();
    await signedOut.page.goto(`${suite.base}${path}`);
    expect(signedOut.page.url()).toBe(`${suite.base}/sign-in?next=${encodeURIComponent(path)}`);

    const { page } = await browse(suite.team.admin);
    await page.goto(`${suite.base}${path}`);
    expect(await h1(page)).toBe(`Webhooks of ${suite.team.org.name}`);
    const endpoint = page.locator(`[data-endpoint="${created.body.id as string}"]`);
    expect(await endpoint.locator('[data-state]').innerText()).toMatch(
      /^Turned off by the service on .+, because every delivery had failed for 5 days\.$/,
    );
    await page.screenshot({ path: artifact('webhooks.png'), fullPage: true });
    await endpoint.locator('[data-turn-on]').click();
    await endpoint.locator('[data-state]', { hasText: 'Turned back on' }).waitFor();
    const read = await call(suite.t.app, 'GET', `/orgs/${suite.team.org.id}/webhooks/${created.body.id}`, {
      as: suite.team.admin,
    });
    expect(read.body).toMatchObject({ active: true, disabledReason: null });

    const refused = await browse(suite.team.reporter);
    const answer = await refused.page.goto(`${suite.base}${path}`);
    expect(answer?.status()).toBe(403);
    expect(await h1(refused.page)).toBe('You do not have access to this page');
    await refused.page.click('[data-sign-out]');
    await refused.page.waitForURL(`${suite.base}/sign-in?next=${encodeURIComponent(path)}`);
  });
});
