import { translator, type Locale } from '../../lib/i18n/i18n.js';
import type { OutgoingEmail } from '../mail/index.js';

/** Who an account email is for. */
export interface AccountHolder {
  email: string;
  firstName: string;
}

/**
 * Account emails speak the user's language (`locale`: theirs, else English: they concern no one
 * organization).
 */

/** The link that proves an address, sent on sign-up and on request; it works for `days` days. */
export function verificationEmail(
  user: AccountHolder,
  link: { appUrl: string; token: string; days: number },
  locale: Locale = 'en',
): OutgoingEmail {
  const t = translator(locale, 'email');
  return {
    recipient: user.email,
    subject: t('verification.subject'),
    body:
      `${t('greeting', { name: user.firstName })}\n\n${t('verification.open', { count: link.days })}\n\n` +
      `${link.appUrl}/verify-email?token=${link.token}\n\n${t('verification.after')}\n`,
  };
}

/** The link to choose a new password; it works for `minutes` minutes. */
export function passwordResetEmail(
  user: AccountHolder,
  link: { appUrl: string; token: string; minutes: number },
  locale: Locale = 'en',
): OutgoingEmail {
  const t = translator(locale, 'email');
  return {
    recipient: user.email,
    subject: t('reset.subject'),
    body:
      `${t('greeting', { name: user.firstName })}\n\n${t('reset.open', { count: link.minutes })}\n\n` +
      `${link.appUrl}/reset-password?token=${link.token}\n\n${t('reset.after')}\n`,
  };
}
