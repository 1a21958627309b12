/**
 * Races the contract must survive, besides those tested beside their modules (200 concurrent public
 * submissions: forms/submissions.test.ts; approve against reject and double approvals:
 * indicator-reports/indicator-reports-transitions.test.ts; concurrent invitations of one address:
 * http-conventions.test.ts): many registrations of one email, many accepts of one invitation.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedEvents } from '../src/modules/feed/feed.tables.js';
import { users } from '../src/modules/auth/auth.tables.js';
import { orgMembers } from '../src/modules/orgs/orgs.tables.js';
import { buildTestAppWithMail, type MailTestApp } from './helpers/app.js';
import { createTeam, registerUser, uniqueEmail, type Team } from './helpers/factories.js';
import { call, expectError, notFoundBody } from './helpers/http.js';
import { invitedToken } from './helpers/invitations.js';

let t: MailTestApp;
let team: Team;

beforeAll(async () => {
  t = await buildTestAppWithMail();
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

const ROUNDS = 3;
const RACERS = 12;

describe('registration races', () => {
  it('creates one account when many register the same email at once: one 201, the rest 409', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const email = uniqueEmail('race');
      const results = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          call(t.app, 'POST', '/auth/register', {
            // Cases differ: the address is one once normalized.
            body: {
              email: i % 2 ? email.toUpperCase() : email,
              password: `correct horse ${i}`,
              firstName: 'Amina',
              lastName: `Racer ${i}`,
            },
          }),
        ),
      );
      const statuses = results.map((res) => res.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(RACERS - 1);
      const rows = await t.database.db.select().from(users).where(eq(users.email, email));
      expect(rows).toHaveLength(1);
      const winner = results.find((res) => res.status === 201)!;
      expect(rows[0]!.id).toBe(winner.body.id);
      // The one password that counts is the winner's.
      const index = results.indexOf(winner);
      const login = await call(t.app, 'POST', '/auth/login', {
        body: { email, password: `correct horse ${index}` },
      });
      expect(login.status).toBe(200);
    }
  });
});

describe('invitation races', () => {
  it('lets one of many simultaneous accepts of one invitation in: one membership, one feed event', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const invitee = await registerUser(t.app, { email: uniqueEmail('invitee') });
      const { token } = await invitedToken(t.app, t.smtp, team.admin, team.org.id, invitee.email, 'reporter');
      const results = await Promise.all(
        Array.from({ length: RACERS }, () =>
          call(t.app, 'POST', `/invitations/${token}/accept`, { as: invitee }),
        ),
      );
      const accepted = results.filter((res) => res.status === 200);
      expect(accepted).toHaveLength(1);
      expect(accepted[0]!.body).toMatchObject({ organization: { id: team.org.id }, role: 'reporter' });
      // The others find the invitation used, as a late accept would.
      for (const res of results.filter((r) => r.status !== 200)) expectError(res, notFoundBody('Invitation'));
      const rows = await t.database.db
        .select()
        .from(orgMembers)
        .where(and(eq(orgMembers.orgId, team.org.id), eq(orgMembers.userId, invitee.id)));
      expect(rows.map((row) => row.role)).toEqual(['reporter']);
      const joined = await t.database.db
        .select()
        .from(feedEvents)
        .where(and(eq(feedEvents.orgId, team.org.id), eq(feedEvents.actorId, invitee.id)));
      expect(joined.map((event) => event.type)).toEqual(['member.joined']);
    }
  });
});
