import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Db } from '../../src/db/client.js';
import { orgMembers, type OrgRole } from '../../src/modules/orgs/orgs.tables.js';
import { donors } from '../../src/modules/donors/donors.tables.js';
import { programs } from '../../src/modules/programs/programs.tables.js';
import { projectMembers, projects } from '../../src/modules/projects/projects.tables.js';
import { call, sessionCookie } from './http.js';

export interface TestUser {
  id: string;
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  token: string;
}

export const uniqueEmail = (prefix = 'user') => `${prefix}-${randomUUID().slice(0, 8)}@example.org`;
export const uniqueCode = (prefix = 'org') => `${prefix}-${randomUUID().slice(0, 8)}`;

export async function registerUser(
  app: FastifyInstance,
  overrides: Partial<TestUser> = {},
): Promise<TestUser> {
  const input = {
    email: overrides.email ?? uniqueEmail(),
    password: overrides.password ?? 'correct horse battery',
    firstName: overrides.firstName ?? 'Amina',
    lastName: overrides.lastName ?? 'Okafor',
  };
  const res = await call(app, 'POST', '/auth/register', { body: input });
  expect(res.status).toBe(201);
  const token = sessionCookie(res);
  if (!token) throw new Error('register set no cookie');
  return { ...input, id: res.body.id as string, token };
}

export async function createOrg(app: FastifyInstance, owner: TestUser, name = 'Hope Relief') {
  const res = await call(app, 'POST', '/orgs', { as: owner, body: { name, code: uniqueCode() } });
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string; code: string };
}

/** Adds a member directly, as an accepted invitation would. */
export async function addMember(db: Db, orgId: string, userId: string, role: OrgRole): Promise<void> {
  await db.insert(orgMembers).values({ orgId, userId, role });
}

export interface Team {
  org: { id: string; name: string; code: string };
  admin: TestUser;
  officer: TestUser;
  reporter: TestUser;
  viewer: TestUser;
  /** Admin of another organization: a stranger to this one. */
  outsider: TestUser;
  outsiderOrg: { id: string; name: string; code: string };
}

/** An organization with one member per role, and an outsider with an organization of their own. */
export async function createTeam(app: FastifyInstance, db: Db): Promise<Team> {
  const [admin, officer, reporter, viewer, outsider] = await Promise.all([
    registerUser(app, { firstName: 'Ada', lastName: 'Admin' }),
    registerUser(app, { firstName: 'Omar', lastName: 'Officer' }),
    registerUser(app, { firstName: 'Rita', lastName: 'Reporter' }),
    registerUser(app, { firstName: 'Victor', lastName: 'Viewer' }),
    registerUser(app, { firstName: 'Otto', lastName: 'Outsider' }),
  ]);
  const org = await createOrg(app, admin);
  const outsiderOrg = await createOrg(app, outsider, 'Other NGO');
  await addMember(db, org.id, officer.id, 'me_officer');
  await addMember(db, org.id, reporter.id, 'reporter');
  await addMember(db, org.id, viewer.id, 'viewer');
  return {
    org,
    admin: admin,
    officer: officer,
    reporter: reporter,
    viewer: viewer,
    outsider: outsider,
    outsiderOrg,
  };
}

/** A program row inserted directly (tests of modules below programs). */
export async function createProgram(db: Db, orgId: string, name = 'Water for All'): Promise<{ id: string }> {
  const [program] = await db
    .insert(programs)
    .values({ orgId, name, startDate: '2026-01-01', endDate: '2028-12-31' })
    .returning({ id: programs.id });
  return program!;
}

/** A project row inserted directly, with a program of its own. */
export async function createProject(
  db: Db,
  orgId: string,
  name = 'Clean Water',
): Promise<{ id: string; name: string }> {
  const program = await createProgram(db, orgId, `${name} program`);
  const [project] = await db
    .insert(projects)
    .values({
      orgId,
      programId: program.id,
      name,
      code: uniqueCode('p'),
      currency: 'USD',
      startDate: '2026-01-01',
      endDate: '2027-12-31',
    })
    .returning();
  return { id: project!.id, name: project!.name };
}

/** A donor row inserted directly (the donors API is tested in its own module). */
export async function insertDonor(db: Db, orgId: string, name = 'USAID') {
  const [donor] = await db
    .insert(donors)
    .values({ orgId, name, code: uniqueCode('d'), type: 'bilateral' })
    .returning();
  return donor!;
}

export async function assignProject(db: Db, orgId: string, projectId: string, userId: string): Promise<void> {
  await db.insert(projectMembers).values({ orgId, projectId, userId });
}
