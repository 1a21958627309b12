import { describe, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import { formUrl, formsUrl, publicFormUrl } from '../../../test/helpers/forms.js';
import { call } from '../../../test/helpers/http.js';
import { useSuite } from '../../../test/helpers/suite.js';
import { languagesOf, localizeForm, matchLanguage } from './form-languages.js';

const { t, team } = useSuite();

const FIELDS = [
  { type: 'text', key: 'village', label: 'Village', hint: 'Where you live' },
  {
    type: 'group',
    key: 'household',
    label: 'Household',
    fields: [
      { type: 'select', key: 'water', label: 'Water source', options: ['Well', 'River'] },
      { type: 'number', key: 'size', label: 'Size', constraint: '. > 0', constraintMessage: 'At least one' },
    ],
  },
];

const DARI = {
  title: 'سروی آب',
  fields: {
    village: { label: 'قریه' },
    water: { label: 'منبع آب', choices: { Well: 'چاه' } },
    size: { constraintMessage: 'حداقل یک' },
  },
};

async function create(body: Record<string, unknown>) {
  const project = await createProject(t.database.db, team.org.id);
  return call(t.app, 'POST', formsUrl(team.org.id), {
    as: team.officer,
    body: { projectId: project.id, title: 'Water survey', fields: FIELDS, ...body },
  });
}

describe('form languages', () => {
  it('stores defaultLanguage and translations, answering {} and en when none are given', async () => {
    const plain = await create({});
    expect(plain.body).toMatchObject({ defaultLanguage: 'en', translations: {} });
    const dari = await create({ defaultLanguage: 'en', translations: { 'fa-AF': DARI } });
    expect(dari.status).toBe(201);
    expect(dari.body).toMatchObject({ defaultLanguage: 'en', translations: { 'fa-AF': DARI } });
  });

  it('refuses what a schema cannot see, every problem in one 400', async () => {
    const res = await create({
      defaultLanguage: 'ar',
      translations: {
        ar: { title: 'مسح' },
        prs: { fields: { nowhere: { label: 'x' }, water: { choices: { Lake: 'x' } } } },
        'xx-yyyyyyyyy': { title: 'x' },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual([
      "translations.ar is the default language: its strings are the form's own",
      'translations.prs.fields.nowhere is not a field of this form',
      'translations.prs.fields.water.choices.Lake is not a choice of water',
      'translations.xx-yyyyyyyyy is not a BCP 47 language code',
    ]);
    const bad = await create({ defaultLanguage: 'english', translations: { ar: { title: 'line\nbreak' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual([
      'defaultLanguage must be a BCP 47 language code such as en, ar, fa-AF or prs',
      expect.stringMatching(/^translations\.ar\.title must not contain control characters/),
    ]);
  });

  it('refuses an edit that removes a field a translation names, and replaces translations whole', async () => {
    const form = (await create({ translations: { prs: DARI } })).body;
    const url = formUrl(team.org.id, form.id);
    const removed = await call(t.app, 'PATCH', url, { as: team.officer, body: { fields: [FIELDS[1]] } });
    expect([removed.status, removed.body.message]).toEqual([
      400,
      ['translations.prs.fields.village is not a field of this form'],
    ]);
    const both = await call(t.app, 'PATCH', url, {
      as: team.officer,
      body: { fields: [FIELDS[1]], translations: { prs: { title: 'سروی' } } },
    });
    expect(both.status).toBe(200);
    expect(both.body.translations).toEqual({ prs: { title: 'سروی' } });
    const cleared = await call(t.app, 'PATCH', url, { as: team.officer, body: { translations: {} } });
    expect(cleared.body.translations).toEqual({});
  });

  it('answers the public form in the language asked for, string by string', async () => {
    const form = (await create({ description: 'About water', translations: { 'fa-AF': DARI } })).body;
    await call(t.app, 'POST', formUrl(team.org.id, form.id, 'publish'), { as: team.officer });
    const res = await call(t.app, 'GET', `${publicFormUrl(form.publicToken)}?lang=fa-af`);
    expect(res.body).toEqual({
      title: 'سروی آب',
      description: 'About water',
      closesAt: null,
      language: 'fa-AF',
      languages: [
        { code: 'en', name: 'English' },
        { code: 'fa-AF', name: 'دری' },
      ],
      fields: [
        { type: 'text', key: 'village', label: 'قریه', hint: 'Where you live' },
        {
          type: 'group',
          key: 'household',
          label: 'Household',
          fields: [
            {
              type: 'select',
              key: 'water',
              label: 'منبع آب',
              choices: [
                { name: 'Well', label: 'چاه' },
                { name: 'River', label: 'River' },
              ],
            },
            {
              type: 'number',
              key: 'size',
              label: 'Size',
              constraint: '. > 0',
              constraintMessage: 'حداقل یک',
            },
          ],
        },
      ],
    });
  });
});

describe('localizeForm', () => {
  const form = {
    title: 'T',
    description: null,
    fields: [{ type: 'text' as const, key: 'a', label: 'A' }],
    defaultLanguage: 'en',
    translations: { ar: { fields: { a: { label: 'أ' } } }, prs: {} },
  };

  it('matches exactly, then by primary subtag, then the default', () => {
    expect(matchLanguage(form, 'AR')).toBe('ar');
    expect(matchLanguage(form, 'ar-EG')).toBe('ar');
    expect(matchLanguage(form, 'prs-AF')).toBe('prs');
    expect(matchLanguage(form, 'fr')).toBe('en');
    expect(matchLanguage(form, undefined)).toBe('en');
    expect(localizeForm(form, 'ar').fields[0]!.label).toBe('أ');
    expect(languagesOf(form).map((l) => l.code)).toEqual(['en', 'ar', 'prs']);
    expect(languagesOf({ defaultLanguage: 'zz', translations: null })).toEqual([{ code: 'zz', name: 'zz' }]);
  });
});
