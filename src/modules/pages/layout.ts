import {
  directionOf,
  formatDate,
  LOCALE_NAMES,
  LOCALES,
  pickLocale,
  translator,
  type Locale,
  type Translate,
} from '../../lib/i18n/i18n.js';
import type { Assets } from './assets.js';
import { html, Html, jsonBlock } from './html.js';

/**
 * The pages run only our own scripts and styles, talk only to this service, and cannot be framed.
 * Images may come from elsewhere: an organization's logo is a URL of its choosing.
 */
export const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https: http:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface PageContent {
  title: string;
  main: Html;
  /** Script files of ./assets the page needs. */
  scripts?: string[];
  /** Module scripts of ./assets or shared (assets.ts), run before `scripts`, in order. */
  modules?: string[];
  /** The signed-in user's email, on the pages of members: shown above the page with their settings. */
  signedInAs?: string;
  /** The page's language (a BCP 47 tag, one of LOCALES for ours): `<html lang>`; English by default. */
  lang?: string;
  /** Which way the page is written; by default as its language is (directionOf). */
  dir?: 'ltr' | 'rtl';
  /**
   * Strings for the page's scripts (clientMessages), embedded as a JSON data block,
   * `<script type="application/json" id="messages">`: never executed, so the page policy allows it.
   */
  messages?: Record<string, string>;
}

/** A whole document: one stylesheet, deferred scripts, readable without either. */
export function layout(
  assets: Assets,
  {
    title,
    main,
    scripts = [],
    modules = [],
    signedInAs,
    lang = 'en',
    dir = directionOf(lang),
    messages,
  }: PageContent,
): string {
  const t = translator(pickLocale(lang), 'common');
  return html`<!doctype html>
    <html lang="${lang}" dir="${dir}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <title>${title}</title>
        <link rel="stylesheet" href="${assets.url('pages.css')}" />
        ${modules.map((file) => html`<script type="module" src="${assets.url(file)}"></script> `)}
        ${scripts.map((file) => html`<script src="${assets.url(file)}" defer></script> `)}
        ${messages ? jsonBlock('messages', messages) : null}
      </head>
      <body>
        ${
          signedInAs
            ? html`<header class="account-bar">
              <p>
                ${markup(t, 'layout.signedInAs', { email: html`<strong>${signedInAs}</strong>` })} ·
                <a href="/settings">${t('layout.settings')}</a>
              </p>
            </header>`
            : null
        }
        <main id="main">${main}</main>
      </body>
    </html> `.text;
}

/**
 * A translated string with markup in its variables: the text is escaped, the `Html` values are put in
 * as they are (`markup(t, 'layout.signedInAs', { email: html`<strong>${email}</strong>` })`).
 */
export function markup(t: Translate, key: string, vars: Record<string, Html | string | number>): Html {
  const marks: Html[] = [];
  const plain: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(vars)) {
    if (value instanceof Html) {
      plain[name] = `\u0000${marks.length}\u0000`;
      marks.push(value);
    } else plain[name] = value;
  }
  const parts = t(key, plain).split('\u0000');
  // Odd parts are the marks' indexes; even parts are text.
  return html`${parts.map((part, index) => (index % 2 === 1 ? marks[Number(part)] : part))}`;
}

/** A point in time as people read it in `locale`, with the exact value for machines. */
export const moment = (value: Date | string, locale: Locale = 'en') => {
  const date = new Date(value);
  const text = formatDate(locale, date, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });
  return html`<time datetime="${date.toISOString()}">${translator(locale, 'common')('layout.utc', { time: text })}</time>`;
};

/**
 * Links to the same page in other languages, each named in itself, the current one marked: `label`
 * names the list, `hrefOf` gives each one's address.
 */
export function languageLinks(
  label: string,
  current: string,
  languages: readonly { code: string; name: string }[],
  hrefOf: (code: string) => string,
): Html {
  const links = languages.map(({ code, name }) =>
    code.toLowerCase() === current.toLowerCase()
      ? html`<strong lang="${code}" dir="${directionOf(code)}" aria-current="page">${name}</strong>`
      : html`<a href="${hrefOf(code)}" hreflang="${code}" lang="${code}" dir="${directionOf(code)}"
          >${name}</a
        >`,
  );
  return html`<nav class="languages" aria-label="${label}">
    <p>${label}: ${links.map((link, index) => (index === 0 ? link : html` · ${link}`))}</p>
  </nav>`;
}

/** The pages' own languages, for languageLinks. */
export const PAGE_LANGUAGES = LOCALES.map((code) => ({ code, name: LOCALE_NAMES[code] }));

/** A page that only says why there is nothing to show (missing, closed, expired). */
export const notice = (heading: string, ...paragraphs: string[]) =>
  html`<section class="notice">
    <h1>${heading}</h1>
    ${paragraphs.map((text) => html`<p>${text}</p> `)}
  </section>`;
