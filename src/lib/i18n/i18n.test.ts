import { describe, expect, it } from 'vitest';
import {
  clientMessages,
  directionOf,
  formatDate,
  formatNumber,
  isLocale,
  pickLocale,
  translator,
} from './i18n.js';

describe('pickLocale', () => {
  it('takes the first candidate that names a supported language', () => {
    expect(pickLocale('fr', 'es', 'pt')).toBe('fr');
    expect(pickLocale(undefined, null, '', 'es')).toBe('es');
    expect(pickLocale('de', 'xx', 'pt')).toBe('pt');
  });
  it('matches a regional tag by its primary subtag', () => {
    expect(pickLocale('fr-CA')).toBe('fr');
    expect(pickLocale('pt-BR')).toBe('pt');
    expect(pickLocale('AR-eg')).toBe('ar');
  });
  it("tries an Accept-Language header's tags by q, highest first", () => {
    expect(pickLocale('de-DE, es;q=0.5, fr;q=0.8')).toBe('fr');
    expect(pickLocale('de, fr;q=0')).toBe('en');
    expect(pickLocale(undefined, 'it, *;q=0.1', 'ar')).toBe('ar');
  });
  it('is English when nothing matches', () => {
    expect(pickLocale()).toBe('en');
    expect(pickLocale('de', 'zz-ZZ', undefined)).toBe('en');
  });
  it('isLocale knows the supported codes only', () => {
    expect(isLocale('ar')).toBe(true);
    expect(isLocale('fr-CA')).toBe(false);
    expect(isLocale(null)).toBe(false);
  });
});

describe('directionOf', () => {
  it('is right to left for the languages written so, and their regional tags', () => {
    for (const tag of [
      'ar',
      'ar-EG',
      'fa',
      'fa-IR',
      'prs',
      'ps',
      'ur-PK',
      'he',
      'yi',
      'dv',
      'ckb',
      'sd',
      'ug',
      'AR',
    ])
      expect(directionOf(tag), tag).toBe('rtl');
  });
  it('is left to right otherwise, or when the script says so', () => {
    for (const tag of ['en', 'fr-FR', 'es', 'pt-BR', 'sw', 'sd-Deva', '', undefined])
      expect(directionOf(tag), String(tag)).toBe('ltr');
    expect(directionOf('pa-Arab')).toBe('rtl');
  });
});

describe('translator', () => {
  it('picks the plural form by count', () => {
    const t = translator('en', 'common');
    expect(t('answersWaiting', { count: 1 })).toBe('1 answer is waiting to be sent');
    expect(t('answersWaiting', { count: 2 })).toBe('2 answers are waiting to be sent');
    expect(t('answersWaiting', { count: 0 })).toBe('0 answers are waiting to be sent');
  });
  it("uses Arabic's six forms", () => {
    const t = translator('ar', 'common');
    expect(t('answersWaiting', { count: 0 })).toBe('لا توجد إجابات بانتظار الإرسال');
    expect(t('answersWaiting', { count: 1 })).toBe('إجابة واحدة بانتظار الإرسال');
    expect(t('answersWaiting', { count: 2 })).toBe('إجابتان بانتظار الإرسال');
    expect(t('answersWaiting', { count: 3 })).toBe('3 إجابات بانتظار الإرسال');
    expect(t('answersWaiting', { count: 11 })).toBe('11 إجابة بانتظار الإرسال');
    expect(t('answersWaiting', { count: 100 })).toBe('100 إجابة بانتظار الإرسال');
  });
  it("uses French's forms, 'many' for millions", () => {
    const t = translator('fr', 'common');
    expect(t('answersWaiting', { count: 1 })).toBe('1 réponse attend d’être envoyée');
    expect(t('answersWaiting', { count: 2 })).toBe('2 réponses attendent d’être envoyées');
    expect(t('answersWaiting', { count: 1_000_000 })).toBe('1000000 de réponses attendent d’être envoyées');
  });
  it('interpolates without escaping (pages escape; emails are plain text)', () => {
    expect(translator('fr', 'common')('layout.signedInAs', { email: 'a&b@example.org' })).toBe(
      'Connecté en tant que a&b@example.org',
    );
  });
});

describe('clientMessages', () => {
  it("has the namespace's strings with the locale's plural forms", () => {
    const messages = clientMessages('ar', 'common');
    expect(messages['layout.settings']).toBe('إعداداتك');
    for (const category of ['zero', 'one', 'two', 'few', 'many', 'other'])
      expect(messages[`answersWaiting_${category}`]).toBeTruthy();
    expect(
      Object.keys(clientMessages('en', 'common')).filter((key) => key.startsWith('answersWaiting')),
    ).toEqual(['answersWaiting_one', 'answersWaiting_other']);
  });
});

describe('formats', () => {
  it('writes numbers and dates as each language does', () => {
    expect(formatNumber('fr', 1234.5)).toBe('1\u202f234,5');
    expect(formatNumber('en', 1234.5)).toBe('1,234.5');
    expect(formatNumber('es', 12345.5)).toBe('12.345,5');
    expect(formatDate('fr', new Date('2026-03-05T00:00:00Z'))).toBe('5 mars 2026');
    expect(formatDate('en', new Date('2026-03-05T00:00:00Z'))).toBe('5 March 2026');
  });
});
