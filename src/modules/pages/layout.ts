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
import { html, Html, raw } from './html.js';

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
  { title, main, scripts = [], signedInAs, lang = 'en', dir = directionOf(lang), messages }: PageContent,
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
        ${scripts.map((file) => html`<script src="${assets.url(file)}" defer></script> `)}
        ${
          messages
            ? html`<script type="application/json" id="messages">
                ${raw(JSON.stringify(messages).replaceAll('<', '\\u003c'))}
              </script>`
            : null
        }
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
 * Links to the page in the other languages (`hrefOf(locale)` makes each link), the current one
 * marked; each name is written in its own language and direction.
 */
export function languageLinks(current: Locale, hrefOf: (locale: Locale) => string): Html {
  const t = translator(current, 'common');
  const links = LOCALES.map((locale) =>
    locale === current
      ? html`<strong lang="${locale}" dir="${directionOf(locale)}" aria-current="page">${LOCALE_NAMES[locale]}</strong>`
      : html`<a href="${hrefOf(locale)}" hreflang="${locale}" lang="${locale}" dir="${directionOf(locale)}">${LOCALE_NAMES[locale]}</a>`,
  );
  return html`<nav class="languages" aria-label="${t('layout.languages')}">
    <p>${t('layout.languages')}: ${links.map((link, index) => (index === 0 ? link : html` · ${link}`))}</p>
  </nav>`;
}

/** A page that only says why there is nothing to show (missing, closed, expired). */
export const notice = (heading: string, ...paragraphs: string[]) =>
  html`<section class="notice">
    <h1>${heading}</h1>
    ${paragraphs.map((text) => html`<p>${text}</p> `)}
  </section>`;
