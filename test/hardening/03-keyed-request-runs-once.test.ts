/**
 * Issue 36, finding 3 (fault tests): when the kept answer of a keyed request could not be recorded after
 * its write committed (the database stopping, or the pool busy for 10 s behind a locked table), the 201
 * reached the client but the key stayed `running`, and after the take-over a retry ran the submission
 * again: two submissions, counted twice. The key is now marked `committed` by the write's own
 * transaction: a committed write is never run again, and its answer is recorded in the background as
 * soon as the database answers, then replayed.
 *
 * A private PostgreSQL cluster; a trigger widens the window between the commit and the recording of the
 * answer (the database stops during it) or the submission's insert (its pool fills up meanwhile).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTeam, type Team } from '../helpers/factories.js';
import { answers, countingFormFor, formTargets, submitUrl, type FormJson } from '../helpers/forms.js';
import { clustersUnavailable, startPrimary, type PgCluster } from '../helpers/pg-cluster.js';

const skip = clustersUnavailable();
if (skip) console.warn(`03-keyed-request-runs-once: skipped: ${skip}`);

describe.skipIf(skip !== null)('a keyed public submission whose answer could not be recorded', () => {
  let cluster: PgCluster;
  let database: Database;
  let t: TestApp;
  let team: Team;
  let form: FormJson;
  let dataDir: string;

  /** One statement on a connection of the test's own. */
  async function sql(text: string, values: unknown[] = []) {
    const client = new pg.Client({ connectionString: cluster.url('mel_keys') });
    await client.connect();
    try {
      return (await client.query(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  const submit = (key: string) =>
    t.app.inject({
      method: 'POST',
      url: submitUrl(form.publicToken),
      headers: { 'idempotency-key': key },
      payload: { answers: answers({ household_size: 4 }) },
    });

  const submissions = async () =>
    Number((await sql('SELECT count(*) AS n FROM form_submissions WHERE form_id = $1', [form.id]))[0].n);
  const reportValue = async () =>
    Number(
      (
        await sql('SELECT coalesce(sum(value), 0) AS v FROM indicator_reports WHERE org_id = $1', [
          team.org.id,
        ])
      )[0].v,
    );

  async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = await probe().catch(() => undefined);
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * What a client does after its answer: retries with the same key, past the take-over time (the claim's
   * time moved back an hour), until it hears something else than 409. The submission is never run again.
   */
  async function retryUntilReplayed(key: string, firstId: string) {
    await sql(`UPDATE idempotency_keys SET created_at = created_at - interval '1 hour' WHERE key = $1`, [
      key,
    ]);
    const replayed = await until(
      'the replay',
      async () => {
        const res = await submit(key);
        return res.statusCode === 409 ? undefined : res;
      },
      30_000,
    );
    expect(replayed.statusCode, replayed.body).toBe(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.json().id).toBe(firstId);
  }

  beforeAll(async () => {
    cluster = await startPrimary();
    const maintenance = new pg.Client({ connectionString: cluster.url() });
    await maintenance.connect();
    await maintenance.query('CREATE DATABASE mel_keys');
    await maintenance.end();
    dataDir = mkdtempSync(path.join(tmpdir(), 'mel-keys-'));
    // Two clients: the busy pool below is both taken for the 10 s a request waits for one.
    database = openDatabase({ databaseUrl: cluster.url('mel_keys'), dataDir, poolSize: 2 });
    await database.migrate();
    t = await buildTestApp({}, { database, worker: false });
    team = await createTeam(t.app, t.database.db);
    const targets = await formTargets(t.app, t.database.db, team.admin, team.org.id);
    form = await countingFormFor(t.app, team.admin, team.org.id, targets, {
      valueFieldKey: 'household_size',
    });
  }, 120_000);

  afterAll(async () => {
    try {
      await t?.close();
      await database?.close();
    } finally {
      await cluster?.destroy();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('the database stops between the commit and the recording: one submission, counted once', async () => {
    await sql(`
      CREATE FUNCTION slow_answer() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(3); RETURN NEW; END $$;
      CREATE TRIGGER slow_answer BEFORE UPDATE ON idempotency_keys
        FOR EACH ROW WHEN (NEW.state = 'completed') EXECUTE FUNCTION slow_answer();`);
    const [before, valueBefore] = [await submissions(), await reportValue()];

    const answered = submit('stop-1');
    // The submission committed: the answer is being recorded (3 s, in the trigger). The server stops.
    await until('the commit', async () => ((await submissions()) > before ? true : undefined));
    await cluster.stop();
    const first = await answered;
    expect(first.statusCode, first.body).toBe(201);
    await cluster.start();
    await sql('DROP TRIGGER slow_answer ON idempotency_keys');

    await retryUntilReplayed('stop-1', first.json().id);
    expect(await submissions()).toBe(before + 1);
    expect(await reportValue()).toBe(valueBefore + 4);
  }, 90_000);

  it('the pool is busy for 10 s between the commit and the recording: one submission, counted once', async () => {
    await sql(`
      CREATE FUNCTION slow_submission() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(1.5); RETURN NEW; END $$;
      CREATE TRIGGER slow_submission AFTER INSERT ON form_submissions
        FOR EACH ROW EXECUTE FUNCTION slow_submission();`);
    const [before, valueBefore] = [await submissions(), await reportValue()];
    // The app's own pool of two clients, taken by others as requests waiting on a locked table would.
    const pool = (database.db as unknown as { $client: pg.Pool }).$client;

    const answered = submit('busy-1');
    await until('the submission in its transaction', async () =>
      (await sql(`SELECT 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep'`)).length > 0
        ? true
        : undefined,
    );
    const other = await pool.connect();
    // Queued before the recording of the answer: it gets the submission's client when that commits.
    const next = pool.connect();
    const first = await answered;
    expect(first.statusCode, first.body).toBe(201);
    other.release();
    (await next).release();
    await sql('DROP TRIGGER slow_submission ON form_submissions');

    await retryUntilReplayed('busy-1', first.json().id);
    expect(await submissions()).toBe(before + 1);
    expect(await reportValue()).toBe(valueBefore + 4);
  }, 90_000);

  it('a write that did not commit leaves the key free: the retry runs', async () => {
    // The form closed (410): nothing committed, nothing kept; the same key runs again once it reopens.
    await sql("UPDATE forms SET closes_at = now() - interval '1 day' WHERE id = $1", [form.id]);
    const refused = await submit('closed-1');
    expect(refused.statusCode).toBe(410);
    await sql('UPDATE forms SET closes_at = NULL WHERE id = $1', [form.id]);
    const again = await submit('closed-1');
    expect(again.statusCode, again.body).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });
});
