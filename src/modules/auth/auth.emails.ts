import type { OutgoingEmail } from '../mail/index.js';

/** Who an account email is for. */
export interface AccountHolder {
  email: string;
  firstName: string;
}

/** The link that proves an address, sent on sign-up and on request; it works for `days` days. */
export function verificationEmail(
  user: AccountHolder,
  link: { appUrl: string; token: string; days: number },
): OutgoingEmail {
  return {
    recipient: user.email,
    subject: 'Confirm your email address',
    body:
      `Hello ${user.firstName},\n\nTo confirm that this email address is yours, open this link ` +
      `within ${link.days} days:\n\n${link.appUrl}/verify-email?token=${link.token}\n\n` +
      `The link works once. If you did not create an account, ignore this email.\n`,
  };
}

/** The link to choose a new password; it works for `minutes` minutes. */
export function passwordResetEmail(
  user: AccountHolder,
  link: { appUrl: string; token: string; minutes: number },
): OutgoingEmail {
  return {
    recipient: user.email,
    subject: 'Reset your password',
    body:
      `Hello ${user.firstName},\n\nSomeone asked to reset the password of your account. ` +
      `To choose a new password, open this link within ${link.minutes} minutes:\n\n` +
      `${link.appUrl}/reset-password?token=${link.token}\n\n` +
      `The link works once. If you did not ask for it, ignore this email.\n`,
  };
}
