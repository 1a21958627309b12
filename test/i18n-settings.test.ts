import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestAppWithMail, type MailTestApp } from './helpers/app.js';
import { createTeam, registerUser, uniqueEmail, type Team } from './helpers/factories.js';
import { call, refusedTo, ADMINS, UNAUTHORIZED } from './helpers/http.js';
import { emailsTo, invite } from './helpers/invitations.js';
import type { ReceivedEmail } from './helpers/smtp.js';

/**
 * Languages (docs-languages.md): a user's `locale` (PATCH /auth/me) and an organization's
 * `defaultLocale` (PATCH /orgs/:orgId), and the emails that follow them through a real SMTP peer.
 */
let t: MailTestApp;
let team: Team;

beforeAll(async () => {
  t = await buildTestAppWithMail();
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

/** The message's subject, its RFC 2047 encoded words decoded. */
function subjectOf(email: ReceivedEmail): string {
  const headers = email.raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  const line = /^Subject: (.*)$/im.exec(headers)?.[1] ?? '';
  // Each encoded word to its bytes (one char per byte), then all of them read as UTF-8 at once: a
  // character may be split between two words.
  return utf8(
    line
      .replace(/\?=\s+=\?/g, '?==?')
      .replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_match, encoding: string, text: string) =>
        encoding.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64').toString('latin1')
          : text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      ),
  );
}

/** Quoted-printable decoded to bytes, read as UTF-8 (the helper's text keeps one char per byte). */
const utf8 = (text: string) => Buffer.from(text, 'latin1').toString('utf8');

describe('PATCH /auth/me { locale }', () => {
  it('is null until chosen, set to a supported code, shown by GET, and cleared with null', async () => {
    const user = await registerUser(t.app);
    expect((await call(t.app, 'GET', '/auth/me', { as: user })).body.locale).toBeNull();

    const set = await call(t.app, 'PATCH', '/auth/me', { as: user, body: { locale: 'fr' } });
    expect(set.status).toBe(200);
    expect(set.body.locale).toBe('fr');
    expect((await call(t.app, 'GET', '/auth/me', { as: user })).body.locale).toBe('fr');

    const cleared = await call(t.app, 'PATCH', '/auth/me', { as: user, body: { locale: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.locale).toBeNull();
    expect((await call(t.app, 'GET', '/auth/me', { as: user })).body.locale).toBeNull();
  });

  it('refuses a language it does not speak (400) and a caller who is not signed in (401)', async () => {
    const user = await registerUser(t.app);
    for (const locale of ['de', 'FR', 'fr-CA', '', 7]) {
      const res = await call(t.app, 'PATCH', '/auth/me', { as: user, body: { locale } });
      expect(res.status, String(locale)).toBe(400);
    }
    expect((await call(t.app, 'GET', '/auth/me', { as: user })).body.locale).toBeNull();
    const anonymous = await call(t.app, 'PATCH', '/auth/me', { body: { locale: 'fr' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(UNAUTHORIZED);
  });
});

describe('PATCH /orgs/:orgId { defaultLocale }', () => {
  it("is English by default; an org_admin sets it; the organization's responses show it", async () => {
    const own = await createTeam(t.app, t.database.db);
    const url = `/orgs/${own.org.id}`;
    expect((await call(t.app, 'GET', url, { as: own.viewer })).body.defaultLocale).toBe('en');
    const set = await call(t.app, 'PATCH', url, { as: own.admin, body: { defaultLocale: 'ar' } });
    expect(set.status).toBe(200);
    expect(set.body.defaultLocale).toBe('ar');
    expect((await call(t.app, 'GET', url, { as: own.viewer })).body.defaultLocale).toBe('ar');
    const mine = await call(t.app, 'GET', '/orgs', { as: own.admin });
    expect(mine.body.find((org: { id: string }) => org.id === own.org.id).defaultLocale).toBe('ar');
  });

  it('refuses an unsupported code or null (400), others than its admins (403), and no session (401)', async () => {
    const url = `/orgs/${team.org.id}`;
    for (const defaultLocale of ['de', 'EN', null, '']) {
      const res = await call(t.app, 'PATCH', url, { as: team.admin, body: { defaultLocale } });
      expect(res.status, String(defaultLocale)).toBe(400);
    }
    for (const member of [team.officer, team.reporter, team.viewer]) {
      const res = await call(t.app, 'PATCH', url, { as: member, body: { defaultLocale: 'fr' } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(refusedTo(team, member, ADMINS));
    }
    // An admin of another organization.
    const other = await call(t.app, 'PATCH', url, { as: team.outsider, body: { defaultLocale: 'fr' } });
    expect(other.status).toBe(403);
    expect(other.body).toEqual(refusedTo(team, team.outsider, ADMINS));
    expect((await call(t.app, 'PATCH', url, { body: { defaultLocale: 'fr' } })).status).toBe(401);
    expect((await call(t.app, 'GET', url, { as: team.admin })).body.defaultLocale).toBe('en');
  });
});

describe('emails in the recipient’s language', () => {
  it('sends the password reset in French to a user whose locale is fr, subject too', async () => {
    const user = await registerUser(t.app, { firstName: 'Chloé' });
    await call(t.app, 'PATCH', '/auth/me', { as: user, body: { locale: 'fr' } });
    const res = await call(t.app, 'POST', '/auth/forgot-password', { body: { email: user.email } });
    expect(res.status).toBe(202);
    const [message] = await emailsTo(t.smtp, user.email, 1, 'reset-password?token=');
    expect(subjectOf(message!)).toBe('Réinitialisez votre mot de passe');
    const text = utf8(message!.text);
    expect(text).toContain('Bonjour Chloé,');
    expect(text).toContain('ouvrez ce lien dans un délai de 60 minutes :');
    expect(text).toContain('Le lien ne fonctionne qu’une fois.');
  });

  it("invites in the organization's default language an address without an account or choice, else in the invitee's own", async () => {
    const own = await createTeam(t.app, t.database.db);
    await call(t.app, 'PATCH', `/orgs/${own.org.id}`, { as: own.admin, body: { defaultLocale: 'es' } });

    const stranger = uniqueEmail('sin-cuenta');
    await invite(t.app, own.admin, own.org.id, stranger, 'me_officer');
    const [spanish] = await emailsTo(t.smtp, stranger, 1, '/invitations/');
    expect(subjectOf(spanish!)).toBe(`Le invitan a unirse a ${own.org.name}`);
    expect(utf8(spanish!.text)).toContain(
      `Ada Admin le invita a unirse a ${own.org.name} como responsable de seguimiento y evaluación.`,
    );

    // A user with an account but no language of their own: the organization's default too.
    const undecided = await registerUser(t.app);
    await invite(t.app, own.admin, own.org.id, undecided.email, 'viewer');
    const [alsoSpanish] = await emailsTo(t.smtp, undecided.email, 1, '/invitations/');
    expect(subjectOf(alsoSpanish!)).toBe(`Le invitan a unirse a ${own.org.name}`);

    const francophone = await registerUser(t.app);
    await call(t.app, 'PATCH', '/auth/me', { as: francophone, body: { locale: 'fr' } });
    await invite(t.app, own.admin, own.org.id, francophone.email, 'reporter');
    const [french] = await emailsTo(t.smtp, francophone.email, 1, '/invitations/');
    expect(subjectOf(french!)).toBe(`Vous êtes invité à rejoindre ${own.org.name}`);
    expect(utf8(french!.text)).toContain('en tant que rapporteur.');
  });
});
