/**
 * `npm run backup` and `npm run restore`, on PostgreSQL (TEST_DATABASE_URL: a source database and a new,
 * empty one) or on embedded databases in two DATA_DIRs. One backup and one restore run as an operator runs
 * them, the compiled commands in processes of their own; data made through the API reads back the same
 * bytes from the restored copy. The refusals are asked of the functions those commands call, in this
 * process, with the configuration the commands would read.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchiveWriter, eachEntry, entryBytes } from '../src/backups/archive.js';
import { makeBackup } from '../src/backups/backup-command.js';
import { BackupRefused, type Manifest } from '../src/backups/manifest.js';
import { postgresTarget } from '../src/backups/postgres.js';
import { restoreBackup } from '../src/backups/restore-command.js';
import { loadConfig, type Config } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { sealingKey } from '../src/lib/sealed-values.js';
import { person, postActivity, participantsUrl, register, registrationsUrl } from './helpers/activities.js';
import { buildTestApp, maintenanceQuery, TEST_PII_KEY } from './helpers/app.js';
import { buildOnce, runEntry } from './helpers/commands.js';
import { migratedDataDir } from './helpers/embedded.js';
import { createProject, createTeam } from './helpers/factories.js';
import { multipart, PDF, PNG } from './helpers/files.js';
import { formUrl, publishedForm, submissionFileUrl, submissionsUrl, submitUrl } from './helpers/forms.js';
import { call } from './helpers/http.js';
import { createDonorReport, donorReportsUrl, donorReportUrl } from './helpers/reports.js';

const testUrl = process.env.TEST_DATABASE_URL;
// buildTestApp's: sessions made on the source are accepted by the restored copy.
const JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-signing';
const WRONG_KEY = Buffer.alloc(32, 9).toString('base64');

interface Place {
  url: string | null;
  dataDir: string;
}

let work: string;
let source: Place;
let target: Place;
let archive: string;
/** Each GET made on the source, with what it answered. */
const reads: { url: string; token: string; status: number; type: string | undefined; body: Buffer }[] = [];

async function newDatabase(template: string | null): Promise<string> {
  const name = `mel_backup_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await maintenanceQuery(
    testUrl!,
    `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ' TEMPLATE template0'}`,
  );
  const own = new URL(testUrl!);
  own.pathname = `/${name}`;
  return own.toString();
}

beforeAll(async () => {
  // Built once here, so the runs below do not each rebuild.
  await buildOnce();
  work = mkdtempSync(path.join(tmpdir(), 'mel-backup-'));
  archive = path.join(work, 'backup.tar');
  source = { url: null, dataDir: path.join(work, 'source') };
  target = { url: null, dataDir: path.join(work, 'restored') };
  if (testUrl) {
    source.url = await newDatabase(new URL(testUrl).pathname.slice(1));
    target.url = await newDatabase(null);
  } else {
    mkdirSync(source.dataDir);
    await migratedDataDir(source.dataDir);
  }
}, 120_000);
afterAll(async () => {
  for (const place of [source, target]) {
    if (place?.url && testUrl) {
      await maintenanceQuery(
        testUrl,
        `DROP DATABASE IF EXISTS ${new URL(place.url).pathname.slice(1)} WITH (FORCE)`,
      );
    }
  }
  rmSync(work, { recursive: true, force: true });
});

/** The service's production environment for `place`, as an operator runs the commands with it. */
function environment(place: Place, env: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'production',
    JWT_SECRET,
    PII_KEY: TEST_PII_KEY,
    DATA_DIR: place.dataDir,
    LOG_LEVEL: 'error',
    ...(place.url ? { DATABASE_URL: place.url } : { ALLOW_EMBEDDED_IN_PRODUCTION: 'true' }),
    ...env,
  };
}

/** The configuration the commands read from that environment: for the functions they call, in this process. */
const configOf = (place: Place, env: Record<string, string> = {}): Config =>
  loadConfig(environment(place, env));

/** A command as an operator runs it: the compiled one, in a process of its own. */
const command = (place: Place, [entry, ...args]: string[]) => runEntry(entry!, args, environment(place));

/** The archive's entries in order, with their bytes. */
async function entriesOf(file: string): Promise<{ name: string; content: Buffer }[]> {
  const entries: { name: string; content: Buffer }[] = [];
  await eachEntry(file, async ({ name }, content) => {
    entries.push({ name, content: await entryBytes(content) });
  });
  return entries;
}

/** Another archive, of `entries` (each as given), next to the backup. */
async function archiveOf(name: string, entries: { name: string; content: Buffer }[]): Promise<string> {
  const file = path.join(work, name);
  const writer = await ArchiveWriter.create(file);
  for (const entry of entries) await writer.addBuffer(entry.name, entry.content);
  await writer.close();
  return file;
}

/** The app on `place`'s database and files, for `work`; closed after (the embedded one takes one process). */
async function withService<T>(
  place: Place,
  work: (t: Awaited<ReturnType<typeof buildTestApp>>) => Promise<T>,
  env: Record<string, string> = {},
) {
  const database = openDatabase({ databaseUrl: place.url, dataDir: place.dataDir, poolSize: 5 });
  const t = await buildTestApp({ DATA_DIR: place.dataDir, ...env }, { database, worker: false });
  try {
    return await work(t);
  } finally {
    await t.close();
    await database.close();
  }
}

const get = (t: Awaited<ReturnType<typeof buildTestApp>>, url: string, token: string) =>
  t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

/** Every GET made on the source answers the same status, type and bytes on `t`. */
async function expectSameReads(t: Awaited<ReturnType<typeof buildTestApp>>) {
  for (const read of reads) {
    const res = await get(t, read.url, read.token);
    expect([res.statusCode, String(res.headers['content-type'])], read.url).toEqual([read.status, read.type]);
    expect(res.rawPayload.equals(read.body), `${read.url}: ${res.body}`).toBe(true);
  }
}

async function restoredIsEmpty(): Promise<boolean> {
  if (target.url) return (await postgresTarget(target.url)).relations === 0;
  return !existsSync(target.dataDir);
}

describe('npm run backup and npm run restore', { timeout: 120_000 }, () => {
  it('backs up participants with sealed fields, a form with a file answer, a report and an attachment', async () => {
    await withService(source, async (t) => {
      const { db } = t.database;
      const team = await createTeam(t.app, db);
      const orgId = team.org.id;
      const project = await createProject(db, orgId);
      const activity = await postActivity(t.app, team.officer, orgId, project.id);
      const people = await register(t.app, team.officer, orgId, activity.id, [
        person({ phone: '+254 712 345 678', nationalId: 'KE-12345678' }),
        person({ phone: '+254 722 000 111', nationalId: 'KE-87654321' }),
      ]);
      const form = await publishedForm(t.app, team.officer, orgId, {
        projectId: project.id,
        fields: [
          { type: 'text', label: 'Name', key: 'name' },
          { type: 'file', label: 'Photo of the water point', key: 'photo', required: true },
        ],
      });
      const submitted = await call(
        t.app,
        'POST',
        submitUrl(form.publicToken),
        multipart([
          { name: 'data', value: JSON.stringify({ answers: { name: 'Achieng' } }) },
          { name: 'photo', value: PNG, fileName: 'well.png', contentType: 'image/png' },
        ]),
      );
      expect(submitted.status).toBe(201);
      const report = await createDonorReport(t.app, team.officer, orgId, {
        projectId: project.id,
        startDate: '2026-01-01',
        endDate: '2026-03-31',
      });
      const attached = await call(t.app, 'POST', `/orgs/${orgId}/projects/${project.id}/attachments`, {
        as: team.officer,
        ...multipart([{ name: 'file', value: PDF, fileName: 'plan.pdf' }]),
      });
      expect(attached.status, JSON.stringify(attached.body)).toBe(201);

      const admin = team.admin.token;
      const urls: [string, string][] = [
        ['/auth/me', admin],
        ['/orgs', admin],
        [participantsUrl(orgId), admin],
        [`${participantsUrl(orgId)}/${people[0]!.participant.id}`, admin],
        [participantsUrl(orgId), team.viewer.token],
        [registrationsUrl(orgId, activity.id), team.officer.token],
        [formUrl(orgId, form.id), admin],
        [submissionsUrl(orgId, form.id), admin],
        [submissionFileUrl(orgId, form.id, submitted.body.id as string, 'photo'), admin],
        [donorReportsUrl(orgId), admin],
        [donorReportUrl(orgId, report.id), admin],
        [`/orgs/${orgId}/projects/${project.id}/attachments`, admin],
        [`/orgs/${orgId}/attachments/${attached.body.id as string}/download`, admin],
      ];
      for (const [url, token] of urls) {
        const res = await get(t, url, token);
        expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
        reads.push({
          url,
          token,
          status: res.statusCode,
          type: String(res.headers['content-type']),
          body: res.rawPayload,
        });
      }
      expect(reads[8]!.body.equals(PNG)).toBe(true);
      expect(reads[12]!.body.equals(PDF)).toBe(true);

      // The embedded database is open here, as in a running service: a backup is refused.
      if (!source.url) {
        const refused = await makeBackup(configOf(source), archive);
        expect([refused.exitCode, refused.out]).toEqual([1, []]);
        expect(refused.err).toHaveLength(1);
        expect(refused.err[0]).toMatch(
          /^backup: the embedded database in .+ is open in another process, the service most likely\./,
        );
        expect(existsSync(archive)).toBe(false);
        expect(existsSync(`${archive}.part`)).toBe(false);
      }
    });

    const run = await command(source, ['backup', '--out', archive]);
    expect([run.code, run.err]).toEqual([0, '']);
    expect(run.out).toMatch(/^backup: wrote .+backup\.tar \(\d+ bytes\)/);

    const entries = await entriesOf(archive);
    const names = entries.map((entry) => entry.name);
    expect(names.slice(0, 2)).toEqual([
      'manifest.json',
      source.url ? 'database.pgdump' : 'database.pglite.tar.gz',
    ]);
    expect(names.slice(2)).toHaveLength(2);
    expect(names.slice(2).every((name) => /^files\/[0-9a-f]{2}\/[0-9a-f-]{36}$/.test(name))).toBe(true);
    const manifest = JSON.parse(entries[0]!.content.toString()) as Manifest;
    expect(manifest).toMatchObject({
      format: 1,
      app: { name: 'mel-service' },
      database: { kind: source.url ? 'postgresql' : 'embedded' },
      keys: { piiKey: sealingKey(TEST_PII_KEY).id, jwtSecret: expect.stringMatching(/^[0-9a-f]{16}$/) },
      files: { count: 2, bytes: PNG.length + PDF.length },
    });
    expect(manifest.migrations.last).toMatch(/^\d{4}_/);
    expect(manifest.counts).toMatchObject({
      participants: 2,
      form_submission_files: 1,
      reports: 1,
      attachments: 1,
    });
    // Only ids of the keys: never the keys.
    const text = readFileSync(archive);
    for (const secret of [TEST_PII_KEY, JWT_SECRET, sealingKey(TEST_PII_KEY).secret.toString('hex')]) {
      expect(text.includes(secret)).toBe(false);
    }
    // A standard tar: the system's tar lists it alike.
    const listed = spawnSync('tar', ['-tf', archive], { encoding: 'utf8' });
    if (!listed.error) expect(listed.stdout.trim().split('\n')).toEqual(names);
  });

  it("refuses a restore with the wrong PII_KEY with the service's own message, and writes nothing", async () => {
    const report = await restoreBackup(configOf(target, { PII_KEY: WRONG_KEY }), archive);
    expect([report.exitCode, report.out]).toEqual([1, []]);
    expect(report.err.join('\n')).toBe(
      `PII_KEY does not open the personal data in this database: it is sealed under key ${
        sealingKey(TEST_PII_KEY).id
      }, and PII_KEY is key ${sealingKey(WRONG_KEY).id}. Start with the key the data was sealed under as ` +
        'PII_KEY (during a rotation: the new key as PII_KEY and the old one as PII_KEY_PREVIOUS).\n' +
        'restore: nothing was restored',
    );
    expect(await restoredIsEmpty()).toBe(true);
  });

  it('refuses a restore into another kind of database, and writes nothing', async () => {
    const other: Place = target.url
      ? { url: null, dataDir: target.dataDir }
      : { url: 'postgres://nobody@127.0.0.1:1/none', dataDir: target.dataDir };
    const report = await restoreBackup(configOf(other), archive);
    expect([report.exitCode, report.out]).toEqual([1, []]);
    expect(report.err[0]).toMatch(
      /^restore: this backup is of (a PostgreSQL database|the embedded database), and this service is configured for/,
    );
    expect(report.err[1]).toBe('restore: nothing was restored');
    expect(await restoredIsEmpty()).toBe(true);
  });

  it('refuses an archive that is damaged, cut short, incomplete or holds other entries, and writes nothing', async () => {
    const entries = await entriesOf(archive);
    const whole = readFileSync(archive);
    const refusal = async (file: string) => {
      const report = await restoreBackup(configOf(target), file);
      expect([report.exitCode, report.out, report.err[1]]).toEqual([1, [], 'restore: nothing was restored']);
      return report.err[0];
    };
    const cut = (name: string, bytes: number) => {
      const file = path.join(work, name);
      writeFileSync(file, whole.subarray(0, bytes));
      return file;
    };
    // Inside the last file's bytes; then between two entries (tar would list it without complaint).
    const lastFile = entries.at(-1)!.content.length;
    const lastStart = whole.length - 1024 - Math.ceil(lastFile / 512) * 512;
    expect(await refusal(cut('inside.tar', lastStart + Math.floor(lastFile / 2)))).toMatch(
      /is not a backup of this service \(the archive is cut short\)$/,
    );
    const withoutLast = await archiveOf('without-last.tar', entries.slice(0, -1));
    const boundary = readFileSync(withoutLast).length - 1024;
    expect(await refusal(cut('boundary.tar', boundary))).toMatch(
      /is not a backup of this service \(the archive is cut short\)$/,
    );
    // Whole as a tar, and one stored file short of its manifest.
    expect(await refusal(withoutLast)).toMatch(
      /^restore: the archive holds 1 stored files \(\d+ bytes\), and its manifest lists 2 \(\d+ bytes\): it is incomplete$/,
    );
    expect(await refusal(await archiveOf('no-database.tar', [entries[0]!, ...entries.slice(2)]))).toMatch(
      /^restore: the archive has no database\.(pgdump|pglite\.tar\.gz): it is incomplete$/,
    );
    const unexpected = [
      '../../etc/cron.d/x',
      'files/00/../../../x',
      `files/zz/${randomUUID()}`,
      'README',
      entries.at(-1)!.name, // twice
    ];
    for (const name of unexpected) {
      const other = await archiveOf('other.tar', [...entries, { name, content: Buffer.from('x') }]);
      expect(await refusal(other)).toBe(
        `restore: ${other} is not a backup archive made by npm run backup: unexpected entry ${JSON.stringify(name)}`,
      );
      rmSync(other);
    }
    const garbage = path.join(work, 'garbage.tar');
    writeFileSync(garbage, Buffer.alloc(4096, 'not a tar archive '));
    expect(await refusal(garbage)).toMatch(/is not a backup of this service \(not a tar archive\)$/);
    expect(await refusal(await archiveOf('files-only.tar', entries.slice(2)))).toMatch(
      /is not a backup of this service \(it has no manifest\.json\)$/,
    );
    // A manifest of another shape (null, a field missing) is refused, not read.
    for (const [name, manifest] of [
      ['null-manifest.tar', 'null'],
      [
        'no-migrations.tar',
        JSON.stringify({ ...JSON.parse(entries[0]!.content.toString()), migrations: undefined }),
      ],
    ] as const) {
      const other = await archiveOf(name, [
        { name: 'manifest.json', content: Buffer.from(manifest) },
        ...entries.slice(1),
      ]);
      expect(await refusal(other)).toMatch(
        /is not a backup of this service \(its manifest\.json is not one this version understands\)$/,
      );
    }
    expect(await restoredIsEmpty()).toBe(true);
  });

  it('fails a backup whose file changes size while it is archived, rather than write a bad entry', async () => {
    const file = path.join(work, 'growing');
    writeFileSync(file, Buffer.alloc(1000, 1));
    for (const size of [999, 1001]) {
      const writer = await ArchiveWriter.create(path.join(work, `changed-${size}.tar`));
      await expect(writer.addFile('files/ab/x', file, size)).rejects.toThrow(
        new BackupRefused(
          `${file} changed while it was being archived (${size} bytes, then 1000): run the backup again`,
        ),
      );
      await writer.abandon();
    }
  });

  it('restores into a new database and DATA_DIR, where every read answers the same bytes', async () => {
    const run = await command(target, ['restore', archive]);
    expect([run.code, run.err]).toEqual([0, '']);
    expect(run.out).toMatch(/^restore: restored .+ 2 stored files \(\d+ bytes\), as the backup lists them/);

    await withService(target, (t) => expectSameReads(t));
  });

  it('puts the files into the database when the restored service keeps them there (FILE_STORAGE=database)', async () => {
    const place: Place = {
      url: testUrl ? await newDatabase(null) : null,
      dataDir: path.join(work, 'restored-files-in-database'),
    };
    try {
      const inDatabase = { FILE_STORAGE: 'database' };
      const report = await restoreBackup(configOf(place, inDatabase), archive);
      expect([report.exitCode, report.err]).toEqual([0, []]);
      expect(existsSync(path.join(place.dataDir, 'files'))).toBe(false);
      await withService(place, (t) => expectSameReads(t), inDatabase);
    } finally {
      if (place.url)
        await maintenanceQuery(
          testUrl!,
          `DROP DATABASE IF EXISTS ${new URL(place.url).pathname.slice(1)} WITH (FORCE)`,
        );
    }
  });

  it('refuses to restore into a database or DATA_DIR that is not empty', async () => {
    const report = await restoreBackup(configOf(target), archive);
    expect([report.exitCode, report.out]).toEqual([1, []]);
    expect(report.err[0]).toMatch(/^restore: DATA_DIR \(.+\) is not empty \((files|pglite)/);
    if (target.url) {
      const fresh: Place = { url: target.url, dataDir: path.join(work, 'empty') };
      const again = await restoreBackup(configOf(fresh), archive);
      expect([again.exitCode, again.out]).toEqual([1, []]);
      expect(again.err[0]).toMatch(
        /^restore: the database at DATABASE_URL is not empty \(\d+ tables, views or sequences\)/,
      );
    }
  });
});
