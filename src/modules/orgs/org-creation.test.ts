import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, openTestDatabase, type TestApp } from '../../../test/helpers/app.js';
import {
  addMember,
  createTeam,
  registerUser,
  uniqueCode,
  type Team,
  type TestUser,
} from '../../../test/helpers/factories.js';
import {
  badRequestAt,
  call,
  conflictBody,
  expectError,
  sessionCookie,
  TIMESTAMP,
  UNAUTHORIZED,
} from '../../../test/helpers/http.js';
import type { Database } from '../../db/client.js';
import { organizations } from './orgs.tables.js';

/** ORG_CREATION=admins: POST /orgs for org_admins of an organization only. The default app makes the team. */

const CLOSED = {
  statusCode: 403,
  message:
    'On this service, new organizations are created by administrators only: ask an org admin of your ' +
    'organization to invite you to it, or whoever runs the service to create your organization.',
  error: 'Forbidden',
  code: 'org_creation_closed' as const,
};

let database: Database;
let anyone: TestApp;
let admins: TestApp;
let team: Team;

beforeAll(async () => {
  database = await openTestDatabase();
  anyone = await buildTestApp({}, { database, worker: false });
  admins = await buildTestApp({ ORG_CREATION: 'admins' }, { database, worker: false });
  team = await createTeam(anyone.app, database.db);
});
afterAll(async () => {
  await admins?.close();
  await anyone?.close();
  await database?.close();
});

const create = (as: TestUser | null, body: unknown) => call(admins.app, 'POST', '/orgs', { as, body });
const withCode = (code: string) =>
  database.db.select({ id: organizations.id }).from(organizations).where(eq(organizations.code, code));

describe('POST /orgs under ORG_CREATION=admins', () => {
  it('refuses a user who belongs to no organization with 403 org_creation_closed, creating nothing', async () => {
    const newcomer = await registerUser(admins.app);
    const code = uniqueCode();
    const res = await create(newcomer, { name: 'Own NGO', code });
    expectError(res, CLOSED);
    expect(sessionCookie(res)).toBeUndefined();
    expect(await withCode(code)).toEqual([]);
    expect((await call(admins.app, 'GET', '/orgs', { as: newcomer })).body).toEqual([]);
  });

  it('refuses members who are no org_admin anywhere, whatever their role', async () => {
    for (const user of [team.officer, team.reporter, team.viewer]) {
      const code = uniqueCode();
      expectError(await create(user, { name: 'Side NGO', code }), CLOSED);
      expect(await withCode(code)).toEqual([]);
    }
  });

  it('lets an org_admin of an organization create another, becoming its org_admin', async () => {
    const code = uniqueCode();
    const res = await create(team.admin, { name: 'Second NGO', code });
    expect([res.status, res.body]).toEqual([
      201,
      {
        id: expect.any(String),
        name: 'Second NGO',
        code,
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
    ]);
    expect(sessionCookie(res)).toBeDefined();
    const mine = await call(admins.app, 'GET', '/orgs', { as: team.admin });
    expect(mine.body).toContainEqual({ ...res.body, role: 'org_admin' });
  });

  it('reads the role as it is now: an org_admin demoted may not, one promoted may', async () => {
    const member = await registerUser(anyone.app);
    await addMember(database.db, team.org.id, member.id, 'org_admin');
    const setRole = async (role: string) => {
      const res = await call(anyone.app, 'PATCH', `/orgs/${team.org.id}/members/${member.id}`, {
        as: team.admin,
        body: { role },
      });
      expect(res.status).toBe(200);
    };
    await setRole('reporter');
    expectError(await create(member, { name: 'Not Yet', code: uniqueCode() }), CLOSED);
    await setRole('org_admin');
    expect((await create(member, { name: 'Now NGO', code: uniqueCode() })).status).toBe(201);
  });

  it('answers 401 without a session, 400 for a bad body and 409 for a taken code, as before', async () => {
    expectError(await create(null, { name: 'Nobody', code: uniqueCode() }), UNAUTHORIZED);
    expectError(
      await create(team.viewer, { name: 'Bad', code: '-bad' }),
      badRequestAt([
        'body',
        '/code',
        'pattern',
        'code must be 2 to 32 lower-case letters, digits or dashes, starting with a letter or digit',
      ]),
    );
    expectError(
      await create(team.admin, { name: 'Copy', code: team.org.code }),
      conflictBody('An organization with this code already exists'),
    );
  });

  it('is stated with its 403 in the OpenAPI document', async () => {
    const doc = (await call(admins.app, 'GET', '/api/openapi.json')).body;
    const route = doc.paths['/orgs'].post;
    expect(route.description).toContain('`admins`: only a user who is org_admin of an organization already');
    expect(route.responses['403'].description).toContain('org_creation_closed');
  });
});

describe('POST /orgs under ORG_CREATION=anyone (the default)', () => {
  it('lets a user without an organization create one', async () => {
    const newcomer = await registerUser(anyone.app);
    expect(
      (await call(anyone.app, 'POST', '/orgs', { as: newcomer, body: { name: 'Mine', code: uniqueCode() } }))
        .status,
    ).toBe(201);
  });
});
