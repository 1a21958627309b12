import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.js';

/** The account pages in the reader's language: `?lang=`, then Accept-Language, then English. */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers });

/** The JSON data block a page embeds for its scripts. */
function messagesOf(body: string): Record<string, string> {
  const block = /<script type="application\/json" id="messages">([\s\S]*?)<\/script>/.exec(body);
  if (!block) throw new Error('no messages block');
  return JSON.parse(block[1]!) as Record<string, string>;
}

describe('account pages in other languages', () => {
  it('follow Accept-Language, with the script strings embedded as JSON under the same page policy', async () => {
    const res = await get('/verify-email?token=abc', { 'accept-language': 'fr-CH, en;q=0.5' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<html lang="fr" dir="ltr">');
    expect(res.body).toContain('<title>Confirmez votre adresse e-mail</title>');
    expect(res.body).toContain('Confirmer mon adresse e-mail');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    const messages = messagesOf(res.body);
    expect(messages['script.notSame']).toBe('Les deux mots de passe ne sont pas identiques');
    // Only the scripts' strings, not the whole namespace.
    expect(Object.keys(messages).every((key) => key.startsWith('script.'))).toBe(true);
  });

  it('follow ?lang= before Accept-Language; Arabic right to left; English otherwise', async () => {
    const arabic = await get('/reset-password?lang=ar', { 'accept-language': 'fr' });
    expect(arabic.body).toContain('<html lang="ar" dir="rtl">');
    expect(arabic.body).toContain('هذا الرابط غير مكتمل');
    const english = await get('/reset-password', { 'accept-language': 'de-DE, it;q=0.8' });
    expect(english.body).toContain('<html lang="en" dir="ltr">');
    expect(english.body).toContain('This link is incomplete');
    const unknown = await get('/invitations/not-a-token?lang=es', { accept: 'text/html' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('<html lang="es" dir="ltr">');
    expect(unknown.body).toContain('Esta invitación ya no es válida');
  });

  it('show the sign-in page in the language asked for, ?lang= first', async () => {
    const french = await get('/sign-in', { 'accept-language': 'fr-FR' });
    expect(french.statusCode).toBe(200);
    expect(french.body).toContain('<html lang="fr" dir="ltr">');
    expect(french.body).toMatch(/<h1>Se connecter<\/h1>/);
    const arabic = await get('/sign-in?lang=ar&next=/settings', { 'accept-language': 'fr' });
    expect(arabic.body).toContain('<html lang="ar" dir="rtl">');
  });
});
