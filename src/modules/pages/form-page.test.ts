import { describe, expect, it } from 'vitest';
import type { FormField } from '../forms/index.js';
import { Assets } from './assets.js';
import {
  chooseFormLanguage,
  formPage,
  placesOf,
  unavailableFormPage,
  type PublicFormView,
} from './form-page.js';
import { layout } from './layout.js';

const assets = new Assets();
const XSS = '<script>alert("x")</script>';

const render = (view: Partial<PublicFormView> & { fields: FormField[] }) =>
  layout(assets, formPage({ title: 'Survey', description: null, closesAt: null, ...view }, 'tok'));

/** The JSON of a `<script type="application/json" id="…">` block. */
function block(page: string, id: string): Record<string, unknown> {
  const match = new RegExp(`<script type="application/json" id="${id}">([^<]*)</script>`).exec(page);
  expect(match, id).not.toBeNull();
  return JSON.parse(match![1]!) as Record<string, unknown>;
}

const ROSTER: FormField[] = [
  { type: 'note', key: 'intro', label: `Welcome ${XSS}`, hint: 'Read this first' },
  {
    type: 'group',
    key: 'household',
    label: 'Household',
    relevant: "${consent} = 'yes'",
    fields: [
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
    minCount: 1,
    maxCount: 3,
    fields: [
      { type: 'text', key: 'member_name', label: 'Name', required: true },
      {
        type: 'select',
        key: 'sex',
        label: 'Sex',
        choices: [
          { name: 'f', label: 'Female' },
          { name: 'm', label: 'Male' },
        ],
      },
    ],
  },
  { type: 'calculate', key: 'people', label: 'People', calculation: 'count(${members})' },
  { type: 'calculate', key: 'silent', calculation: '1 + 1' },
];

describe('the form page as rendered', () => {
  it('renders notes, groups, repeats as templates, calculations, hints and named choices', () => {
    const page = render({ fields: ROSTER });
    expect(page).not.toContain(XSS);
    expect(page).toContain('<p class="note-text">Welcome &lt;script&gt;');
    expect(page).toMatch(/<fieldset class="field group" data-key="household" data-type="group"/);
    expect(page).toContain('data-relevant="${consent} = &#39;yes&#39;"');
    expect(page).toContain('<p class="hint" id="f-village-hint">As people call it</p>');
    expect(page).toContain('aria-describedby="f-village-hint f-village-error"');
    expect(page).toMatch(/inputmode="numeric" id="f-size"/);
    expect(page).toContain('data-constraint=". &gt; 0 and . &lt; 40"');
    expect(page).toContain('data-constraint-message="Between 1 and 39"');
    expect(page).toContain('data-integer');
    expect(page).toContain('data-min-count="1" data-max-count="3"');
    // The repeat's fields are in its template, built into entries by form.js.
    expect(page).toMatch(/<template data-template>\s*<li class="entry" data-entry>[\s\S]*id="f-member_name"/);
    expect(page).toContain('<option value="f">Female</option>');
    expect(page).toContain('data-calculation="count(${members})"');
    expect(page).toMatch(/data-key="silent"[^>]*data-silent/);
    expect(page).toContain('>Add an entry</button>');
    expect(page).toContain('>Remove this entry</button>');
    // The expression engine runs as a module before form.js.
    expect(page.indexOf('type="module" src="/assets/form-expressions.')).toBeGreaterThan(0);
    expect(page.indexOf('type="module"')).toBeLessThan(page.indexOf('/assets/form.'));
    expect(block(page, 'form-places')).toMatchObject({
      village: { type: 'text', repeats: [] },
      member_name: { type: 'text', repeats: ['members'] },
      members: { type: 'repeat', repeats: [] },
    });
  });

  it('speaks English by default, with the scripts’ strings embedded as data', () => {
    const page = render({ fields: [{ type: 'number', key: 'age', label: 'Age', required: true }] });
    expect(page).toContain('<html lang="en" dir="ltr">');
    expect(page).toContain('<span class="required">(required)</span>');
    expect(page).toMatch(/<button type="submit" disabled data-ready>Send<\/button>/);
    const messages = block(page, 'messages') as { locale: string; outbox: Record<string, string> };
    expect(messages.locale).toBe('en');
    expect(messages.outbox).toMatchObject({
      waiting_one: '{{count}} answer waiting to be sent.',
      waiting_other: '{{count}} answers waiting to be sent.',
    });
    // No switch for a form in one language.
    expect(page).not.toContain('class="languages"');
  });

  it('is right to left in Arabic, with Arabic buttons, every Arabic plural form and a switch', () => {
    const page = render({
      title: 'مسح الأسر',
      language: 'ar',
      languages: [
        { code: 'ar', name: 'العربية' },
        { code: 'en', name: 'English' },
      ],
      fields: [
        { type: 'select', key: 'water', label: 'مصدر المياه', options: ['بئر', 'نهر'], required: true },
        { type: 'boolean', key: 'treated', label: 'معالجة' },
      ],
    });
    expect(page).toContain('<html lang="ar" dir="rtl">');
    expect(page).toContain('<option value="">اختر…</option>');
    expect(page).toContain('<span class="required">(مطلوب)</span>');
    expect(page).toMatch(/data-ready>إرسال<\/button>/);
    expect(page).toMatch(/data-input \/> نعم<\/label/);
    expect(page).toMatch(/<strong lang="ar" dir="rtl" aria-current="page"\s*>العربية<\/strong/);
    expect(page).toMatch(/<a\s+href="\?lang=en"\s+hreflang="en"\s+lang="en"\s+dir="ltr"/);
    const { outbox } = block(page, 'messages') as { outbox: Record<string, string> };
    expect(
      Object.keys(outbox)
        .filter((key) => key.startsWith('waiting_'))
        .sort(),
    ).toEqual(['waiting_few', 'waiting_many', 'waiting_one', 'waiting_other', 'waiting_two', 'waiting_zero']);
    expect(outbox.waiting_two).toBe('إجابتان بانتظار الإرسال.');
  });

  it('shows a form in a language the pages do not speak with its own strings and English buttons', () => {
    const page = render({
      title: 'سروې',
      language: 'ps',
      fields: [{ type: 'text', key: 'name', label: 'نوم' }],
    });
    expect(page).toContain('<html lang="ps" dir="rtl">');
    expect(page).toContain('<label for="f-name">نوم');
    expect(page).toMatch(/data-ready>Send<\/button>/);
  });

  it('escapes what could close the JSON blocks', () => {
    const page = render({ fields: [{ type: 'text', key: 'a', label: 'A' }] });
    expect(page).not.toMatch(/<script type="application\/json"[^>]*>[^<]*<\/script>[^<]*<\/script>/);
    expect(JSON.stringify(placesOf([{ type: 'text', key: 'a', label: '</script>' }]))).not.toContain('<');
  });

  it('says a form is missing or closed in the language asked for', () => {
    const missing = layout(assets, unavailableFormPage(404, 'fr'));
    expect(missing).toContain('<html lang="fr" dir="ltr">');
    expect(missing).toContain('Ce formulaire n’est pas disponible');
    const closed = layout(assets, unavailableFormPage(410, 'ar'));
    expect(closed).toContain('<html lang="ar" dir="rtl">');
    expect(closed).toContain('هذا النموذج مغلق');
  });
});

describe('the form’s language', () => {
  const languages = [
    { code: 'en', name: 'English' },
    { code: 'ar', name: 'العربية' },
    { code: 'pt-BR', name: 'Português (Brasil)' },
  ];
  it('is ?lang=, then Accept-Language by q, by exact tag then primary subtag, else none', () => {
    expect(chooseFormLanguage(languages, 'ar', 'en')).toBe('ar');
    expect(chooseFormLanguage(languages, 'AR-eg', undefined)).toBe('ar');
    expect(chooseFormLanguage(languages, 'PT-br', undefined)).toBe('pt-BR');
    expect(chooseFormLanguage(languages, 'pt-PT', undefined)).toBe('pt-BR');
    expect(chooseFormLanguage(languages, 'de', 'fr;q=0.9, ar-SA;q=0.8, en;q=0.5')).toBe('ar');
    expect(chooseFormLanguage(languages, undefined, 'en;q=0.2, ar;q=0.9')).toBe('ar');
    expect(chooseFormLanguage(languages, undefined, 'de, fr')).toBeUndefined();
    expect(chooseFormLanguage(languages, undefined, '*')).toBeUndefined();
    expect(chooseFormLanguage([], 'ar', 'ar')).toBeUndefined();
  });
});
