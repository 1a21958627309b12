import { describe, expect, it } from 'vitest';
import { endpointTurnedOffEmail } from './webhooks.emails.js';

const notice = {
  admin: { email: 'admin@example.org', firstName: 'Amina', orgName: 'Clean Water Trust' },
  orgId: 'o1',
  endpoint: { id: 'e1', host: 'hooks.example.net' },
  failingSince: new Date('2026-03-01T08:00:00.000Z'),
  lastError: 'HTTP 503',
  appUrl: 'https://app.example',
};

describe('endpoint turned off email', () => {
  it('says since when it failed, the last error, and how to turn it back on', () => {
    expect(endpointTurnedOffEmail(notice)).toEqual({
      recipient: 'admin@example.org',
      subject: 'Webhook endpoint turned off: hooks.example.net',
      body:
        'Hello Amina,\n\n' +
        'The webhook endpoint at hooks.example.net (e1) of Clean Water Trust has been turned off, ' +
        'because every delivery to it has failed since 2026-03-01T08:00:00.000Z.\n' +
        'The last attempt failed with: HTTP 503\n\n' +
        'Events are no longer sent to it, and the deliveries it still had waiting were marked failed. ' +
        'Once the receiver works again, an organization admin can turn it back on in the settings:\n' +
        'https://app.example/orgs/o1/settings/webhooks\n' +
        'or through the API: PATCH /orgs/o1/webhooks/e1 with {"active": true}. ' +
        'Failed deliveries can then be sent again with their redeliver action.\n',
    });
  });

  it('names an unknown error when the attempt left none', () => {
    expect(endpointTurnedOffEmail({ ...notice, lastError: null }).body).toContain(
      'The last attempt failed with: unknown error\n',
    );
  });
});
