import { html } from './html.js';

// Made at the first page: the first Intl formatter loads ICU's locale data (about 7 MB resident,
// measured), which a process that serves only the API never needs.
let numberFormat: Intl.NumberFormat | undefined;
let dateFormat: Intl.DateTimeFormat | undefined;
export const numbers = {
  format: (value: number) =>
    (numberFormat ??= new Intl.NumberFormat('en', { maximumFractionDigits: 2 })).format(value),
};
const dates = {
  format: (value: Date) =>
    (dateFormat ??= new Intl.DateTimeFormat('en-GB', {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      timeZone: 'UTC',
    })).format(value),
};

export const number = (value: number | null) => (value === null ? '—' : numbers.format(value));
export const day = (value: string | Date) =>
  dates.format(typeof value === 'string' ? new Date(`${value}T00:00:00Z`) : value);
export const range = (start: string, end: string) => html`${day(start)} – ${day(end)}`;

/** Paragraphs at blank lines, each in its own direction; single line breaks are kept by the stylesheet. */
export const prose = (text: string) =>
  text
    .split(/\n\s*\n/)
    .filter((paragraph) => paragraph.trim() !== '')
    .map((paragraph) => html`<p class="prose" dir="auto">${paragraph.trim()}</p> `);
