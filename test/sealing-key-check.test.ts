/**
 * The sealing key check at start (issue 22): a PII_KEY that cannot open the database's personal data is
 * refused before anything is written with it, with a message that names the keys and says what to do;
 * the compiled server and worker print that message and exit 1. A database that records no key (from
 * before sealing) has its phone numbers and national ids sealed at the next start.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, rowsOf, type Database, type Db } from '../src/db/client.js';
import { open, sealingKey } from '../src/lib/sealed-values.js';
import { nationalIdIndex } from '../src/modules/activities/participant-sealing.js';
import { participants } from '../src/modules/activities/activities.tables.js';
import { sealingKeyCheck } from '../src/modules/privacy/privacy.tables.js';
import { recordSealingKey, SealingKeyMismatch } from '../src/modules/privacy/sealing-keys.js';
import { participantUrl, postActivity, person, register } from './helpers/activities.js';
import { buildTestApp, maintenanceQuery, openTestDatabase } from './helpers/app.js';
import { runEntry } from './helpers/commands.js';
import { migratedDataDir } from './helpers/embedded.js';
import { createProject, createTeam } from './helpers/factories.js';
import { call } from './helpers/http.js';

const testUrl = process.env.TEST_DATABASE_URL;

const KEY_A = randomBytes(32).toString('base64');
const KEY_B = randomBytes(32).toString('base64');
const KEY_C = randomBytes(32).toString('base64');
const [keyA, keyB, keyC] = [KEY_A, KEY_B, KEY_C].map((key) => sealingKey(key)) as [
  ReturnType<typeof sealingKey>,
  ReturnType<typeof sealingKey>,
  ReturnType<typeof sealingKey>,
];

const WHAT_TO_DO =
  '. Start with the key the data was sealed under as PII_KEY (during a rotation: the new key as ' +
  'PII_KEY and the old one as PII_KEY_PREVIOUS).';
const mismatch = (sealedUnder: string, current: string, previous?: string) =>
  `PII_KEY does not open the personal data in this database: it is sealed under key ${sealedUnder}, ` +
  `and PII_KEY is key ${current}` +
  (previous ? `, PII_KEY_PREVIOUS key ${previous}` : '') +
  WHAT_TO_DO;

/** The rows a refused start must leave as they were. */
async function snapshot(db: Db) {
  return {
    check: await db.select().from(sealingKeyCheck),
    participants: await db.select().from(participants).orderBy(asc(participants.id)),
  };
}

describe('a PII_KEY that does not open the data', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(() => database.close());

  it('is refused at start with the keys named and what to do, nothing written', async () => {
    const first = await buildTestApp({ PII_KEY: KEY_A }, { database, worker: false });
    const team = await createTeam(first.app, database.db);
    const project = await createProject(database.db, team.org.id);
    const activity = await postActivity(first.app, team.officer, team.org.id, project.id);
    const [registered] = await register(first.app, team.officer, team.org.id, activity.id, [
      person({ phone: '+255 712 000 111', nationalId: `TZ-${randomUUID()}` }),
    ]);
    await first.app.close();
    const before = await snapshot(database.db);
    expect(before.check).toEqual([expect.objectContaining({ id: 1, keyId: keyA.id })]);

    const wrong = buildTestApp({ PII_KEY: KEY_B }, { database, worker: false });
    await expect(wrong).rejects.toBeInstanceOf(SealingKeyMismatch);
    await expect(wrong).rejects.toThrow(mismatch(keyA.id, keyB.id));
    // A rotation configured with two keys neither of which is the data's: both named.
    await expect(
      buildTestApp({ PII_KEY: KEY_B, PII_KEY_PREVIOUS: KEY_C }, { database, worker: false }),
    ).rejects.toThrow(mismatch(keyA.id, keyB.id, keyC.id));
    expect(await snapshot(database.db)).toEqual(before);

    // The data's key starts, as PII_KEY or (during a rotation) as PII_KEY_PREVIOUS.
    const starting: Record<string, string>[] = [
      { PII_KEY: KEY_A },
      { PII_KEY: KEY_B, PII_KEY_PREVIOUS: KEY_A },
    ];
    for (const env of starting) {
      const again = await buildTestApp(env, { database, worker: false });
      try {
        const res = await call(again.app, 'GET', participantUrl(team.org.id, registered!.participant.id), {
          as: team.officer,
        });
        expect([res.body.phone, res.body.nationalId]).toEqual([
          registered!.participant.phone,
          registered!.participant.nationalId,
        ]);
      } finally {
        await again.app.close();
      }
    }
    // Starting during a rotation records nothing: the data is still the old key's until the script ends.
    expect(await snapshot(database.db)).toEqual(before);
  });
});

describe('two first starts at once', () => {
  it('lets one key be recorded: the instance started with another is refused', async () => {
    const database = await openTestDatabase();
    try {
      await database.db.delete(sealingKeyCheck);
      const starts = await Promise.allSettled([
        buildTestApp({ PII_KEY: KEY_A }, { database, worker: false }),
        buildTestApp({ PII_KEY: KEY_B }, { database, worker: false }),
      ]);
      const started = starts.filter((start) => start.status === 'fulfilled');
      const refused = starts.filter((start) => start.status === 'rejected');
      expect([started.length, refused.length]).toEqual([1, 1]);
      expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(SealingKeyMismatch);
      const [record] = await database.db.select().from(sealingKeyCheck);
      const winner = starts[0].status === 'fulfilled' ? keyA : keyB;
      expect(record?.keyId).toBe(winner.id);
      for (const start of started)
        await (start as PromiseFulfilledResult<{ close(): Promise<void> }>).value.close();
    } finally {
      await database.close();
    }
  });
});

describe('a database from before sealing', () => {
  it(
    'has its phone numbers and national ids sealed at the next start, indexes computed, values read back',
    { timeout: 60_000 },
    async () => {
      const database = await openTestDatabase();
      try {
        const first = await buildTestApp({ PII_KEY: KEY_A }, { database, worker: false });
        const team = await createTeam(first.app, database.db);
        const project = await createProject(database.db, team.org.id);
        const activity = await postActivity(first.app, team.officer, team.org.id, project.id);
        await first.app.close();

        // As the table was before sealing: values in clear, no blind index, no key recorded.
        const clear = [
          { phone: '+254 700 111 222', nationalId: `KE-${randomUUID()}` },
          { phone: '+254 700 333 444', nationalId: null },
          { phone: null, nationalId: `KE-${randomUUID()}` },
          { phone: null, nationalId: null },
        ];
        const inserted = await database.db
          .insert(participants)
          .values(
            clear.map((contact, i) => ({
              orgId: team.org.id,
              firstName: `Before${i}`,
              lastName: 'Sealing',
              sex: 'female' as const,
              village: 'Kisumu',
              district: 'Kisumu',
              ...contact,
            })),
          )
          .returning({ id: participants.id });
        await database.db.delete(sealingKeyCheck);

        // Whatever key the first start is given becomes the data's.
        const next = await buildTestApp({ PII_KEY: KEY_C }, { database, worker: false });
        try {
          expect(await database.db.select().from(sealingKeyCheck)).toEqual([
            expect.objectContaining({ id: 1, keyId: keyC.id }),
          ]);
          for (const [i, { id }] of inserted.entries()) {
            const [row] = await database.db.select().from(participants).where(eq(participants.id, id));
            const want = clear[i]!;
            for (const [stored, value] of [
              [row!.phone, want.phone],
              [row!.nationalId, want.nationalId],
            ] as const) {
              if (value === null) expect(stored).toBeNull();
              else {
                expect(stored).toMatch(new RegExp(`^v1\\.${keyC.id}\\.`));
                expect(open({ current: keyC }, stored!)).toBe(value);
              }
            }
            expect(row!.nationalIdIndex).toBe(
              want.nationalId ? nationalIdIndex(keyC, row!.orgId, want.nationalId) : null,
            );

            const res = await call(next.app, 'GET', participantUrl(team.org.id, id), { as: team.officer });
            expect([res.status, res.body.phone, res.body.nationalId]).toEqual([
              200,
              want.phone,
              want.nationalId,
            ]);
          }
          // The computed index de-duplicates: the clear national id registered again is that person.
          const [again] = await register(next.app, team.officer, team.org.id, activity.id, [
            person({ nationalId: clear[0]!.nationalId }),
          ]);
          expect(again!.participant.id).toBe(inserted[0]!.id);
        } finally {
          await next.app.close();
        }

        // Sealed now: the key before is refused like any other.
        await expect(buildTestApp({ PII_KEY: KEY_A }, { database, worker: false })).rejects.toThrow(
          mismatch(keyC.id, keyA.id),
        );
      } finally {
        await database.close();
      }
    },
  );

  it('refuses a start whose key cannot open what is sealed, when the key record alone was lost', async () => {
    const database = await openTestDatabase();
    try {
      const first = await buildTestApp({ PII_KEY: KEY_A }, { database, worker: false });
      const team = await createTeam(first.app, database.db);
      const project = await createProject(database.db, team.org.id);
      const activity = await postActivity(first.app, team.officer, team.org.id, project.id);
      await register(first.app, team.officer, team.org.id, activity.id, [
        person({ phone: '+254 711 000 000', nationalId: `KE-${randomUUID()}` }),
      ]);
      await first.app.close();
      await database.db.delete(sealingKeyCheck);
      const before = await snapshot(database.db);

      const refused = buildTestApp({ PII_KEY: KEY_B }, { database, worker: false });
      // The same refusal as with the record: the servers print its message, without a stack.
      await expect(refused).rejects.toBeInstanceOf(SealingKeyMismatch);
      await expect(refused).rejects.toThrow(
        `sealed under key ${keyA.id}, which is neither PII_KEY nor PII_KEY_PREVIOUS`,
      );
      expect(await snapshot(database.db)).toEqual(before);
      // The data's own key finds nothing to seal and records itself again.
      const again = await buildTestApp({ PII_KEY: KEY_A }, { database, worker: false });
      await again.app.close();
      expect(await database.db.select().from(sealingKeyCheck)).toEqual([
        expect.objectContaining({ keyId: keyA.id }),
      ]);
      expect((await snapshot(database.db)).participants).toEqual(before.participants);
    } finally {
      await database.close();
    }
  });
});

/** `npm start` or `npm run worker` with only `env`: a service that starts instead of refusing is stopped. */
const runUntilExit = (entry: 'server' | 'worker', env: Record<string, string>) =>
  runEntry(entry, [], env, 60_000);

describe('the compiled server and worker with a wrong PII_KEY', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mel-key-check-'));
  let databaseUrl = '';
  let env: Record<string, string>;

  beforeAll(async () => {
    if (testUrl) {
      const name = `mel_keycheck_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      await maintenanceQuery(
        testUrl,
        `CREATE DATABASE ${name} TEMPLATE ${new URL(testUrl).pathname.slice(1)}`,
      );
      const own = new URL(testUrl);
      own.pathname = `/${name}`;
      databaseUrl = own.toString();
    } else {
      // On PGlite the data directory on disk is the database every run opens, migrated as a start leaves it.
      await migratedDataDir(dataDir);
    }
    env = {
      NODE_ENV: 'production',
      // On PGlite: the embedded database in production, allowed.
      ALLOW_EMBEDDED_IN_PRODUCTION: 'true',
      JWT_SECRET: randomBytes(32).toString('base64url'),
      BASE_URL: 'http://127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'error',
      HOST: '127.0.0.1',
      PORT: '0',
    };
  });
  afterAll(async () => {
    if (databaseUrl) {
      await maintenanceQuery(
        testUrl!,
        `DROP DATABASE IF EXISTS ${new URL(databaseUrl).pathname.slice(1)} WITH (FORCE)`,
      );
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exit 1 printing what to do, after a first run under another key', { timeout: 120_000 }, async () => {
    // The first run's record of its key, as a start under key A leaves it.
    const first = openDatabase({ databaseUrl: databaseUrl || null, dataDir });
    try {
      await first.migrate();
      await recordSealingKey(first.db, { current: keyA }, true);
    } finally {
      await first.close();
    }

    for (const entry of ['server', 'worker'] as const) {
      const run = await runUntilExit(entry, { ...env, PII_KEY: KEY_B });
      expect([entry, run.code], run.output).toEqual([entry, 1]);
      expect(run.output).toContain(mismatch(keyA.id, keyB.id));
      // The message alone, no stack trace around it.
      expect(run.output, run.output).not.toMatch(/^\s+at /m);
    }

    // Nothing was written under key B: key A is still the one recorded, and no one was sealed anew.
    const database = openDatabase({ databaseUrl: databaseUrl || null, dataDir });
    try {
      expect(
        (await database.db.select({ keyId: sealingKeyCheck.keyId }).from(sealingKeyCheck)).map(
          (r) => r.keyId,
        ),
      ).toEqual([keyA.id]);
      expect(rowsOf(await database.db.execute(sql`SELECT count(*)::int AS n FROM participants`))).toEqual([
        { n: 0 },
      ]);
    } finally {
      await database.close();
    }
  });
});
