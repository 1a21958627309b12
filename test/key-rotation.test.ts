/**
 * Rotating PII_KEY (issue 22): the service runs with the new key as PII_KEY and the old one as
 * PII_KEY_PREVIOUS while `npm run pii:rotate-key` seals every phone and national id again. Under load
 * (registrations, some of known people, and changes running meanwhile) nothing is lost, duplicated or
 * left under the old key; a stopped rotation resumes where it stopped; the script itself runs end to end
 * as a process on both databases (PGlite on a data directory on disk); afterwards the new key alone
 * starts the service and the old one alone is refused.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database, type Db } from '../src/db/client.js';
import { open, sealingKey, type Keyring, type SealingKey } from '../src/lib/sealed-values.js';
import { nationalIdIndex } from '../src/modules/activities/participant-sealing.js';
import { participants } from '../src/modules/activities/activities.tables.js';
import { sealParticipants } from '../src/modules/activities/participant-sealing.js';
import { auditLog } from '../src/modules/privacy/privacy.tables.js';
import { recordSealingKey, SealingKeyMismatch } from '../src/modules/privacy/sealing-keys.js';
import { participantUrl, postActivity, person, register, type ActivityJson } from './helpers/activities.js';
import { buildTestApp, maintenanceQuery, openTestDatabase, type TestApp } from './helpers/app.js';
import { createProject, createTeam, type Team } from './helpers/factories.js';
import { buildOnce, runEntry } from './helpers/commands.js';
import { migratedDataDir } from './helpers/embedded.js';
import { call } from './helpers/http.js';

const testUrl = process.env.TEST_DATABASE_URL;

const OLD_KEY = randomBytes(32).toString('base64');
const NEW_KEY = randomBytes(32).toString('base64');
const OTHER_KEY = randomBytes(32).toString('base64');
const oldKey = sealingKey(OLD_KEY);
const newKey = sealingKey(NEW_KEY);
const rotating: Keyring = { current: newKey, previous: oldKey };

/** What a person was given, by participant id. */
interface Contact {
  phone: string | null;
  nationalId: string | null;
}

const digits = (n: number) => Array.from(randomBytes(n), (b) => String(b % 10)).join('');
const newPhone = () => `+256 7${digits(8)}`;
const newNationalId = () => `UG-${randomBytes(6).toString('hex')}`;

/** The organization of one scene, with an activity to register people in. */
interface Scene {
  app: TestApp;
  team: Team;
  activity: ActivityJson;
}

async function scene(app: TestApp): Promise<Scene> {
  const team = await createTeam(app.app, app.database.db);
  const project = await createProject(app.database.db, team.org.id);
  return { app, team, activity: await postActivity(app.app, team.officer, team.org.id, project.id) };
}

/**
 * Registers `count` people through the API: every tenth with neither phone nor national id, then one
 * with a phone only, one with a national id only, the rest with both.
 */
async function seed(s: Scene, count: number): Promise<Map<string, Contact>> {
  const given = Array.from({ length: count }, (_, i): Contact => ({
    phone: i % 10 === 0 || i % 10 === 2 ? null : newPhone(),
    nationalId: i % 10 === 0 || i % 10 === 1 ? null : newNationalId(),
  }));
  const people = new Map<string, Contact>();
  for (let from = 0; from < count; from += 100) {
    const batch = given.slice(from, from + 100);
    const registered = await register(
      s.app.app,
      s.team.officer,
      s.team.org.id,
      s.activity.id,
      batch.map((contact) => person({ ...contact })),
    );
    registered.forEach((r, i) => people.set(r.participant.id, batch[i]!));
  }
  return people;
}

/** Every participant row of the organization as stored. */
const storedRows = (db: Db, orgId: string) =>
  db.select().from(participants).where(eq(participants.orgId, orgId)).orderBy(asc(participants.id));

/**
 * Every phone and national id of the organization sealed under `key` and opening under it alone to what
 * `expected` says, every national id indexed under it, and exactly the expected people.
 */
async function expectSealedUnder(db: Db, orgId: string, key: SealingKey, expected: Map<string, Contact>) {
  const alone: Keyring = { current: key };
  const rows = await storedRows(db, orgId);
  expect(rows.map((row) => row.id).sort()).toEqual([...expected.keys()].sort());
  const problems: string[] = [];
  for (const row of rows) {
    const want = expected.get(row.id)!;
    for (const [field, stored, clear] of [
      ['phone', row.phone, want.phone],
      ['nationalId', row.nationalId, want.nationalId],
    ] as const) {
      if (clear === null) {
        if (stored !== null) problems.push(`${row.id} ${field}: ${stored} instead of null`);
      } else if (!stored?.startsWith(`v1.${key.id}.`) || open(alone, stored) !== clear) {
        problems.push(`${row.id} ${field}: not sealed under ${key.id} (${stored})`);
      }
    }
    const index = want.nationalId === null ? null : nationalIdIndex(key, orgId, want.nationalId);
    if (row.nationalIdIndex !== index) problems.push(`${row.id} nationalIdIndex: not ${key.id}'s`);
  }
  expect(problems).toEqual([]);
}

/** Registers every known national id again: each must come back as the person who has it. */
async function expectFoundAgain(s: Scene, expected: Map<string, Contact>) {
  const known = [...expected].filter(([, contact]) => contact.nationalId !== null);
  for (let from = 0; from < known.length; from += 200) {
    const batch = known.slice(from, from + 200);
    const again = await register(
      s.app.app,
      s.team.officer,
      s.team.org.id,
      s.activity.id,
      batch.map(([, contact]) => person({ nationalId: contact.nationalId })),
    );
    expect(again.map((r) => r.participant.id)).toEqual(batch.map(([id]) => id));
  }
}

/**
 * The database as the rotation sees it: each batch's transaction starts a few milliseconds late, as on a
 * busy server, so requests get in between batches. PGlite runs one statement at a time and would
 * otherwise run every batch before the first request reaches it.
 */
function pausing(db: Db): Db {
  return new Proxy(db, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (property === 'transaction') {
        return async (...args: Parameters<Db['transaction']>) => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          return target.transaction(...args);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('a rotation under load', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(() => database.close());

  it(
    'seals everything under the new key while registrations and changes go on, losing and doubling no one',
    { timeout: 120_000 },
    async () => {
      const before = await buildTestApp({ PII_KEY: OLD_KEY }, { database, worker: false });
      const s = await scene(before);
      const expected = await seed(s, 280);
      await expectSealedUnder(database.db, s.team.org.id, oldKey, expected);
      await before.app.close();

      const during = await buildTestApp(
        { PII_KEY: NEW_KEY, PII_KEY_PREVIOUS: OLD_KEY },
        { database, worker: false },
      );
      const people = [...expected.keys()];
      // Each worker has people of its own: a change never races the registration that expects a value.
      const share = (worker: number) => people.filter((_, n) => n % 3 === worker);
      const reused = share(0).filter((id) => expected.get(id)!.nationalId !== null);

      let batches = 0;
      let rotated = false;
      const overlapping: number[] = [];
      const done = (what: string, status: number, wanted = 200) => {
        expect(status, what).toBe(wanted);
        if (!rotated && batches > 0) overlapping.push(batches);
      };

      // Registrations of new people, each batch with one known person by national id.
      const registering = async () => {
        for (let i = 0; i < 12 || !rotated; i++) {
          const known = reused[(i * 37) % reused.length]!;
          const fresh = { phone: newPhone(), nationalId: newNationalId() };
          const res = await call(
            during.app,
            'POST',
            `/orgs/${s.team.org.id}/activities/${s.activity.id}/participants`,
            {
              as: s.team.officer,
              body: {
                participants: [
                  person({ ...fresh }),
                  person({ firstName: 'Again', nationalId: expected.get(known)!.nationalId }),
                  person({ phone: newPhone() }),
                ],
              },
            },
          );
          done('register', res.status, 201);
          const [created, found, phoneOnly] = res.body.map(
            (r: { participant: { id: string } }) => r.participant,
          );
          expect(found.id).toBe(known);
          expect(expected.has(created.id)).toBe(false);
          expected.set(created.id, fresh);
          expected.set(phoneOnly.id, { phone: phoneOnly.phone, nationalId: null });
        }
      };
      // Changes of phone numbers and national ids, spread over the table (before and after the cursor).
      const changing = async (worker: number) => {
        const mine = share(worker);
        for (let i = 0; i < 12 || !rotated; i++) {
          const id = mine[(i * 53) % mine.length]!;
          const change: Partial<Contact> =
            i % 3 === 0
              ? { phone: newPhone() }
              : i % 3 === 1
                ? { nationalId: newNationalId() }
                : { phone: newPhone(), nationalId: newNationalId() };
          const res = await call(during.app, 'PATCH', participantUrl(s.team.org.id, id), {
            as: s.team.officer,
            body: change,
          });
          done('patch', res.status);
          expect({ phone: res.body.phone, nationalId: res.body.nationalId }).toEqual({
            ...expected.get(id),
            ...change,
          });
          expected.set(id, { ...expected.get(id)!, ...change });
        }
      };
      const sealing = sealParticipants(pausing(database.db), rotating, {
        batchSize: 7,
        onBatch: () => void (batches += 1),
      }).finally(() => {
        rotated = true;
      });
      const [perOrg] = await Promise.all([sealing, registering(), changing(1), changing(2)]);

      // The work did run while the rotation was under way, between several of its batches.
      expect(new Set(overlapping).size).toBeGreaterThan(1);
      // Each seeded person sealed again at most once (some were changed, hence sealed anew, first).
      expect(perOrg.get(s.team.org.id)).toBeLessThanOrEqual(people.length);

      await expectSealedUnder(database.db, s.team.org.id, newKey, expected);
      const nationalIds = [...expected.values()].flatMap((c) => (c.nationalId ? [c.nationalId] : []));
      expect(new Set(nationalIds).size).toBe(nationalIds.length);

      // The script's last step; then the new key alone serves, and finds everyone by national id.
      await recordSealingKey(database.db, rotating);
      await during.app.close();
      const after = await buildTestApp({ PII_KEY: NEW_KEY }, { database, worker: false });
      try {
        await expectFoundAgain({ ...s, app: after }, expected);
        const sample = [...expected].slice(0, 20);
        for (const [id, contact] of sample) {
          const res = await call(after.app, 'GET', participantUrl(s.team.org.id, id), { as: s.team.officer });
          expect({ phone: res.body.phone, nationalId: res.body.nationalId }).toEqual(contact);
        }
      } finally {
        await after.app.close();
      }
    },
  );

  // During a rotation a person may still be indexed under the old key: a change to their national id
  // must find them there too, as a registration does (the unique index holds the new key's index only;
  // without the check two people shared the id and the rotation stopped on the index at every run).
  it(
    "refuses during a rotation a change of national id to someone's not yet sealed again",
    { timeout: 60_000 },
    async () => {
      const own = await openTestDatabase();
      try {
        const before = await buildTestApp({ PII_KEY: OLD_KEY }, { database: own, worker: false });
        const s = await scene(before);
        const [a, b] = await register(before.app, s.team.officer, s.team.org.id, s.activity.id, [
          person({ nationalId: newNationalId() }),
          person({ nationalId: newNationalId() }),
        ]);
        await before.app.close();
        const during = await buildTestApp(
          { PII_KEY: NEW_KEY, PII_KEY_PREVIOUS: OLD_KEY },
          { database: own, worker: false },
        );
        try {
          const res = await call(during.app, 'PATCH', participantUrl(s.team.org.id, b!.participant.id), {
            as: s.team.officer,
            body: { nationalId: a!.participant.nationalId },
          });
          expect([res.status, res.body.message]).toEqual([
            409,
            'A participant with this nationalId already exists',
          ]);
          // Whatever the answer, the rotation must still be able to finish.
          await expect(sealParticipants(own.db, rotating, { batchSize: 7 })).resolves.toBeDefined();
        } finally {
          await during.app.close();
        }
      } finally {
        await own.close();
      }
    },
  );
});

describe('a rotation stopped midway', () => {
  it('resumes where it stopped, sealing each value once', { timeout: 60_000 }, async () => {
    const database = await openTestDatabase();
    try {
      const before = await buildTestApp({ PII_KEY: OLD_KEY }, { database, worker: false });
      const s = await scene(before);
      const expected = await seed(s, 40);
      await before.app.close();
      // Every tenth has nothing to seal: 36 rows to seal, in batches of 7.
      const toSeal = [...expected.values()].filter((c) => c.phone !== null || c.nationalId !== null).length;
      expect(toSeal).toBe(36);

      let batches = 0;
      const stopped = sealParticipants(database.db, rotating, {
        batchSize: 7,
        onBatch: () => {
          batches += 1;
          if (batches === 2) throw new Error('stopped after two batches');
        },
      });
      await expect(stopped).rejects.toThrow('stopped after two batches');
      const halfway = await storedRows(database.db, s.team.org.id);
      const sealedFirst = halfway.filter((row) =>
        [row.phone, row.nationalId].some((v) => v?.startsWith(`v1.${newKey.id}.`)),
      );
      expect(sealedFirst).toHaveLength(14);
      // A row is sealed again whole or not at all.
      for (const row of halfway) {
        const keys = new Set([row.phone, row.nationalId].flatMap((v) => (v ? [v.split('.')[1]] : [])));
        expect(keys.size).toBeLessThanOrEqual(1);
      }

      const sizes: number[] = [];
      const resumed = await sealParticipants(database.db, rotating, {
        batchSize: 7,
        onBatch: (n) => void sizes.push(n),
      });
      expect(resumed).toEqual(new Map([[s.team.org.id, toSeal - 14]]));
      expect(sizes).toEqual([7, 7, 7, 1]);
      // What the first run sealed was not sealed a second time (each sealing draws a new nonce).
      const after = new Map((await storedRows(database.db, s.team.org.id)).map((row) => [row.id, row]));
      for (const row of sealedFirst) {
        expect([after.get(row.id)!.phone, after.get(row.id)!.nationalId]).toEqual([
          row.phone,
          row.nationalId,
        ]);
      }
      await expectSealedUnder(database.db, s.team.org.id, newKey, expected);
      expect(await sealParticipants(database.db, rotating, { batchSize: 7 })).toEqual(new Map());
    } finally {
      await database.close();
    }
  });
});

/**
 * A database a child process can open too: on PostgreSQL a clone of the test template, on PGlite a data
 * directory on disk (the test's own copies are in memory). Opened by one process at a time.
 */
async function databaseOnDisk() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mel-rotation-'));
  let url: string | null = null;
  if (testUrl) {
    const name = `mel_rot_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    await maintenanceQuery(testUrl, `CREATE DATABASE ${name} TEMPLATE ${new URL(testUrl).pathname.slice(1)}`);
    const own = new URL(testUrl);
    own.pathname = `/${name}`;
    url = own.toString();
  } else {
    await migratedDataDir(dataDir);
  }
  return {
    env: { DATA_DIR: dataDir, ...(url ? { DATABASE_URL: url } : {}) },
    async open(): Promise<Database> {
      const database = openDatabase({ databaseUrl: url, dataDir, poolSize: 5 });
      await database.migrate();
      return database;
    },
    async drop() {
      if (url)
        await maintenanceQuery(
          testUrl!,
          `DROP DATABASE IF EXISTS ${new URL(url).pathname.slice(1)} WITH (FORCE)`,
        );
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `npm run pii:rotate-key` as deployed: the compiled script in a process of its own. */
const rotateKey = (env: Record<string, string>) =>
  runEntry('rotate-key', [], {
    NODE_ENV: 'production',
    // On PGlite: the embedded database in production, allowed.
    ALLOW_EMBEDDED_IN_PRODUCTION: 'true',
    JWT_SECRET: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'error',
    ...env,
  });

describe('npm run pii:rotate-key, as a process', () => {
  let disk: Awaited<ReturnType<typeof databaseOnDisk>>;
  let s: Scene;
  let expected: Map<string, Contact>;

  beforeAll(async () => {
    // Built once here, so the runs below do not each rebuild (unless a source changes meanwhile).
    await buildOnce();
    disk = await databaseOnDisk();
    const database = await disk.open();
    const before = await buildTestApp({ PII_KEY: OLD_KEY }, { database, worker: false });
    s = await scene(before);
    expected = await seed(s, 25);
    await before.app.close();
    await database.close();
  }, 120_000);
  afterAll(() => disk?.drop());

  it(
    'refuses to run without the old key, or with keys that do not open the data',
    { timeout: 120_000 },
    async () => {
      const alone = await rotateKey({ ...disk.env, PII_KEY: NEW_KEY });
      expect(alone.code, alone.output).toBe(2);
      expect(alone.output).toContain(
        'pii:rotate-key needs the new key as PII_KEY and the old one as PII_KEY_PREVIOUS',
      );

      const wrong = await rotateKey({ ...disk.env, PII_KEY: NEW_KEY, PII_KEY_PREVIOUS: OTHER_KEY });
      expect(wrong.code, wrong.output).toBe(1);
      expect(wrong.output).toContain(`it is sealed under key ${oldKey.id}`);
      expect(wrong.output).not.toMatch(/\n\s+at /);

      const database = await disk.open();
      try {
        await expectSealedUnder(database.db, s.team.org.id, oldKey, expected);
      } finally {
        await database.close();
      }
    },
  );

  it(
    'seals everything again, writes one key_rotation entry per organization, then only the new key starts',
    { timeout: 120_000 },
    async () => {
      const run = await rotateKey({ ...disk.env, PII_KEY: NEW_KEY, PII_KEY_PREVIOUS: OLD_KEY });
      expect(run.code, run.output).toBe(0);
      const sealed = [...expected.values()].filter((c) => c.phone !== null || c.nationalId !== null).length;
      expect(run.output).toContain(
        `pii:rotate-key: done, ${sealed} participants sealed under key ${newKey.id}; PII_KEY_PREVIOUS may now be removed`,
      );

      const database = await disk.open();
      try {
        await expectSealedUnder(database.db, s.team.org.id, newKey, expected);
        const entries = await database.db.select().from(auditLog).where(eq(auditLog.action, 'key_rotation'));
        expect(entries).toEqual([
          expect.objectContaining({
            orgId: s.team.org.id,
            actorId: null,
            route: 'pii:rotate-key',
            subjectKind: 'participant',
            subjectIds: [],
            count: sealed,
            details: { from: oldKey.id, to: newKey.id },
          }),
        ]);

        // Only the new key starts the service now; the old one is refused, naming both keys.
        const refused = buildTestApp({ PII_KEY: OLD_KEY }, { database, worker: false });
        await expect(refused).rejects.toBeInstanceOf(SealingKeyMismatch);
        await expect(refused).rejects.toThrow(
          `it is sealed under key ${newKey.id}, and PII_KEY is key ${oldKey.id}`,
        );
        const after = await buildTestApp({ PII_KEY: NEW_KEY }, { database, worker: false });
        try {
          await expectFoundAgain({ ...s, app: after }, expected);
          for (const [id, contact] of expected) {
            const res = await call(after.app, 'GET', participantUrl(s.team.org.id, id), {
              as: s.team.officer,
            });
            expect({ phone: res.body.phone, nationalId: res.body.nationalId }).toEqual(contact);
          }
        } finally {
          await after.app.close();
        }
      } finally {
        await database.close();
      }

      // Run again: nothing left to seal, no new entry.
      const again = await rotateKey({ ...disk.env, PII_KEY: NEW_KEY, PII_KEY_PREVIOUS: OLD_KEY });
      expect(again.code, again.output).toBe(0);
      expect(again.output).toContain('pii:rotate-key: done, 0 participants sealed');
      const reopened = await disk.open();
      try {
        expect(
          await reopened.db
            .select({ n: sql<number>`count(*)::int` })
            .from(auditLog)
            .where(eq(auditLog.action, 'key_rotation')),
        ).toEqual([{ n: 1 }]);
      } finally {
        await reopened.close();
      }
    },
  );
});
