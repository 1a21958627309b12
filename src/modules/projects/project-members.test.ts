import { randomUUID } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { addMember, assignProject, createProject, registerUser } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  call,
  notFoundBody,
  UNAUTHORIZED,
  TIMESTAMP,
  badRequestAt,
  ADMINS,
  ALL_ROLES,
  notAMember,
  notAssigned,
  refusedTo,
} from '../../../test/helpers/http.js';
import type { Member } from '../../http/pipeline/access.js';
import { AppError, FORBIDDEN_MESSAGE } from '../../errors/catalogue.js';
import { ensureProjectAccess } from './project-scope.js';
import { projectMembers, projects } from './projects.tables.js';
import { visibilityOf, visibleTo } from './visibility.js';
import { useSuite } from '../../../test/helpers/suite.js';

/** The condition a repo adds to a project query for this member. */
const visibleProjects = (member: Member) => visibleTo(member.orgId, visibilityOf(member), projects.id);

const { t, team } = useSuite();

const membersUrl = (projectId: string, orgId = team.org.id) => `/orgs/${orgId}/projects/${projectId}/members`;

async function assignmentRows(projectId: string) {
  return t.database.db
    .select({ userId: projectMembers.userId })
    .from(projectMembers)
    .where(eq(projectMembers.projectId, projectId));
}

describe('GET /orgs/:orgId/projects/:projectId/members', () => {
  it('lists assignments by assignment date then user id, with the member details and org role', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const early = new Date('2026-02-01T08:00:00.000Z');
    const late = new Date('2026-03-01T08:00:00.000Z');
    const [first, second] = [team.officer, team.viewer].sort((a, b) => a.id.localeCompare(b.id));
    await t.database.db.insert(projectMembers).values([
      { orgId: team.org.id, projectId: project.id, userId: team.reporter.id, assignedAt: late },
      { orgId: team.org.id, projectId: project.id, userId: second!.id, assignedAt: early },
      { orgId: team.org.id, projectId: project.id, userId: first!.id, assignedAt: early },
    ]);

    const res = await call(t.app, 'GET', membersUrl(project.id), { as: team.admin });
    expect(res.status).toBe(200);
    const item = (user: typeof team.admin, role: string, at: Date) => ({
      userId: user.id,
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      role,
      assignedAt: at.toISOString(),
    });
    const roleOf = (user: typeof team.admin) => (user === team.officer ? 'me_officer' : 'viewer');
    expect(res.body).toEqual([
      item(first!, roleOf(first!), early),
      item(second!, roleOf(second!), early),
      item(team.reporter, 'reporter', late),
    ]);

    const paged = await call(t.app, 'GET', `${membersUrl(project.id)}?page=2&limit=2`, { as: team.viewer });
    expect(paged.status).toBe(200);
    expect(paged.body).toEqual({
      data: [item(team.reporter, 'reporter', late)],
      meta: { total: 3, page: 2, limit: 2, totalPages: 2 },
    });
    const firstPage = await call(t.app, 'GET', `${membersUrl(project.id)}?limit=1`, { as: team.officer });
    expect(firstPage.body).toEqual({
      data: [item(first!, roleOf(first!), early)],
      meta: { total: 3, page: 1, limit: 1, totalPages: 3 },
    });
  });

  it('returns an empty array for a project nobody is assigned to, and an empty page with envelope', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const res = await call(t.app, 'GET', membersUrl(project.id), { as: team.viewer });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    const paged = await call(t.app, 'GET', `${membersUrl(project.id)}?page=1`, { as: team.viewer });
    expect(paged.body).toEqual({ data: [], meta: { total: 0, page: 1, limit: 20, totalPages: 0 } });
  });

  it('lets every role read; a reporter only a project assigned to them', async () => {
    const assigned = await createProject(t.database.db, team.org.id, 'Assigned');
    const other = await createProject(t.database.db, team.org.id, 'Not assigned');
    await assignProject(t.database.db, team.org.id, assigned.id, team.reporter.id);
    for (const user of [team.admin, team.officer, team.viewer, team.reporter]) {
      const res = await call(t.app, 'GET', membersUrl(assigned.id), { as: user });
      expect(res.status).toBe(200);
      expect(res.body.map((a: { userId: string }) => a.userId)).toEqual([team.reporter.id]);
    }
    for (const user of [team.admin, team.officer, team.viewer]) {
      expect((await call(t.app, 'GET', membersUrl(other.id), { as: user })).status).toBe(200);
    }
    const refused = await call(t.app, 'GET', membersUrl(other.id), { as: team.reporter });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(notAssigned(ALL_ROLES));
  });

  it('refuses outsiders with 403 and a missing session with 401', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const outsider = await call(t.app, 'GET', membersUrl(project.id), { as: team.outsider });
    expect(outsider.status).toBe(403);
    expect(outsider.body).toEqual(notAMember(ALL_ROLES));
    const anonymous = await call(t.app, 'GET', membersUrl(project.id));
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(UNAUTHORIZED);
  });

  it('answers 404 for a project of another organization or a missing one, even to a reporter', async () => {
    const foreign = await createProject(t.database.db, team.outsiderOrg.id);
    for (const id of [foreign.id, MISSING_ID]) {
      for (const user of [team.admin, team.reporter]) {
        const res = await call(t.app, 'GET', membersUrl(id), { as: user });
        expect(res.status).toBe(404);
        expect(res.body).toEqual(notFoundBody('Project'));
      }
    }
  });

  it('rejects a non-UUID project id and bad paging parameters with 400', async () => {
    const bad = await call(t.app, 'GET', membersUrl('not-a-uuid'), { as: team.admin });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(badRequestAt(['path', '/projectId', 'format', 'projectId must be a UUID']));
    const project = await createProject(t.database.db, team.org.id);
    for (const [query, path, rule, message] of [
      ['limit=0', '/limit', 'minimum', 'limit must not be less than 1'],
      ['limit=101', '/limit', 'maximum', 'limit must not be greater than 100'],
      ['page=0', '/page', 'minimum', 'page must not be less than 1'],
    ] as const) {
      const res = await call(t.app, 'GET', `${membersUrl(project.id)}?${query}`, { as: team.admin });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(badRequestAt(['query', path, rule, message]));
    }
  });
});

describe('POST /orgs/:orgId/projects/:projectId/members', () => {
  it('assigns a member (201) and lets an assigned reporter into the project', async () => {
    const project = await createProject(t.database.db, team.org.id);
    expect((await call(t.app, 'GET', membersUrl(project.id), { as: team.reporter })).status).toBe(403);

    const res = await call(t.app, 'POST', membersUrl(project.id), {
      as: team.admin,
      body: { userId: team.reporter.id },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      userId: team.reporter.id,
      email: team.reporter.email,
      firstName: 'Rita',
      lastName: 'Reporter',
      role: 'reporter',
      assignedAt: expect.stringMatching(TIMESTAMP),
    });

    const list = await call(t.app, 'GET', membersUrl(project.id), { as: team.reporter });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([res.body]);
  });

  it('refuses an assignment that already exists with 409', async () => {
    const project = await createProject(t.database.db, team.org.id);
    await assignProject(t.database.db, team.org.id, project.id, team.officer.id);
    const res = await call(t.app, 'POST', membersUrl(project.id), {
      as: team.admin,
      body: { userId: team.officer.id },
    });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      statusCode: 409,
      message: 'This member is already assigned to the project',
      error: 'Conflict',
      code: 'duplicate',
    });
    expect(await assignmentRows(project.id)).toEqual([{ userId: team.officer.id }]);
  });

  it('answers 404 Member not found for a user outside the organization or no user at all', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const stranger = await registerUser(t.app);
    for (const userId of [team.outsider.id, stranger.id, MISSING_ID]) {
      const res = await call(t.app, 'POST', membersUrl(project.id), { as: team.admin, body: { userId } });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFoundBody('Member'));
    }
    expect(await assignmentRows(project.id)).toEqual([]);
  });

  it('answers 404 Project not found for a project of another organization or a missing one', async () => {
    const foreign = await createProject(t.database.db, team.outsiderOrg.id);
    for (const id of [foreign.id, MISSING_ID]) {
      const res = await call(t.app, 'POST', membersUrl(id), {
        as: team.admin,
        body: { userId: team.viewer.id },
      });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFoundBody('Project'));
    }
    expect(await assignmentRows(foreign.id)).toEqual([]);
  });

  it('rejects a non-UUID project id and every body violation with 400', async () => {
    const bad = await call(t.app, 'POST', membersUrl('nope'), {
      as: team.admin,
      body: { userId: team.viewer.id },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(badRequestAt(['path', '/projectId', 'format', 'projectId must be a UUID']));

    const project = await createProject(t.database.db, team.org.id);
    const cases: [unknown, string, string, string][] = [
      [{}, '/userId', 'required', 'userId is required'],
      [{ userId: 'abc' }, '/userId', 'format', 'userId must be a UUID'],
      [
        { userId: team.viewer.id, role: 'reporter' },
        '/role',
        'additionalProperties',
        'property role should not exist',
      ],
    ];
    for (const [body, path, rule, message] of cases) {
      const res = await call(t.app, 'POST', membersUrl(project.id), { as: team.admin, body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(badRequestAt(['body', path, rule, message]));
    }
    expect(await assignmentRows(project.id)).toEqual([]);
  });

  it('is for org_admins only: other roles and outsiders get 403, no session 401', async () => {
    const project = await createProject(t.database.db, team.org.id);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      const res = await call(t.app, 'POST', membersUrl(project.id), {
        as: user,
        body: { userId: team.viewer.id },
      });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(refusedTo(team, user, ADMINS));
    }
    const anonymous = await call(t.app, 'POST', membersUrl(project.id), { body: { userId: team.viewer.id } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(UNAUTHORIZED);
    expect(await assignmentRows(project.id)).toEqual([{ userId: team.reporter.id }]);
  });
});

describe('DELETE /orgs/:orgId/projects/:projectId/members/:userId', () => {
  it('ends an assignment (204) and takes the project away from a reporter', async () => {
    const project = await createProject(t.database.db, team.org.id);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    await assignProject(t.database.db, team.org.id, project.id, team.viewer.id);
    const res = await call(t.app, 'DELETE', `${membersUrl(project.id)}/${team.reporter.id}`, {
      as: team.admin,
    });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect(await assignmentRows(project.id)).toEqual([{ userId: team.viewer.id }]);
    const list = await call(t.app, 'GET', membersUrl(project.id), { as: team.reporter });
    expect(list.status).toBe(403);
    expect(list.body).toEqual(notAssigned(ALL_ROLES));

    const again = await call(t.app, 'DELETE', `${membersUrl(project.id)}/${team.reporter.id}`, {
      as: team.admin,
    });
    expect(again.status).toBe(404);
    expect(again.body).toEqual(notFoundBody('Assignment'));
  });

  it('answers 404 for a member never assigned, a project of another organization or a missing one', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const never = await call(t.app, 'DELETE', `${membersUrl(project.id)}/${team.officer.id}`, {
      as: team.admin,
    });
    expect(never.status).toBe(404);
    expect(never.body).toEqual(notFoundBody('Assignment'));

    const foreign = await createProject(t.database.db, team.outsiderOrg.id);
    await assignProject(t.database.db, team.outsiderOrg.id, foreign.id, team.outsider.id);
    for (const id of [foreign.id, MISSING_ID]) {
      const res = await call(t.app, 'DELETE', `${membersUrl(id)}/${team.outsider.id}`, { as: team.admin });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFoundBody('Project'));
    }
    expect(await assignmentRows(foreign.id)).toEqual([{ userId: team.outsider.id }]);
  });

  it('rejects non-UUID path ids with 400', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const badUser = await call(t.app, 'DELETE', `${membersUrl(project.id)}/someone`, { as: team.admin });
    expect(badUser.status).toBe(400);
    expect(badUser.body).toEqual(badRequestAt(['path', '/userId', 'format', 'userId must be a UUID']));
    const badProject = await call(t.app, 'DELETE', `${membersUrl('x')}/${team.viewer.id}`, {
      as: team.admin,
    });
    expect(badProject.status).toBe(400);
    expect(badProject.body.message).toEqual(['projectId must be a UUID']);
  });

  it('is for org_admins only: other roles (even the assigned one) and outsiders get 403, no session 401', async () => {
    const project = await createProject(t.database.db, team.org.id);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const url = `${membersUrl(project.id)}/${team.reporter.id}`;
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      const res = await call(t.app, 'DELETE', url, { as: user });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(refusedTo(team, user, ADMINS));
    }
    const anonymous = await call(t.app, 'DELETE', url);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(UNAUTHORIZED);
    expect(await assignmentRows(project.id)).toEqual([{ userId: team.reporter.id }]);
  });
});

describe('leaving the organization', () => {
  it("ends the member's assignments, which do not come back when they rejoin", async () => {
    const db = t.database.db;
    const leaver = await registerUser(t.app);
    await addMember(db, team.org.id, leaver.id, 'reporter');
    const a = await createProject(db, team.org.id, 'A');
    const b = await createProject(db, team.org.id, 'B');
    await assignProject(db, team.org.id, a.id, leaver.id);
    await assignProject(db, team.org.id, b.id, leaver.id);
    await assignProject(db, team.org.id, a.id, team.viewer.id);

    const res = await call(t.app, 'DELETE', `/orgs/${team.org.id}/members/${leaver.id}`, { as: team.admin });
    expect(res.status).toBe(204);
    expect(await assignmentRows(a.id)).toEqual([{ userId: team.viewer.id }]);
    expect(await assignmentRows(b.id)).toEqual([]);
    const list = await call(t.app, 'GET', membersUrl(a.id), { as: team.admin });
    expect(list.body.map((m: { userId: string }) => m.userId)).toEqual([team.viewer.id]);

    await addMember(db, team.org.id, leaver.id, 'reporter');
    const back = await call(t.app, 'GET', membersUrl(a.id), { as: leaver });
    expect(back.status).toBe(403);
    expect(back.body).toEqual(notAssigned(ALL_ROLES));
  });
});

describe('project-scope helpers', () => {
  it('visibility sets no limit for roles other than reporter', () => {
    for (const role of ['org_admin', 'me_officer', 'viewer'] as const) {
      const member: Member = { orgId: team.org.id, userId: team.admin.id, role };
      expect(visibleProjects(member)).toBeUndefined();
    }
  });

  it("visibility limits a reporter's project query to the projects assigned to them in this org", async () => {
    const db = t.database.db;
    const user = await registerUser(t.app);
    await addMember(db, team.org.id, user.id, 'reporter');
    await addMember(db, team.outsiderOrg.id, user.id, 'reporter');
    const [mine, mineToo, notMine, elsewhere] = await Promise.all([
      createProject(db, team.org.id, 'Mine'),
      createProject(db, team.org.id, 'Mine too'),
      createProject(db, team.org.id, 'Not mine'),
      createProject(db, team.outsiderOrg.id, 'Elsewhere'),
    ]);
    await assignProject(db, team.org.id, mine.id, user.id);
    await assignProject(db, team.org.id, mineToo.id, user.id);
    await assignProject(db, team.org.id, notMine.id, team.reporter.id);
    await assignProject(db, team.outsiderOrg.id, elsewhere.id, user.id);
    const member: Member = { orgId: team.org.id, userId: user.id, role: 'reporter' };
    const expected = [mine.id, mineToo.id].sort();

    const scoped = async (who: Member, inOrgOnly: boolean) =>
      (
        await db
          .select({ id: projects.id })
          .from(projects)
          .where(and(inOrgOnly ? eq(projects.orgId, team.org.id) : undefined, visibleProjects(who)))
          .orderBy(asc(projects.id))
      ).map((p) => p.id);
    expect(await scoped(member, true)).toEqual(expected);
    // Without the org filter the scope still keeps assignments of other organizations out.
    expect(await scoped(member, false)).toEqual(expected);
    expect(await scoped({ orgId: team.org.id, userId: randomUUID(), role: 'reporter' }, true)).toEqual([]);
  });

  it('ensureProjectAccess refuses an unassigned reporter with a 403 AppError and passes everyone else', async () => {
    const db = t.database.db;
    const project = await createProject(db, team.org.id);
    const other = await createProject(db, team.org.id);
    await assignProject(db, team.org.id, project.id, team.reporter.id);
    const reporter: Member = { orgId: team.org.id, userId: team.reporter.id, role: 'reporter' };

    await expect(ensureProjectAccess(db, reporter, project.id)).resolves.toBeUndefined();
    const refusal = ensureProjectAccess(db, reporter, other.id);
    await expect(refusal).rejects.toBeInstanceOf(AppError);
    await expect(refusal).rejects.toMatchObject({
      statusCode: 403,
      messages: FORBIDDEN_MESSAGE,
      refusal: { reason: 'project_not_assigned' },
    });

    // An assignment in another organization does not open this one.
    const foreignMember: Member = { orgId: team.outsiderOrg.id, userId: team.reporter.id, role: 'reporter' };
    await expect(ensureProjectAccess(db, foreignMember, project.id)).rejects.toBeInstanceOf(AppError);

    for (const [user, role] of [
      [team.admin, 'org_admin'],
      [team.officer, 'me_officer'],
      [team.viewer, 'viewer'],
    ] as const) {
      await expect(
        ensureProjectAccess(db, { orgId: team.org.id, userId: user.id, role }, other.id),
      ).resolves.toBeUndefined();
    }
  });
});
