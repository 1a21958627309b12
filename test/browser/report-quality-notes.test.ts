import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { artifact, browserSuite, hasChromium } from '../helpers/browser.js';
import { createProject } from '../helpers/factories.js';
import { call } from '../helpers/http.js';
import { act, linkIndicator, postIndicator, postReport } from '../helpers/indicators.js';
import { createPeriod } from '../helpers/periods.js';
import { createDonorReport, donorReportUrl } from '../helpers/reports.js';

const PHONE = { width: 390, height: 844 };
const OUTLIER = '12,000 is above the maximum set for this indicator (5,000)';
// A justification as people write them: a long reference without a space, in a phone's width.
const JUSTIFICATION =
  'A new district joined this quarter, see https://example.org/districts/kisumu-county/annex-2026-q1-households-register';

/**
 * The data-quality notes of a shared report as a donor reads them on a phone: under the value they speak
 * of, wholly on screen, the page never pushed sideways; and none at all once the organization turns them off.
 */
describe.skipIf(!hasChromium)('the quality notes of a shared report, in Chromium', () => {
  const suite = browserSuite(buildTestApp);

  async function sharedFlagged() {
    const { org, admin, officer } = suite.team;
    const { app } = suite.t;
    const project = await createProject(suite.t.database.db, org.id, 'Safe Water Mopti');
    const period = await createPeriod(suite.t.database.db, org.id, project.id, { label: 'Q1 2026' });
    const visits = await postIndicator(app, officer, org.id, {
      name: 'Household visits',
      unit: 'visits',
      qualityChecks: { method: 'min_max', min: 0, max: 5000 },
    });
    await linkIndicator(app, officer, org.id, project.id, visits.id, { target: 10_000 });
    const value = await postReport(app, officer, org.id, project.id, {
      indicatorId: visits.id,
      reportingPeriodId: period.id,
      value: 12_000,
    });
    await act(app, officer, org.id, value.id, 'submit', { justification: JUSTIFICATION });
    await act(app, admin, org.id, value.id, 'approve');
    const report = await createDonorReport(app, officer, org.id, {
      projectId: project.id,
      periodIds: [period.id],
    });
    const shared = await call(app, 'PATCH', donorReportUrl(org.id, report.id, 'share'), { as: officer });
    expect(shared.status).toBe(200);
    return { shareUrl: shared.body.shareUrl as string, code: visits.code };
  }

  const showNotes = async (showQualityNotes: boolean) => {
    const res = await call(suite.t.app, 'PATCH', `/orgs/${suite.team.org.id}`, {
      as: suite.team.admin,
      body: { showQualityNotes },
    });
    expect(res.status).toBe(200);
  };

  async function open(url: string): Promise<Page> {
    const page = await suite.newPage(await suite.newContext({ viewport: PHONE }));
    expect((await page.goto(url))?.status()).toBe(200);
    return page;
  }

  it('puts each note under its value within a phone’s width, and nothing once turned off', async () => {
    const { shareUrl, code } = await sharedFlagged();
    await showNotes(true);
    const phone = await open(shareUrl);
    const { scrollWidth, clientWidth } = await phone.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
    }));
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);

    const card = phone.locator(`article.card[data-indicator="${code}"]`);
    const note = card.locator('[data-quality-note]');
    expect(await note.count()).toBe(1);
    expect((await note.innerText()).replace(/\s+/g, ' ')).toBe(
      `Note (Q1 2026 · unusual value): ${OUTLIER} — Justification: ${JUSTIFICATION}`,
    );
    const [value, drawn, meter, box] = await Promise.all([
      card.locator('[data-value]').boundingBox(),
      note.boundingBox(),
      card.locator('.meter').boundingBox(),
      card.boundingBox(),
    ]);
    // Right under the figures, before the progress bar, inside the card and the screen.
    expect(drawn!.y).toBeGreaterThan(value!.y + value!.height);
    expect(drawn!.y + drawn!.height).toBeLessThanOrEqual(meter!.y);
    expect(drawn!.x).toBeGreaterThanOrEqual(box!.x);
    expect(drawn!.x + drawn!.width).toBeLessThanOrEqual(Math.min(box!.x + box!.width, PHONE.width));
    await phone.screenshot({ path: artifact('report-quality-notes-390.png'), fullPage: true });

    await showNotes(false);
    const off = await open(shareUrl);
    expect(await off.locator('[data-quality-notes]').count()).toBe(0);
    expect(await off.locator('body').innerText()).not.toContain(JUSTIFICATION);
  });
});
