/**
 * Issue 36, finding 9: 1 of 11 CSV exports started while the replica hung sent 200 and was then cut,
 * though exports are to fall back before anything is sent. A private primary and a streaming standby; the
 * standby is hung for real (SIGSTOP on its postmaster and every backend: connections open, nothing
 * answered). Every export started during the hang must be a complete CSV (from the primary) or a clean
 * 503 before any byte, never a 200 that breaks off; both with the lag poll running (the hang not yet seen)
 * and with no poll to see it at all.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase, rowsOf, type Database, type Db } from '../../src/db/client.js';
import { withStatementTimeout } from '../../src/db/long-statements.js';
import type { ReplicaOptions } from '../../src/db/replica.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTeam, type TestUser } from '../helpers/factories.js';
import { answers, publishedForm, submissionsCsvUrl, submitUrl } from '../helpers/forms.js';
import { call } from '../helpers/http.js';
import { clustersUnavailable, startPrimary, startReplica, type PgCluster } from '../helpers/pg-cluster.js';
import { postProgram, postProject } from '../helpers/programs.js';

const skip = clustersUnavailable();
if (skip) console.warn(`09-replica-hang-export: skipped: ${skip}`);

const DATABASE = 'mel_replica_hang';
const SUBMISSIONS = 12;

/** The server's processes: its postmaster (first line of postmaster.pid) and the postmaster's children. */
function serverProcesses(cluster: PgCluster): number[] {
  const postmaster = Number(
    readFileSync(path.join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0],
  );
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        // pid (comm) state ppid ...: the command may hold spaces and parentheses.
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

/** What an export's client got: the status, and whether the body arrived whole. */
interface Exported {
  status: number;
  body: string;
  /** The body broke off after the status line (the connection was cut mid-answer). */
  cut: boolean;
}

describe.skipIf(skip !== null)('CSV exports while the read replica hangs', () => {
  let primary: PgCluster;
  let replica: PgCluster;
  let database: Database;
  let frozen: number[] = [];
  const apps: TestApp[] = [];

  async function query<T>(cluster: PgCluster, text: string): Promise<T[]> {
    const client = new pg.Client({ connectionString: cluster.url(DATABASE) });
    await client.connect();
    try {
      return (await client.query(text)).rows as T[];
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

  async function replicaCaughtUp() {
    const [position] = await query<{ lsn: string }>(
      primary,
      'SELECT pg_current_wal_insert_lsn()::text AS lsn',
    );
    await until('the replica caught up', async () => {
      const [row] = await query<{ done: boolean }>(
        replica,
        `SELECT pg_last_wal_replay_lsn() >= '${position!.lsn}'::pg_lsn AS done`,
      );
      return row!.done;
    });
  }

  /** The app on the primary and the replica, listening on a port of its own. */
  async function appWith(replicaOptions: ReplicaOptions): Promise<{ t: TestApp; base: string }> {
    const t = await buildTestApp(
      {
        DATABASE_URL: primary.url(DATABASE),
        DATABASE_REPLICA_URL: replica.url(DATABASE),
        REPLICA_MAX_LAG: '1h',
      },
      // A read the replica leaves unanswered fails after 3 s (30 s unless set): the test stays short.
      { database, worker: false, replica: { queryTimeoutMs: 3_000, ...replicaOptions } },
    );
    apps.push(t);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    return { t, base: `http://127.0.0.1:${port}` };
  }

  async function exportCsv(base: string, url: string, as: TestUser): Promise<Exported> {
    const res = await fetch(`${base}${url}`, { headers: { authorization: `Bearer ${as.token}` } });
    try {
      return { status: res.status, body: await res.text(), cut: false };
    } catch {
      return { status: res.status, body: '', cut: true };
    }
  }

  /** A complete export: the header and one row per submission, ending with its line break. */
  const complete = (exported: Exported) =>
    exported.status === 200 &&
    !exported.cut &&
    exported.body.endsWith('\n') &&
    exported.body.trim().split('\n').length === SUBMISSIONS + 1;

  const refusedCleanly = (exported: Exported) =>
    exported.status === 503 &&
    !exported.cut &&
    ['database_unavailable', 'database_busy'].includes((JSON.parse(exported.body) as { code: string }).code);

  beforeAll(async () => {
    primary = await startPrimary();
    replica = await startReplica(primary);
    const client = new pg.Client({ connectionString: primary.url() });
    await client.connect();
    await client.query(`CREATE DATABASE ${DATABASE}`);
    await client.end();
    database = openDatabase({ databaseUrl: primary.url(DATABASE), dataDir: tmpdir(), poolSize: 10 });
    await database.migrate();
    await replicaCaughtUp();
  });

  afterAll(async () => {
    for (const pid of frozen) process.kill(pid, 'SIGCONT');
    for (const t of apps) await t.close();
    await database?.close();
    await replica?.destroy();
    await primary?.destroy();
  });

  it('answers every export begun during the hang in full, from the primary, or with 503 before any byte', async () => {
    // One app whose lag poll has not yet seen the hang, and one that never polls again.
    const polled = await appWith({ pollIntervalMs: 1_000 });
    const unpolled = await appWith({ pollIntervalMs: 3_600_000 });
    const { org, admin, officer } = await createTeam(polled.t.app, database.db);
    const program = await postProgram(polled.t.app, admin, org.id);
    const project = await postProject(polled.t.app, admin, org.id, program.id, { name: 'Wells' });
    const form = await publishedForm(polled.t.app, admin, org.id, { projectId: project.id });
    for (let i = 0; i < SUBMISSIONS; i++) {
      const res = await call(polled.t.app, 'POST', submitUrl(form.publicToken), {
        body: { answers: answers() },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    await replicaCaughtUp();
    const url = submissionsCsvUrl(org.id, form.id);
    for (const { t, base } of [polled, unpolled]) {
      await until('the replica is in use', () => t.app.replica.state().lagSeconds === 0);
      // Read on the replica: the officer changed nothing. Its connections stay open, idle.
      const before = t.app.replica.state().fallbacks;
      expect(complete(await exportCsv(base, url, officer))).toBe(true);
      expect(t.app.replica.state().fallbacks).toEqual(before);
    }

    frozen = serverProcesses(replica);
    for (const pid of frozen) process.kill(pid, 'SIGSTOP');
    let results: Exported[];
    try {
      // Exports at once and through the next two seconds, on both apps.
      const started: Promise<Exported>[] = [];
      for (let round = 0; round < 4; round++) {
        for (const { base } of [polled, unpolled]) {
          started.push(exportCsv(base, url, officer), exportCsv(base, url, officer));
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      results = await Promise.all(started);
    } finally {
      for (const pid of frozen) process.kill(pid, 'SIGCONT');
      frozen = [];
    }
    const broken = results.filter((exported) => !complete(exported) && !refusedCleanly(exported));
    expect(
      broken.map(({ status, cut, body }) => ({ status, cut, lines: body.trim().split('\n').length })),
    ).toEqual([]);
    // The replica was not read: every complete export came from the primary.
    expect(
      polled.t.app.replica.state().fallbacks.down + unpolled.t.app.replica.state().fallbacks.down,
    ).toBeGreaterThan(0);
  });

  it('gives reads on the replica the primary’s statement limits, and exports theirs', async () => {
    const { t } = await appWith({ pollIntervalMs: 100 });
    await until('the replica is in use', () => t.app.replica.state().usable);
    const limits = async (db: Db) =>
      rowsOf<{ statement: string; lock: string }>(
        await db.execute(
          sql`SELECT current_setting('statement_timeout') AS statement, current_setting('lock_timeout') AS lock`,
        ),
      )[0];
    const read = await t.app.replica.read(async (db, onReplica) => ({ onReplica, ...(await limits(db)) }));
    expect(read).toEqual({ onReplica: true, statement: '10s', lock: '5s' });
    const exported = await t.app.replica.read(async (db, onReplica) => ({
      onReplica,
      ...(await limits(withStatementTimeout(db, t.config.databaseTimeouts.exportStatementMs))),
    }));
    expect(exported).toEqual({ onReplica: true, statement: '5min', lock: '5s' });
  });
});
