/**
 * Issue 26, item 3: heavy reads on a streaming replica. A private primary and a replica of it (pg_basebackup
 * -R); replay is paused on the replica to make it stale on purpose, so that a read's answer says where it
 * ran: the old data comes from the replica, the new from the primary.
 */
import { tmpdir } from 'node:os';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, rowsOf, type Database, type Db } from '../src/db/client.js';
import { isDatabaseUnavailable, markDriverError } from '../src/db/outage.js';
import { lagOf, parseLsn, RecentWriters } from '../src/db/replica-lag.js';
import { REPLICA_POOL, replicaFailure } from '../src/db/replica-failures.js';
import { createReadRouting, type ReadRouting, type ReplicaOptions } from '../src/db/replica.js';
import { postActivity } from './helpers/activities.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createTeam, type Team } from './helpers/factories.js';
import {
  answers,
  eraseUrl,
  PERSONAL_FIELDS,
  personalAnswers,
  publishedForm,
  submissionsCsvUrl,
  submitUrl,
} from './helpers/forms.js';
import { call } from './helpers/http.js';
import { clustersUnavailable, startPrimary, startReplica, type PgCluster } from './helpers/pg-cluster.js';
import { postProgram, postProject } from './helpers/programs.js';
import { donorReportUrl, projectReportsUrl, publicReportUrl } from './helpers/reports.js';

describe('read routing without a replica', () => {
  it('runs every read on the primary and reports nothing', async () => {
    const primary = {} as never;
    const routing = createReadRouting(primary, { databaseReplicaUrl: null, replicaMaxLagSeconds: 5 });
    await routing.start();
    const ran: unknown[] = [];
    await routing.read(async (db, onReplica) => void ran.push(db, onReplica), {
      caughtUp: true,
      caller: 'u',
    });
    expect(ran).toEqual([primary, false]);
    expect(routing.state()).toEqual({
      configured: false,
      lagSeconds: null,
      usable: false,
      fallbacks: { down: 0, lag: 0, busy: 0, recent_write: 0, not_caught_up: 0, conflict: 0 },
      pool: { total: 0, idle: 0, waiting: 0 },
    });
  });
});

describe('the parts of the routing', () => {
  it('remembers a writer until the expiry, and when full counts everyone until the oldest would expire', () => {
    let now = 0;
    const writers = new RecentWriters(1000, 2, () => now);
    writers.add('a');
    now = 400;
    writers.add('b');
    expect([writers.has('a'), writers.has('b'), writers.has('c')]).toEqual([true, true, false]);
    now = 1000;
    expect([writers.has('a'), writers.has('b')]).toEqual([false, true]);
    now = 1100;
    writers.add('c');
    writers.add('d'); // over capacity: b leaves, though it had until 1400
    expect(writers.has('stranger')).toBe(true);
    now = 1400;
    expect([writers.has('stranger'), writers.has('b'), writers.has('c'), writers.has('d')]).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });

  it('reads WAL positions', () => {
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
  });

  it('takes the lag as 0 once caught up, else the smaller of the replay age and the last poll passed', () => {
    const marks = [
      { at: 1000, lsn: 100n },
      { at: 2000, lsn: 200n },
      { at: 3000, lsn: 300n },
    ];
    expect(lagOf(300n, 300n, 3600, marks, 3500)).toBe(0);
    // The first write after an idle hour, a moment before it is replayed: not an hour behind.
    expect(lagOf(250n, 300n, 3600, marks, 3500)).toBe(1.5);
    expect(lagOf(250n, 300n, 0.2, marks, 3500)).toBe(0.2);
    expect(lagOf(50n, 300n, null, marks, 3500)).toBeNull();
    expect(lagOf(50n, 300n, -0.01, marks, 3500)).toBe(0);
  });

  it('blames the replica only for its own pool’s errors: out of reach, busy, silent, or a replay conflict', () => {
    const coded = (code: string) => Object.assign(new Error(code), { code });
    const fromReplica = <T>(err: T) => markDriverError(err, REPLICA_POOL);
    expect(replicaFailure(fromReplica(coded('ECONNREFUSED')))).toBe('down');
    expect(replicaFailure(new Error('query failed', { cause: fromReplica(coded('57P01')) }))).toBe('down');
    expect(replicaFailure(fromReplica(new Error('Connection terminated unexpectedly')))).toBe('down');
    expect(
      replicaFailure(new Error('query failed', { cause: fromReplica(new Error('Query read timeout')) })),
    ).toBe('down');
    expect(replicaFailure(fromReplica(new Error('timeout exceeded when trying to connect')))).toBe('busy');
    expect(replicaFailure(new Error('query failed', { cause: fromReplica(coded('40001')) }))).toBe(
      'conflict',
    );
    expect(replicaFailure(fromReplica(coded('23505')))).toBeNull();
    // The same failures from the primary's pool, or from no driver at all (a request body cut off).
    expect(replicaFailure(markDriverError(coded('ECONNREFUSED'), 'primary'))).toBeNull();
    expect(replicaFailure(markDriverError(new Error('Query read timeout'), 'primary'))).toBeNull();
    expect(replicaFailure(coded('ECONNRESET'))).toBeNull();
    expect(replicaFailure(new TypeError('x is undefined'))).toBeNull();
  });
});

const skip = clustersUnavailable();
if (skip) console.warn(`read-replica: the tests on a streaming replica are skipped: ${skip}`);

const DATABASE = 'mel_replica';

describe.skipIf(skip !== null)('reads on a streaming replica', () => {
  let primary: PgCluster;
  let replica: PgCluster;
  let database: Database;
  const apps: TestApp[] = [];

  /** One statement on a server, on a connection of its own (the replica is stopped in a test). */
  async function query<T>(cluster: PgCluster, text: string, values: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: cluster.url(DATABASE) });
    await client.connect();
    try {
      return (await client.query(text, values)).rows as T[];
    } finally {
      await client.end();
    }
  }

  async function until(what: string, check: () => Promise<boolean> | boolean, ms = 10_000) {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Until the replica has replayed everything the primary has written so far. */
  async function replicaCaughtUp() {
    const [position] = await query<{ lsn: string }>(
      primary,
      'SELECT pg_current_wal_insert_lsn()::text AS lsn',
    );
    await until('the replica caught up', async () => {
      const [row] = await query<{ done: boolean }>(
        replica,
        'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done',
        [position!.lsn],
      );
      return row!.done;
    });
  }

  async function pauseReplay() {
    await replicaCaughtUp();
    await query(replica, 'SELECT pg_wal_replay_pause()');
    await until('replay paused', async () => {
      const [row] = await query<{ state: string }>(
        replica,
        'SELECT pg_get_wal_replay_pause_state() AS state',
      );
      return row!.state === 'paused';
    });
  }

  const resumeReplay = () => query(replica, 'SELECT pg_wal_replay_resume()');

  async function appWith(maxLag: string, replicaOptions: ReplicaOptions = {}) {
    const t = await buildTestApp(
      {
        DATABASE_URL: primary.url(DATABASE),
        DATABASE_REPLICA_URL: replica.url(DATABASE),
        REPLICA_MAX_LAG: maxLag,
      },
      { database, worker: false, replica: { pollIntervalMs: 100, ...replicaOptions } },
    );
    apps.push(t);
    return t;
  }

  const routings: ReadRouting[] = [];

  /** A routing of its own (no app), polling every 100 ms, started. */
  async function routingWith(options: ReplicaOptions = {}, primaryDb: Db = database.db, url?: string) {
    const routing = createReadRouting(
      primaryDb,
      { databaseReplicaUrl: url ?? replica.url(DATABASE), replicaMaxLagSeconds: 5 },
      { pollIntervalMs: 100, ...options },
    );
    routings.push(routing);
    await routing.start();
    await until('the replica is in use', () => routing.state().usable);
    return routing;
  }

  /** Whether `db` is the standby: where a read ran. */
  async function onStandby(db: Db): Promise<boolean> {
    const result = await db.execute(sql`SELECT pg_is_in_recovery() AS standby`);
    return rowsOf<{ standby: boolean }>(result)[0]!.standby;
  }

  interface Scene {
    team: Team;
    programId: string;
    projectId: string;
    form: { id: string; publicToken: string };
    report: { id: string; shareToken: string };
  }

  /**
   * An organization with an IATI identifier, one project with a published form answered once, and a
   * shared report of the project. The admin makes all of it (a recent writer); the officer reads.
   */
  async function scene(t: TestApp): Promise<Scene> {
    const team = await createTeam(t.app, t.database.db);
    const { org, admin } = team;
    const named = await call(t.app, 'PATCH', `/orgs/${org.id}`, {
      as: admin,
      body: { iatiRef: 'GB-CHC-1234567', iatiOrgType: '22' },
    });
    expect(named.status, JSON.stringify(named.body)).toBe(200);
    const program = await postProgram(t.app, admin, org.id);
    const project = await postProject(t.app, admin, org.id, program.id, { name: 'Wells' });
    const form = await publishedForm(t.app, admin, org.id, { projectId: project.id });
    await submit(t, form.publicToken);
    const report = await createReport(t, team, project.id, 'Q1 donor report');
    const shared = await call(t.app, 'PATCH', donorReportUrl(org.id, report.id, 'share'), { as: admin });
    expect(shared.status, JSON.stringify(shared.body)).toBe(200);
    return {
      team,
      programId: program.id,
      projectId: project.id,
      form: { id: form.id, publicToken: form.publicToken },
      report: { id: report.id, shareToken: shared.body.shareToken as string },
    };
  }

  async function submit(t: TestApp, token: string) {
    const res = await call(t.app, 'POST', submitUrl(token), { body: { answers: answers() } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }

  async function createReport(t: TestApp, team: Team, projectId: string, title: string, as = team.admin) {
    const res = await call(t.app, 'POST', projectReportsUrl(team.org.id, projectId), {
      as,
      body: { title, startDate: '2026-01-01', endDate: '2026-12-31' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; title: string; sections: { activities: { title: string }[] } };
  }

  /** What each routed read shows, as `as` reads it: counts that a write changes. */
  async function routedReads(t: TestApp, s: Scene, as: Team['admin']) {
    const orgId = s.team.org.id;
    const [dashboard, csv, iati, shared] = await Promise.all([
      call(t.app, 'GET', `/orgs/${orgId}/dashboard-summary`, { as }),
      call(t.app, 'GET', submissionsCsvUrl(orgId, s.form.id), { as }),
      call(t.app, 'GET', `/orgs/${orgId}/iati/activities.xml`, { as }),
      call(t.app, 'GET', publicReportUrl(s.report.shareToken)),
    ]);
    for (const res of [dashboard, csv, iati, shared]) expect(res.status, String(res.response.body)).toBe(200);
    return {
      projects: dashboard.body.totalProjects as number,
      submissions: (csv.body as string).trim().split('\n').length - 1,
      activities: (iati.body as string).split('<iati-activity ').length - 1,
      sharedTitle: shared.body.title as string,
    };
  }

  beforeAll(async () => {
    primary = await startPrimary();
    replica = await startReplica(primary);
    // Made after the replica started: the new database and its schema reach it by streaming.
    const client = new pg.Client({ connectionString: primary.url() });
    await client.connect();
    await client.query(`CREATE DATABASE ${DATABASE}`);
    await client.end();
    database = openDatabase({ databaseUrl: primary.url(DATABASE), dataDir: tmpdir(), poolSize: 5 });
    await database.migrate();
    await replicaCaughtUp();
  });

  afterAll(async () => {
    for (const t of apps) await t.close();
    for (const routing of routings) await routing.close();
    await database?.close();
    await replica?.destroy();
    await primary?.destroy();
  });

  it('routes the heavy reads to the replica, and a writer’s own reads and report assembly to the primary', async () => {
    // Long enough for the primary's WAL writer to send every record (synchronous_commit is off here).
    const t = await appWith('1h', { catchUpWaitMs: 2_000 });
    const s = await scene(t);
    const { org, admin, officer } = s.team;
    await until('the replica is in use', () => t.app.replica.state().lagSeconds === 0);
    expect(await routedReads(t, s, officer)).toEqual({
      projects: 1,
      submissions: 1,
      activities: 1,
      sharedTitle: 'Q1 donor report',
    });

    await pauseReplay();
    try {
      // Writes go to the primary while the replica stands still.
      await postProject(t.app, admin, org.id, s.programId, { name: 'Latrines' });
      await submit(t, s.form.publicToken);
      const renamed = await call(t.app, 'PATCH', donorReportUrl(org.id, s.report.id), {
        as: admin,
        body: { title: 'Q1 report, revised' },
      });
      expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
      const activity = await postActivity(t.app, admin, org.id, s.projectId, { title: 'Pump repair' });
      expect(activity.title).toBe('Pump repair');

      const before = t.app.replica.state().fallbacks;
      // Another user reads the replica: the answers from before the writes.
      expect(await routedReads(t, s, officer)).toEqual({
        projects: 1,
        submissions: 1,
        activities: 1,
        sharedTitle: 'Q1 donor report',
      });
      expect(t.app.replica.state().fallbacks).toEqual(before);

      // The writer reads their own writes (the shared link has no caller: still the replica's title).
      expect(await routedReads(t, s, admin)).toEqual({
        projects: 2,
        submissions: 2,
        activities: 2,
        sharedTitle: 'Q1 donor report',
      });
      expect(t.app.replica.state().fallbacks).toEqual({ ...before, recent_write: before.recent_write + 3 });

      // A report holds the new activity: the replica has not replayed what was committed before the
      // request, so the primary assembled it (the caught-up rule; the writer rule is not asked).
      const report = await createReport(t, s.team, s.projectId, 'Q2 donor report');
      expect(report.sections.activities.map((entry) => entry.title)).toEqual(['Pump repair']);
      expect(t.app.replica.state().fallbacks).toEqual({
        ...before,
        recent_write: before.recent_write + 3,
        not_caught_up: before.not_caught_up + 1,
      });
    } finally {
      await resumeReplay();
    }

    // Replayed: the replica answers the officer with everything, and no read fell back.
    await replicaCaughtUp();
    await until('the replica is in use', () => t.app.replica.state().lagSeconds === 0);
    const before = t.app.replica.state().fallbacks;
    expect(await routedReads(t, s, officer)).toEqual({
      projects: 2,
      submissions: 2,
      activities: 2,
      sharedTitle: 'Q1 report, revised',
    });
    // Assembled on the replica, caught up, though the admin wrote a moment ago.
    const assembled = await createReport(t, s.team, s.projectId, 'Q3 donor report');
    expect(assembled.sections.activities.map((entry) => entry.title)).toEqual(['Pump repair']);
    expect(t.app.replica.state().fallbacks).toEqual(before);
  });

  it('reads a share link made a moment ago at once, and stops a revoked one at once', async () => {
    const t = await appWith('1h');
    const s = await scene(t);
    const { org, officer } = s.team;
    await pauseReplay();
    try {
      // A report and its link the replica knows nothing of.
      const fresh = await createReport(t, s.team, s.projectId, 'Flash update', officer);
      const shared = await call(t.app, 'PATCH', donorReportUrl(org.id, fresh.id, 'share'), { as: officer });
      expect(shared.status, JSON.stringify(shared.body)).toBe(200);
      const token = shared.body.shareToken as string;
      const read = await call(t.app, 'GET', publicReportUrl(token));
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body).toMatchObject({ id: fresh.id, title: 'Flash update', shareToken: token });
      const page = await call(t.app, 'GET', `/r/${token}`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(page.body).toContain('Flash update');

      // The replica still holds the old link: the primary says it is gone.
      const revoked = await call(t.app, 'DELETE', donorReportUrl(org.id, s.report.id, 'share'), {
        as: officer,
      });
      expect(revoked.status).toBe(204);
      const gone = await call(t.app, 'GET', publicReportUrl(s.report.shareToken));
      expect(gone.status).toBe(404);
      expect(gone.body).toMatchObject({ statusCode: 404, message: 'Report not found' });
    } finally {
      await resumeReplay();
    }
  });

  it('falls back to the primary while the replica lags more than REPLICA_MAX_LAG, and returns to it', async () => {
    const t = await appWith('1s');
    const s = await scene(t);
    const { org, admin, officer } = s.team;
    await until('the replica is in use', () => t.app.replica.state().lagSeconds === 0);
    const inUse = t.app.replica.state().fallbacks;
    expect((await routedReads(t, s, officer)).projects).toBe(1);
    expect(t.app.replica.state().fallbacks).toEqual(inUse);

    await pauseReplay();
    try {
      await postProject(t.app, admin, org.id, s.programId, { name: 'Latrines' });
      await until('the replica counts as behind', () => !t.app.replica.state().usable, 5_000);
      expect(t.app.replica.state().lagSeconds).toBeGreaterThan(1);
      const before = t.app.replica.state().fallbacks;
      // Fresh answers: the primary's.
      expect(await routedReads(t, s, officer)).toMatchObject({ projects: 2, submissions: 1, activities: 2 });
      expect(t.app.replica.state().fallbacks).toEqual({ ...before, lag: before.lag + 4 });
    } finally {
      await resumeReplay();
    }

    await until('the replica is in use again', () => t.app.replica.state().usable, 5_000);
    const before = t.app.replica.state().fallbacks;
    expect(await routedReads(t, s, officer)).toMatchObject({ projects: 2, activities: 2 });
    expect(t.app.replica.state().fallbacks).toEqual(before);
  });

  it('falls back to the primary while the replica is stopped, and uses it again once started', async () => {
    const t = await appWith('1h');
    // An app that would not poll again for an hour: only its reads can find the replica gone.
    const unpolled = await appWith('1h', { pollIntervalMs: 3_600_000 });
    const s = await scene(t);
    const { officer } = s.team;
    await replicaCaughtUp();
    await until('the replica is in use', () => t.app.replica.state().lagSeconds === 0);
    // Connections open on both apps, to be cut by the stop.
    await routedReads(t, s, officer);
    await routedReads(unpolled, s, officer);
    expect(unpolled.app.replica.state().usable).toBe(true);

    await replica.stop();
    try {
      // The read that finds the replica gone runs again on the primary; the next ones go there at once.
      const expected = { projects: 1, submissions: 1, activities: 1, sharedTitle: 'Q1 donor report' };
      expect(await routedReads(unpolled, s, officer)).toEqual(expected);
      expect(unpolled.app.replica.state()).toMatchObject({ usable: false, lagSeconds: null });
      expect(unpolled.app.replica.state().fallbacks.down).toBe(4);

      await until('the poll found the replica gone', () => !t.app.replica.state().usable, 5_000);
      const before = t.app.replica.state().fallbacks;
      expect(await routedReads(t, s, officer)).toEqual(expected);
      const created = await createReport(t, s.team, s.projectId, 'Q2 donor report');
      expect(created.title).toBe('Q2 donor report');
      expect(t.app.replica.state().fallbacks).toEqual({ ...before, down: before.down + 5 });
    } finally {
      await replica.start();
    }

    await until('the replica is in use again', () => t.app.replica.state().usable, 10_000);
    const before = t.app.replica.state().fallbacks;
    expect((await routedReads(t, s, officer)).projects).toBe(1);
    expect(t.app.replica.state().fallbacks).toEqual(before);
  });

  it('asks the primary who may read what: a reporter taken off a project, a deleted project, an erasure', async () => {
    const t = await appWith('1h');
    const s = await scene(t);
    const { org, admin, officer, reporter } = s.team;
    const assigned = await call(t.app, 'POST', `/orgs/${org.id}/projects/${s.projectId}/members`, {
      as: admin,
      body: { userId: reporter.id },
    });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(201);
    const spare = await postProject(t.app, admin, org.id, s.programId, { name: 'Boreholes' });
    const personal = await publishedForm(t.app, admin, org.id, {
      projectId: s.projectId,
      fields: PERSONAL_FIELDS,
    });
    const answered = await call(t.app, 'POST', submitUrl(personal.publicToken), {
      body: { answers: personalAnswers() },
    });
    expect(answered.status, JSON.stringify(answered.body)).toBe(201);
    await replicaCaughtUp();
    await until('the replica is in use', () => t.app.replica.state().lagSeconds === 0);
    const dashboard = (as: Team['admin']) => call(t.app, 'GET', `/orgs/${org.id}/dashboard-summary`, { as });
    expect((await dashboard(reporter)).body.totalProjects).toBe(1);

    await pauseReplay();
    try {
      const unassigned = await call(
        t.app,
        'DELETE',
        `/orgs/${org.id}/projects/${s.projectId}/members/${reporter.id}`,
        { as: admin },
      );
      expect(unassigned.status, JSON.stringify(unassigned.body)).toBe(204);
      const deleted = await call(t.app, 'DELETE', `/orgs/${org.id}/projects/${spare.id}`, { as: admin });
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
      const erased = await call(t.app, 'POST', eraseUrl(org.id, personal.id, answered.body.id as string), {
        as: admin,
        body: { reason: 'The respondent asked for her answers to be erased' },
      });
      expect(erased.status, JSON.stringify(erased.body)).toBe(200);
      const before = t.app.replica.state().fallbacks;

      // The replica still has the deleted project (the officer's figures come from there) and the
      // reporter's assignment, yet the reporter sees none of the project's figures.
      expect((await dashboard(officer)).body.totalProjects).toBe(2);
      const seen = await dashboard(reporter);
      expect(seen.status).toBe(200);
      expect(seen.body).toMatchObject({ totalProjects: 0, programs: [], upcomingDeadlines: [] });
      const exported = await call(t.app, 'GET', `/orgs/${org.id}/iati/activities.xml?projectId=${spare.id}`, {
        as: officer,
      });
      expect(exported.status).toBe(404);
      expect(exported.body).toMatchObject({ statusCode: 404, message: 'Project not found' });
      // Personal answers in clear come from the primary, where they are erased.
      const csv = await call(t.app, 'GET', submissionsCsvUrl(org.id, personal.id), { as: officer });
      expect(csv.status).toBe(200);
      const rows = (csv.body as string).trim().split('\n');
      expect(rows).toHaveLength(2);
      expect(rows[1]).not.toContain('Achieng');
      expect(t.app.replica.state().fallbacks).toEqual(before);
    } finally {
      await resumeReplay();
    }
  });

  it('falls back for one read when every replica connection is busy, and never blames the replica for the primary', async () => {
    const routing = await routingWith({ poolSize: 1, timeoutMs: 300, pollIntervalMs: 1000 });
    const held = routing.read(async (db, onReplica) => {
      await db.execute(sql`SELECT pg_sleep(0.6)`);
      return onReplica;
    });
    await until('a read holds the one connection', () => routing.state().pool.idle === 0);
    const before = routing.state().fallbacks;
    // It waits the timeout for the connection, then the primary answers it; the replica stays in use.
    expect(await routing.read(onStandby)).toBe(false);
    expect(await held).toBe(true);
    expect(routing.state()).toMatchObject({ usable: true, fallbacks: { ...before, busy: before.busy + 1 } });
    expect(await routing.read(onStandby)).toBe(true);

    // A read that also asks the primary, which is out of reach: its error, not the replica's.
    const gone = openDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none', dataDir: tmpdir() });
    try {
      const failed = await routing
        .read(async (db) => {
          await onStandby(db);
          return gone.db.execute(sql`SELECT 1`);
        })
        .then(
          () => null,
          (err: unknown) => err,
        );
      expect(isDatabaseUnavailable(failed)).toBe(true);
    } finally {
      await gone.close();
    }
    expect(routing.state()).toMatchObject({ usable: true, fallbacks: { ...before, busy: before.busy + 1 } });
  });

  it('gives up on a replica read that does not answer within the query timeout and reads the primary', async () => {
    const routing = await routingWith({ queryTimeoutMs: 300, pollIntervalMs: 1000 });
    const before = routing.state().fallbacks;
    const answer = await routing.read(async (db, onReplica) => {
      await db.execute(sql`SELECT pg_sleep(${onReplica ? 2 : 0})`);
      return { onReplica, standby: await onStandby(db) };
    });
    expect(answer).toEqual({ onReplica: false, standby: false });
    expect(routing.state()).toMatchObject({ usable: false, fallbacks: { ...before, down: before.down + 1 } });
    await until('the replica is in use again', () => routing.state().usable, 5_000);
  });

  it('stops reading the replica while its lag cannot be measured, and reads it again once it can', async () => {
    // The primary's pool, one connection, held by a transaction: the poll cannot read the primary's position.
    const small = openDatabase({ databaseUrl: primary.url(DATABASE), dataDir: tmpdir(), poolSize: 1 });
    try {
      const routing = await routingWith({ timeoutMs: 300 }, small.db);
      let release: () => void = () => undefined;
      const held = small.db.transaction(() => new Promise<void>((resolve) => (release = resolve)));
      await until('the reading is too old', () => !routing.state().usable, 5_000);
      expect(routing.state().lagSeconds).toBeNull();
      const before = routing.state().fallbacks;
      expect(await routing.read(async (_db, onReplica) => onReplica)).toBe(false);
      expect(routing.state().fallbacks).toEqual({ ...before, lag: before.lag + 1 });
      release();
      await held;
      await until('the replica is in use again', () => routing.state().usable, 5_000);
      expect(await routing.read(onStandby)).toBe(true);
      await routing.close();
    } finally {
      await small.close();
    }
  });

  it('checks a stored snapshot and reads it on one replica connection', async () => {
    const routing = await routingWith({ catchUpWaitMs: 2_000 });
    const pid = async (db: Db) =>
      rowsOf<{ pid: number }>(await db.execute(sql`SELECT pg_backend_pid() AS pid`))[0]!.pid;
    const read = await routing.read(
      async (db, onReplica) => {
        const [first, second, standby] = await Promise.all([pid(db), pid(db), onStandby(db)]);
        return { onReplica, standby, oneConnection: first === second };
      },
      { caughtUp: true },
    );
    expect(read).toEqual({ onReplica: true, standby: true, oneConnection: true });
  });

  it('opens no replica connection until started, and none is left once closed', async () => {
    const name = `mel_unstarted_${process.pid}`;
    const connections = async () =>
      (
        await query<{ n: number }>(
          replica,
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
          [name],
        )
      )[0]!.n;
    const routing = createReadRouting(database.db, {
      databaseReplicaUrl: `${replica.url(DATABASE)}?application_name=${name}`,
      replicaMaxLagSeconds: 5,
    });
    routings.push(routing);
    expect(await connections()).toBe(0);
    await routing.start();
    expect(routing.state().usable).toBe(true);
    expect(await connections()).toBeGreaterThan(0);
    await routing.close();
    await until('its connections are gone', async () => (await connections()) === 0);
  });
});
