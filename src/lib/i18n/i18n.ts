import { readdirSync, readFileSync } from 'node:fs';
import { createInstance, type i18n as I18n } from 'i18next';
import Negotiator from 'negotiator';

/**
 * The languages the pages and emails speak (docs/languages.md). English is the fallback of every
 * string and the language when nothing else is known; the order is the order the pages offer them.
 */
export const LOCALES = ['en', 'fr', 'es', 'pt', 'ar'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

export const isLocale = (code: unknown): code is Locale =>
  typeof code === 'string' && (LOCALES as readonly string[]).includes(code);

/** Each language's name in itself, for the links that offer the other languages. */
export const LOCALE_NAMES: Readonly<Record<Locale, string>> = {
  en: 'English',
  fr: 'Français',
  es: 'Español',
  pt: 'Português',
  ar: 'العربية',
};

/** Where the catalogues are: `locales/<locale>/<namespace>.json`, next to this file in src/ and dist/. */
export const CATALOGUE_DIR = new URL('./locales/', import.meta.url);

/** A catalogue: flat keys (dots are part of the name), plural keys with `_one`, `_other`, ... */
export type Catalogue = Record<string, string>;

let catalogues: Record<string, Record<string, Catalogue>> | undefined;

/** Every catalogue, read once: locale → namespace → key → string. */
export function readCatalogues(): Record<string, Record<string, Catalogue>> {
  if (catalogues) return catalogues;
  const read: Record<string, Record<string, Catalogue>> = {};
  for (const locale of LOCALES) {
    const dir = new URL(`${locale}/`, CATALOGUE_DIR);
    read[locale] = {};
    for (const file of readdirSync(dir)) {
      if (!file.endsWith('.json')) continue;
      read[locale][file.slice(0, -'.json'.length)] = JSON.parse(
        readFileSync(new URL(file, dir), 'utf8'),
      ) as Catalogue;
    }
  }
  return (catalogues = read);
}

let instance: I18n | undefined;

/**
 * One i18next instance of our own (never the library's global one), initialised synchronously with
 * every catalogue. Interpolation escapes nothing: every page puts strings through `html` (which
 * escapes whatever is not `Html`) and emails are plain text, so escaping here would escape twice.
 */
function i18n(): I18n {
  if (instance) return instance;
  const all = readCatalogues();
  const created = createInstance();
  void created.init({
    initImmediate: false,
    resources: all,
    supportedLngs: [...LOCALES],
    fallbackLng: DEFAULT_LOCALE,
    ns: Object.keys(all[DEFAULT_LOCALE] ?? {}),
    defaultNS: 'common',
    keySeparator: false,
    nsSeparator: false,
    interpolation: { escapeValue: false },
    returnNull: false,
  } as Parameters<I18n['init']>[0]);
  return (instance = created);
}

/** Values a string may interpolate (`{{name}}`); `count` also picks the plural form. */
export type MessageVars = Record<string, string | number>;
export type Translate = (key: string, vars?: MessageVars) => string;

/** The strings of one namespace in one language, English where a string is missing. */
export function translator(locale: Locale, namespace: string): Translate {
  const t = i18n().getFixedT(locale, namespace);
  return (key, vars) => String(t(key, vars ?? {}));
}

/**
 * The language to speak: the first supported one among the candidates, in the order given, e.g.
 * `pickLocale(query.lang, user.locale, headers['accept-language'])`. Each candidate may be a single
 * tag or a whole Accept-Language header (its tags tried by q, highest first); a tag matches by its
 * primary subtag (`fr-CA` is `fr`). English when none matches.
 */
export function pickLocale(...candidates: Array<string | null | undefined>): Locale {
  return matchLocale(...candidates) ?? DEFAULT_LOCALE;
}

/** As pickLocale, but undefined when no candidate matches (to look further only then). */
export function matchLocale(...candidates: Array<string | null | undefined>): Locale | undefined {
  for (const candidate of candidates) {
    if (!candidate) continue;
    const tags = new Negotiator({ headers: { 'accept-language': candidate } }).languages();
    for (const tag of tags) {
      const primary = tag.split('-')[0]!.toLowerCase();
      if (isLocale(primary)) return primary;
    }
  }
  return undefined;
}

/** Languages written right to left, by primary subtag. */
const RTL_LANGUAGES = new Set(['ar', 'fa', 'prs', 'ps', 'ur', 'he', 'iw', 'yi', 'dv', 'ckb', 'sd', 'ug']);
const RTL_SCRIPTS = new Set(['arab', 'hebr', 'thaa', 'syrc', 'nkoo', 'adlm', 'rohg']);

/** Which way a language is written: `ar`, `ar-EG`, `fa-AF`, `ur-PK` ... are 'rtl'. */
export function directionOf(languageTag: string | null | undefined): 'ltr' | 'rtl' {
  if (!languageTag) return 'ltr';
  const [primary, ...rest] = languageTag.toLowerCase().split(/[-_]/);
  // An explicit script decides (az-Arab is written right to left, sd-Deva left to right).
  const script = rest.find((part) => /^[a-z]{4}$/.test(part));
  if (script) return RTL_SCRIPTS.has(script) ? 'rtl' : 'ltr';
  return RTL_LANGUAGES.has(primary!) ? 'rtl' : 'ltr';
}

const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/;

/** The name of a plural key without its category (`answersWaiting_one` → `answersWaiting`), else undefined. */
export const pluralBase = (key: string) =>
  PLURAL_SUFFIX.test(key) ? key.replace(PLURAL_SUFFIX, '') : undefined;

/**
 * One namespace's strings for the browser scripts of a page, to embed as JSON: every key English has,
 * in `locale` where it has it (English otherwise), with the plural forms `locale` uses
 * (`key_one`, `key_other`, ...); the scripts pick one with `Intl.PluralRules(locale).select(n)`.
 * `prefix`: only the keys that start with it (the strings a page's script uses, `script.`).
 */
export function clientMessages(locale: Locale, namespace: string, prefix = ''): Catalogue {
  const all = readCatalogues();
  const english = Object.fromEntries(
    Object.entries(all[DEFAULT_LOCALE]?.[namespace] ?? {}).filter(([key]) => key.startsWith(prefix)),
  );
  const own = all[locale]?.[namespace] ?? {};
  const categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
  const messages: Catalogue = {};
  const plurals = new Set<string>();
  for (const [key, text] of Object.entries(english)) {
    const base = pluralBase(key);
    if (base === undefined) messages[key] = own[key] ?? text;
    else plurals.add(base);
  }
  for (const base of plurals) {
    for (const category of categories) {
      const key = `${base}_${category}`;
      messages[key] = own[key] ?? english[key] ?? english[`${base}_other`] ?? '';
    }
  }
  return messages;
}

// Formatters cached per locale and options: the first Intl formatter loads ICU's locale data (about
// 7 MB resident), which a process that serves only the API never needs, and each costs to make.
const numberFormats = new Map<string, Intl.NumberFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** The locale Intl formats dates with: British English for English (day before month, as before). */
const intlLocale = (locale: Locale) => (locale === 'en' ? 'en-GB' : locale);

export function formatNumber(
  locale: Locale,
  value: number,
  options: Intl.NumberFormatOptions = { maximumFractionDigits: 2 },
): string {
  const key = `${locale} ${JSON.stringify(options)}`;
  let format = numberFormats.get(key);
  if (!format) numberFormats.set(key, (format = new Intl.NumberFormat(locale, options)));
  return format.format(value);
}

export function formatDate(
  locale: Locale,
  value: Date,
  options: Intl.DateTimeFormatOptions = { dateStyle: 'long', timeZone: 'UTC' },
): string {
  const key = `${locale} ${JSON.stringify(options)}`;
  let format = dateFormats.get(key);
  if (!format) dateFormats.set(key, (format = new Intl.DateTimeFormat(intlLocale(locale), options)));
  return format.format(value);
}
