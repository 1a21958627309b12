import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { artifact, browserSuite, hasChromium } from '../helpers/browser.js';
import { createProject } from '../helpers/factories.js';
import { publishedForm, submissionsUrl, type FormJson } from '../helpers/forms.js';
import { call } from '../helpers/http.js';

/** A household survey written in Arabic, translated into English. */
const ARABIC_FORM = {
  title: 'مسح الأسر',
  defaultLanguage: 'ar',
  fields: [
    { type: 'text', key: 'name', label: 'الاسم', required: true },
    { type: 'number', key: 'age', label: 'العمر', required: true },
    {
      type: 'select',
      key: 'water',
      label: 'مصدر المياه',
      choices: [
        { name: 'well', label: 'بئر' },
        { name: 'river', label: 'نهر' },
      ],
    },
  ],
  translations: {
    en: {
      title: 'Household survey',
      fields: {
        name: { label: 'Name' },
        age: { label: 'Age' },
        water: { label: 'Water source', choices: { well: 'Well', river: 'River' } },
      },
    },
  },
};

/** Where the boxes are, in CSS pixels: the form's, the text of a label's, the submit button's. */
async function boxes(page: Page, labelFor: string) {
  return page.evaluate((id) => {
    const edges = (rect: DOMRect) => ({ left: rect.left, right: rect.right });
    const label = document.querySelector(`label[for="${id}"]`)!;
    const text = document.createRange();
    text.selectNodeContents(label);
    return {
      form: edges(document.querySelector('form.respondent')!.getBoundingClientRect()),
      label: edges(text.getBoundingClientRect()),
      button: edges(document.querySelector('button[type="submit"]')!.getBoundingClientRect()),
    };
  }, labelFor);
}

/**
 * Issue 41 on the public form page, in headless Chromium against the real server: a form in Arabic,
 * right to left, its switch to English, numbers typed in Arabic-Indic digits, the offline queue in
 * Arabic; groups, repeats, relevance, constraints and calculations as the respondent sees them.
 */
describe.skipIf(!hasChromium)('the form page in the respondent’s language, in Chromium', () => {
  const suite = browserSuite(buildTestApp);

  async function form(body: Record<string, unknown>): Promise<FormJson> {
    const project = await createProject(suite.t.database.db, suite.team.org.id);
    return publishedForm(suite.t.app, suite.team.admin, suite.team.org.id, {
      projectId: project.id,
      ...body,
    });
  }

  async function stored(formId: string) {
    const res = await call(suite.t.app, 'GET', submissionsUrl(suite.team.org.id, formId), {
      as: suite.team.admin,
    });
    expect(res.status).toBe(200);
    return res.body as { answers: Record<string, unknown> }[];
  }

  const outboxSays = (page: Page, text: string) =>
    page.locator('[data-outbox-count]', { hasText: text }).waitFor();

  it('shows an Arabic form right to left, switches to English, reads Arabic-Indic digits and queues in Arabic', async () => {
    const arabic = await form(ARABIC_FORM);
    const context = await suite.newContext({ locale: 'ar', viewport: { width: 400, height: 800 } });
    const page = await suite.newPage(context);
    expect((await page.goto(arabic.publicUrl))?.status()).toBe(200);
    await page.locator('button[type="submit"]:enabled').waitFor();

    expect(await page.getAttribute('html', 'lang')).toBe('ar');
    expect(await page.getAttribute('html', 'dir')).toBe('rtl');
    expect(await page.locator('form h1').innerText()).toBe('مسح الأسر');
    expect(await page.locator('button[type="submit"]').innerText()).toBe('إرسال');
    expect(await page.locator('#f-water option[value=""]').innerText()).toBe('اختر…');
    expect(await page.locator('label[for="f-age"]').innerText()).toBe('العمر (مطلوب)');
    // Right to left: the label's text ends at the form's right edge, the button sits on the right.
    const rtl = await boxes(page, 'f-age');
    expect(Math.abs(rtl.label.right - rtl.form.right)).toBeLessThan(2);
    expect(rtl.label.left).toBeGreaterThan(rtl.form.left + 100);
    expect(Math.abs(rtl.button.right - rtl.form.right)).toBeLessThan(2);
    expect(rtl.button.left).toBeGreaterThan(rtl.form.left + 100);
    await page.screenshot({ path: artifact('form-arabic.png'), fullPage: true });

    // Nothing typed in a number field is called missing: what cannot be read is not a number.
    await page.fill('#f-name', 'أمينة');
    await page.fill('#f-age', 'خمسة');
    await page.locator('#f-age').blur();
    expect(await page.locator('#f-age-error').innerText()).toBe('العمر: يجب أن يكون رقمًا');
    await page.click('button[type="submit"]');
    await page.locator('[data-summary]').waitFor();
    expect(await page.locator('[data-summary] h2').innerText()).toBe('توجد مشكلة واحدة');
    expect(await page.locator('#f-age-error').innerText()).toBe('العمر: يجب أن يكون رقمًا');
    await page.fill('#f-age', '٢٥');
    await page.selectOption('#f-water', 'river');
    await page.click('button[type="submit"]');
    await page.locator('[data-thanks] h1', { hasText: 'شكرًا لك' }).waitFor();
    const [first] = await stored(arabic.id);
    expect(first!.answers).toEqual({ name: 'أمينة', age: 25, water: 'river' });

    // The switch: the same form in English, left to right.
    await page.click('[data-thanks] [data-another]');
    await page.click('nav.languages a[hreflang="en"]');
    await page.waitForURL(/\?lang=en$/);
    await page.locator('button[type="submit"]:enabled').waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.getAttribute('html', 'dir')).toBe('ltr');
    expect(await page.locator('form h1').innerText()).toBe('Household survey');
    expect(await page.locator('label[for="f-age"]').innerText()).toBe('Age (required)');
    expect(await page.locator('#f-water option[value="river"]').innerText()).toBe('River');
    expect(await page.locator('button[type="submit"]').innerText()).toBe('Send');
    expect(await page.locator('nav.languages a[hreflang="ar"]').innerText()).toBe('العربية');
    const ltr = await boxes(page, 'f-age');
    expect(Math.abs(ltr.label.left - ltr.form.left)).toBeLessThan(2);
    expect(Math.abs(ltr.button.left - ltr.form.left)).toBeLessThan(2);
    // Persian digits and a decimal point typed in English are a number too.
    await page.fill('#f-name', 'Bello');
    await page.fill('#f-age', '۴۰');
    await page.click('button[type="submit"]');
    await page.locator('[data-thanks] h1', { hasText: 'Thank you' }).waitFor();

    // Back in Arabic (the browser's language), kept for offline use; answers queue in Arabic.
    await page.goto(arabic.publicUrl);
    await page.locator('[data-offline-ready]').waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('ar');
    await context.setOffline(true);
    for (const [name, age] of [
      ['سلمى', '٣٠'],
      ['يوسف', '٧'],
    ]) {
      await page.fill('#f-name', name!);
      await page.fill('#f-age', age!);
      await page.click('button[type="submit"]');
      await page.locator('[data-saved] h1', { hasText: 'حُفظت على هذا الجهاز' }).waitFor();
      await page.click('[data-saved] [data-another]');
    }
    // Arabic's dual: two answers, no number.
    await outboxSays(page, 'إجابتان بانتظار الإرسال. ستُرسل عند عودة الاتصال.');
    // Opened again without a connection: the kept copy, in Arabic.
    await page.reload();
    await page.locator('button[type="submit"]:enabled').waitFor();
    expect(await page.getAttribute('html', 'dir')).toBe('rtl');
    expect(await page.locator('button[type="submit"]').innerText()).toBe('إرسال');
    await outboxSays(page, 'إجابتان بانتظار الإرسال.');
    await page.screenshot({ path: artifact('form-arabic-offline.png'), fullPage: true });
    // Each language is kept on its own: English too, with English's plural.
    await page.goto(`${arabic.publicUrl}?lang=en`);
    await page.locator('button[type="submit"]:enabled').waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    await outboxSays(page, '2 answers waiting to be sent.');
    await page.goto(arabic.publicUrl);
    await page.locator('button[type="submit"]:enabled').waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('ar');
    await context.setOffline(false);
    await outboxSays(page, 'أُرسلت جميع الإجابات.');
    const rows = await stored(arabic.id);
    expect(rows.map((row) => row.answers.age).sort()).toEqual([25, 30, 40, 7].sort());
  });

  it('shows a group, a repeat, relevance, a constraint and a calculation, and sends only what is asked', async () => {
    const modelForm = await form({
      title: 'Household roster',
      fields: [
        {
          type: 'select',
          key: 'consent',
          label: 'Consent',
          required: true,
          choices: [
            { name: 'yes', label: 'I agree' },
            { name: 'no', label: 'I do not agree' },
          ],
        },
        { type: 'text', key: 'reason', label: 'Why not?', relevant: "${consent} = 'no'" },
        {
          type: 'group',
          key: 'household',
          label: 'Household',
          relevant: "${consent} = 'yes'",
          fields: [
            { type: 'note', key: 'intro', label: 'Tell us about the household.' },
            { type: 'text', key: 'village', label: 'Village', hint: 'As people call it' },
            {
              type: 'number',
              key: 'size',
              label: 'Size',
              integer: true,
              constraint: '. > 0 and . < 40',
              constraintMessage: 'Between 1 and 39',
            },
          ],
        },
        {
          type: 'repeat',
          key: 'members',
          label: 'Members',
          relevant: "${consent} = 'yes'",
          minCount: 1,
          maxCount: 3,
          fields: [
            { type: 'text', key: 'member_name', label: 'Name', required: true },
            { type: 'number', key: 'member_age', label: 'Age' },
          ],
        },
        { type: 'calculate', key: 'people', label: 'People listed', calculation: 'count(${members})' },
      ],
    });
    const context = await suite.newContext({ viewport: { width: 400, height: 900 } });
    const page = await suite.newPage(context);
    const sent: unknown[] = [];
    await page.route('**/submit', async (route) => {
      sent.push(route.request().postDataJSON());
      // The first: a refusal naming a field of the second entry, as the service names it.
      if (sent.length === 1)
        await route.fulfill({
          status: 400,
          json: {
            statusCode: 400,
            error: 'Bad Request',
            message: ['answers.members.1.member_name: Give the full name'],
          },
        });
      else await route.continue();
    });
    await page.goto(modelForm.publicUrl);
    await page.locator('button[type="submit"]:enabled').waitFor();

    const field = (key: string) => page.locator(`.field[data-key="${key}"]`).first();
    const entries = page.locator('.field[data-key="members"] [data-entry]');
    expect(await field('household').isVisible()).toBe(false);
    expect(await field('reason').isVisible()).toBe(false);
    expect(await entries.count()).toBe(1);

    await page.selectOption('#f-consent', 'no');
    expect(await field('reason').isVisible()).toBe(true);
    await page.fill('#f-reason', 'typed, then hidden');
    await page.selectOption('#f-consent', 'yes');
    expect(await field('reason').isVisible()).toBe(false);
    expect(await field('household').isVisible()).toBe(true);
    expect(await page.locator('.field[data-key="intro"] .note-text').innerText()).toBe(
      'Tell us about the household.',
    );
    expect(await page.locator('#f-village-hint').innerText()).toBe('As people call it');

    // The constraint's message as soon as the answer changes.
    await page.fill('#f-village', 'Kisumu');
    await page.fill('#f-size', '50');
    await page.locator('#f-size').blur();
    expect(await page.locator('#f-size-error').innerText()).toBe('Size: Between 1 and 39');
    await page.fill('#f-size', '4');
    await page.locator('#f-size').blur();
    expect(await page.locator('#f-size-error').innerText()).toBe('');

    // Entries: one at first (minCount), up to three (maxCount), one removed.
    const add = page.locator('.field[data-key="members"] [data-add]');
    await add.click();
    await add.click();
    expect(await entries.count()).toBe(3);
    expect(await add.isVisible()).toBe(false);
    expect(await page.locator('.field[data-key="people"] output').innerText()).toBe('3');
    await entries.nth(1).locator('[data-remove]').click();
    expect(await entries.count()).toBe(2);
    expect(await add.isVisible()).toBe(true);
    expect(await entries.nth(1).locator('[data-entry-heading]').innerText()).toBe('Entry 2');
    expect(await page.locator('.field[data-key="people"] output').innerText()).toBe('2');

    // Required inside an entry, found by the entry's own field.
    await entries.nth(0).locator('[data-key="member_name"] input').fill('Amina');
    await entries.nth(0).locator('[data-key="member_age"] input').fill('٣٤');
    // The draft keeps the entries: reopened, the page has them back.
    await expect
      .poll(() =>
        page.evaluate(
          async (token) =>
            (
              await (
                window as unknown as {
                  melAnswerStore: { draftOf(form: string): Promise<{ state: { members?: unknown[] } }> };
                }
              ).melAnswerStore.draftOf(token)
            ).state.members?.length,
          modelForm.publicToken,
        ),
      )
      .toBe(2);
    await page.reload();
    await page.locator('button[type="submit"]:enabled').waitFor();
    expect(await entries.count()).toBe(2);
    expect(await entries.nth(0).locator('[data-key="member_name"] input').inputValue()).toBe('Amina');
    expect(await entries.nth(0).locator('[data-key="member_age"] input').inputValue()).toBe('٣٤');
    expect(await page.inputValue('#f-size')).toBe('4');
    expect(await field('household').isVisible()).toBe(true);
    await page.click('button[type="submit"]');
    await page.locator('[data-summary]').waitFor();
    expect(await entries.nth(1).locator('[data-key="member_name"] [data-error]').innerText()).toBe(
      'Name is required',
    );
    expect(sent).toEqual([]);
    await entries.nth(1).locator('[data-key="member_name"] input').fill('Chidi');
    await page.screenshot({ path: artifact('form-roster.png'), fullPage: true });
    await page.click('button[type="submit"]');
    // The service's message beside the field of the entry it names, the answers put back.
    const secondName = entries.nth(1).locator('[data-key="member_name"]');
    await secondName.locator('[data-error]', { hasText: 'Name: Give the full name' }).waitFor();
    expect(await secondName.locator('input').inputValue()).toBe('Chidi');
    expect(await entries.count()).toBe(2);
    await secondName.locator('input').fill('Chidi Okafor');
    await page.click('button[type="submit"]');
    await page.locator('[data-thanks] h1', { hasText: 'Thank you' }).waitFor();

    const expected = {
      consent: 'yes',
      village: 'Kisumu',
      size: 4,
      members: [{ member_name: 'Amina', member_age: 34 }, { member_name: 'Chidi Okafor' }],
    };
    // Neither the hidden answer nor the calculation is sent: the service computes and stores it.
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual({ answers: expected });
    const [row] = await stored(modelForm.id);
    expect(row!.answers).toEqual({ ...expected, people: 2 });
  });
});
