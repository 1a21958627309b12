import type { OutgoingEmail } from '../mail/index.js';

/** An invitation to an organization, sent to an address that may not have an account yet. */
export function invitationEmail(invitation: {
  email: string;
  role: string;
  orgName: string;
  inviterName: string;
  appUrl: string;
  token: string;
  days: number;
}): OutgoingEmail {
  return {
    recipient: invitation.email,
    subject: `You are invited to join ${invitation.orgName}`,
    body:
      `Hello,\n\n${invitation.inviterName} invited you to join ${invitation.orgName} as ${invitation.role}.\n\n` +
      `To accept, open this link within ${invitation.days} days and sign in or create an account ` +
      `with this email address:\n\n${invitation.appUrl}/invitations/${invitation.token}\n`,
  };
}
