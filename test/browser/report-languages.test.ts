import type { BrowserContextOptions, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { browserSuite, hasChromium } from '../helpers/browser.js';
import { createProject } from '../helpers/factories.js';
import { call } from '../helpers/http.js';
import { act, linkIndicator, postIndicator, postReport } from '../helpers/indicators.js';
import { createPeriod } from '../helpers/periods.js';

/**
 * The shared report in the reader's language (docs/languages.md): `?lang=`, then the browser's
 * languages, then the organization's default; numbers and dates as the language writes them.
 */
describe.skipIf(!hasChromium)('the shared report in other languages, in Chromium', () => {
  const suite = browserSuite(buildTestApp);

  async function newPage(options: BrowserContextOptions = {}): Promise<Page> {
    return suite.newPage(await suite.newContext({ viewport: { width: 1100, height: 900 }, ...options }));
  }

  /** A shared report with one indicator at 1234 of 5000 over Q1 2026; its share URL. */
  async function sharedReport(code: string): Promise<string> {
    const { org, admin, officer } = suite.team;
    const db = suite.t.database.db;
    const project = await createProject(db, org.id, 'Eau potable Mopti');
    const q1 = await createPeriod(db, org.id, project.id, { label: 'T1 2026' });
    const people = await postIndicator(suite.t.app, officer, org.id, {
      name: 'Personnes ayant accès à l’eau',
      code,
      unit: 'personnes',
    });
    await linkIndicator(suite.t.app, officer, org.id, project.id, people.id, { target: 5000 });
    const created = await postReport(suite.t.app, officer, org.id, project.id, {
      indicatorId: people.id,
      reportingPeriodId: q1.id,
      value: 1234,
    });
    await act(suite.t.app, officer, org.id, created.id, 'submit');
    await act(suite.t.app, admin, org.id, created.id, 'approve');
    const report = await call(suite.t.app, 'POST', `/orgs/${org.id}/projects/${project.id}/reports`, {
      as: officer,
      body: { title: 'Rapport du premier trimestre', startDate: '2026-01-01', endDate: '2026-03-31' },
    });
    expect(report.status, JSON.stringify(report.body)).toBe(201);
    const shared = await call(suite.t.app, 'PATCH', `/orgs/${org.id}/reports/${report.body.id}/share`, {
      as: officer,
    });
    expect(shared.status).toBe(200);
    return shared.body.shareUrl as string;
  }

  it('speaks French to a French browser: <html lang="fr">, French headings, numbers and dates', async () => {
    const url = await sharedReport('PEOPLE');
    const page = await newPage({ locale: 'fr-FR' });
    expect((await page.goto(url))?.status()).toBe(200);
    expect(await page.locator('html').getAttribute('lang')).toBe('fr');
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');
    expect(await page.locator('#indicators h2').innerText()).toBe('Indicateurs');
    expect(await page.locator('#activities h2').innerText()).toBe('Activités');
    expect(await page.locator('.cover dt').first().innerText()).toBe('Période');
    // 1 January – 31 March 2026, as French writes it.
    expect(await page.locator('.cover dd').first().innerText()).toBe('1 janv. 2026 – 31 mars 2026');
    // 1234 with French grouping (a narrow no-break space), 5000 too.
    expect(await page.locator('.card [data-value]').innerText()).toContain('1\u202f234');
    expect(await page.locator('.card [data-target]').innerText()).toContain('5\u202f000');
    expect(await page.locator('.card .measures dt').allInnerTexts()).toEqual([
      'Valeur',
      'Cible',
      'Référence',
    ]);
    expect(await page.locator('.card .status').innerText()).toBe('En retard');
    expect(await page.locator('table.periods thead th').allInnerTexts()).toEqual(['Indicateur', 'T1 2026']);
    expect(await page.locator('[data-print]').innerText()).toBe('Imprimer ou enregistrer en PDF');
    // The other languages are offered, each named in itself.
    const offered = page.locator('nav.languages a');
    expect(await offered.allInnerTexts()).toEqual(['English', 'Español', 'Português', 'العربية']);
    await offered.filter({ hasText: 'English' }).click();
    await page.waitForURL(/\?lang=en$/);
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await page.locator('#indicators h2').innerText()).toBe('Indicators');
    expect(await page.locator('.card [data-value]').innerText()).toContain('1,234');
  });

  it("follows ?lang= first, and the organization's default when the browser asks for none of ours", async () => {
    const url = await sharedReport('HOUSEHOLDS');
    const arabic = await newPage({ locale: 'fr-FR' });
    await arabic.goto(`${url}?lang=ar`);
    expect(await arabic.locator('html').getAttribute('lang')).toBe('ar');
    expect(await arabic.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await arabic.locator('#indicators h2').innerText()).toBe('المؤشرات');

    const { org, admin } = suite.team;
    const set = await call(suite.t.app, 'PATCH', `/orgs/${org.id}`, {
      as: admin,
      body: { defaultLocale: 'pt' },
    });
    expect(set.status).toBe(200);
    try {
      const german = await newPage({ locale: 'de-DE' });
      await german.goto(url);
      expect(await german.locator('html').getAttribute('lang')).toBe('pt');
      expect(await german.locator('#budget h2').innerText()).toBe('Orçamento');
      // An expired or unknown link says so in the browser's language, when it is one of ours.
      const spanish = await newPage({ locale: 'es-ES' });
      expect((await spanish.goto(`${url}x`))?.status()).toBe(404);
      expect(await spanish.locator('html').getAttribute('lang')).toBe('es');
      expect(await spanish.locator('h1').innerText()).toBe('Este informe ya no se comparte');
    } finally {
      await call(suite.t.app, 'PATCH', `/orgs/${org.id}`, { as: admin, body: { defaultLocale: 'en' } });
    }
  });
});
