import { eq } from 'drizzle-orm';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { forms } from '../../src/modules/forms/forms.tables.js';
import { buildTestAppWithMail } from '../helpers/app.js';
import { artifact, browserSuite, hasChromium } from '../helpers/browser.js';
import { createProject, registerUser, uniqueEmail } from '../helpers/factories.js';
import { multipart, PDF, PNG } from '../helpers/files.js';
import { publishedForm, submissionsUrl } from '../helpers/forms.js';
import { call } from '../helpers/http.js';
import { act, linkIndicator, postIndicator, postReport } from '../helpers/indicators.js';
import { emailsTo } from '../helpers/invitations.js';
import { createPeriod } from '../helpers/periods.js';
import { postActivity, register, person } from '../helpers/activities.js';
import { linkIn } from '../helpers/smtp.js';

/**
 * The pages behind the links the service hands out, in headless Chromium against the real server
 * listening on a port: the links come from the API's answers and from the emails it sends.
 */
describe.skipIf(!hasChromium)('public pages in Chromium', () => {
  const suite = browserSuite(buildTestAppWithMail);

  /** A fresh browser profile (no cookies) with a phone-sized or desktop window. */
  async function newPage(options: BrowserContextOptions = {}): Promise<Page> {
    return suite.newPage(await suite.newContext({ viewport: { width: 1100, height: 900 }, ...options }));
  }

  /** The colour of the pixel at `x` on the middle row of a PNG, decoded by the browser itself. */
  const pixel = (page: Page, png: Buffer, x: number) =>
    page.evaluate(
      async ({ data, x }) => {
        const image = new Image();
        image.src = `data:image/png;base64,${data}`;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.width;
        canvas.height = image.height;
        const context = canvas.getContext('2d')!;
        context.drawImage(image, 0, 0);
        return [...context.getImageData(x, Math.floor(image.height / 2), 1, 1).data.slice(0, 3)];
      },
      { data: png.toString('base64'), x },
    );

  const fieldError = (page: Page, key: string) => page.locator(`.field[data-key="${key}"] [data-error]`);
  const summaryItems = (page: Page) => page.locator('[data-summary] li').allInnerTexts();

  describe('the form page', () => {
    const FIELDS = [
      { type: 'text', label: 'Your name', key: 'name', required: true },
      { type: 'number', label: 'Household size', key: 'household_size', required: true },
      {
        type: 'select',
        label: 'Water source',
        key: 'source',
        options: ['well', 'river', 'tap'],
        required: true,
      },
      {
        type: 'textarea',
        label: 'Why the river?',
        key: 'river_reason',
        required: true,
        showIf: { field: 'source', equals: 'river' },
      },
      { type: 'multi_select', label: 'Uses', key: 'uses', options: ['drinking', 'cooking', 'washing'] },
      { type: 'date', label: 'Visit date', key: 'visited' },
      { type: 'boolean', label: 'Is the water treated?', key: 'treated', required: true },
      {
        type: 'file',
        label: 'Photo of the treatment',
        key: 'photo',
        required: true,
        showIf: { field: 'treated', equals: true },
      },
      { type: 'location', label: 'Where is the source?', key: 'spot' },
      { type: 'text', label: '<img src=x onerror="window.hacked=1">Note', key: 'note' },
    ];

    it('applies skip logic live, checks before sending, shows the server’s 400 by its field, then thanks', async () => {
      const project = await createProject(suite.t.database.db, suite.team.org.id, 'Water points');
      const form = await publishedForm(suite.t.app, suite.team.admin, suite.team.org.id, {
        projectId: project.id,
        title: 'Household <b>water</b> survey',
        description: 'Five minutes.\nThank you for helping.',
        fields: FIELDS,
      });
      expect(form.publicUrl).toBe(`${suite.base}/f/${form.publicToken}`);

      const page = await newPage({
        viewport: { width: 400, height: 800 },
        geolocation: { latitude: 9.0579, longitude: 7.4951, accuracy: 12 },
        permissions: ['geolocation'],
      });
      const submits: string[] = [];
      page.on('request', (request) => {
        if (request.url().endsWith('/submit')) submits.push(request.method());
      });
      const response = await page.goto(form.publicUrl);
      expect(response?.status()).toBe(200);
      // The button comes disabled and the script enables it once it has taken the form over.
      await page.locator('button[type="submit"]:enabled').waitFor();
      expect(await page.title()).toBe('Household <b>water</b> survey');
      expect(await page.locator('form h1').innerText()).toBe('Household <b>water</b> survey');
      // Untrusted labels are text: the payload is visible as written and never ran.
      expect(await page.locator('label[for="f-note"]').innerText()).toContain('<img src=x onerror=');
      expect(await page.evaluate(() => (window as unknown as { hacked?: number }).hacked)).toBeUndefined();

      const river = page.locator('.field[data-key="river_reason"]');
      const photo = page.locator('.field[data-key="photo"]');
      expect(await river.isVisible()).toBe(false);
      expect(await photo.isVisible()).toBe(false);
      await page.selectOption('#f-source', 'river');
      expect(await river.isVisible()).toBe(true);
      await page.selectOption('#f-source', 'well');
      expect(await river.isVisible()).toBe(false);
      await page.selectOption('#f-source', 'river');

      await page.fill('#f-name', 'Grace Bello');
      await page.fill('#f-household_size', '4');
      await page.check('.field[data-key="uses"] input[value="drinking"]');
      await page.check('.field[data-key="uses"] input[value="washing"]');
      await page.fill('#f-visited', '2026-03-14');
      await page.check('#f-treated');
      expect(await photo.isVisible()).toBe(true);
      await page.click('.field[data-key="spot"] [data-locate]');
      await page.locator('[data-location-status]', { hasText: '9.05790, 7.49510' }).waitFor();

      await page.screenshot({ path: artifact('form.png'), fullPage: true });

      // The browser's own checks, as the server's: nothing is sent.
      await page.click('button[type="submit"]');
      await page.locator('[data-summary]').waitFor();
      expect(await summaryItems(page)).toEqual([
        'Why the river? is required',
        'Photo of the treatment is required',
      ]);
      expect(await fieldError(page, 'river_reason').innerText()).toBe('Why the river? is required');
      expect(submits).toEqual([]);

      // A file the server refuses by its content: the server's message, next to the field.
      await page.fill('#f-river_reason', 'The well is dry in March.');
      await page.setInputFiles('#f-photo', {
        name: 'photo.png',
        mimeType: 'image/png',
        buffer: Buffer.from('no image'),
      });
      await page.click('button[type="submit"]');
      await page.locator('.field.invalid[data-key="photo"]').waitFor();
      expect(submits).toEqual(['POST']);
      expect(await fieldError(page, 'photo').innerText()).toMatch(
        /^Photo of the treatment must be a PDF, JPEG, PNG/,
      );
      expect(await fieldError(page, 'river_reason').innerText()).toBe('');
      await page.screenshot({ path: artifact('form-server-error.png'), fullPage: true });

      await page.setInputFiles('#f-photo', { name: 'photo.png', mimeType: 'image/png', buffer: PNG });
      await page.click('button[type="submit"]');
      await page.locator('[data-thanks] h1', { hasText: 'Thank you' }).waitFor();
      expect(await page.locator('form.respondent').isVisible()).toBe(false);
      await page.screenshot({ path: artifact('form-thanks.png'), fullPage: true });

      const stored = await call(suite.t.app, 'GET', submissionsUrl(suite.team.org.id, form.id), {
        as: suite.team.admin,
      });
      expect(stored.body).toHaveLength(1);
      const { answers } = stored.body[0];
      expect(answers).toMatchObject({
        name: 'Grace Bello',
        household_size: 4,
        source: 'river',
        river_reason: 'The well is dry in March.',
        uses: ['drinking', 'washing'],
        visited: '2026-03-14',
        treated: true,
        spot: { lat: 9.0579, lng: 7.4951, accuracy: 12 },
        photo: { fileName: 'photo.png', contentType: 'image/png', size: PNG.length },
      });
      expect(Object.keys(answers).sort()).toEqual(
        [
          'household_size',
          'name',
          'photo',
          'river_reason',
          'source',
          'spot',
          'treated',
          'uses',
          'visited',
        ].sort(),
      );
    });

    it('takes a typed place when the browser may not locate, and drops answers skip logic hides', async () => {
      const project = await createProject(suite.t.database.db, suite.team.org.id, 'Water points 2');
      const form = await publishedForm(suite.t.app, suite.team.admin, suite.team.org.id, {
        projectId: project.id,
        fields: FIELDS,
      });
      const page = await newPage();
      await page.goto(form.publicUrl);
      await page.fill('#f-name', 'Idris');
      await page.fill('#f-household_size', '2');
      await page.selectOption('#f-source', 'river');
      await page.fill('#f-river_reason', 'typed, then hidden again');
      await page.selectOption('#f-source', 'tap');
      await page.check('#f-treated-no');
      await page.click('.field[data-key="spot"] [data-locate]');
      await page.locator('[data-location-status]', { hasText: 'refused' }).waitFor();
      await page.fill('#f-spot', 'Kubwa market, Abuja');
      await page.click('button[type="submit"]');
      await page.locator('[data-thanks] h1').waitFor();

      const stored = await call(suite.t.app, 'GET', submissionsUrl(suite.team.org.id, form.id), {
        as: suite.team.admin,
      });
      expect(stored.body[0].answers).toEqual({
        name: 'Idris',
        household_size: 2,
        source: 'tap',
        treated: false,
        spot: 'Kubwa market, Abuja',
      });
    });

    it('says so when the form is missing or closed', async () => {
      const page = await newPage();
      const missing = await page.goto(`${suite.base}/f/no-such-form`);
      expect(missing?.status()).toBe(404);
      expect(await page.locator('h1').innerText()).toBe('This form is not available');

      const project = await createProject(suite.t.database.db, suite.team.org.id, 'Closed forms');
      const form = await publishedForm(suite.t.app, suite.team.admin, suite.team.org.id, {
        projectId: project.id,
      });
      await suite.t.database.db
        .update(forms)
        .set({ closesAt: new Date(Date.now() - 60_000) })
        .where(eq(forms.id, form.id));
      const closed = await page.goto(form.publicUrl);
      expect(closed?.status()).toBe(410);
      expect(await page.locator('h1').innerText()).toBe('This form is closed');
      await page.screenshot({ path: artifact('form-closed.png') });
    });
  });

  describe('the shared report page', () => {
    it('shows the report’s numbers, bands, budget, narratives and attachments, and prints clean', async () => {
      const { org, admin, officer } = suite.team;
      const db = suite.t.database.db;
      const project = await createProject(db, org.id, 'Safe Water Kano');
      const q1 = await createPeriod(db, org.id, project.id, { label: 'Q1 2026' });
      const q2 = await createPeriod(db, org.id, project.id, {
        label: 'Q2 2026',
        startDate: '2026-04-01',
        endDate: '2026-06-30',
      });
      const wells = await postIndicator(suite.t.app, officer, org.id, {
        name: 'Wells repaired',
        code: 'WELLS',
        unit: 'wells',
      });
      const people = await postIndicator(suite.t.app, officer, org.id, {
        name: 'People with safe water',
        code: 'PEOPLE',
        unit: 'people',
      });
      const clubs = await postIndicator(suite.t.app, officer, org.id, {
        name: 'Hygiene clubs',
        code: 'CLUBS',
        unit: 'clubs',
      });
      await linkIndicator(suite.t.app, officer, org.id, project.id, wells.id, { target: 20 });
      await linkIndicator(suite.t.app, officer, org.id, project.id, people.id, { target: 1000 });
      await linkIndicator(suite.t.app, officer, org.id, project.id, clubs.id);
      const values: [typeof wells, typeof q1, number, string][] = [
        [wells, q1, 9, 'Two crews from March.'],
        [wells, q2, 8, ''],
        [people, q1, 150, '<script>window.hacked = 1</script>Counted at the tap.'],
        [clubs, q2, 3, ''],
      ];
      for (const [indicator, period, value, narrative] of values) {
        const created = await postReport(suite.t.app, officer, org.id, project.id, {
          indicatorId: indicator.id,
          reportingPeriodId: period.id,
          value,
          ...(narrative ? { narrative } : {}),
        });
        await act(suite.t.app, officer, org.id, created.id, 'submit');
        await act(suite.t.app, admin, org.id, created.id, 'approve');
      }
      const activity = await postActivity(suite.t.app, officer, org.id, project.id, {
        title: 'Water committee training',
      });
      await register(suite.t.app, officer, org.id, activity.id, [person(), person()]);
      for (const line of [
        { category: 'Drilling', description: 'Contractor', plannedAmount: 3000, actualAmount: 1800 },
        { category: 'Travel', plannedAmount: 1000, actualAmount: 250 },
      ]) {
        const res = await call(suite.t.app, 'POST', `/orgs/${org.id}/projects/${project.id}/budget-lines`, {
          as: officer,
          body: line,
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
      }
      const upload = multipart([
        { name: 'title', value: 'Site photos & <notes>' },
        { name: 'file', value: PDF, fileName: 'sites.pdf', contentType: 'application/pdf' },
      ]);
      const attached = await suite.t.app.inject({
        method: 'POST',
        url: `/orgs/${org.id}/projects/${project.id}/attachments`,
        headers: { authorization: `Bearer ${officer.token}`, ...upload.headers },
        payload: upload.body,
      });
      expect(attached.statusCode, attached.body).toBe(201);

      const created = await call(suite.t.app, 'POST', `/orgs/${org.id}/projects/${project.id}/reports`, {
        as: officer,
        body: { title: 'Half-year report <2026>', startDate: '2026-01-01', endDate: '2026-06-30' },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const reportId = created.body.id as string;
      const patched = await call(suite.t.app, 'PATCH', `/orgs/${org.id}/reports/${reportId}`, {
        as: officer,
        body: {
          sections: {
            executiveSummary: 'Wells are back in use.\n\n<b>Not bold</b>: every village has water.',
            recommendations: 'Keep the crews.',
          },
        },
      });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      const shared = await call(suite.t.app, 'PATCH', `/orgs/${org.id}/reports/${reportId}/share`, {
        as: officer,
      });
      expect(shared.status).toBe(200);
      const shareUrl = shared.body.shareUrl as string;
      expect(shareUrl).toBe(`${suite.base}/r/${shared.body.shareToken}`);
      const report = (await call(suite.t.app, 'GET', `/reports/share/${shared.body.shareToken}`)).body;

      const page = await newPage();
      const response = await page.goto(shareUrl);
      expect(response?.status()).toBe(200);
      expect(await page.locator('h1').innerText()).toBe('Half-year report <2026>');
      expect(await page.locator('.cover .org').innerText()).toBe(org.name);
      expect(await page.evaluate(() => (window as unknown as { hacked?: number }).hacked)).toBeUndefined();

      // Every indicator card says what the API says: value, target, progress and its band.
      const rows = report.sections.indicators as {
        code: string;
        indicatorName: string;
        value: number | null;
        target: number | null;
        progressPct: number | null;
        status: string;
        periods: { label: string; value: number | null }[];
      }[];
      expect(rows.map((row) => row.code)).toEqual(['CLUBS', 'PEOPLE', 'WELLS']);
      const shown = (n: number | null) => (n === null ? '—' : n.toLocaleString('en'));
      const cardOf = (code: string) => page.locator(`article.card[data-indicator="${code}"]`);
      for (const entry of rows) {
        const card = cardOf(entry.code);
        expect(await card.locator('h3 .name').innerText()).toBe(entry.indicatorName);
        expect(await card.locator('[data-target]').innerText()).toBe(shown(entry.target));
        expect((await card.locator('[data-value]').innerText()).startsWith(shown(entry.value))).toBe(true);
        if (entry.progressPct === null) expect(await card.locator('progress').count()).toBe(0);
        else {
          expect(await card.locator('.pct').innerText()).toBe(`${shown(entry.progressPct)}%`);
          expect(await card.locator('progress').getAttribute('class')).toBe(`band-${entry.status}`);
        }
        expect(await card.locator('.status').getAttribute('class')).toBe(`status band-${entry.status}`);
        const periodRow = page.locator('table.periods tbody tr', {
          has: page.locator(`.code:text-is("${entry.code}")`),
        });
        expect(await periodRow.locator('th .name').innerText()).toBe(entry.indicatorName);
        const periodCells = await periodRow.locator('td').allInnerTexts();
        expect(periodCells.map((cell) => cell.replace(/of .*$/, ''))).toEqual(
          entry.periods.map((period) => shown(period.value)),
        );
      }
      expect(rows.find((row) => row.code === 'WELLS')).toMatchObject({
        value: 17,
        target: 20,
        progressPct: 85,
      });
      expect(await page.locator('table.periods thead th').allInnerTexts()).toEqual([
        'Indicator',
        'Q1 2026',
        'Q2 2026',
      ]);
      // The bar is drawn in the band's colour: a pixel of its filled part, read from a screenshot of it.
      const wellsEntry = rows.find((row) => row.code === 'WELLS')!;
      const bar = cardOf('WELLS').locator('progress');
      const BANDS: Record<string, number[]> = {
        on_track: [26, 127, 55],
        at_risk: [154, 91, 0],
        off_track: [179, 38, 30],
      };
      expect(await pixel(page, await bar.screenshot(), 4)).toEqual(BANDS[wellsEntry.status]);
      const statusColour = await cardOf('WELLS')
        .locator('.status')
        .evaluate((element) => getComputedStyle(element).color);
      expect(statusColour).toBe(`rgb(${BANDS[wellsEntry.status]!.join(', ')})`);

      expect(await page.locator('[data-budget-planned]').innerText()).toBe('$4,000.00');
      expect(await page.locator('[data-budget-actual]').innerText()).toBe('$2,050.00');
      expect(report.sections.budget.burnRate).toBe(51.3);
      expect(await page.locator('[data-burn-rate]').innerText()).toBe('51.3%');
      const activityRow = page.locator('#activities tbody tr').first();
      expect(await activityRow.locator('th').innerText()).toBe('Water committee training');
      expect(await activityRow.locator('td').allInnerTexts()).toEqual([
        '1 Feb 2026 – 3 Feb 2026',
        '—',
        'Planned',
        '2',
        '0',
      ]);
      const summary = await page
        .locator('section', { hasText: 'Executive summary' })
        .locator('p')
        .allInnerTexts();
      expect(summary).toEqual(['Wells are back in use.', '<b>Not bold</b>: every village has water.']);
      expect(await page.locator('.card .note').allInnerTexts()).toEqual(
        expect.arrayContaining([
          expect.stringContaining('<script>window.hacked = 1</script>Counted at the tap.'),
        ]),
      );

      const link = page.locator('#attachments a');
      expect(await link.innerText()).toBe('Site photos & <notes>');
      const download = await page.request.get(`${suite.base}${await link.getAttribute('href')}`);
      expect(download.status()).toBe(200);
      expect(Buffer.from(await download.body()).equals(PDF)).toBe(true);
      await page.screenshot({ path: artifact('report.png'), fullPage: true });

      // Printing: no buttons, and Chromium's "Save as PDF" makes a document.
      await page.emulateMedia({ media: 'print' });
      expect(await page.locator('[data-print]').isVisible()).toBe(false);
      await page.screenshot({ path: artifact('report-print.png'), fullPage: true });
      const pdf = await page.pdf({ path: artifact('report.pdf'), format: 'A4', printBackground: true });
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');

      // Revoked: the same address now says so.
      expect(
        (await call(suite.t.app, 'DELETE', `/orgs/${org.id}/reports/${reportId}/share`, { as: officer }))
          .status,
      ).toBe(204);
      const revoked = await page.goto(shareUrl);
      expect(revoked?.status()).toBe(404);
      expect(await page.locator('h1').innerText()).toBe('This report is no longer shared');
    });
  });

  describe('the invitation page', () => {
    const invite = async (email: string, role = 'reporter') => {
      const res = await call(suite.t.app, 'POST', `/orgs/${suite.team.org.id}/members`, {
        as: suite.team.admin,
        body: { email, role },
      });
      expect(res.status).toBe(201);
      // A registered user's first email was the verification link: wait for the invitation.
      const [message] = await emailsTo(suite.t.smtp, email, 1, `${suite.base}/invitations/`);
      return linkIn(message!, `${suite.base}/invitations/`);
    };
    const memberRole = async (email: string) => {
      const res = await call(suite.t.app, 'GET', `/orgs/${suite.team.org.id}/members?limit=100`, {
        as: suite.team.admin,
      });
      return (res.body.data as { email: string; role: string }[]).find((m) => m.email === email)?.role;
    };

    it('creates the account of a new person, then accepts', async () => {
      const email = uniqueEmail('newcomer');
      const link = await invite(email);
      const page = await newPage({ viewport: { width: 400, height: 800 } });
      const response = await page.goto(link);
      expect(response?.status()).toBe(200);
      expect(await page.locator('h1').innerText()).toBe(`Join ${suite.team.org.name}`);
      await page.locator('form[data-step="sign-in"]').waitFor();
      await page.click('[data-show="register"]');
      await page.fill('#firstName', 'Ngozi');
      await page.fill('#lastName', 'Eze');
      await page.fill('#newPassword', 'short');
      await page.click('form[data-step="register"] button[type="submit"]');
      expect(await fieldError(page, 'newPassword').innerText()).toBe(
        'Password must be at least 8 characters',
      );
      await page.fill('#newPassword', 'clean water for all');
      await page.click('form[data-step="register"] button[type="submit"]');
      await page.locator('[data-step="accept"]').waitFor();
      expect(await page.locator('[data-step="accept"] [data-signed-in-as]').innerText()).toBe(email);
      await page.screenshot({ path: artifact('invitation.png'), fullPage: true });
      await page.click('[data-accept]');
      await page.locator('[data-step="done"]').waitFor();
      expect(await page.locator('[data-done-message]').innerText()).toBe(
        `You are now a member of ${suite.team.org.name} as reporter.`,
      );
      // What to do next: the settings page lists the organization and its pages.
      expect(await page.locator('[data-step="done"] a').getAttribute('href')).toBe('/settings');
      expect(await memberRole(email)).toBe('reporter');
      // The session's current organization is now the one joined (the cookie was re-issued).
      const cookie = (await page.context().cookies()).find((c) => c.name === 'jwt')!;
      const claims = JSON.parse(Buffer.from(cookie.value.split('.')[1]!, 'base64url').toString());
      expect(claims).toMatchObject({ email, organizationId: suite.team.org.id, role: 'reporter' });
    });

    it('signs in an existing user, showing the server’s refusal of a wrong password', async () => {
      const user = await registerUser(suite.t.app);
      const link = await invite(user.email, 'viewer');
      const page = await newPage();
      await page.goto(link);
      await page.locator('form[data-step="sign-in"]').waitFor();
      expect(await page.inputValue('#email')).toBe(user.email);
      await page.fill('#password', 'not the password');
      await page.click('form[data-step="sign-in"] button[type="submit"]');
      await page.locator('[data-summary] li', { hasText: 'Invalid email or password' }).waitFor();
      await page.fill('#password', user.password);
      await page.click('form[data-step="sign-in"] button[type="submit"]');
      await page.click('[data-accept]');
      await page.locator('[data-step="done"]').waitFor();
      expect(await memberRole(user.email)).toBe('viewer');

      const used = await page.goto(link);
      expect(used?.status()).toBe(404);
      expect(await page.locator('h1').innerText()).toBe('This invitation is no longer valid');
    });
  });

  describe('the password reset page', () => {
    it('sets a new password with the emailed link, once', async () => {
      const user = await registerUser(suite.t.app);
      expect(
        (await call(suite.t.app, 'POST', '/auth/forgot-password', { body: { email: user.email } })).status,
      ).toBe(202);
      const [message] = await emailsTo(suite.t.smtp, user.email, 1, `${suite.base}/reset-password?token=`);
      const link = linkIn(message!, `${suite.base}/reset-password?token=`);
      const page = await newPage({ viewport: { width: 400, height: 700 } });
      expect((await page.goto(link))?.status()).toBe(200);

      await page.fill('#newPassword', 'a new long password');
      await page.fill('#confirmPassword', 'a different one');
      await page.click('button[type="submit"]');
      expect(await fieldError(page, 'confirmPassword').innerText()).toBe(
        'The two passwords are not the same',
      );
      await page.fill('#newPassword', user.email);
      await page.fill('#confirmPassword', user.email);
      await page.click('button[type="submit"]');
      await page.locator('.field.invalid[data-key="newPassword"]').waitFor();
      expect(await fieldError(page, 'newPassword').innerText()).toBe(
        'Password must not be the same as the email',
      );
      await page.screenshot({ path: artifact('reset-password.png'), fullPage: true });

      await page.fill('#newPassword', 'a new long password');
      await page.fill('#confirmPassword', 'a new long password');
      await page.click('button[type="submit"]');
      await page.locator('[data-step="done"] h1', { hasText: 'Password changed' }).waitFor();
      const login = await call(suite.t.app, 'POST', '/auth/login', {
        body: { email: user.email, password: 'a new long password' },
      });
      expect(login.status).toBe(200);

      // Then on to sign in with it.
      expect(await page.locator('[data-step="done"] a').getAttribute('href')).toBe('/sign-in');

      // The link works once: opened again, the page says so before asking for a password.
      const used = await page.goto(link);
      expect(used?.status()).toBe(404);
      expect(await page.locator('h1').innerText()).toBe('This link no longer works');
      expect(await page.locator('input[type="password"]').count()).toBe(0);
    });
  });

  describe('the email verification page', () => {
    it('confirms the address with the link emailed at registration when asked to, once', async () => {
      const user = await registerUser(suite.t.app);
      const [message] = await emailsTo(suite.t.smtp, user.email, 1, `${suite.base}/verify-email?token=`);
      const link = linkIn(message!, `${suite.base}/verify-email?token=`);
      const verified = async () =>
        (await call(suite.t.app, 'GET', '/auth/me', { as: user })).body.emailVerified;
      const page = await newPage({ viewport: { width: 400, height: 700 } });
      expect((await page.goto(link))?.status()).toBe(200);
      expect(await page.locator('h1').first().innerText()).toBe('Confirm your email address');
      // Opening the link sends nothing (a mail scanner may open it): only the button does.
      expect(await verified()).toBe(false);
      await page.screenshot({ path: artifact('verify-email.png'), fullPage: true });
      await page.click('button[data-confirm]:enabled');
      await page.locator('[data-step="done"] h1', { hasText: 'Email address confirmed' }).waitFor();
      expect(await verified()).toBe(true);
      expect(await page.locator('[data-step="done"] a').getAttribute('href')).toBe('/settings');

      // The link works once: the server's refusal is shown.
      await page.goto(link);
      await page.click('button[data-confirm]:enabled');
      await page.locator('[data-summary] li', { hasText: 'Invalid or expired verification token' }).waitFor();
    });
  });
});
