import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestAppWithMail, type MailTestApp } from '../../../test/helpers/app.js';
import {
  createTeam,
  registerUser,
  uniqueEmail,
  type Team,
  type TestUser,
} from '../../../test/helpers/factories.js';
import {
  call,
  notFoundBody,
  UNAUTHORIZED,
  TIMESTAMP,
  ADMINS,
  ALL_ROLES,
  notAMember,
  refusedTo,
} from '../../../test/helpers/http.js';
import {
  emailsTo,
  expireInvitation,
  INVITATION_LINK as LINK,
  invitationToken,
  invite as inviteMember,
  invitedToken as inviteAndReadToken,
} from '../../../test/helpers/invitations.js';
import { linkIn, type TestSmtpServer } from '../../../test/helpers/smtp.js';
import { invitations } from './members.tables.js';

let t: MailTestApp;
let team: Team;
let smtp: TestSmtpServer;

const DAY = 86_400_000;
const INVITATION_NOT_FOUND = notFoundBody('Invitation');

beforeAll(async () => {
  t = await buildTestAppWithMail();
  smtp = t.smtp;
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

const inviteUrl = (orgId: string) => `/orgs/${orgId}/members`;
const listUrl = (orgId: string) => `/orgs/${orgId}/invitations`;

const invite = (admin: TestUser, orgId: string, email: string, role?: string) =>
  inviteMember(t.app, admin, orgId, email, role);
const tokenFor = (address: string, nth?: number) => invitationToken(smtp, address, nth);
const expire = (id: string) => expireInvitation(t.database.db, id);

const invitedToken = (admin: TestUser, orgId: string, email: string, role?: string) =>
  inviteAndReadToken(t.app, smtp, admin, orgId, email, role);

describe('invitation flow, end to end through SMTP', () => {
  it('invites by email, the link is looked up and accepted, the member joins and the feed records it', async () => {
    const own = await createTeam(t.app, t.database.db);
    const email = uniqueEmail('invitee');
    const before = Date.now();
    const invited = await call(t.app, 'POST', inviteUrl(own.org.id), {
      as: own.admin,
      body: { email, role: 'reporter' },
    });
    const after = Date.now();
    expect(invited.status).toBe(201);
    expect(invited.body).toEqual({
      id: expect.any(String),
      email,
      role: 'reporter',
      status: 'pending',
      expiresAt: expect.stringMatching(TIMESTAMP),
      createdAt: expect.stringMatching(TIMESTAMP),
    });
    const expiresAt = Date.parse(invited.body.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 7 * DAY - 1000);
    expect(expiresAt).toBeLessThanOrEqual(after + 7 * DAY + 1000);

    const [message] = await emailsTo(smtp, email);
    expect(message!.to).toEqual([email]);
    expect(message!.raw).toMatch(new RegExp(`Subject: You are invited to join ${own.org.name}`));
    expect(message!.text).toContain('Ada Admin invited you');
    const token = linkIn(message!, LINK).slice(LINK.length);
    expect(token.length).toBeGreaterThanOrEqual(32);

    const lookup = await call(t.app, 'GET', `/invitations/${token}`);
    expect(lookup.status).toBe(200);
    expect(lookup.body).toEqual({
      organizationName: own.org.name,
      email,
      role: 'reporter',
      expiresAt: invited.body.expiresAt,
    });

    const user = await registerUser(t.app, { email, firstName: 'Nia', lastName: 'New' });
    expect((await call(t.app, 'GET', `/orgs/${own.org.id}`, { as: user })).status).toBe(403);
    const accepted = await call(t.app, 'POST', `/invitations/${token}/accept`, { as: user });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({
      organization: {
        id: own.org.id,
        name: own.org.name,
        code: own.org.code,
        logoUrl: null,
        iatiRef: null,
        iatiOrgType: '21',
        reminderDaysBefore: [7, 1],
        overdueReminder: true,
        separateApproval: false,
        showQualityNotes: false,
        ageBands: ['0-17', '18-35', '36-59', '60+', 'unknown'],
        defaultLocale: 'en',
        createdAt: expect.stringMatching(TIMESTAMP),
      },
      role: 'reporter',
    });

    const members = await call(t.app, 'GET', `/orgs/${own.org.id}/members`, { as: own.viewer });
    expect(members.body).toHaveLength(5);
    expect(members.body[4]).toEqual({
      userId: user.id,
      email,
      firstName: 'Nia',
      lastName: 'New',
      role: 'reporter',
      joinedAt: expect.stringMatching(TIMESTAMP),
    });
    const org = await call(t.app, 'GET', `/orgs/${own.org.id}`, { as: user });
    expect(org.status).toBe(200);
    expect(org.body.id).toBe(own.org.id);
    expect((await call(t.app, 'GET', '/orgs', { as: user })).body).toEqual([
      { ...accepted.body.organization, role: 'reporter' },
    ]);

    // Used: the link is gone, and the invitation is no longer open.
    expect((await call(t.app, 'GET', `/invitations/${token}`)).body).toEqual(INVITATION_NOT_FOUND);
    expect((await call(t.app, 'GET', listUrl(own.org.id), { as: own.admin })).body).toEqual([]);

    const expectedFeed = [
      {
        id: expect.any(String),
        type: 'member.joined',
        occurredAt: expect.stringMatching(TIMESTAMP),
        actor: { id: user.id, name: 'Nia New' },
        projectId: null,
        subject: { type: 'member', id: user.id, label: 'Nia New' },
        summary: 'Nia New joined as reporter',
      },
      {
        id: expect.any(String),
        type: 'member.invited',
        occurredAt: expect.stringMatching(TIMESTAMP),
        actor: { id: own.admin.id, name: 'Ada Admin' },
        projectId: null,
        subject: { type: 'invitation', id: invited.body.id, label: email },
        summary: `Ada Admin invited ${email} as reporter`,
      },
    ];
    for (const member of [own.admin, own.officer, own.reporter, own.viewer, user]) {
      const feed = await call(t.app, 'GET', `/orgs/${own.org.id}/activity-feed`, { as: member });
      expect(feed.status).toBe(200);
      expect(feed.body).toEqual(expectedFeed);
    }
    const paged = await call(t.app, 'GET', `/orgs/${own.org.id}/activity-feed?limit=1`, { as: own.viewer });
    expect(paged.body).toEqual({
      data: [expectedFeed[0]],
      meta: { total: 2, page: 1, limit: 1, totalPages: 2 },
    });
    const outsider = await call(t.app, 'GET', `/orgs/${own.org.id}/activity-feed`, { as: own.outsider });
    expect(outsider.status).toBe(403);
    expect(outsider.body).toEqual(notAMember(ALL_ROLES));
    const anonymous = await call(t.app, 'GET', `/orgs/${own.org.id}/activity-feed`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(UNAUTHORIZED);
    const elsewhere = await call(t.app, 'GET', `/orgs/${own.outsiderOrg.id}/activity-feed`, {
      as: own.outsider,
    });
    expect(elsewhere.body).toEqual([]);
  });

  it('lets a member of another organization join as well, keeping both memberships', async () => {
    const own = await createTeam(t.app, t.database.db);
    const { token } = await invitedToken(own.admin, own.org.id, own.outsider.email, 'viewer');
    const res = await call(t.app, 'POST', `/invitations/${token}/accept`, { as: own.outsider });
    expect(res.status).toBe(200);
    expect(res.body.role).toBe('viewer');
    expect((await call(t.app, 'GET', `/orgs/${own.org.id}`, { as: own.outsider })).status).toBe(200);
    const mine = await call(t.app, 'GET', '/orgs', { as: own.outsider });
    expect(mine.body.map((o: { id: string; role: string }) => [o.id, o.role]).sort()).toEqual(
      [
        [own.org.id, 'viewer'],
        [own.outsiderOrg.id, 'org_admin'],
      ].sort(),
    );
  });
});

describe('POST /orgs/:orgId/members (invite)', () => {
  it('normalizes the email before inviting and sending', async () => {
    const email = uniqueEmail('mixed');
    const res = await call(t.app, 'POST', inviteUrl(team.org.id), {
      as: team.admin,
      body: { email: `  ${email.toUpperCase()} `, role: 'viewer' },
    });
    expect(res.status).toBe(201);
    expect(res.body.email).toBe(email);
    expect((await emailsTo(smtp, email))[0]!.to).toEqual([email]);
  });

  it('refuses someone who is already a member with 409, whatever the case of the address', async () => {
    for (const email of [team.viewer.email, team.admin.email.toUpperCase()]) {
      const res = await call(t.app, 'POST', inviteUrl(team.org.id), {
        as: team.admin,
        body: { email, role: 'viewer' },
      });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        statusCode: 409,
        message: 'This user is already a member of the organization',
        error: 'Conflict',
        code: 'duplicate',
      });
    }
  });

  it('replaces the open invitation when inviting the same address again: the old link 404s', async () => {
    const own = await createTeam(t.app, t.database.db);
    const email = uniqueEmail('again');
    const first = await invite(own.admin, own.org.id, email, 'viewer');
    const oldToken = await tokenFor(email, 1);
    const second = await invite(own.admin, own.org.id, email.toUpperCase(), 'me_officer');
    const newToken = await tokenFor(email, 2);
    expect(second.id).not.toBe(first.id);
    expect(newToken).not.toBe(oldToken);

    expect((await call(t.app, 'GET', `/invitations/${oldToken}`)).body).toEqual(INVITATION_NOT_FOUND);
    const lookup = await call(t.app, 'GET', `/invitations/${newToken}`);
    expect(lookup.body).toMatchObject({ email, role: 'me_officer' });
    const open = await call(t.app, 'GET', listUrl(own.org.id), { as: own.admin });
    expect(open.body).toEqual([
      { ...second, status: 'pending', createdAt: expect.stringMatching(TIMESTAMP) },
    ]);

    const user = await registerUser(t.app, { email });
    const stale = await call(t.app, 'POST', `/invitations/${oldToken}/accept`, { as: user });
    expect(stale.status).toBe(404);
    expect(stale.body).toEqual(INVITATION_NOT_FOUND);
    const accepted = await call(t.app, 'POST', `/invitations/${newToken}/accept`, { as: user });
    expect(accepted.body.role).toBe('me_officer');
  });

  it('lists every violation of the body and refuses a non-UUID org id', async () => {
    const url = inviteUrl(team.org.id);
    const bad = await call(t.app, 'POST', url, {
      as: team.admin,
      body: { email: 'not-an-email', role: 'owner', name: 'x' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('Bad Request');
    expect(bad.body.message).toEqual(
      expect.arrayContaining([
        'email must be an email',
        'role must be one of org_admin, me_officer, reporter, viewer',
        'property name should not exist',
      ]),
    );
    expect(bad.body.message).toHaveLength(3);
    const empty = await call(t.app, 'POST', url, { as: team.admin, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.message).toEqual(expect.arrayContaining(['email is required', 'role is required']));
    const badId = await call(t.app, 'POST', inviteUrl('nope'), {
      as: team.admin,
      body: { email: uniqueEmail(), role: 'viewer' },
    });
    expect(badId.status).toBe(400);
    expect(badId.body.message).toEqual(['orgId must be a UUID']);
    expect((await call(t.app, 'GET', listUrl(team.org.id), { as: team.admin })).body).not.toContainEqual(
      expect.objectContaining({ email: 'not-an-email' }),
    );
  });

  it('refuses other roles, a member of another org and no session', async () => {
    const email = uniqueEmail('nobody');
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      const res = await call(t.app, 'POST', inviteUrl(team.org.id), {
        as: user,
        body: { email, role: 'viewer' },
      });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(refusedTo(team, user, ADMINS));
    }
    const anonymous = await call(t.app, 'POST', inviteUrl(team.org.id), { body: { email, role: 'viewer' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(UNAUTHORIZED);
    const open = (await call(t.app, 'GET', listUrl(team.org.id), { as: team.admin })).body as {
      email: string;
    }[];
    expect(open.map((i) => i.email)).not.toContain(email);
  });
});

describe('GET /orgs/:orgId/invitations', () => {
  it('lists open invitations newest first, marks expired ones, hides accepted ones, and pages', async () => {
    const own = await createTeam(t.app, t.database.db);
    const [a, b, c] = [uniqueEmail('a'), uniqueEmail('b'), uniqueEmail('c')];
    const oldest = await invite(own.admin, own.org.id, a, 'viewer');
    const middle = await invite(own.admin, own.org.id, b, 'reporter');
    const newest = await invite(own.admin, own.org.id, c, 'me_officer');
    const stamp = (id: string, at: string) =>
      t.database.db
        .update(invitations)
        .set({ createdAt: new Date(at) })
        .where(eq(invitations.id, id));
    await stamp(oldest.id, '2026-01-01T00:00:00.000Z');
    await stamp(middle.id, '2026-01-02T00:00:00.000Z');
    await stamp(newest.id, '2026-01-03T00:00:00.000Z');
    await expire(middle.id);

    const res = await call(t.app, 'GET', listUrl(own.org.id), { as: own.admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { ...newest, status: 'pending', createdAt: '2026-01-03T00:00:00.000Z' },
      {
        ...middle,
        status: 'expired',
        expiresAt: expect.stringMatching(TIMESTAMP),
        createdAt: '2026-01-02T00:00:00.000Z',
      },
      { ...oldest, status: 'pending', createdAt: '2026-01-01T00:00:00.000Z' },
    ]);
    const paged = await call(t.app, 'GET', `${listUrl(own.org.id)}?page=2&limit=2`, { as: own.admin });
    expect(paged.body).toEqual({ data: [res.body[2]], meta: { total: 3, page: 2, limit: 2, totalPages: 2 } });

    const user = await registerUser(t.app, { email: c });
    expect((await call(t.app, 'POST', `/invitations/${await tokenFor(c)}/accept`, { as: user })).status).toBe(
      200,
    );
    const afterAccept = await call(t.app, 'GET', listUrl(own.org.id), { as: own.admin });
    expect(afterAccept.body.map((i: { id: string }) => i.id)).toEqual([middle.id, oldest.id]);
    // Another organization's invitations stay out of the list.
    expect((await call(t.app, 'GET', listUrl(own.outsiderOrg.id), { as: own.outsider })).body).toEqual([]);
  });

  it('refuses a limit above 100, other roles, a member of another org and no session', async () => {
    const tooMany = await call(t.app, 'GET', `${listUrl(team.org.id)}?limit=101`, { as: team.admin });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toEqual(['limit must not be greater than 100']);
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      const res = await call(t.app, 'GET', listUrl(team.org.id), { as: user });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(refusedTo(team, user, ADMINS));
    }
    const anonymous = await call(t.app, 'GET', listUrl(team.org.id));
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(UNAUTHORIZED);
  });
});
