import { describe, expect, it } from 'vitest';
import { passwordResetEmail, verificationEmail } from './auth.emails.js';

const user = { email: 'amina@example.org', firstName: 'Amina' };

describe('account emails', () => {
  it('asks to confirm the address with a link valid for some days', () => {
    expect(verificationEmail(user, { appUrl: 'https://app.example', token: 'tok1', days: 7 })).toEqual({
      recipient: 'amina@example.org',
      subject: 'Confirm your email address',
      body:
        'Hello Amina,\n\n' +
        'To confirm that this email address is yours, open this link within 7 days:\n\n' +
        'https://app.example/verify-email?token=tok1\n\n' +
        'The link works once. If you did not create an account, ignore this email.\n',
    });
  });

  it('sends the password reset link with its lifetime in minutes', () => {
    expect(passwordResetEmail(user, { appUrl: 'https://app.example', token: 'tok2', minutes: 60 })).toEqual({
      recipient: 'amina@example.org',
      subject: 'Reset your password',
      body:
        'Hello Amina,\n\n' +
        'Someone asked to reset the password of your account. ' +
        'To choose a new password, open this link within 60 minutes:\n\n' +
        'https://app.example/reset-password?token=tok2\n\n' +
        'The link works once. If you did not ask for it, ignore this email.\n',
    });
  });
});
