import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { artifact, browserSuite, hasChromium } from '../helpers/browser.js';
import { createProject } from '../helpers/factories.js';
import { call } from '../helpers/http.js';
import {
  act,
  indicatorCode,
  indicatorUrl,
  linkIndicator,
  postDisaggregation,
  postIndicator,
  postReport,
} from '../helpers/indicators.js';
import { createPeriod } from '../helpers/periods.js';
import { createDonorReport, donorReportUrl } from '../helpers/reports.js';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const ARABIC_TITLE = 'تقرير نصف السنة عن المياه';
const LONG_NAME = 'Households with a safe, year-round water source within thirty minutes of home';

/**
 * The shared report as a donor reads it on a phone and on a desktop, checked by layout: nothing pushes
 * the page sideways, each indicator is a card with its figures, disaggregations are labelled tables, a
 * draft says so on screen and on paper, user text runs in its own direction.
 */
describe.skipIf(!hasChromium)('the shared report on a phone, in Chromium', () => {
  const suite = browserSuite(buildTestApp);

  /**
   * A draft report, shared, titled in Arabic, over two quarters: households (long name, big numbers)
   * disaggregated by Sex crossed with Age and by Location; trainees with a pre-fill's free keys by sex
   * and age band; an indicator named in Arabic with no target.
   */
  async function sharedDraft() {
    const { org, admin, officer } = suite.team;
    const { app } = suite.t;
    const db = suite.t.database.db;
    const project = await createProject(db, org.id, 'Safe Water Mopti');
    const periods = [
      await createPeriod(db, org.id, project.id, { label: 'Q1 2026' }),
      await createPeriod(db, org.id, project.id, {
        label: 'Q2 2026',
        startDate: '2026-04-01',
        endDate: '2026-06-30',
      }),
    ];
    const households = await postIndicator(app, officer, org.id, {
      name: LONG_NAME,
      code: indicatorCode('HOUSEHOLDS_WITH_SAFE_WATER'),
      unit: 'households',
    });
    await postDisaggregation(app, officer, org.id, households.id, 'Sex', ['female', 'male']);
    await postDisaggregation(app, officer, org.id, households.id, 'Age', ['0-14', '15-24', '25+']);
    await postDisaggregation(app, officer, org.id, households.id, 'Location', ['urban', 'rural']);
    const cross = await call(app, 'POST', `${indicatorUrl(org.id, households.id)}/disaggregations`, {
      as: officer,
      body: { name: 'Sex by age', crosses: ['Sex', 'Age'] },
    });
    expect(cross.status, JSON.stringify(cross.body)).toBe(201);
    const trainees = await postIndicator(app, officer, org.id, { name: 'People trained', unit: 'people' });
    const wells = await postIndicator(app, officer, org.id, { name: 'آبار مُصلَحة', unit: 'wells' });
    await linkIndicator(app, officer, org.id, project.id, households.id, { target: 2_500_000 });
    await linkIndicator(app, officer, org.id, project.id, trainees.id, { target: 100 });
    await linkIndicator(app, officer, org.id, project.id, wells.id);
    const cells = (n: number) => ({
      'female|0-14': 100_000 * n,
      'female|15-24': 200_000 * n,
      'female|25+': 300_000 * n,
      'male|0-14': 50_000 * n,
      'male|15-24': 150_000 * n,
      'male|25+': 200_000 * n,
      urban: 600_000 * n,
      rural: 400_000 * n,
    });
    const values = [
      [households, periods[0]!, { disaggregatedValues: cells(1) }],
      [households, periods[1]!, { disaggregatedValues: cells(0.25) }],
      [trainees, periods[0]!, { disaggregatedValues: { female: 30, male: 20, '0-17': 10, '18-35': 40 } }],
      [wells, periods[1]!, { value: 4, narrative: 'أُصلحت أربعة آبار قبل موسم الأمطار.' }],
    ] as const;
    for (const [indicator, period, body] of values) {
      const created = await postReport(app, officer, org.id, project.id, {
        indicatorId: indicator.id,
        reportingPeriodId: period.id,
        ...body,
      });
      await act(app, officer, org.id, created.id, 'submit');
      await act(app, admin, org.id, created.id, 'approve');
    }
    const report = await createDonorReport(app, officer, org.id, {
      projectId: project.id,
      title: ARABIC_TITLE,
      periodIds: periods.map((p) => p.id),
    });
    const shared = await call(app, 'PATCH', donorReportUrl(org.id, report.id, 'share'), { as: officer });
    expect(shared.status).toBe(200);
    return { report, shareUrl: shared.body.shareUrl as string, households, trainees, wells };
  }

  async function open(url: string, viewport: { width: number; height: number }): Promise<Page> {
    const page = await suite.newPage(await suite.newContext({ viewport }));
    expect((await page.goto(url))?.status()).toBe(200);
    return page;
  }

  /** Nothing wider than the window: the page never scrolls sideways. */
  async function expectNoSidewaysScroll(page: Page) {
    const { scrollWidth, clientWidth } = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
    }));
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
  }

  /** The element is drawn, and wholly inside the window's width. */
  async function expectOnScreen(element: Locator, width: number) {
    const box = await element.boundingBox();
    expect(box, 'drawn').not.toBeNull();
    expect(box!.width).toBeGreaterThan(0);
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(width);
  }

  it('shows cards, labelled tables and a draft banner in a phone’s width, on screen and in print', async () => {
    const { shareUrl, report, households, trainees, wells } = await sharedDraft();
    const entries = report.sections.indicators as {
      code: string;
      indicatorName: string;
      progressPct: number | null;
    }[];
    const phone = await open(shareUrl, PHONE);
    await expectNoSidewaysScroll(phone);

    const banner = phone.locator('[data-draft-banner]');
    expect(await banner.locator('strong').innerText()).toBe('Draft: figures may change');
    await expectOnScreen(banner, PHONE.width);
    expect(await phone.title()).toBe(`Draft: ${ARABIC_TITLE}`);

    // Each indicator is a card that holds its name, value, target, bar and band within the screen.
    expect(await phone.locator('article.card').count()).toBe(entries.length);
    for (const entry of entries) {
      const card = phone.locator(`article.card[data-indicator="${entry.code}"]`);
      await expectOnScreen(card, PHONE.width);
      expect(await card.locator('h3 .name').innerText()).toBe(entry.indicatorName);
      expect(await card.locator('h3 .name').getAttribute('dir')).toBe('auto');
      for (const part of ['[data-value]', '[data-target]', '.status'])
        await expectOnScreen(card.locator(part), PHONE.width);
      if (entry.progressPct !== null) await expectOnScreen(card.locator('progress'), PHONE.width);
    }
    const householdsCard = phone.locator(`article.card[data-indicator="${households.code}"]`);
    expect(await householdsCard.locator('[data-value]').innerText()).toBe('1,250,000 households');
    expect(await householdsCard.locator('.pct').innerText()).toBe('50%');
    expect(await householdsCard.locator('.status').innerText()).toBe('Off track');
    // Named in Arabic, on an English page: right to left.
    const arabicName = phone.locator(`article.card[data-indicator="${wells.code}"] h3 .name`);
    expect(await arabicName.evaluate((element) => getComputedStyle(element).direction)).toBe('rtl');
    expect(
      await phone.locator(`article.card[data-indicator="${wells.code}"] .note p`).getAttribute('dir'),
    ).toBe('auto');

    // Disaggregations as small tables under their names; the cross as a grid with its margins.
    const location = householdsCard.locator('table.breakdown[data-breakdown="Location"]');
    expect(await location.locator('thead th').allInnerTexts()).toEqual(['Location', 'Value']);
    expect(await location.locator('tbody th').allInnerTexts()).toEqual(['urban', 'rural']);
    expect(await location.locator('tbody td').allInnerTexts()).toEqual(['750,000', '500,000']);
    // Sex and Age are read in the grid's margins, not twice.
    expect(await householdsCard.locator('table.breakdown').count()).toBe(1);
    const grid = householdsCard.locator('table.cross[data-cross="Sex by age"]');
    expect(await grid.locator('thead th').allInnerTexts()).toEqual([
      'Sex \\ Age',
      '0-14',
      '15-24',
      '25+',
      'Total',
    ]);
    expect(await grid.locator('tbody th').allInnerTexts()).toEqual(['female', 'male', 'Total']);
    expect(await grid.locator('[data-cross-total]').innerText()).toBe('1,250,000');
    await expectOnScreen(grid.locator('xpath=..'), PHONE.width);
    // A pre-fill's keys, under no disaggregation of the indicator: by sex and by age band.
    const traineesCard = phone.locator(`article.card[data-indicator="${trainees.code}"]`);
    expect(await traineesCard.locator('table.breakdown thead th:first-child').allInnerTexts()).toEqual([
      'Sex',
      'Age band',
    ]);
    expect(await traineesCard.locator('table.breakdown tbody th').allInnerTexts()).toEqual([
      'Female',
      'Male',
      '0-17',
      '18-35',
    ]);

    // The period table names every indicator, its code beside it.
    expect(await phone.locator('table.periods thead th').allInnerTexts()).toEqual([
      'Indicator',
      'Q1 2026',
      'Q2 2026',
    ]);
    expect(await phone.locator('table.periods tbody th .name').allInnerTexts()).toEqual(
      entries.map((entry) => entry.indicatorName),
    );

    // The Arabic title runs right to left on the English page, its text against the right edge.
    const title = phone.locator('h1');
    expect(await title.getAttribute('dir')).toBe('auto');
    const drawn = await title.evaluate((element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      const text = range.getBoundingClientRect();
      const box = element.getBoundingClientRect();
      return { direction: getComputedStyle(element).direction, gap: box.right - text.right };
    });
    expect(drawn.direction).toBe('rtl');
    expect(drawn.gap).toBeLessThan(2);
    await phone.screenshot({ path: artifact('report-phone-390.png'), fullPage: true });

    // On paper too, the draft says so first.
    await phone.emulateMedia({ media: 'print' });
    expect(await banner.isVisible()).toBe(true);
    expect((await banner.boundingBox())!.y).toBeLessThan((await title.boundingBox())!.y);
    await phone.screenshot({ path: artifact('report-phone-print.png'), fullPage: true });

    const desktop = await open(shareUrl, DESKTOP);
    await expectNoSidewaysScroll(desktop);
    expect(await desktop.locator('[data-draft-banner]').isVisible()).toBe(true);
    expect(await desktop.locator('article.card').count()).toBe(entries.length);
    await desktop.screenshot({ path: artifact('report-desktop-1280.png'), fullPage: true });
  });

  it('carries no draft banner once published, on screen or in print', async () => {
    const { shareUrl, report } = await sharedDraft();
    const published = await call(suite.t.app, 'PATCH', donorReportUrl(suite.team.org.id, report.id), {
      as: suite.team.officer,
      body: { status: 'published' },
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const phone = await open(shareUrl, PHONE);
    await expectNoSidewaysScroll(phone);
    expect(await phone.locator('[data-draft-banner]').count()).toBe(0);
    expect(await phone.title()).toBe(ARABIC_TITLE);
    await phone.emulateMedia({ media: 'print' });
    expect(await phone.locator('[data-draft-banner]').count()).toBe(0);
  });
});
