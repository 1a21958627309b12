import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Db } from '../../src/db/client.js';
import { invitations } from '../../src/modules/members/members.tables.js';
import type { TestUser } from './factories.js';
import { call } from './http.js';
import { linkIn, type ReceivedEmail, type TestSmtpServer } from './smtp.js';

export const INVITATION_LINK = 'http://app.test/invitations/';

export async function invite(
  app: FastifyInstance,
  admin: TestUser,
  orgId: string,
  email: string,
  role = 'reporter',
) {
  const res = await call(app, 'POST', `/orgs/${orgId}/members`, { as: admin, body: { email, role } });
  expect(res.status).toBe(201);
  return res.body as { id: string; email: string; role: string; expiresAt: string };
}

/**
 * Waits until `count` messages to `address` (those whose text has `containing`, when given) have arrived
 * and returns them in arrival order.
 */
export async function emailsTo(
  smtp: TestSmtpServer,
  address: string,
  count = 1,
  containing = '',
): Promise<ReceivedEmail[]> {
  await smtp.waitFor(address);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = smtp.received.filter((m) => m.to.includes(address) && m.text.includes(containing));
    if (found.length >= count) return found;
    if (Date.now() > deadline) throw new Error(`fewer than ${count} emails to ${address}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The token of the `nth` invitation email to `address` (1-based), read from the link in it. Other
 * emails to the address (the verification link of a registered user) are not counted.
 */
export async function invitationToken(smtp: TestSmtpServer, address: string, nth = 1): Promise<string> {
  const emails = await emailsTo(smtp, address, nth, INVITATION_LINK);
  return linkIn(emails[nth - 1]!, INVITATION_LINK).slice(INVITATION_LINK.length);
}

export const expireInvitation = (db: Db, id: string) =>
  db
    .update(invitations)
    .set({ expiresAt: new Date(Date.now() - 60_000) })
    .where(eq(invitations.id, id));

/** Invites `email` and returns the invitation with the token from the email it received. */
export async function invitedToken(
  app: FastifyInstance,
  smtp: TestSmtpServer,
  admin: TestUser,
  orgId: string,
  email: string,
  role = 'reporter',
) {
  const invitation = await invite(app, admin, orgId, email, role);
  return { invitation, token: await invitationToken(smtp, email) };
}
