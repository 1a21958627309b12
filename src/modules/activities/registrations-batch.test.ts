import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postActivity, person, register, registrationsUrl } from '../../../test/helpers/activities.js';
import { buildCountingTestApp } from '../../../test/helpers/app.js';
import { createProject, createTeam, type Team, type TestUser } from '../../../test/helpers/factories.js';
import {
  badRequest,
  call,
  expectError,
  expectViolations,
  MISSING_ID,
  notFoundBody,
  TIMESTAMP,
} from '../../../test/helpers/http.js';
import { rowsOf, type Db } from '../../db/client.js';
import { feedEvents } from '../feed/feed.tables.js';
import { activityParticipants, participants } from './activities.tables.js';
import { nationalIdIndex, sealedContact } from './participant-sealing.js';

let t: Awaited<ReturnType<typeof buildCountingTestApp>>;
let team: Team;

beforeAll(async () => {
  t = await buildCountingTestApp();
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

async function newActivity(title = 'Hygiene training') {
  const project = await createProject(t.database.db, team.org.id);
  const activity = await postActivity(t.app, team.officer, team.org.id, project.id, { title });
  return { ...activity, projectId: project.id };
}

const post = (activityId: string, participants: unknown, as: TestUser = team.officer) =>
  call(t.app, 'POST', registrationsUrl(team.org.id, activityId), { as, body: { participants } });

/** Rows of the organization in the tables a batch writes to. */
async function stored() {
  const org = team.org.id;
  const result = await t.database.db.execute(sql`SELECT
    (SELECT count(*)::int FROM participants WHERE org_id = ${org}) AS people,
    (SELECT count(*)::int FROM activity_participants WHERE org_id = ${org}) AS registrations,
    (SELECT count(*)::int FROM feed_events WHERE org_id = ${org} AND type = 'participant.registered') AS events`);
  return rowsOf<{ people: number; registrations: number; events: number }>(result)[0]!;
}

const names = (body: { participant: { firstName: string } }[]) => body.map((r) => r.participant.firstName);

const registrationRows = (activityId: string) =>
  t.database.db.select().from(activityParticipants).where(eq(activityParticipants.activityId, activityId));

const eventsAbout = (activityId: string) =>
  t.database.db
    .select()
    .from(feedEvents)
    .where(eq(feedEvents.subjectId, activityId))
    .orderBy(asc(feedEvents.occurredAt));

/**
 * Runs the requests while the test's own transaction holds a row they all need, and lets it go (commits
 * it) once they all wait for it: their other rows are then written at the very same time.
 */
async function heldUp<T>(hold: (tx: Db) => Promise<unknown>, start: () => Promise<T>[]): Promise<T[]> {
  let requests: Promise<T>[] = [];
  await t.database.db.transaction(async (tx) => {
    await hold(tx);
    requests = start();
    requests.forEach((request) => void request.catch(() => undefined));
    // PGlite runs one transaction at a time: the requests simply wait for this one.
    for (let tries = 0; t.database.driver === 'pg' && tries < 200; tries += 1) {
      // Every request waits on a lock, on this transaction's or on the other request's (which waits on
      // this one): counted in this file's own database.
      const waiting = await tx.execute(sql`SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`);
      if (rowsOf<{ n: number }>(waiting)[0]!.n >= requests.length) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  return Promise.all(requests);
}

const held = {
  firstName: 'Held',
  lastName: 'Back',
  sex: 'female',
  village: 'Kibera',
  district: 'Nairobi',
} as const;

/** Where the database finds a national id: its blind index under the test key. */
const indexOf = (nationalId: string) => nationalIdIndex(t.config.piiKeyring.current, team.org.id, nationalId);

/** The participants of the organization stored under this national id. */
const peopleWithNationalId = (nationalId: string) =>
  t.database.db
    .select()
    .from(participants)
    .where(and(eq(participants.orgId, team.org.id), eq(participants.nationalIdIndex, indexOf(nationalId))));

const isoDay = (offsetDays: number) =>
  new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

describe('POST /orgs/:orgId/activities/:id/participants (batch)', () => {
  it('registers new people and existing participants, answering in batch order', async () => {
    const earlier = await newActivity();
    const [known] = await register(t.app, team.officer, team.org.id, earlier.id, [
      person({ firstName: 'Mercy', lastName: 'Achieng' }),
    ]);
    const activity = await newActivity();
    const res = await post(activity.id, [
      person({ firstName: 'Zawadi', lastName: 'Wanjiru', role: ' facilitator ', attended: true }),
      { participantId: known!.participantId, role: 'leader' },
      {
        firstName: ' Amani ',
        lastName: 'Otieno',
        sex: 'male',
        phone: ' +254 700 000 001 ',
        nationalId: '  KE-AM-1  ',
        village: ' Kisumu Ndogo ',
        district: 'Kisumu',
      },
    ]);
    expect(res.status).toBe(201);
    expect(names(res.body)).toEqual(['Zawadi', 'Mercy', 'Amani']);
    const [zawadi, mercy, amani] = res.body;
    expect(zawadi).toMatchObject({ role: 'facilitator', attended: true });
    expect(mercy).toMatchObject({ participantId: known!.participantId, role: 'leader', attended: false });
    expect(amani).toEqual({
      id: expect.any(String),
      activityId: activity.id,
      participantId: amani.participant.id,
      role: 'attendee',
      attended: false,
      registeredAt: expect.stringMatching(TIMESTAMP),
      participant: {
        id: expect.any(String),
        orgId: team.org.id,
        firstName: 'Amani',
        lastName: 'Otieno',
        sex: 'male',
        dateOfBirth: null,
        age: null,
        ageBand: 'unknown',
        phone: '+254 700 000 001',
        nationalId: 'KE-AM-1',
        village: 'Kisumu Ndogo',
        district: 'Kisumu',
        householdMembers: [],
        erasedAt: null,
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP),
      },
    });
    const rows = await registrationRows(activity.id);
    expect(rows.map((row) => row.id).sort()).toEqual(res.body.map((r: { id: string }) => r.id).sort());
  });

  it('registers 500 new people in fewer than 20 statements', async () => {
    const activity = await newActivity();
    const batch = Array.from({ length: 500 }, (_, i) =>
      person(i % 2 === 0 ? { nationalId: `KE-BULK-${i}` } : {}),
    );
    let res: Awaited<ReturnType<typeof post>> | undefined;
    const statements = await t.during(async () => {
      res = await post(activity.id, batch);
    });
    expect(res!.status).toBe(201);
    expect(res!.body).toHaveLength(500);
    expect(names(res!.body)).toEqual(batch.map((p) => p.firstName));
    expect(await registrationRows(activity.id)).toHaveLength(500);
    expect(statements).toBeGreaterThan(0);
    expect(statements).toBeLessThan(20);
  });

  it('takes 1 to 500 items: 0 or 501 is a 400 and nothing is stored', async () => {
    const activity = await newActivity();
    const before = await stored();
    expectError(await post(activity.id, []), badRequest('participants must contain at least 1 items'));
    const tooMany = [...Array(501)].map(() => person());
    expectError(await post(activity.id, tooMany), badRequest('participants must contain at most 500 items'));
    const missing = await call(t.app, 'POST', registrationsUrl(team.org.id, activity.id), {
      as: team.officer,
      body: {},
    });
    expectError(missing, badRequest('participants is required'));
    expect(await stored()).toEqual(before);
  });

  it('lists every bad item by index in one 400 and stores none of the batch', async () => {
    const earlier = await newActivity();
    const [known] = await register(t.app, team.officer, team.org.id, earlier.id, [person()]);
    const activity = await newActivity();
    const before = await stored();
    const res = await post(activity.id, [
      person(),
      person({ sex: 'unknown' }),
      person({ dateOfBirth: isoDay(1) }),
      { participantId: known!.participantId, firstName: 'Grace', nationalId: 'KE-1' },
      { firstName: 'Amani', sex: 'male' },
      { participantId: 'not-a-uuid' },
      person({ dateOfBirth: '1850-01-01' }),
      person({ dateOfBirth: '2020-02-30' }),
      { participantId: known!.participantId, role: '  ', attended: 'yes', email: 'a@b.org' },
      person({ firstName: 'x'.repeat(101) }),
    ]);
    expectViolations(
      res,
      'participants.1.sex must be one of female, male, other',
      'participants.2.dateOfBirth must not be in the future',
      "participants.3 gives participantId and firstName, nationalId: send an existing participant's id or a new participant's fields, not both",
      'participants.4.lastName is required',
      'participants.4.village is required',
      'participants.4.district is required',
      'participants.5.participantId must be a UUID',
      'participants.6.dateOfBirth must be at most 130 years ago',
      'participants.7.dateOfBirth must be a valid date (YYYY-MM-DD)',
      'participants.8.role should not be empty',
      'participants.8.attended must be a boolean',
      'property participants.8.email should not exist',
      'participants.9.firstName must be at most 100 characters',
    );
    expect(await stored()).toEqual(before);
    expect(await registrationRows(activity.id)).toEqual([]);
  });

  it("answers 404 for an unknown participantId or another organization's, storing nothing", async () => {
    const foreignProject = await createProject(t.database.db, team.outsiderOrg.id);
    const foreignActivity = await postActivity(t.app, team.outsider, team.outsiderOrg.id, foreignProject.id);
    const [foreign] = await register(t.app, team.outsider, team.outsiderOrg.id, foreignActivity.id, [
      person(),
    ]);
    const activity = await newActivity();
    const before = await stored();
    for (const participantId of [MISSING_ID, foreign!.participantId]) {
      const res = await post(activity.id, [
        person({ nationalId: `KE-ATOM-${participantId}` }),
        { participantId },
      ]);
      expectError(res, notFoundBody('Participant'));
    }
    expect(await stored()).toEqual(before);
    expect(await registrationRows(foreignActivity.id)).toHaveLength(1);
  });

  it('reuses the participant a known nationalId names (trimmed), keeping their stored fields', async () => {
    const first = await newActivity();
    const [original] = await register(t.app, team.officer, team.org.id, first.id, [
      person({ firstName: 'Halima', lastName: 'Yusuf', nationalId: 'KE-HY-77', phone: '+254 711 111 111' }),
    ]);
    const second = await newActivity();
    const before = await stored();
    const [again] = await register(t.app, team.officer, team.org.id, second.id, [
      {
        firstName: 'Hali',
        lastName: 'Other',
        sex: 'other',
        dateOfBirth: '2001-01-01',
        phone: '+254 799 999 999',
        nationalId: '  KE-HY-77 ',
        village: 'Elsewhere',
        district: 'Mombasa',
      },
    ]);
    expect(again!.participantId).toBe(original!.participantId);
    expect(again!.participant).toEqual(original!.participant);
    expect(again!.activityId).toBe(second.id);
    expect(await stored()).toEqual({
      ...before,
      registrations: before.registrations + 1,
      events: before.events + 1,
    });
    const rows = await peopleWithNationalId('KE-HY-77');
    expect(rows.map((row) => [row.firstName, row.lastName, row.village])).toEqual([
      ['Halima', 'Yusuf', 'Kibera'],
    ]);
    // Phone and national id are stored sealed, never in clear.
    expect(rows[0]!.nationalId).toMatch(/^v1\.[0-9a-f]{16}\./);
    expect(rows[0]!.phone).toMatch(/^v1\.[0-9a-f]{16}\./);
    expect(JSON.stringify(rows)).not.toContain('KE-HY-77');
    expect(JSON.stringify(rows)).not.toContain('111 111');
  });

  it('changes nothing when someone registered is registered again', async () => {
    const activity = await newActivity();
    const [registration] = await register(t.app, team.officer, team.org.id, activity.id, [
      person({ nationalId: 'KE-TWICE-1', role: 'leader', attended: true }),
    ]);
    const before = await stored();
    const byId = await register(t.app, team.officer, team.org.id, activity.id, [
      { participantId: registration!.participantId, role: 'observer', attended: false },
    ]);
    const byNationalId = await register(t.app, team.officer, team.org.id, activity.id, [
      person({ nationalId: 'KE-TWICE-1' }),
    ]);
    expect(byId).toEqual([registration]);
    expect(byNationalId).toEqual([registration]);
    expect(await stored()).toEqual(before);
    expect(await eventsAbout(activity.id)).toHaveLength(1);
  });

  it('lets the first item for a person in a batch decide role and attendance', async () => {
    const earlier = await newActivity();
    const [known] = await register(t.app, team.officer, team.org.id, earlier.id, [person()]);
    const activity = await newActivity();
    const before = await stored();
    const res = await post(activity.id, [
      { participantId: known!.participantId, role: 'leader', attended: true },
      person({ nationalId: 'KE-DUP-9', role: 'cook' }),
      { participantId: known!.participantId, role: 'observer', attended: false },
      person({ firstName: 'Someone', nationalId: 'KE-DUP-9', role: 'guard', attended: true }),
    ]);
    expect(res.status).toBe(201);
    expect(res.body.map((r: { role: string; attended: boolean }) => [r.role, r.attended])).toEqual([
      ['leader', true],
      ['cook', false],
    ]);
    expect(res.body[0].participantId).toBe(known!.participantId);
    expect(res.body[1].participant.firstName).not.toBe('Someone');
    expect(await stored()).toEqual({
      people: before.people + 1,
      registrations: before.registrations + 2,
      events: before.events + 1,
    });
  });

  it('records one participant.registered event per batch that registers anyone, with the count', async () => {
    const activity = await newActivity('Latrine building');
    const three = [...Array(3)].map(() => person());
    const [first] = await register(t.app, team.officer, team.org.id, activity.id, three);
    const [one] = await register(t.app, team.admin, team.org.id, activity.id, [
      { participantId: first!.participantId },
      person(),
    ]);
    await register(t.app, team.officer, team.org.id, activity.id, [{ participantId: one!.participantId }]);
    const events = await eventsAbout(activity.id);
    expect(events).toEqual([
      {
        id: expect.any(String),
        orgId: team.org.id,
        type: 'participant.registered',
        occurredAt: expect.any(Date),
        actorId: team.officer.id,
        projectId: activity.projectId,
        subjectType: 'activity',
        subjectId: activity.id,
        subjectLabel: 'Latrine building',
        summary: 'Omar Officer registered 3 participants in Latrine building',
      },
      expect.objectContaining({
        actorId: team.admin.id,
        summary: 'Ada Admin registered 1 participant in Latrine building',
      }),
    ]);
  });
});

describe('registration batches at the same time', () => {
  it('makes one person of a nationalId two batches register at the same time', async () => {
    const [left, right] = [await newActivity(), await newActivity()];
    const shared = () => person({ nationalId: 'KE-RACE-42' });
    const [a, b] = await Promise.all([
      post(left.id, [person(), shared()]),
      post(right.id, [shared(), person()], team.admin),
    ]);
    expect([a.status, b.status]).toEqual([201, 201]);
    const people = await peopleWithNationalId('KE-RACE-42');
    expect(people).toHaveLength(1);
    const registrations = await t.database.db
      .select()
      .from(activityParticipants)
      .where(eq(activityParticipants.participantId, people[0]!.id));
    expect(registrations.map((row) => row.activityId).sort()).toEqual([left.id, right.id].sort());
    expect([a.body[1].participantId, b.body[0].participantId]).toEqual([people[0]!.id, people[0]!.id]);
  });

  it('registers two batches of the same new nationalIds in opposite orders, each person once', async () => {
    const [left, right] = [await newActivity(), await newActivity()];
    const ids = Array.from({ length: 21 }, (_, i) => `KE-CROSS-${i}`);
    const batch = (order: string[]) => order.map((nationalId) => person({ nationalId }));
    const [a, b] = await heldUp(
      (tx) =>
        tx.insert(participants).values({
          ...held,
          orgId: team.org.id,
          ...sealedContact(t.config.piiKeyring, team.org.id, { nationalId: 'KE-CROSS-10' }),
        }),
      () => [post(left.id, batch(ids)), post(right.id, batch([...ids].reverse()), team.admin)],
    );
    expect([a!.status, b!.status]).toEqual([201, 201]);
    const [people] = await t.database.db
      .select({ n: count() })
      .from(participants)
      .where(
        and(eq(participants.orgId, team.org.id), inArray(participants.nationalIdIndex, ids.map(indexOf))),
      );
    expect(people!.n).toBe(21);
    expect(await registrationRows(left.id)).toHaveLength(21);
    expect(await registrationRows(right.id)).toHaveLength(21);
  });

  it('registers the same people in one activity from two batches in opposite orders, once each', async () => {
    const earlier = await newActivity();
    const people = [...Array(21)].map(() => person());
    const known = await register(t.app, team.officer, team.org.id, earlier.id, people);
    const items = known.map((r) => ({ participantId: r.participantId }));
    const activity = await newActivity();
    const [a, b] = await heldUp(
      (tx) =>
        tx
          .insert(activityParticipants)
          .values({ orgId: team.org.id, activityId: activity.id, participantId: items[10]!.participantId }),
      () => [post(activity.id, items), post(activity.id, [...items].reverse(), team.admin)],
    );
    expect([a!.status, b!.status]).toEqual([201, 201]);
    expect([a!.body.length, b!.body.length]).toEqual([21, 21]);
    expect(await registrationRows(activity.id)).toHaveLength(21);
  });
});
