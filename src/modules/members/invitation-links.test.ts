import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestAppWithMail, type MailTestApp } from '../../../test/helpers/app.js';
import {
  addMember,
  createTeam,
  registerUser,
  uniqueEmail,
  type TestUser,
} from '../../../test/helpers/factories.js';
import {
  call,
  notFoundBody,
  UNAUTHORIZED,
  ADMINS,
  refusedTo,
  forbiddenBody,
} from '../../../test/helpers/http.js';
import { expireInvitation, invitedToken as inviteAndReadToken } from '../../../test/helpers/invitations.js';
import type { TestSmtpServer } from '../../../test/helpers/smtp.js';

let t: MailTestApp;
let smtp: TestSmtpServer;

const INVITATION_NOT_FOUND = notFoundBody('Invitation');

beforeAll(async () => {
  t = await buildTestAppWithMail();
  smtp = t.smtp;
});
afterAll(() => t.close());

const listUrl = (orgId: string) => `/orgs/${orgId}/invitations`;

const expire = (id: string) => expireInvitation(t.database.db, id);

const invitedToken = (admin: TestUser, orgId: string, email: string, role?: string) =>
  inviteAndReadToken(t.app, smtp, admin, orgId, email, role);

describe('DELETE /orgs/:orgId/invitations/:id', () => {
  it('revokes an open invitation: its link 404s at once and it leaves the list', async () => {
    const own = await createTeam(t.app, t.database.db);
    const email = uniqueEmail('revoked');
    const { invitation, token } = await invitedToken(own.admin, own.org.id, email);
    expect((await call(t.app, 'GET', `/invitations/${token}`)).status).toBe(200);

    const res = await call(t.app, 'DELETE', `${listUrl(own.org.id)}/${invitation.id}`, { as: own.admin });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    const lookup = await call(t.app, 'GET', `/invitations/${token}`);
    expect(lookup.status).toBe(404);
    expect(lookup.body).toEqual(INVITATION_NOT_FOUND);
    const user = await registerUser(t.app, { email });
    const accept = await call(t.app, 'POST', `/invitations/${token}/accept`, { as: user });
    expect(accept.status).toBe(404);
    expect(accept.body).toEqual(INVITATION_NOT_FOUND);
    expect((await call(t.app, 'GET', listUrl(own.org.id), { as: own.admin })).body).toEqual([]);
    const again = await call(t.app, 'DELETE', `${listUrl(own.org.id)}/${invitation.id}`, { as: own.admin });
    expect(again.status).toBe(404);
    expect(again.body).toEqual(INVITATION_NOT_FOUND);
  });

  it('answers 404 for an unknown id, an accepted invitation and another org’s invitation', async () => {
    const own = await createTeam(t.app, t.database.db);
    const foreignEmail = uniqueEmail('foreign');
    const foreign = await invitedToken(own.outsider, own.outsiderOrg.id, foreignEmail);
    const usedEmail = uniqueEmail('used');
    const used = await invitedToken(own.admin, own.org.id, usedEmail);
    const user = await registerUser(t.app, { email: usedEmail });
    expect((await call(t.app, 'POST', `/invitations/${used.token}/accept`, { as: user })).status).toBe(200);

    for (const id of [randomUUID(), used.invitation.id, foreign.invitation.id]) {
      const res = await call(t.app, 'DELETE', `${listUrl(own.org.id)}/${id}`, { as: own.admin });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(INVITATION_NOT_FOUND);
    }
    expect((await call(t.app, 'GET', `/invitations/${foreign.token}`)).status).toBe(200);
    const bad = await call(t.app, 'DELETE', `${listUrl(own.org.id)}/nope`, { as: own.admin });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual(['id must be a UUID']);
  });

  it('refuses other roles, a member of another org and no session', async () => {
    const own = await createTeam(t.app, t.database.db);
    const { invitation, token } = await invitedToken(own.admin, own.org.id, uniqueEmail('kept'));
    const url = `${listUrl(own.org.id)}/${invitation.id}`;
    for (const user of [own.officer, own.reporter, own.viewer, own.outsider]) {
      const res = await call(t.app, 'DELETE', url, { as: user });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(refusedTo(own, user, ADMINS));
    }
    const anonymous = await call(t.app, 'DELETE', url);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(UNAUTHORIZED);
    expect((await call(t.app, 'GET', `/invitations/${token}`)).status).toBe(200);
  });
});

describe('GET /invitations/:token', () => {
  it('answers 404 for an unknown or expired token, with or without a session', async () => {
    const own = await createTeam(t.app, t.database.db);
    const { invitation, token } = await invitedToken(own.admin, own.org.id, uniqueEmail('late'));
    const signedIn = await call(t.app, 'GET', `/invitations/${token}`, { as: own.viewer });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.organizationName).toBe(own.org.name);

    await expire(invitation.id);
    for (const tok of [token, 'not-a-real-token']) {
      const res = await call(t.app, 'GET', `/invitations/${tok}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(INVITATION_NOT_FOUND);
    }
  });
});

describe('POST /invitations/:token/accept', () => {
  it('refuses a signed-in user whose email differs with 403 and leaves the invitation usable', async () => {
    const own = await createTeam(t.app, t.database.db);
    const email = uniqueEmail('right');
    const { token } = await invitedToken(own.admin, own.org.id, email, 'me_officer');
    const wrong = await registerUser(t.app);
    for (const user of [wrong, own.outsider]) {
      const res = await call(t.app, 'POST', `/invitations/${token}/accept`, { as: user });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(forbiddenBody(undefined, 'invitation_for_another_email'));
      expect((await call(t.app, 'GET', `/orgs/${own.org.id}`, { as: user })).status).toBe(403);
    }
    const right = await registerUser(t.app, { email });
    const res = await call(t.app, 'POST', `/invitations/${token}/accept`, { as: right });
    expect(res.status).toBe(200);
    expect(res.body.role).toBe('me_officer');
  });

  it('answers 401 without a session and 404 for a used, expired or unknown link', async () => {
    const own = await createTeam(t.app, t.database.db);
    const email = uniqueEmail('once');
    const { token } = await invitedToken(own.admin, own.org.id, email);
    const anonymous = await call(t.app, 'POST', `/invitations/${token}/accept`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(UNAUTHORIZED);

    const user = await registerUser(t.app, { email });
    expect((await call(t.app, 'POST', `/invitations/${token}/accept`, { as: user })).status).toBe(200);
    const used = await call(t.app, 'POST', `/invitations/${token}/accept`, { as: user });
    expect(used.status).toBe(404);
    expect(used.body).toEqual(INVITATION_NOT_FOUND);

    const lateEmail = uniqueEmail('expired');
    const late = await invitedToken(own.admin, own.org.id, lateEmail);
    await expire(late.invitation.id);
    const lateUser = await registerUser(t.app, { email: lateEmail });
    const expired = await call(t.app, 'POST', `/invitations/${late.token}/accept`, { as: lateUser });
    expect(expired.status).toBe(404);
    expect(expired.body).toEqual(INVITATION_NOT_FOUND);
    expect((await call(t.app, 'GET', `/orgs/${own.org.id}`, { as: lateUser })).status).toBe(403);

    const unknown = await call(t.app, 'POST', '/invitations/not-a-real-token/accept', { as: user });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(INVITATION_NOT_FOUND);
  });

  it('answers 409 when the invited user became a member in the meantime, keeping their role', async () => {
    const own = await createTeam(t.app, t.database.db);
    const email = uniqueEmail('early');
    const { token } = await invitedToken(own.admin, own.org.id, email, 'org_admin');
    const user = await registerUser(t.app, { email });
    await addMember(t.database.db, own.org.id, user.id, 'viewer');
    const res = await call(t.app, 'POST', `/invitations/${token}/accept`, { as: user });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      statusCode: 409,
      message: 'You are already a member of this organization',
      error: 'Conflict',
      code: 'duplicate',
    });
    const members = (await call(t.app, 'GET', `/orgs/${own.org.id}/members`, { as: own.admin })).body as {
      userId: string;
      role: string;
    }[];
    expect(members.find((m) => m.userId === user.id)?.role).toBe('viewer');
  });
});
