import { describe, expect, it } from 'vitest';
import { invitationEmail } from './members.emails.js';

describe('invitation email', () => {
  it('names the organization, the inviter and the role (in words), with a link valid for some days', () => {
    const email = invitationEmail({
      email: 'new@example.org',
      role: 'me_officer',
      orgName: 'Clean Water Trust',
      inviterName: 'Amina Diallo',
      appUrl: 'https://app.example',
      token: 'tok3',
      days: 7,
    });
    expect(email).toEqual({
      recipient: 'new@example.org',
      subject: 'You are invited to join Clean Water Trust',
      body:
        'Hello,\n\n' +
        'Amina Diallo invited you to join Clean Water Trust as M&E officer.\n\n' +
        'To accept, open this link within 7 days and sign in or create an account with this email ' +
        'address:\n\n' +
        'https://app.example/invitations/tok3\n',
    });
  });
});
