/**
 * Personal data at rest (issue 22): participants' phone numbers and national ids given through the API
 * are nowhere in the database in clear. Every table is dumped as text and searched; on PostgreSQL the
 * real `pg_dump` output is searched too, on PGlite the raw data directory (heap files and WAL, so a
 * value written in clear for a moment and overwritten since would show). De-duplication by national id
 * still works on the sealed values.
 */
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { inArray, sql } from 'drizzle-orm';
import { participants } from '../src/modules/activities/activities.tables.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDatabase, rowsOf, type Database } from '../src/db/client.js';
import {
  participantUrl,
  postActivity,
  person,
  register,
  type ActivityJson,
  type ParticipantJson,
} from './helpers/activities.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createProject, createTeam, type Team } from './helpers/factories.js';
import { call, expectError } from './helpers/http.js';

const testUrl = process.env.TEST_DATABASE_URL;
const pgDumpFound = !spawnSync('pg_dump', ['--version']).error;
if (!testUrl) {
  console.warn(
    'personal-data-at-rest.test.ts: pg_dump not run (PGlite; it runs when TEST_DATABASE_URL is set)',
  );
} else if (!pgDumpFound) {
  console.warn('personal-data-at-rest.test.ts: pg_dump not run: no pg_dump binary on PATH');
}

let t: TestApp;
let team: Team;
let activity: ActivityJson;
/** On PGlite, the embedded instance itself, for its raw data directory. */
let pglite: PGlite | null = null;
let database: Database | null = null;

beforeAll(async () => {
  if (!testUrl) {
    // As openTestDatabase does, keeping hold of the instance.
    pglite = new PGlite({ loadDataDir: new Blob([readFileSync(inject('pgliteSnapshot'))]) });
    database = openDatabase({ databaseUrl: null, dataDir: tmpdir(), pglite });
  }
  t = await buildTestApp({}, database ? { database } : {});
  team = await createTeam(t.app, t.database.db);
  const project = await createProject(t.database.db, team.org.id);
  activity = await postActivity(t.app, team.officer, team.org.id, project.id);
});
afterAll(async () => {
  await t.close();
  await database?.close();
});

const TAKEN = {
  statusCode: 409,
  message: 'A participant with this nationalId already exists',
  error: 'Conflict',
  code: 'duplicate' as const,
};

const digits = (n: number) => Array.from(randomBytes(n), (b) => String(b % 10)).join('');
const newPhone = () => `+254 7${digits(2)} ${digits(3)} ${digits(3)}`;
const newNationalId = () => `KE-${randomBytes(5).toString('hex').toUpperCase()}`;

const registerPeople = async (people: Record<string, unknown>[]): Promise<ParticipantJson[]> =>
  (await register(t.app, team.officer, team.org.id, activity.id, people)).map((r) => r.participant);
const patch = (id: string, body: Record<string, unknown>) =>
  call(t.app, 'PATCH', participantUrl(team.org.id, id), { as: team.officer, body });

/** The ways a value could sit in a dump: as given, digits only, in another case, hex, base64. */
function spellings(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  return [
    value,
    value.toLowerCase(),
    value.replace(/\D/g, '').length >= 8 ? value.replace(/\D/g, '') : value,
    bytes.toString('hex'),
    bytes.toString('base64').replace(/=+$/, ''),
  ];
}

/** The values among `secrets` that appear in `dump`, with the spelling found. */
function leaked(dump: string, secrets: string[]): string[] {
  const haystack = dump.toLowerCase();
  return secrets.flatMap((secret) =>
    spellings(secret)
      .filter((spelling) => haystack.includes(spelling.toLowerCase()))
      .map((spelling) => `${secret} (as ${spelling})`),
  );
}

/** Every row of every table of the database (the system catalogs aside), each as its text form. */
async function dumpTables(): Promise<{ tables: string[]; text: string }> {
  const { db } = t.database;
  const tables = rowsOf<{ name: string }>(
    await db.execute(sql`SELECT format('%I.%I', table_schema, table_name) AS name
      FROM information_schema.tables
      WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')
      ORDER BY 1`),
  ).map((row) => row.name);
  const parts: string[] = [];
  for (const table of tables) {
    const rows = rowsOf<{ row: string }>(await db.execute(sql.raw(`SELECT t::text AS row FROM ${table} t`)));
    parts.push(`-- ${table}`, ...rows.map((row) => row.row));
  }
  return { tables, text: parts.join('\n') };
}

describe('phone numbers and national ids at rest', () => {
  const secrets: string[] = [];
  /** Written in clear on purpose: shows that a dump that holds no secret did see this test's rows. */
  const village = `Village-${randomUUID()}`;
  let people: ParticipantJson[] = [];

  beforeAll(async () => {
    const given = Array.from({ length: 6 }, () => ({ phone: newPhone(), nationalId: newNationalId() }));
    secrets.push(...given.flatMap((p) => [p.phone, p.nationalId]));
    people = await registerPeople(given.map((p) => person({ ...p, village })));
    expect(people.map((p) => [p.phone, p.nationalId])).toEqual(given.map((p) => [p.phone, p.nationalId]));

    // Changed values, and the ones they replace, are sealed alike.
    const [phone, nationalId] = [newPhone(), newNationalId()];
    secrets.push(phone, nationalId);
    const changed = await patch(people[0]!.id, { phone, nationalId });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect([changed.body.phone, changed.body.nationalId]).toEqual([phone, nationalId]);
    // A refused change leaves nothing behind either.
    const refused = newPhone();
    secrets.push(refused);
    expectError(await patch(people[1]!.id, { phone: refused, nationalId: given[2]!.nationalId }), TAKEN);
    // Read back through every kind of route, which writes audit entries.
    for (const url of [
      `/orgs/${team.org.id}/participants`,
      participantUrl(team.org.id, people[1]!.id),
      `${participantUrl(team.org.id, people[2]!.id)}/export`,
    ]) {
      const res = await call(t.app, 'GET', url, { as: team.admin });
      expect([url, res.status]).toEqual([url, 200]);
      expect(res.body).toBeTruthy();
    }
  });

  it('are in clear in no table, dumped row by row', async () => {
    const { tables, text } = await dumpTables();
    expect(tables).toEqual(expect.arrayContaining(['public.participants', 'public.audit_log']));
    expect(text).toContain(village);
    for (const p of people) expect(text).toContain(p.id);
    expect(leaked(text, secrets)).toEqual([]);
    // What is there instead: values sealed under the test key, and a blind index per national id.
    const stored = rowsOf<{ phone: string; national_id: string; national_id_index: string }>(
      await t.database.db.execute(
        sql`SELECT phone, national_id, national_id_index FROM participants WHERE village = ${village}`,
      ),
    );
    expect(stored).toHaveLength(people.length);
    for (const row of stored) {
      expect(row.phone).toMatch(/^v1\.[0-9a-f]{16}\./);
      expect(row.national_id).toMatch(/^v1\.[0-9a-f]{16}\./);
      expect(row.national_id_index).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it.skipIf(!testUrl || !pgDumpFound)('are in clear nowhere in the output of pg_dump', async () => {
    const [{ name }] = rowsOf<{ name: string }>(
      await t.database.db.execute(sql`SELECT current_database() AS name`),
    ) as [{ name: string }];
    const url = new URL(testUrl!);
    url.pathname = `/${name}`;
    const { stdout } = await promisify(execFile)('pg_dump', ['--no-owner', `--dbname=${url.toString()}`], {
      maxBuffer: 512 * 1024 * 1024,
    });
    expect(stdout).toContain('COPY public.participants');
    expect(stdout).toContain(village);
    expect(leaked(stdout, secrets)).toEqual([]);
  });

  it.skipIf(Boolean(testUrl))(
    'are in clear nowhere in the raw data directory, heap files and WAL included (PGlite)',
    async () => {
      await t.database.db.execute(sql`CHECKPOINT`);
      const files = Buffer.from(await (await pglite!.dumpDataDir('none')).arrayBuffer());
      expect(files.includes(Buffer.from(village))).toBe(true);
      const found = secrets.filter((secret) =>
        spellings(secret).some((spelling) => files.includes(Buffer.from(spelling))),
      );
      expect(found).toEqual([]);
    },
  );
});

describe('de-duplication by national id on sealed values', () => {
  it('finds the same person when a known national id is registered again, in a later batch or the same', async () => {
    const nationalId = newNationalId();
    const [first] = await registerPeople([person({ nationalId, phone: newPhone() })]);
    const again = await registerPeople([
      person({ firstName: 'Someone', lastName: 'Else', nationalId: ` ${nationalId} ` }),
      person({ nationalId: newNationalId() }),
    ]);
    expect(again[0]!.id).toBe(first!.id);
    expect(again[0]!.firstName).toBe(first!.firstName);
    expect(again[1]!.id).not.toBe(first!.id);

    const batch = newNationalId();
    const twice = await registerPeople([person({ nationalId: batch }), person({ nationalId: batch })]);
    expect(twice).toHaveLength(1);
    const [{ count }] = rowsOf<{ count: number }>(
      await t.database.db.execute(
        sql`SELECT count(*)::int AS count FROM participants WHERE org_id = ${team.org.id}
          AND id IN (${sql.join(
            [first!.id, twice[0]!.id].map((id) => sql`${id}::uuid`),
            sql`, `,
          )})`,
      ),
    ) as [{ count: number }];
    expect(count).toBe(2);
  });

  it('is per organization: the same national id elsewhere is another person', async () => {
    const nationalId = newNationalId();
    const [ours] = await registerPeople([person({ nationalId })]);
    const project = await createProject(t.database.db, team.outsiderOrg.id);
    const theirActivity = await postActivity(t.app, team.outsider, team.outsiderOrg.id, project.id);
    const [theirs] = await register(t.app, team.outsider, team.outsiderOrg.id, theirActivity.id, [
      person({ nationalId }),
    ]);
    expect(theirs!.participant.id).not.toBe(ours!.id);
    expect(theirs!.participant.nationalId).toBe(nationalId);
    // Nor can a reader of the database link the two: the organization is part of the blind index.
    const indexes = await t.database.db
      .select({ index: participants.nationalIdIndex })
      .from(participants)
      .where(inArray(participants.id, [ours!.id, theirs!.participant.id]));
    expect(indexes).toHaveLength(2);
    expect(indexes[0]!.index).not.toBe(indexes[1]!.index);
  });

  it("refuses with 409 a change of national id to another participant's, and keeps both as they were", async () => {
    const [a, b] = await registerPeople([
      person({ nationalId: newNationalId(), phone: newPhone() }),
      person({ nationalId: newNationalId() }),
    ]);
    expectError(await patch(b!.id, { nationalId: a!.nationalId }), TAKEN);
    expectError(await patch(b!.id, { nationalId: `  ${a!.nationalId}` }), TAKEN);
    const [afterA, afterB] = await Promise.all(
      [a!, b!].map((p) => call(t.app, 'GET', participantUrl(team.org.id, p.id), { as: team.officer })),
    );
    expect(afterA!.body.nationalId).toBe(a!.nationalId);
    expect(afterB!.body.nationalId).toBe(b!.nationalId);

    // Its own national id again is no conflict; a freed national id can be taken.
    expect((await patch(a!.id, { nationalId: a!.nationalId })).status).toBe(200);
    const freed = a!.nationalId!;
    expect((await patch(a!.id, { nationalId: newNationalId() })).status).toBe(200);
    const taken = await patch(b!.id, { nationalId: freed });
    expect([taken.status, taken.body.nationalId]).toEqual([200, freed]);
    const [found] = await registerPeople([person({ nationalId: freed })]);
    expect(found!.id).toBe(b!.id);
  });
});
