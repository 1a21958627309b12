import type { OutgoingEmail } from '../mail/index.js';

/**
 * Tells an organization admin that an endpoint was turned off after failing for too long, and how to
 * turn it back on (in the client's settings or through the API).
 */
export function endpointTurnedOffEmail(notice: {
  admin: { email: string; firstName: string; orgName: string };
  orgId: string;
  endpoint: { id: string; host: string };
  failingSince: Date;
  lastError: string | null;
  appUrl: string;
}): OutgoingEmail {
  const { admin, endpoint, orgId } = notice;
  return {
    recipient: admin.email,
    subject: `Webhook endpoint turned off: ${endpoint.host}`,
    body:
      `Hello ${admin.firstName},\n\n` +
      `The webhook endpoint at ${endpoint.host} (${endpoint.id}) of ${admin.orgName} has been turned off, because every ` +
      `delivery to it has failed since ${notice.failingSince.toISOString()}.\n` +
      `The last attempt failed with: ${notice.lastError ?? 'unknown error'}\n\n` +
      `Events are no longer sent to it, and the deliveries it still had waiting were marked failed. ` +
      `Once the receiver works again, an organization admin can turn it back on in the settings:\n` +
      `${notice.appUrl}/orgs/${orgId}/settings/webhooks\n` +
      `or through the API: PATCH /orgs/${orgId}/webhooks/${endpoint.id} with {"active": true}. ` +
      `Failed deliveries can then be sent again with their redeliver action.\n`,
  };
}
