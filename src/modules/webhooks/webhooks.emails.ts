import { translator, type Locale } from '../../lib/i18n/i18n.js';
import type { OutgoingEmail } from '../mail/index.js';

/**
 * Tells an organization admin that an endpoint was turned off after failing for too long, and how to
 * turn it back on (in the client's settings or through the API); in `locale` (the admin's, else the
 * organization's default).
 */
export function endpointTurnedOffEmail(
  notice: {
    admin: { email: string; firstName: string; orgName: string };
    orgId: string;
    endpoint: { id: string; host: string };
    failingSince: Date;
    lastError: string | null;
    appUrl: string;
  },
  locale: Locale = 'en',
): OutgoingEmail {
  const { admin, endpoint, orgId } = notice;
  const t = translator(locale, 'email');
  return {
    recipient: admin.email,
    subject: t('webhook.subject', { host: endpoint.host }),
    body:
      `${t('greeting', { name: admin.firstName })}\n\n` +
      `${t('webhook.intro', {
        host: endpoint.host,
        id: endpoint.id,
        org: admin.orgName,
        since: notice.failingSince.toISOString(),
      })}\n` +
      `${t('webhook.lastError', { error: notice.lastError ?? t('webhook.unknownError') })}\n\n` +
      `${t('webhook.after')}\n` +
      `${notice.appUrl}/orgs/${orgId}/settings/webhooks\n` +
      `${t('webhook.api', { request: `PATCH /orgs/${orgId}/webhooks/${endpoint.id}`, body: '{"active": true}' })}\n`,
  };
}
