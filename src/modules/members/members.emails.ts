import { translator, type Locale } from '../../lib/i18n/i18n.js';
import type { OutgoingEmail } from '../mail/index.js';

/**
 * An invitation to an organization, sent to an address that may not have an account yet; in
 * `locale` (the invitee's if they have an account and chose one, else the organization's default).
 */
export function invitationEmail(
  invitation: {
    email: string;
    role: string;
    orgName: string;
    inviterName: string;
    appUrl: string;
    token: string;
    days: number;
  },
  locale: Locale = 'en',
): OutgoingEmail {
  const t = translator(locale, 'email');
  const org = invitation.orgName;
  return {
    recipient: invitation.email,
    subject: t('invitation.subject', { org }),
    body:
      `${t('greetingAnonymous')}\n\n` +
      `${t('invitation.intro', { inviter: invitation.inviterName, org, role: t(`role.${invitation.role}`) })}\n\n` +
      `${t('invitation.open', { count: invitation.days })}\n\n${invitation.appUrl}/invitations/${invitation.token}\n`,
  };
}
