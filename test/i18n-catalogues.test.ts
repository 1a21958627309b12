import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOGUE_DIR, LOCALES, pluralBase } from '../src/lib/i18n/i18n.js';

/**
 * Every catalogue is complete (docs/languages.md, "Adding a language"): each locale has, in every
 * namespace English has, every key English has and no other; each plural key English has in exactly
 * the plural categories the locale uses (`Intl.PluralRules`); and no string interpolates a variable
 * English's string does not have (it would print nothing, or the variable's name).
 */
type Catalogue = Record<string, string>;

const read = (locale: string, namespace: string): Catalogue | undefined => {
  try {
    return JSON.parse(
      readFileSync(new URL(`${locale}/${namespace}.json`, CATALOGUE_DIR), 'utf8'),
    ) as Catalogue;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
};

const namespaces = readdirSync(new URL('en/', CATALOGUE_DIR))
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.slice(0, -'.json'.length));

const variables = (text: string) =>
  new Set([...text.matchAll(/\{\{\s*([^,}\s]+)[^}]*\}\}/g)].map((match) => match[1]!));

/** The keys a locale must have for English's keys, each with the variables it may use. */
function expectedKeys(english: Catalogue, locale: string): Map<string, Set<string>> {
  const categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
  const expected = new Map<string, Set<string>>();
  for (const [key, text] of Object.entries(english)) {
    const base = pluralBase(key);
    if (base === undefined) {
      expected.set(key, variables(text));
      continue;
    }
    // A plural form may use any variable of any of English's forms, and the count.
    const allowed = new Set(['count']);
    for (const [other, otherText] of Object.entries(english))
      if (pluralBase(other) === base) for (const name of variables(otherText)) allowed.add(name);
    for (const category of categories) expected.set(`${base}_${category}`, allowed);
  }
  return expected;
}

/** What is wrong with one catalogue, in words (empty when nothing is). */
function problems(english: Catalogue, catalogue: Catalogue | undefined, locale: string): string[] {
  if (!catalogue) return ['the file is missing'];
  const found: string[] = [];
  const expected = expectedKeys(english, locale);
  for (const key of expected.keys()) if (!(key in catalogue)) found.push(`lacks "${key}"`);
  for (const [key, text] of Object.entries(catalogue)) {
    const allowed = expected.get(key);
    if (!allowed) {
      found.push(`has "${key}", which English does not`);
      continue;
    }
    if (typeof text !== 'string' || text.trim() === '') found.push(`"${key}" is empty`);
    else
      for (const name of variables(text))
        if (!allowed.has(name)) found.push(`"${key}" uses {{${name}}}, which English's string does not`);
  }
  return found;
}

describe('the catalogues', () => {
  it('English has namespaces, and every key of English is a string', () => {
    expect(namespaces).toContain('common');
    for (const namespace of namespaces)
      for (const [key, text] of Object.entries(read('en', namespace)!))
        expect(typeof text, `en/${namespace}.json "${key}"`).toBe('string');
  });

  for (const locale of LOCALES)
    for (const namespace of namespaces)
      it(`${locale}/${namespace}.json has every key English has, no other, in ${locale}'s plural forms`, () => {
        expect(problems(read('en', namespace)!, read(locale, namespace), locale)).toEqual([]);
      });

  it('the check catches a missing key, an extra key, a missing plural form and a stray variable', () => {
    const english = {
      greeting: 'Hello {{name}}',
      waiting_one: '{{count}} answer',
      waiting_other: '{{count}} answers',
    };
    expect(
      problems(
        english,
        { greeting: 'Bonjour {{nom}}', waiting_one: '{{count}} réponse', waiting_other: 'x', extra: 'y' },
        'fr',
      ),
    ).toEqual([
      'lacks "waiting_many"',
      '"greeting" uses {{nom}}, which English\'s string does not',
      'has "extra", which English does not',
    ]);
    expect(problems(english, { waiting_one: 'a', waiting_other: 'b' }, 'en')).toEqual(['lacks "greeting"']);
    expect(problems(english, undefined, 'ar')).toEqual(['the file is missing']);
  });
});
