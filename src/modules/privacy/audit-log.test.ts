import { randomUUID } from 'node:crypto';
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  participantsUrl,
  postActivity,
  person,
  register,
  type ActivityJson,
} from '../../../test/helpers/activities.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createProject, createTeam, type Team, type TestUser } from '../../../test/helpers/factories.js';
import {
  badRequest,
  call,
  expectError,
  TIMESTAMP,
  UNAUTHORIZED,
  ADMINS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { transaction } from '../../db/client.js';
import { pgErrorCode } from '../../db/errors.js';
import { purgeAuditEntries } from './audit-log.repo.js';
import { recordAudit, serviceSource } from './audit-log.js';
import { auditLog } from './privacy.tables.js';

let t: TestApp;
let team: Team;
let activity: ActivityJson;

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
  const project = await createProject(t.database.db, team.org.id);
  activity = await postActivity(t.app, team.officer, team.org.id, project.id);
});
afterAll(() => t.close());

const DAY_MS = 24 * 60 * 60 * 1000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);

const auditUrl = (orgId: string, query: Record<string, string | number> = {}) => {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return `/orgs/${orgId}/audit-log${search ? `?${search}` : ''}`;
};
const auditLogOf = (query: Record<string, string | number> = {}, as: TestUser | null = team.admin) =>
  call(t.app, 'GET', auditUrl(team.org.id, query), { as });

/** Entries inserted as they are, `at` included (the service's own inserts always take now()). */
async function insertEntries(
  entries: { at?: Date; orgId?: string; actorId?: string | null; subjectIds?: string[] }[],
): Promise<number[]> {
  const rows = await t.database.db
    .insert(auditLog)
    .values(
      entries.map((entry) => ({
        orgId: entry.orgId ?? team.org.id,
        at: entry.at ?? new Date(),
        actorId: entry.actorId ?? null,
        actorRole: entry.actorId ? 'org_admin' : null,
        action: 'read' as const,
        route: 'GET /test',
        subjectKind: 'participant' as const,
        subjectIds: entry.subjectIds ?? [],
        count: entry.subjectIds?.length ?? 0,
      })),
    )
    .returning({ id: auditLog.id });
  return rows.map((row) => row.id);
}

/** The SQLSTATE a statement was refused with, or null when it went through. */
async function refusal(work: () => Promise<unknown>): Promise<string | null> {
  try {
    await work();
    return null;
  } catch (err) {
    return pgErrorCode(err).code ?? `not a database error: ${String(err)}`;
  }
}

const ascending = (ids: number[]) => [...ids].sort((a, b) => a - b);
const stillThere = async (ids: number[]) =>
  (await t.database.db.select({ id: auditLog.id }).from(auditLog).where(inArray(auditLog.id, ids)))
    .map((row) => row.id)
    .sort((a, b) => a - b);

describe('the audit log table', () => {
  it('refuses UPDATE, DELETE and TRUNCATE with SQLSTATE 42501', async () => {
    const ids = await insertEntries([{ at: daysAgo(5) }, {}]);
    const { db } = t.database;
    expect(await refusal(() => db.update(auditLog).set({ count: 99 }).where(inArray(auditLog.id, ids)))).toBe(
      '42501',
    );
    expect(await refusal(() => db.delete(auditLog).where(inArray(auditLog.id, ids)))).toBe('42501');
    expect(await refusal(() => db.execute(sql`TRUNCATE audit_log`))).toBe('42501');
    expect(await refusal(() => db.execute(sql`DELETE FROM audit_log`))).toBe('42501');
    expect(await stillThere(ids)).toEqual(ascending(ids));
    const [row] = await db.select().from(auditLog).where(eq(auditLog.id, ids[0]!));
    expect(row?.count).toBe(0);
  });

  it('lets the purge delete only the entries older than the retention', async () => {
    const [old, older, recent, fresh] = await insertEntries([
      { at: daysAgo(11) },
      { at: daysAgo(400) },
      { at: daysAgo(9) },
      {},
    ]);
    // The entries of this file's earlier tests are younger: these two are the only ones past 10 days.
    expect(await purgeAuditEntries(t.database.db, 10 * 86_400)).toBe(2);
    expect(await stillThere([old!, older!, recent!, fresh!])).toEqual(ascending([recent!, fresh!]));
    expect(await purgeAuditEntries(t.database.db, 10 * 86_400)).toBe(0);
  });

  it('refuses to delete a recent entry even with the retention set, and any UPDATE', async () => {
    const [old, recent] = await insertEntries([{ at: daysAgo(30) }, { at: daysAgo(1) }]);
    const { db } = t.database;
    const withRetention = (work: (tx: typeof db) => Promise<unknown>) =>
      refusal(() =>
        transaction(db, async (tx) => {
          await tx.execute(sql`SELECT set_config('mel.audit_retention', '7 days', true)`);
          await work(tx);
        }),
      );
    expect(await withRetention((tx) => tx.delete(auditLog).where(eq(auditLog.id, recent!)))).toBe('42501');
    // One row too recent refuses the whole statement: the old one in it stays too.
    expect(
      await withRetention((tx) => tx.delete(auditLog).where(inArray(auditLog.id, [old!, recent!]))),
    ).toBe('42501');
    expect(
      await withRetention((tx) => tx.update(auditLog).set({ count: 5 }).where(eq(auditLog.id, old!))),
    ).toBe('42501');
    expect(await withRetention((tx) => tx.execute(sql`TRUNCATE audit_log`))).toBe('42501');
    expect(await stillThere([old!, recent!])).toEqual(ascending([old!, recent!]));

    // The setting lasts for its transaction only: afterwards the old entry cannot be deleted either.
    expect(await withRetention(async () => undefined)).toBeNull();
    expect(await refusal(() => db.delete(auditLog).where(eq(auditLog.id, old!)))).toBe('42501');

    expect(await withRetention((tx) => tx.delete(auditLog).where(eq(auditLog.id, old!)))).toBeNull();
    expect(await stillThere([old!, recent!])).toEqual([recent!]);
  });
});

describe('GET /orgs/:orgId/audit-log', () => {
  it('is 401 without a session, 403 to every role but org_admin and to other organizations', async () => {
    expectError(await auditLogOf({}, null), UNAUTHORIZED);
    for (const as of [team.officer, team.reporter, team.viewer, team.outsider]) {
      expectError(await auditLogOf({}, as), refusedTo(team, as, ADMINS));
    }
    // The outsider's own organization answers them.
    expect((await call(t.app, 'GET', auditUrl(team.outsiderOrg.id), { as: team.outsider })).status).toBe(200);
  });

  it('shows who read which participants through the API, newest first', async () => {
    const people = (await register(t.app, team.officer, team.org.id, activity.id, [person(), person()])).map(
      (r) => r.participant.id,
    );
    const listed = await call(t.app, 'GET', `${participantsUrl(team.org.id)}?search=Grace`, {
      as: team.officer,
    });
    expect(listed.status).toBe(200);
    // A viewer gets no personal data: their read is no entry.
    expect((await call(t.app, 'GET', participantsUrl(team.org.id), { as: team.viewer })).status).toBe(200);

    const res = await auditLogOf({ subjectId: people[0]! });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        id: expect.any(Number),
        at: expect.stringMatching(TIMESTAMP),
        actorId: team.officer.id,
        actorRole: 'me_officer',
        tokenId: null,
        tokenName: null,
        ip: '127.0.0.1',
        requestId: expect.any(String),
        action: 'read',
        route: 'GET /orgs/:orgId/participants',
        subjectKind: 'participant',
        subjectIds: expect.arrayContaining(people),
        count: listed.body.length,
        details: { searchWords: 1 },
      },
      expect.objectContaining({
        actorId: team.officer.id,
        route: 'POST /orgs/:orgId/activities/:id/participants',
        subjectIds: people,
        count: 2,
      }),
    ]);
    expect(res.body[0].at >= res.body[1].at).toBe(true);
    const everyone = await auditLogOf({ actorId: team.viewer.id });
    expect(everyone.body).toEqual([]);
  });

  it('orders by time, newest first, then by id', async () => {
    const subject = randomUUID();
    const same = daysAgo(2);
    const ids = await insertEntries([
      { at: daysAgo(3), subjectIds: [subject] },
      { at: daysAgo(1), subjectIds: [subject] },
      { at: same, subjectIds: [subject] },
      { at: same, subjectIds: [subject] },
    ]);
    const tied = ascending([ids[2]!, ids[3]!]).reverse();
    const res = await auditLogOf({ subjectId: subject });
    expect(res.body.map((entry: { id: number }) => entry.id)).toEqual([ids[1], ...tied, ids[0]]);
  });

  it('is a plain array unless paged, then the envelope', async () => {
    const subject = randomUUID();
    const ids = await insertEntries(
      Array.from({ length: 5 }, (_, i) => ({ at: daysAgo(5 - i), subjectIds: [subject] })),
    );
    const newestFirst = [...ids].reverse();
    const plain = await auditLogOf({ subjectId: subject });
    expect(Array.isArray(plain.body)).toBe(true);
    expect(plain.body.map((entry: { id: number }) => entry.id)).toEqual(newestFirst);

    const first = await auditLogOf({ subjectId: subject, page: 1, limit: 2 });
    expect(first.status).toBe(200);
    expect(first.body.meta).toEqual({ total: 5, page: 1, limit: 2, totalPages: 3 });
    expect(first.body.data.map((entry: { id: number }) => entry.id)).toEqual(newestFirst.slice(0, 2));
    const last = await auditLogOf({ subjectId: subject, page: 3, limit: 2 });
    expect(last.body.data.map((entry: { id: number }) => entry.id)).toEqual(newestFirst.slice(4));
    const defaultLimit = await auditLogOf({ subjectId: subject, page: 1 });
    expect(defaultLimit.body.meta).toEqual({ total: 5, page: 1, limit: 20, totalPages: 1 });
  });

  it('filters by actor, by subject (lists included), and by time, bounds inclusive', async () => {
    const [alice, bob] = [randomUUID(), randomUUID()];
    const [one, two, three] = [randomUUID(), randomUUID(), randomUUID()];
    const at = [daysAgo(30), daysAgo(20), daysAgo(10)];
    const [a, b, c] = await insertEntries([
      { at: at[0], actorId: alice, subjectIds: [one] },
      { at: at[1], actorId: bob, subjectIds: [one, two] },
      { at: at[2], actorId: alice, subjectIds: [two, three] },
    ]);
    const ids = async (query: Record<string, string>) => {
      const res = await auditLogOf(query);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.map((entry: { id: number }) => entry.id);
    };
    expect(await ids({ actorId: alice })).toEqual([c, a]);
    expect(await ids({ actorId: bob })).toEqual([b]);
    expect(await ids({ subjectId: one })).toEqual([b, a]);
    expect(await ids({ subjectId: two })).toEqual([c, b]);
    expect(await ids({ subjectId: three })).toEqual([c]);
    expect(await ids({ subjectId: randomUUID() })).toEqual([]);
    expect(await ids({ subjectId: two, actorId: alice })).toEqual([c]);
    expect(await ids({ subjectId: one, from: at[1]!.toISOString() })).toEqual([b]);
    expect(await ids({ subjectId: one, to: at[1]!.toISOString() })).toEqual([b, a]);
    expect(await ids({ subjectId: one, to: new Date(at[1]!.getTime() - 1).toISOString() })).toEqual([a]);
    expect(await ids({ subjectId: two, from: at[1]!.toISOString(), to: at[2]!.toISOString() })).toEqual([
      c,
      b,
    ]);
    expect(await ids({ actorId: alice, from: at[1]!.toISOString(), to: at[1]!.toISOString() })).toEqual([]);
    // An offset other than Z names the same instant.
    expect(await ids({ subjectId: three, from: '2000-01-01T02:00:00+02:00' })).toEqual([c]);
  });

  // `at` is stored to the microsecond but shown to the millisecond: `to` set to an entry's `at` as shown
  // must take the entry in (on PostgreSQL every entry the service writes has microseconds).
  it('includes in `to` an entry whose `at` is the instant shown, microseconds aside', async () => {
    const subject = randomUUID();
    await t.database.db.insert(auditLog).values({
      orgId: team.org.id,
      at: sql`'2025-06-01T10:00:00.123456Z'::timestamptz`,
      action: 'read',
      route: 'GET /test',
      subjectKind: 'participant',
      subjectIds: [subject],
      count: 1,
    });
    const [entry] = (await auditLogOf({ subjectId: subject })).body as { at: string }[];
    expect(entry?.at).toBe('2025-06-01T10:00:00.123Z');
    expect((await auditLogOf({ subjectId: subject, from: entry!.at })).body).toHaveLength(1);
    expect((await auditLogOf({ subjectId: subject, to: entry!.at })).body).toHaveLength(1);
  });

  it('refuses from after to, malformed ids and malformed instants with 400', async () => {
    expectError(
      await auditLogOf({ from: '2026-02-02T00:00:00Z', to: '2026-02-01T00:00:00Z' }),
      badRequest('from must not be after to'),
    );
    expect((await auditLogOf({ from: '2026-02-01T00:00:00Z', to: '2026-02-01T00:00:00Z' })).status).toBe(200);
    for (const query of [
      { actorId: 'not-a-uuid' } as Record<string, string | number>,
      { subjectId: '1234' },
      { from: 'yesterday' },
      { to: '2026-13-01T00:00:00Z' },
      { page: 0 },
      { limit: 101 },
    ]) {
      const res = await auditLogOf(query);
      expect([JSON.stringify(query), res.status]).toEqual([JSON.stringify(query), 400]);
    }
    expect((await call(t.app, 'GET', '/orgs/not-a-uuid/audit-log', { as: team.admin })).status).toBe(400);
  });

  it('refuses with 400, not 500, instants a timestamp cannot hold, and those before 1970', async () => {
    // Year 0 and a leap second are no instants of the calendar (src/http/schemas/validation.ts).
    expectError(
      await auditLogOf({ from: '0000-01-01T00:00:00Z' }),
      badRequest('from must be a valid ISO 8601 timestamp'),
    );
    expectError(
      await auditLogOf({ to: '2016-12-31T23:59:60Z' }),
      badRequest('to must be a valid ISO 8601 timestamp'),
    );
    expectError(
      await auditLogOf({ from: '1969-12-31T23:59:59Z' }),
      badRequest('from must be an instant from 1970 to 9999'),
    );
  });

  it("never shows another organization's entries, whatever the filter", async () => {
    const theirs = (
      await register(
        t.app,
        team.outsider,
        team.outsiderOrg.id,
        (
          await postActivity(
            t.app,
            team.outsider,
            team.outsiderOrg.id,
            (await createProject(t.database.db, team.outsiderOrg.id)).id,
          )
        ).id,
        [person()],
      )
    )[0]!.participant.id;
    await recordAudit(t.database.db, serviceSource(team.outsiderOrg.id, 'test'), {
      action: 'erase',
      subjectKind: 'participant',
      subjectIds: [theirs],
    });
    const outsiderView = await call(t.app, 'GET', auditUrl(team.outsiderOrg.id, { subjectId: theirs }), {
      as: team.outsider,
    });
    expect(outsiderView.body).toHaveLength(2);

    expect((await auditLogOf({ subjectId: theirs })).body).toEqual([]);
    expect((await auditLogOf({ actorId: team.outsider.id })).body).toEqual([]);
    const all = await auditLogOf({ page: 1, limit: 100 });
    expect(
      all.body.data.every(
        (entry: { id: number }) => !outsiderView.body.some((e: { id: number }) => e.id === entry.id),
      ),
    ).toBe(true);
    expect((await call(t.app, 'GET', auditUrl(team.org.id), { as: team.outsider })).status).toBe(403);
  });

  it('lists the service acting (retention, rotation) with no actor', async () => {
    const subject = randomUUID();
    await recordAudit(t.database.db, serviceSource(team.org.id, 'pii:rotate-key'), {
      action: 'key_rotation',
      subjectKind: 'participant',
      subjectIds: [subject],
      count: 3,
      details: { from: 'a', to: 'b' },
    });
    expect((await auditLogOf({ subjectId: subject })).body).toEqual([
      expect.objectContaining({
        actorId: null,
        actorRole: null,
        ip: null,
        requestId: null,
        action: 'key_rotation',
        route: 'pii:rotate-key',
        count: 3,
        details: { from: 'a', to: 'b' },
      }),
    ]);
  });
});
