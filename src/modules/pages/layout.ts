import type { Assets } from './assets.js';
import { html, type Html } from './html.js';

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
}

/** A whole document: one stylesheet, deferred scripts, readable without either. */
export function layout(assets: Assets, { title, main, scripts = [], signedInAs }: PageContent): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <title>${title}</title>
        <link rel="stylesheet" href="${assets.url('pages.css')}" />
        ${scripts.map((file) => html`<script src="${assets.url(file)}" defer></script> `)}
      </head>
      <body>
        ${
          signedInAs
            ? html`<header class="account-bar">
              <p>Signed in as <strong>${signedInAs}</strong> · <a href="/settings">Your settings</a></p>
            </header>`
            : null
        }
        <main id="main">${main}</main>
      </body>
    </html> `.text;
}

// Made at the first page: the first Intl formatter loads ICU's locale data (about 7 MB resident).
let momentFormat: Intl.DateTimeFormat | undefined;
const moments = {
  format: (date: Date) =>
    (momentFormat ??= new Intl.DateTimeFormat('en-GB', {
      dateStyle: 'long',
      timeStyle: 'short',
      timeZone: 'UTC',
    })).format(date),
};

/** A point in time as people read it, with the exact value for machines. */
export const moment = (value: Date | string) => {
  const date = new Date(value);
  return html`<time datetime="${date.toISOString()}">${moments.format(date)} UTC</time>`;
};

/** A page that only says why there is nothing to show (missing, closed, expired). */
export const notice = (heading: string, ...paragraphs: string[]) =>
  html`<section class="notice">
    <h1>${heading}</h1>
    ${paragraphs.map((text) => html`<p>${text}</p> `)}
  </section>`;
