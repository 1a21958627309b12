import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { browserSuite, hasChromium } from '../helpers/browser.js';
import { multipart } from '../helpers/files.js';
import { formTargets, formUrl, reportOfTargets, submissionsUrl } from '../helpers/forms.js';
import { call } from '../helpers/http.js';
import { reportUrl } from '../helpers/indicators.js';

type Cell = string | number | null;

/** A workbook as a field team writes it: a sheet per entry, the header row first. */
async function workbook(sheets: Record<string, Cell[][]>): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const sheet = book.addWorksheet(name);
    for (const row of rows) sheet.addRow(row);
  }
  return Buffer.from(await book.xlsx.writeBuffer());
}

const HEADER = [
  'type',
  'name',
  'label::English (en)',
  'label::العربية (ar)',
  'hint::English (en)',
  'hint::العربية (ar)',
  'required',
  'relevant',
  'constraint',
  'constraint_message::English (en)',
  'constraint_message::العربية (ar)',
  'calculation',
  'appearance',
  'min_count',
  'max_count',
];

/** One row of the survey sheet, its columns named. */
const row = (type: string, name: string | null, cells: Partial<Record<string, Cell>> = {}): Cell[] =>
  HEADER.map((column) => (column === 'type' ? type : column === 'name' ? name : (cells[column] ?? null)));

const en = (label: string, ar: string) => ({ 'label::English (en)': label, 'label::العربية (ar)': ar });

/** Every supported type, two languages, a group and a repeat: a household survey. */
const SURVEY: Record<string, Cell[][]> = {
  survey: [
    HEADER,
    row('note', 'welcome', en('Thank you for your time', 'شكرًا على وقتك')),
    row('begin_group', 'household', en('Household', 'الأسرة')),
    row('text', 'respondent', {
      ...en('Name of the respondent', 'اسم المجيب'),
      'hint::English (en)': 'As on the ID card',
      'hint::العربية (ar)': 'كما في بطاقة الهوية',
      required: 'yes',
    }),
    row('integer', 'household_size', {
      ...en('People in the household', 'عدد أفراد الأسرة'),
      required: 'yes',
      constraint: '. > 0 and . < 40',
      'constraint_message::English (en)': 'Between 1 and 39',
      'constraint_message::العربية (ar)': 'بين ١ و٣٩',
    }),
    row('end_group', null),
    row('text', 'comments', { ...en('Comments', 'ملاحظات'), appearance: 'multiline' }),
    row('decimal', 'income', en('Monthly income', 'الدخل الشهري')),
    row('select_one water', 'source', { ...en('Main water source', 'مصدر المياه الرئيسي'), required: 'yes' }),
    row('select_multiple water', 'other_sources', {
      ...en('Other sources', 'مصادر أخرى'),
      relevant: "${source} != 'river'",
    }),
    row('date', 'visit_date', en('Date of the visit', 'تاريخ الزيارة')),
    row('geopoint', 'position', en('Position of the house', 'موقع المنزل')),
    row('image', 'photo', en('Photo of the water point', 'صورة نقطة المياه')),
    row('file', 'document', en('Any document', 'أي مستند')),
    row('begin_repeat', 'members', { ...en('Members', 'أفراد الأسرة'), min_count: 0, max_count: 30 }),
    row('text', 'member_name', en('Name', 'الاسم')),
    row('integer', 'member_age', en('Age', 'العمر')),
    row('end_repeat', null),
    row('calculate', 'listed', { calculation: 'count(${members})' }),
  ],
  choices: [
    ['list_name', 'name', 'label::English (en)', 'label::العربية (ar)'],
    ['water', 'borehole', 'Borehole', 'بئر ارتوازي'],
    ['water', 'river', 'River', 'نهر'],
  ],
  settings: [
    ['form_title', 'form_title::العربية (ar)', 'default_language'],
    ['Household survey', 'مسح الأسر', 'English (en)'],
  ],
};

/** The form as GET shows it, without what differs between two forms made from the same sheet. */
function comparable(form: Record<string, unknown>) {
  const { title, description, fields, defaultLanguage, translations } = form;
  return { title, description, fields, defaultLanguage, translations };
}

/**
 * Issue 41 end to end: an XLSForm with every supported type, two languages and a repeat is imported,
 * answered in Arabic through the public page in Chromium, counted into an indicator, exported, and the
 * export imports back as the same form.
 */
describe.skipIf(!hasChromium)('an XLSForm from import to a counted answer and back, in Chromium', () => {
  const suite = browserSuite(buildTestApp);

  const upload = (projectId: string, bytes: Buffer, query = '') =>
    call(suite.t.app, 'POST', `/orgs/${suite.team.org.id}/forms/import?projectId=${projectId}${query}`, {
      as: suite.team.officer,
      ...multipart([
        {
          name: 'file',
          value: bytes,
          fileName: 'household.xlsx',
          contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        },
      ]),
    });

  it('imports, is answered in Arabic, counts, exports and imports back equal', async () => {
    const { app } = suite.t;
    const { org, admin, officer } = suite.team;
    const targets = await formTargets(app, suite.t.database.db, admin, org.id);

    const imported = await upload(targets.project.id, await workbook(SURVEY));
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    expect(imported.body).toMatchObject({
      isPublished: false,
      defaultLanguage: 'en',
      title: 'Household survey',
    });
    expect(Object.keys(imported.body.translations)).toEqual(['ar']);
    const formId = imported.body.id as string;

    // Counted into the indicator: each answer adds its household size.
    const linked = await call(app, 'PATCH', formUrl(org.id, formId), {
      as: officer,
      body: {
        indicatorId: targets.indicator.id,
        reportingPeriodId: targets.period.id,
        valueFieldKey: 'household_size',
      },
    });
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    const published = await call(app, 'POST', formUrl(org.id, formId, 'publish'), { as: officer });
    expect(published.status).toBe(200);

    const context = await suite.newContext({ locale: 'ar' });
    const page = await suite.newPage(context);
    expect((await page.goto(published.body.publicUrl as string))?.status()).toBe(200);
    await page.locator('button[type="submit"]:enabled').waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('ar');
    expect(await page.getAttribute('html', 'dir')).toBe('rtl');
    expect(await page.locator('label[for="f-respondent"]').innerText()).toContain('اسم المجيب');

    await page.fill('#f-respondent', 'أمينة');
    await page.fill('#f-household_size', '٤');
    await page.selectOption('#f-source', 'borehole');
    await page.click('[data-key="members"] [data-add]');
    const entry = page.locator('[data-key="members"] [data-entry]').first();
    await entry.locator('[data-key="member_name"] input').fill('سارة');
    await entry.locator('[data-key="member_age"] input').fill('٣');
    await page.click('button[type="submit"]');
    await page.locator('[data-thanks]:visible').waitFor();

    const stored = await call(app, 'GET', submissionsUrl(org.id, formId), { as: admin });
    expect(stored.status).toBe(200);
    expect(stored.body).toHaveLength(1);
    expect(stored.body[0]).toMatchObject({
      counted: true,
      answers: {
        respondent: 'أمينة',
        household_size: 4,
        source: 'borehole',
        members: [{ member_name: 'سارة', member_age: 3 }],
        listed: 1,
      },
    });
    const reportId = await reportOfTargets(app, admin, org.id, targets);
    const report = await call(app, 'GET', reportUrl(org.id, reportId), { as: admin });
    expect(report.body.value).toBe(4);

    // Out as an XLSForm, and in again: the same form.
    const exported = await call(app, 'GET', formUrl(org.id, formId, 'xlsform'), { as: admin });
    expect(exported.status).toBe(200);
    expect(exported.headers['content-type']).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    const again = await upload(targets.project.id, exported.response.rawPayload);
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    const original = await call(app, 'GET', formUrl(org.id, formId), { as: admin });
    expect(comparable(again.body)).toEqual(comparable(original.body));
  });
});
