import { formatDate, formatNumber, translator, type Locale, type Translate } from '../../lib/i18n/i18n.js';
import type { reportView } from '../reports/index.js';
import { html, type Html } from './html.js';

export type SharedReport = ReturnType<typeof reportView>;
export type IndicatorEntry = SharedReport['sections']['indicators'][number];

/**
 * What the shared report's parts share: the strings of the `report` namespace in the page's language,
 * and its numbers and dates as that language writes them.
 */
export interface Speech {
  locale: Locale;
  t: Translate;
  /** A number, `—` for none. */
  number: (value: number | null) => string;
  /** A day (`2026-04-03` or a Date): `3 Apr 2026`, `3 avr. 2026`. */
  day: (value: string | Date) => string;
  range: (start: string, end: string) => Html;
  percent: (value: number) => string;
}

export function speech(locale: Locale): Speech {
  const t = translator(locale, 'report');
  const number = (value: number | null) => (value === null ? '—' : formatNumber(locale, value));
  const day = (value: string | Date) =>
    formatDate(locale, typeof value === 'string' ? new Date(`${value}T00:00:00Z`) : value, {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      timeZone: 'UTC',
    });
  return {
    locale,
    t,
    number,
    day,
    range: (start, end) => html`${day(start)} – ${day(end)}`,
    percent: (value) => t('percent', { value: formatNumber(locale, value) }),
  };
}

/** An enum's value in words: the catalogue's, else the value humanized (a value added since). */
export function named(t: Translate, prefix: string, value: string): string {
  const key = `${prefix}.${value}`;
  const text = t(key);
  return text === key ? value.charAt(0).toUpperCase() + value.slice(1).replaceAll('_', ' ') : text;
}
