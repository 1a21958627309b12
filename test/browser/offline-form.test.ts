import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { artifact, browserSuite, hasChromium } from '../helpers/browser.js';
import { createProject } from '../helpers/factories.js';
import { PNG } from '../helpers/files.js';
import {
  formTargets,
  formUrl,
  publishedForm,
  submissionsUrl,
  SURVEY_FIELDS,
  type FormJson,
} from '../helpers/forms.js';
import { call } from '../helpers/http.js';
import { reportsUrl, type ReportJson } from '../helpers/indicators.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** An answer kept in the browser's IndexedDB, as answer-store.js keeps it (the parts the tests read). */
interface KeptAnswer {
  key: string;
  savedAt: number;
  state: 'waiting' | 'refused' | 'closed';
  messages: string[];
}

/** answer-store.js as the page exposes it, for the tests to read and write IndexedDB through. */
interface AnswerStore {
  answersOf(form: string): Promise<(KeptAnswer & { form: string })[]>;
  putAnswer(answer: Record<string, unknown>): Promise<unknown>;
  draftOf(form: string): Promise<{ savedAt: number } | undefined>;
  putDraft(draft: Record<string, unknown>): Promise<unknown>;
}
const DAY = 24 * 60 * 60 * 1000;

/**
 * The form page without a connection (issue 23), in headless Chromium against the real server on a
 * port: the service worker keeps the page, IndexedDB keeps the answers and drafts, each answer carries
 * its own Idempotency-Key, and the server counts a retried answer once.
 */
describe.skipIf(!hasChromium)('the form page offline, in Chromium', () => {
  const suite = browserSuite(buildTestApp);

  /** A fresh browser profile on the form, once the service worker has kept it for offline use. */
  async function openForm(form: FormJson) {
    const context = await suite.newContext({ viewport: { width: 400, height: 800 } });
    const page = await suite.newPage(context);
    expect((await page.goto(form.publicUrl))?.status()).toBe(200);
    await page.locator('[data-offline-ready]').waitFor();
    return { context, page };
  }

  /** A published survey counting 1 per submission into its indicator's report for the period. */
  async function countingForm(fields: Record<string, unknown>[] = SURVEY_FIELDS) {
    const targets = await formTargets(
      suite.t.app,
      suite.t.database.db,
      suite.team.officer,
      suite.team.org.id,
    );
    const form = await publishedForm(suite.t.app, suite.team.officer, suite.team.org.id, {
      projectId: targets.project.id,
      indicatorId: targets.indicator.id,
      reportingPeriodId: targets.period.id,
      fields,
    });
    return { targets, form };
  }

  async function reportValue(targets: Awaited<ReturnType<typeof formTargets>>) {
    const query = `?indicatorId=${targets.indicator.id}&periodId=${targets.period.id}`;
    const res = await call(
      suite.t.app,
      'GET',
      `${reportsUrl(suite.team.org.id, targets.project.id)}${query}`,
      {
        as: suite.team.admin,
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.length).toBeLessThanOrEqual(1);
    return (res.body[0] as ReportJson | undefined)?.value;
  }

  async function stored(form: FormJson) {
    const res = await call(suite.t.app, 'GET', submissionsUrl(suite.team.org.id, form.id), {
      as: suite.team.admin,
    });
    expect(res.status).toBe(200);
    return res.body as { id: string; answers: Record<string, unknown> }[];
  }

  /** The Idempotency-Key of every submission the context's pages sent, in the order sent. */
  function watchSubmissions(context: BrowserContext): string[] {
    const keys: string[] = [];
    context.on('request', (request) => {
      if (request.url().endsWith('/submit')) keys.push(request.headers()['idempotency-key'] ?? '(none)');
    });
    return keys;
  }

  const keptAnswers = (page: Page, form: FormJson) =>
    page.evaluate(
      async (token) =>
        (
          await (
            window as unknown as { melAnswerStore: { answersOf(form: string): Promise<KeptAnswer[]> } }
          ).melAnswerStore.answersOf(token)
        )
          .sort((a, b) => a.savedAt - b.savedAt)
          .map(({ key, state, messages }) => ({ key, state, messages })),
      form.publicToken,
    );

  const outboxSays = (page: Page, text: string) =>
    page.locator('[data-outbox-count]', { hasText: text }).waitFor();

  async function answerSurvey(page: Page, name: string) {
    await page.fill('#f-name', name);
    await page.fill('#f-household_size', '4');
    await page.selectOption('#f-source', 'well');
    await page.click('button[type="submit"]');
  }

  /** Sends one answer without a connection: the page says it is kept, then offers a fresh form. */
  async function answerOffline(page: Page, name: string) {
    await answerSurvey(page, name);
    await page.locator('[data-saved] h1', { hasText: 'Saved on this device' }).waitFor();
    await page.click('[data-saved] [data-another]');
    expect(await page.inputValue('#f-name')).toBe('');
  }

  it('keeps answers given offline, still opens offline, and sends each once when the connection returns', async () => {
    const { targets, form } = await countingForm();
    const { context, page } = await openForm(form);
    const worker = await page.request.get(`${suite.base}/f/form-worker.js`);
    expect(worker.status()).toBe(200);
    expect(worker.headers()['content-type']).toBe('text/javascript; charset=utf-8');
    expect(worker.headers()['cache-control']).toBe('no-cache');
    expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.scope)).toBe(
      `${suite.base}/f/`,
    );
    const sent = watchSubmissions(context);

    await context.setOffline(true);
    for (const name of ['Amina', 'Bello', 'Chidi']) await answerOffline(page, name);
    await outboxSays(page, '3 answers waiting to be sent. They will be sent when the connection returns.');
    // Nothing is tried without a connection; each answer has its own key, kept before any attempt.
    expect(sent).toEqual([]);
    const kept = await keptAnswers(page, form);
    expect(kept.map((answer) => answer.state)).toEqual(['waiting', 'waiting', 'waiting']);
    expect(new Set(kept.map((answer) => answer.key)).size).toBe(3);
    for (const { key } of kept) expect(key).toMatch(UUID);

    // Reloaded without a connection: the page comes from the service worker, the answers from IndexedDB.
    const reloaded = await page.reload();
    expect(reloaded?.status()).toBe(200);
    expect(reloaded?.fromServiceWorker()).toBe(true);
    expect(await page.locator('form h1').innerText()).toBe(form.title);
    await outboxSays(page, '3 answers waiting to be sent.');
    await page.locator('button[type="submit"]:enabled').waitFor();
    // A second tab of the same form, also opened offline: both will try when the connection returns.
    const second = await suite.newPage(context);
    expect((await second.goto(form.publicUrl))?.fromServiceWorker()).toBe(true);
    await outboxSays(second, '3 answers waiting to be sent.');
    await page.screenshot({ path: artifact('offline-form-waiting.png'), fullPage: true });

    await context.setOffline(false);
    await outboxSays(page, 'All answers were sent.');
    await outboxSays(second, 'All answers were sent.');
    // The tabs took turns: each answer was sent once, in the order given, under its own key.
    expect(sent).toEqual(kept.map((answer) => answer.key));
    const rows = await stored(form);
    expect(rows.map((row) => row.answers.name).sort()).toEqual(['Amina', 'Bello', 'Chidi']);
    expect(rows[0]!.answers).toMatchObject({ household_size: 4, source: 'well' });
    expect(await reportValue(targets)).toBe(3);
    expect(await keptAnswers(page, form)).toEqual([]);
    expect(await page.locator('[data-send-now]').isVisible()).toBe(false);
  });

  it('counts an answer once through a retry storm after a flaky reconnect', async () => {
    const { targets, form } = await countingForm();
    const { context, page } = await openForm(form);
    await context.setOffline(true);
    await answerOffline(page, 'Dayo');
    const [kept] = await keptAnswers(page, form);

    // The server stores the answer, but its reply is lost on the way back, three times over.
    const replies: { key: string | undefined; status: number; replayed: string | undefined }[] = [];
    await context.route('**/forms/public/*/submit', async (route) => {
      const response = await route.fetch();
      replies.push({
        key: route.request().headers()['idempotency-key'],
        status: response.status(),
        replayed: response.headers()['idempotent-replayed'],
      });
      if (replies.length <= 3) return route.abort('connectionreset');
      return route.fulfill({ response });
    });
    await context.setOffline(false);
    // Send now pressed after every failure, on top of the page's own retries (on `online`, then backing off).
    for (const failures of [1, 2, 3]) {
      await expect.poll(() => replies.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(failures);
      await page.click('[data-send-now]');
    }
    await outboxSays(page, 'All answers were sent.');

    expect(replies.map((reply) => reply.key)).toEqual([kept!.key, kept!.key, kept!.key, kept!.key]);
    expect(replies.map((reply) => reply.status)).toEqual([201, 201, 201, 201]);
    expect(replies.map((reply) => reply.replayed)).toEqual([undefined, 'true', 'true', 'true']);
    const rows = await stored(form);
    expect(rows.map((row) => row.answers.name)).toEqual(['Dayo']);
    expect(await reportValue(targets)).toBe(1);
    expect(await keptAnswers(page, form)).toEqual([]);
  });

  it('shows a 400 beside the kept answer, which is corrected and sent again under a new key', async () => {
    const project = await createProject(suite.t.database.db, suite.team.org.id, 'Offline photos');
    const form = await publishedForm(suite.t.app, suite.team.admin, suite.team.org.id, {
      projectId: project.id,
      fields: [
        { type: 'text', label: 'Name', key: 'name', required: true },
        { type: 'file', label: 'Photo of the pump', key: 'photo', required: true },
      ],
    });
    const { context, page } = await openForm(form);
    const sent = watchSubmissions(context);
    await context.setOffline(true);
    // The files are kept in IndexedDB with the answers: one the server will refuse by its content.
    for (const [name, photo] of [
      ['Efe', Buffer.from('not an image')],
      ['Femi', PNG],
    ] as const) {
      await page.fill('#f-name', name);
      await page.setInputFiles('#f-photo', { name: `${name}.png`, mimeType: 'image/png', buffer: photo });
      await page.click('button[type="submit"]');
      await page.locator('[data-saved]').waitFor();
      await page.click('[data-saved] [data-another]');
    }
    await outboxSays(page, '2 answers waiting to be sent.');
    const [refusedKey] = (await keptAnswers(page, form)).map((answer) => answer.key);

    await context.setOffline(false);
    await outboxSays(page, '1 answer refused: correct it below.');
    const refused = page.locator('[data-refused] li[data-answer-key]');
    expect(await refused.count()).toBe(1);
    expect(await refused.getAttribute('data-answer-key')).toBe(refusedKey);
    expect(await refused.locator('p').innerText()).toContain('Name: Efe');
    expect(await refused.locator('ul.error li').innerText()).toMatch(
      /^Photo of the pump must be a PDF, JPEG, PNG/,
    );
    // The refusal can be shown while the other answer's upload is still on its way.
    await expect.poll(async () => (await stored(form)).map((row) => row.answers.name)).toEqual(['Femi']);
    const rows = await stored(form);
    expect(rows[0]!.answers.photo).toMatchObject({ fileName: 'Femi.png', size: PNG.length });

    // Still there at the next visit, then put back in the form with the message beside its field.
    await page.reload();
    await outboxSays(page, '1 answer refused');
    await page.screenshot({ path: artifact('offline-form-refused.png'), fullPage: true });
    await page.click('[data-refused] [data-correct]');
    await page.locator('.field.invalid[data-key="photo"]').waitFor();
    expect(await page.inputValue('#f-name')).toBe('Efe');
    expect(await page.locator('#f-photo').evaluate((input: HTMLInputElement) => input.files?.[0]?.name)).toBe(
      'Efe.png',
    );
    expect(await page.locator('.field[data-key="photo"] [data-error]').innerText()).toMatch(
      /^Photo of the pump must be a PDF, JPEG, PNG/,
    );
    expect(await page.locator('[data-refused-answers]').isVisible()).toBe(false);
    expect(await keptAnswers(page, form)).toEqual([]);

    await page.setInputFiles('#f-photo', { name: 'Efe.png', mimeType: 'image/png', buffer: PNG });
    await page.click('button[type="submit"]');
    await page.locator('[data-thanks] h1', { hasText: 'Thank you' }).waitFor();
    // A corrected answer is a new request: a new key, not the refused one's.
    expect(sent).toHaveLength(3);
    expect(sent.slice(0, 1)).toEqual([refusedKey]);
    expect(sent[2]).toMatch(UUID);
    expect(new Set(sent).size).toBe(3);
    expect((await stored(form)).map((row) => row.answers.name).sort()).toEqual(['Efe', 'Femi']);
  });

  it('says the form closed when it turned the kept answers away (410), and keeps them', async () => {
    const { targets, form } = await countingForm();
    const { context, page } = await openForm(form);
    await context.setOffline(true);
    await answerOffline(page, 'Gambo');
    await answerOffline(page, 'Hauwa');
    const closed = await call(suite.t.app, 'PATCH', formUrl(suite.team.org.id, form.id), {
      as: suite.team.officer,
      body: { closesAt: new Date(Date.now() - 60_000).toISOString() },
    });
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);

    await context.setOffline(false);
    await outboxSays(page, '2 answers not sent: This form is no longer accepting responses');
    expect((await keptAnswers(page, form)).map((answer) => answer.state)).toEqual(['closed', 'closed']);
    expect(await page.locator('[data-send-now]').isVisible()).toBe(true);
    // An answer sent now says so in place of the form.
    await answerSurvey(page, 'Ibrahim');
    await page.locator('[data-closed] h1', { hasText: 'This form is closed' }).waitFor();
    expect(await page.locator('form.respondent').isVisible()).toBe(false);
    await outboxSays(page, '3 answers not sent');
    expect(await stored(form)).toEqual([]);
    expect(await reportValue(targets)).toBeUndefined();

    // The next visit shows the server's page for a closed form, and the kept copy of the page is gone.
    const revisit = await page.reload();
    expect(revisit?.status()).toBe(410);
    expect(await page.locator('h1').innerText()).toBe('This form is closed');
    expect(await page.evaluate(async (url) => Boolean(await caches.match(url)), form.publicUrl)).toBe(false);
  });

  it('keeps what is typed, files included, when the tab is closed', async () => {
    const project = await createProject(suite.t.database.db, suite.team.org.id, 'Drafts');
    const form = await publishedForm(suite.t.app, suite.team.admin, suite.team.org.id, {
      projectId: project.id,
      fields: [
        ...SURVEY_FIELDS,
        { type: 'multi_select', label: 'Uses', key: 'uses', options: ['drinking', 'washing'] },
        { type: 'file', label: 'Photo', key: 'photo' },
      ],
    });
    const { context, page } = await openForm(form);
    await page.fill('#f-name', 'Jumoke');
    await page.fill('#f-household_size', '7');
    await page.selectOption('#f-source', 'river');
    await page.fill('#f-river_reason', 'The well is dry');
    await page.check('#f-consent');
    await page.check('.field[data-key="uses"] input[value="washing"]');
    await page.setInputFiles('#f-photo', { name: 'river.png', mimeType: 'image/png', buffer: PNG });
    // Written as typed: the last change is in IndexedDB by the time the tab could be closed.
    await expect
      .poll(() =>
        page.evaluate(async (token) => {
          const store = (
            window as unknown as {
              melAnswerStore: {
                draftOf(form: string): Promise<{ state: Record<string, unknown> } | undefined>;
              };
            }
          ).melAnswerStore;
          return ((await store.draftOf(token))?.state.photo as File | null)?.name;
        }, form.publicToken),
      )
      .toBe('river.png');
    await page.close();

    const again = await suite.newPage(context);
    await again.goto(form.publicUrl);
    await again.locator('button[type="submit"]:enabled').waitFor();
    expect(await again.inputValue('#f-name')).toBe('Jumoke');
    expect(await again.inputValue('#f-household_size')).toBe('7');
    expect(await again.inputValue('#f-source')).toBe('river');
    expect(await again.locator('.field[data-key="river_reason"]').isVisible()).toBe(true);
    expect(await again.inputValue('#f-river_reason')).toBe('The well is dry');
    expect(await again.isChecked('#f-consent')).toBe(true);
    expect(await again.isChecked('.field[data-key="uses"] input[value="washing"]')).toBe(true);
    expect(await again.isChecked('.field[data-key="uses"] input[value="drinking"]')).toBe(false);
    expect(
      await again.locator('#f-photo').evaluate((input: HTMLInputElement) => input.files?.[0]?.name),
    ).toBe('river.png');

    await again.click('button[type="submit"]');
    await again.locator('[data-thanks] h1', { hasText: 'Thank you' }).waitFor();
    const [row] = await stored(form);
    expect(row!.answers).toMatchObject({
      name: 'Jumoke',
      household_size: 7,
      source: 'river',
      river_reason: 'The well is dry',
      consent: true,
      uses: ['washing'],
      photo: { fileName: 'river.png', size: PNG.length },
    });
    // Sent, the draft is gone: the next visit starts blank.
    await again.reload();
    await again.locator('button[type="submit"]:enabled').waitFor();
    expect(await again.inputValue('#f-name')).toBe('');
  });

  it('lists the answers a form turned away once its link changed (404), each to discard after a confirmation', async () => {
    const { form } = await countingForm();
    const { context, page } = await openForm(form);
    await context.setOffline(true);
    await answerOffline(page, 'Kemi');
    await answerOffline(page, 'Lami');
    const [kemi, lami] = await keptAnswers(page, form);
    const regenerated = await call(
      suite.t.app,
      'POST',
      formUrl(suite.team.org.id, form.id, 'regenerate-token'),
      { as: suite.team.admin },
    );
    expect(regenerated.status, JSON.stringify(regenerated.body)).toBe(200);

    await context.setOffline(false);
    const gone = 'This form is no longer available: it was unpublished or its link replaced.';
    await outboxSays(page, `2 answers not sent: ${gone}`);
    expect(await keptAnswers(page, form)).toEqual([
      { key: kemi!.key, state: 'closed', messages: [gone] },
      { key: lami!.key, state: 'closed', messages: [gone] },
    ]);
    const turnedAway = page.locator('[data-closed-answers] li[data-answer-key]');
    expect(await page.locator('#closed-answers-heading').innerText()).toBe('Answers not sent');
    expect(await turnedAway.evaluateAll((items) => items.map((item) => item.dataset.answerKey))).toEqual([
      kemi!.key,
      lami!.key,
    ]);
    expect(await turnedAway.first().locator('p').innerText()).toContain('Name: Kemi');
    expect(await page.locator('[data-kept-for]').innerText()).toBe(
      'Answers not sent within 30 days are deleted from this device.',
    );
    await page.screenshot({ path: artifact('offline-form-turned-away.png'), fullPage: true });

    // Asked first: the answer is the respondent's only copy.
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await turnedAway.first().locator('[data-discard]').click();
    await expect
      .poll(() => asked)
      .toEqual(['Discard this answer? It was never received and cannot be brought back.']);
    expect((await keptAnswers(page, form)).map((answer) => answer.key)).toEqual([kemi!.key, lami!.key]);

    page.on('dialog', (dialog) => void dialog.accept());
    await turnedAway.first().locator('[data-discard]').click();
    await outboxSays(page, `1 answer not sent: ${gone}`);
    expect((await keptAnswers(page, form)).map((answer) => answer.key)).toEqual([lami!.key]);
    expect(await turnedAway.count()).toBe(1);
    await turnedAway.first().locator('[data-discard]').click();
    await page.locator('[data-closed-answers]').waitFor({ state: 'hidden' });
    expect(await keptAnswers(page, form)).toEqual([]);
    // Discarded, not sent: the page does not say they were.
    expect(await page.locator('[data-outbox-count]').innerText()).toBe('');
    expect(await page.locator('[data-kept-for]').isVisible()).toBe(false);
    expect(await page.locator('[data-send-now]').isVisible()).toBe(false);
    expect(await stored(form)).toEqual([]);
  });

  it('deletes the answers and drafts of every form kept more than 30 days, as the page loads', async () => {
    const { form } = await countingForm();
    const { context, page } = await openForm(form);
    const sent = watchSubmissions(context);
    const now = Date.now();
    const answer = (key: string, formToken: string, state: string, savedAt?: number) => ({
      key,
      form: formToken,
      state,
      formState: { name: key },
      answers: { name: key },
      files: [],
      messages: state === 'closed' ? ['This form is no longer accepting responses'] : [],
      ...(savedAt === undefined ? {} : { savedAt }),
    });
    const records = {
      answers: [
        answer('old-waiting', form.publicToken, 'waiting', now - 31 * DAY),
        answer('old-refused', form.publicToken, 'refused', now - 31 * DAY),
        // Another form's, whose page is gone: this page clears it too.
        answer('old-elsewhere', 'gone-link', 'closed', now - 31 * DAY),
        answer('recent-closed', form.publicToken, 'closed', now - 29 * DAY),
        // Kept by a version that did not date its records: dated at the next load, from then on.
        answer('undated-closed', form.publicToken, 'closed'),
      ],
      drafts: [
        { form: form.publicToken, state: { name: 'Old draft' }, savedAt: now - 31 * DAY },
        { form: 'gone-link', state: { name: 'Old draft' }, savedAt: now - 31 * DAY },
      ],
    };
    await page.evaluate(async ({ answers, drafts }) => {
      const store = (window as unknown as { melAnswerStore: AnswerStore }).melAnswerStore;
      for (const kept of answers) await store.putAnswer(kept);
      for (const draft of drafts) await store.putDraft(draft);
    }, records);

    await page.reload();
    await page.locator('button[type="submit"]:enabled').waitFor();
    await outboxSays(page, '2 answers not sent: This form is no longer accepting responses');
    const left = await page.evaluate(async (token) => {
      const store = (window as unknown as { melAnswerStore: AnswerStore }).melAnswerStore;
      return {
        answers: (await store.answersOf(token)).map(({ key, savedAt }) => ({ key, savedAt })),
        elsewhere: await store.answersOf('gone-link'),
        draft: await store.draftOf(token),
        draftElsewhere: await store.draftOf('gone-link'),
      };
    }, form.publicToken);
    expect(left.answers.map((kept) => kept.key).sort()).toEqual(['recent-closed', 'undated-closed']);
    expect(left.answers.find((kept) => kept.key === 'undated-closed')!.savedAt).toBeGreaterThanOrEqual(now);
    expect(left).toMatchObject({ elsewhere: [], draft: undefined, draftElsewhere: undefined });
    expect(await page.inputValue('#f-name')).toBe('');
    expect(await page.locator('[data-refused-answers]').isVisible()).toBe(false);
    expect(await page.locator('[data-kept-for]').innerText()).toBe(
      'Answers not sent within 30 days are deleted from this device.',
    );
    // Deleted before the page sends what waits: the old answer never went.
    expect(sent).toEqual([]);
    expect(await stored(form)).toEqual([]);
  });
});
