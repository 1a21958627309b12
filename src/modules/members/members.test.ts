import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  addMember,
  assignProject,
  createOrg,
  createProject,
  createTeam,
  registerUser,
  type TestUser,
} from '../../../test/helpers/factories.js';
import {
  call,
  notFoundBody,
  UNAUTHORIZED,
  TIMESTAMP,
  badRequestAt,
  ADMINS,
  ALL_ROLES,
  notAMember,
  roleRefused,
  refusedTo,
} from '../../../test/helpers/http.js';
import { projectMembers } from '../projects/projects.tables.js';
import { orgMembers } from '../orgs/orgs.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const LAST_ADMIN = {
  statusCode: 409,
  message: 'The last org_admin of an organization can be neither demoted nor removed',
  error: 'Conflict',
  code: 'has_dependents' as const,
};

const membersUrl = (orgId: string) => `/orgs/${orgId}/members`;
const memberUrl = (orgId: string, userId: string) => `/orgs/${orgId}/members/${userId}`;

const memberItem = (user: TestUser, role: string, joinedAt: unknown = expect.stringMatching(TIMESTAMP)) => ({
  userId: user.id,
  email: user.email,
  firstName: user.firstName,
  lastName: user.lastName,
  role,
  joinedAt,
});

describe('GET /orgs/:orgId/members', () => {
  it('lists the members with their details, by join date then user id, to every role', async () => {
    const admin = await registerUser(t.app, { firstName: 'Grace', lastName: 'Hopper' });
    const org = await createOrg(t.app, admin);
    const [early, tieA, tieB] = await Promise.all([
      registerUser(t.app),
      registerUser(t.app),
      registerUser(t.app),
    ]);
    const [first, second] = [tieA, tieB].sort((a, b) => a.id.localeCompare(b.id));
    const earlyAt = new Date('2025-01-01T08:00:00.000Z');
    const tieAt = new Date('2025-06-01T08:00:00.000Z');
    await t.database.db.insert(orgMembers).values([
      { orgId: org.id, userId: second!.id, role: 'viewer', joinedAt: tieAt },
      { orgId: org.id, userId: early.id, role: 'reporter', joinedAt: earlyAt },
      { orgId: org.id, userId: first!.id, role: 'me_officer', joinedAt: tieAt },
    ]);

    const expected = [
      memberItem(early, 'reporter', earlyAt.toISOString()),
      memberItem(first!, 'me_officer', tieAt.toISOString()),
      memberItem(second!, 'viewer', tieAt.toISOString()),
      memberItem(admin, 'org_admin'),
    ];
    for (const user of [admin, early, first!, second!]) {
      const res = await call(t.app, 'GET', membersUrl(org.id), { as: user });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(expected);
    }
  });

  it('pages with the envelope when page or limit is given', async () => {
    const url = membersUrl(team.org.id);
    const all = (await call(t.app, 'GET', url, { as: team.viewer })).body as unknown[];
    expect(all).toHaveLength(4);

    const first = await call(t.app, 'GET', `${url}?page=1&limit=2`, { as: team.viewer });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      data: all.slice(0, 2),
      meta: { total: 4, page: 1, limit: 2, totalPages: 2 },
    });
    const second = await call(t.app, 'GET', `${url}?page=2&limit=2`, { as: team.viewer });
    expect(second.body).toEqual({ data: all.slice(2), meta: { total: 4, page: 2, limit: 2, totalPages: 2 } });
    const beyond = await call(t.app, 'GET', `${url}?page=3&limit=2`, { as: team.viewer });
    expect(beyond.body).toEqual({ data: [], meta: { total: 4, page: 3, limit: 2, totalPages: 2 } });
    const defaults = await call(t.app, 'GET', `${url}?page=1`, { as: team.viewer });
    expect(defaults.body).toEqual({ data: all, meta: { total: 4, page: 1, limit: 20, totalPages: 1 } });
  });

  it('refuses a limit above 100, a page below 1 and a non-UUID org id with 400', async () => {
    const url = membersUrl(team.org.id);
    const tooMany = await call(t.app, 'GET', `${url}?limit=101`, { as: team.admin });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual(
      badRequestAt(['query', '/limit', 'maximum', 'limit must not be greater than 100']),
    );
    const pageZero = await call(t.app, 'GET', `${url}?page=0&limit=0`, { as: team.admin });
    expect(pageZero.status).toBe(400);
    expect(pageZero.body.message).toEqual(
      expect.arrayContaining(['page must not be less than 1', 'limit must not be less than 1']),
    );
    const badId = await call(t.app, 'GET', membersUrl('nope'), { as: team.admin });
    expect(badId.status).toBe(400);
    expect(badId.body.message).toEqual(['orgId must be a UUID']);
  });

  it('refuses no session with 401 and a member of another org with 403', async () => {
    const anonymous = await call(t.app, 'GET', membersUrl(team.org.id));
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(UNAUTHORIZED);
    const stranger = await call(t.app, 'GET', membersUrl(team.org.id), { as: team.outsider });
    expect(stranger.status).toBe(403);
    expect(stranger.body).toEqual(notAMember(ALL_ROLES));
  });
});

describe('PATCH /orgs/:orgId/members/:userId', () => {
  it('lets the org_admin change a role; it applies on the member’s next request', async () => {
    const own = await createTeam(t.app, t.database.db);
    const before = await call(t.app, 'PATCH', `/orgs/${own.org.id}`, { as: own.viewer, body: { name: 'X' } });
    expect(before.status).toBe(403);

    const res = await call(t.app, 'PATCH', memberUrl(own.org.id, own.viewer.id), {
      as: own.admin,
      body: { role: 'org_admin' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(memberItem(own.viewer, 'org_admin'));

    // Same token as before: the role is read from the database on every request.
    const after = await call(t.app, 'PATCH', `/orgs/${own.org.id}`, {
      as: own.viewer,
      body: { name: 'Renamed' },
    });
    expect(after.status).toBe(200);
    expect(after.body.name).toBe('Renamed');
    const listed = (await call(t.app, 'GET', membersUrl(own.org.id), { as: own.admin })).body as {
      userId: string;
      role: string;
    }[];
    expect(listed.find((m) => m.userId === own.viewer.id)?.role).toBe('org_admin');

    const demoted = await call(t.app, 'PATCH', memberUrl(own.org.id, own.viewer.id), {
      as: own.admin,
      body: { role: 'viewer' },
    });
    expect(demoted.body).toEqual(memberItem(own.viewer, 'viewer'));
    const refused = await call(t.app, 'PATCH', `/orgs/${own.org.id}`, {
      as: own.viewer,
      body: { name: 'Y' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(roleRefused(ADMINS));
  });

  it('refuses to demote the last org_admin with 409, but demotes one of two', async () => {
    const own = await createTeam(t.app, t.database.db);
    const alone = await call(t.app, 'PATCH', memberUrl(own.org.id, own.admin.id), {
      as: own.admin,
      body: { role: 'viewer' },
    });
    expect(alone.status).toBe(409);
    expect(alone.body).toEqual(LAST_ADMIN);
    const same = await call(t.app, 'PATCH', memberUrl(own.org.id, own.admin.id), {
      as: own.admin,
      body: { role: 'org_admin' },
    });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(memberItem(own.admin, 'org_admin'));

    await call(t.app, 'PATCH', memberUrl(own.org.id, own.officer.id), {
      as: own.admin,
      body: { role: 'org_admin' },
    });
    const res = await call(t.app, 'PATCH', memberUrl(own.org.id, own.admin.id), {
      as: own.officer,
      body: { role: 'me_officer' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(memberItem(own.admin, 'me_officer'));
    const last = await call(t.app, 'PATCH', memberUrl(own.org.id, own.officer.id), {
      as: own.officer,
      body: { role: 'reporter' },
    });
    expect(last.status).toBe(409);
    expect(last.body).toEqual(LAST_ADMIN);
  });

  it('answers 404 for a user who is not a member, including a member of another org', async () => {
    for (const userId of [randomUUID(), team.outsider.id]) {
      const res = await call(t.app, 'PATCH', memberUrl(team.org.id, userId), {
        as: team.admin,
        body: { role: 'viewer' },
      });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFoundBody('Member'));
    }
  });

  it('validates the role, the body and the ids', async () => {
    const url = memberUrl(team.org.id, team.viewer.id);
    const badRole = await call(t.app, 'PATCH', url, { as: team.admin, body: { role: 'owner' } });
    expect(badRole.status).toBe(400);
    expect(badRole.body).toEqual(
      badRequestAt(['body', '/role', 'enum', 'role must be one of org_admin, me_officer, reporter, viewer']),
    );
    const missing = await call(t.app, 'PATCH', url, { as: team.admin, body: { userId: team.viewer.id } });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toEqual(
      expect.arrayContaining(['role is required', 'property userId should not exist']),
    );
    const badId = await call(t.app, 'PATCH', memberUrl(team.org.id, 'nope'), {
      as: team.admin,
      body: { role: 'viewer' },
    });
    expect(badId.status).toBe(400);
    expect(badId.body.message).toEqual(['userId must be a UUID']);
    const listed = (await call(t.app, 'GET', membersUrl(team.org.id), { as: team.admin })).body as {
      userId: string;
      role: string;
    }[];
    expect(listed.find((m) => m.userId === team.viewer.id)?.role).toBe('viewer');
  });

  it('refuses other roles, members of another org and no session', async () => {
    const url = memberUrl(team.org.id, team.viewer.id);
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      const res = await call(t.app, 'PATCH', url, { as: user, body: { role: 'org_admin' } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(refusedTo(team, user, ADMINS));
    }
    const foreign = await call(t.app, 'PATCH', memberUrl(team.outsiderOrg.id, team.outsider.id), {
      as: team.admin,
      body: { role: 'viewer' },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual(notAMember(ADMINS));
    const anonymous = await call(t.app, 'PATCH', url, { body: { role: 'viewer' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(UNAUTHORIZED);
  });
});

describe('DELETE /orgs/:orgId/members/:userId', () => {
  it('lets the org_admin remove a member, who loses access at once with the same token', async () => {
    const own = await createTeam(t.app, t.database.db);
    expect((await call(t.app, 'GET', `/orgs/${own.org.id}`, { as: own.officer })).status).toBe(200);

    const res = await call(t.app, 'DELETE', memberUrl(own.org.id, own.officer.id), { as: own.admin });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();

    const after = await call(t.app, 'GET', `/orgs/${own.org.id}`, { as: own.officer });
    expect(after.status).toBe(403);
    expect(after.body).toEqual(notAMember(ALL_ROLES));
    const members = (await call(t.app, 'GET', membersUrl(own.org.id), { as: own.admin })).body as {
      userId: string;
    }[];
    expect(members.map((m) => m.userId)).not.toContain(own.officer.id);
    expect(members).toHaveLength(3);
    const again = await call(t.app, 'DELETE', memberUrl(own.org.id, own.officer.id), { as: own.admin });
    expect(again.status).toBe(404);
    expect(again.body).toEqual(notFoundBody('Member'));
  });

  it('lets any member leave, ending their project assignments', async () => {
    const own = await createTeam(t.app, t.database.db);
    const project = await createProject(t.database.db, own.org.id);
    await assignProject(t.database.db, own.org.id, project.id, own.reporter.id);

    for (const user of [own.reporter, own.viewer, own.officer]) {
      const res = await call(t.app, 'DELETE', memberUrl(own.org.id, user.id), { as: user });
      expect(res.status).toBe(204);
      expect((await call(t.app, 'GET', `/orgs/${own.org.id}`, { as: user })).status).toBe(403);
    }
    const assignments = await t.database.db
      .select()
      .from(projectMembers)
      .where(eq(projectMembers.projectId, project.id));
    expect(assignments).toEqual([]);
    const members = await call(t.app, 'GET', membersUrl(own.org.id), { as: own.admin });
    expect(members.body).toEqual([memberItem(own.admin, 'org_admin')]);
  });

  it('refuses to remove the last org_admin with 409, even when they leave themself', async () => {
    const own = await createTeam(t.app, t.database.db);
    const res = await call(t.app, 'DELETE', memberUrl(own.org.id, own.admin.id), { as: own.admin });
    expect(res.status).toBe(409);
    expect(res.body).toEqual(LAST_ADMIN);
    expect((await call(t.app, 'GET', `/orgs/${own.org.id}`, { as: own.admin })).status).toBe(200);

    await addMember(t.database.db, own.org.id, (await registerUser(t.app)).id, 'viewer');
    await call(t.app, 'PATCH', memberUrl(own.org.id, own.officer.id), {
      as: own.admin,
      body: { role: 'org_admin' },
    });
    const left = await call(t.app, 'DELETE', memberUrl(own.org.id, own.admin.id), { as: own.admin });
    expect(left.status).toBe(204);
    const lastOne = await call(t.app, 'DELETE', memberUrl(own.org.id, own.officer.id), { as: own.officer });
    expect(lastOne.status).toBe(409);
    expect(lastOne.body).toEqual(LAST_ADMIN);
  });

  it('refuses a non-admin removing someone else, a member of another org and no session', async () => {
    const own = await createTeam(t.app, t.database.db);
    for (const user of [own.officer, own.reporter, own.viewer, own.outsider]) {
      const target = user.id === own.reporter.id ? own.viewer : own.reporter;
      const res = await call(t.app, 'DELETE', memberUrl(own.org.id, target.id), { as: user });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(refusedTo(own, user, ADMINS));
    }
    // An outsider cannot "leave" an organization they are not in to probe it.
    const self = await call(t.app, 'DELETE', memberUrl(own.org.id, own.outsider.id), { as: own.outsider });
    expect(self.status).toBe(403);
    expect(self.body).toEqual(notAMember(ADMINS));
    const anonymous = await call(t.app, 'DELETE', memberUrl(own.org.id, own.viewer.id));
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(UNAUTHORIZED);
    const members = (await call(t.app, 'GET', membersUrl(own.org.id), { as: own.admin })).body as unknown[];
    expect(members).toHaveLength(4);
  });

  it('answers 404 for a non-member (another org’s member too) and 400 for a non-UUID id', async () => {
    for (const userId of [randomUUID(), team.outsider.id]) {
      const res = await call(t.app, 'DELETE', memberUrl(team.org.id, userId), { as: team.admin });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFoundBody('Member'));
    }
    expect((await call(t.app, 'GET', `/orgs/${team.outsiderOrg.id}`, { as: team.outsider })).status).toBe(
      200,
    );
    const bad = await call(t.app, 'DELETE', memberUrl(team.org.id, 'nope'), { as: team.admin });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual(['userId must be a UUID']);
  });
});
