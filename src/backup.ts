import { existsSync } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { embeddedDirectory, dumpEmbedded, openEmbedded, refuseWhileOpen } from './backups/embedded.js';
import {
  appIdentity,
  BackupRefused,
  DATABASE_ENTRY,
  databaseFacts,
  jwtSecretId,
  MANIFEST_ENTRY,
  type Manifest,
} from './backups/manifest.js';
import { dumpPostgres, inExportedSnapshot } from './backups/postgres.js';
import { archiveFiles, filesOnDisk } from './backups/stored-files.js';
import { loadConfigOrExit } from './config.js';
import { TarWriter } from './lib/tar.js';
import { waitForDatabaseOrExit } from './startup.js';

/**
 * `npm run backup -- --out FILE`: one archive (POSIX tar) of the database, the stored files and a
 * manifest (docs/operations.md, "Back up and restore"). On PostgreSQL it runs beside the service: the
 * dump and the manifest's counts come from one exported snapshot, and the files are taken after it, so
 * every file a row of the dump names was stored already. The embedded database needs the service
 * stopped. PII_KEY and JWT_SECRET are never in the archive: only ids made from them.
 * Exit codes: 0 written; 1 refused or failed (nothing left at FILE); 2 a bad command line.
 */

const USAGE = 'usage: npm run backup -- --out <file>';

function fail(message: string, code: number): never {
  console.error(`backup: ${message}`);
  process.exit(code);
}

function outputPath(): string {
  let values: { out?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: { out: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    return fail(`${(err as Error).message}\n${USAGE}`, 2);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (!values.out) fail(`--out is required\n${USAGE}`, 2);
  const out = path.resolve(values.out);
  if (existsSync(out)) fail(`${out} exists already: a backup never overwrites one; give a new name`, 2);
  return out;
}

const out = outputPath();
const config = loadConfigOrExit();
const kind = config.databaseUrl ? 'postgresql' : 'embedded';
const partial = `${out}.part`;
const dumpFile = `${out}.pgdump.part`;

// What a run that was killed left behind.
await rm(partial, { force: true });
await rm(dumpFile, { force: true });
try {
  let facts: Awaited<ReturnType<typeof databaseFacts>>;
  let embeddedTarball: Buffer | null = null;
  if (config.databaseUrl) {
    const url = config.databaseUrl;
    await waitForDatabaseOrExit(config);
    facts = await inExportedSnapshot(url, async (db, snapshot) => {
      await dumpPostgres(url, snapshot, dumpFile);
      return databaseFacts(db);
    });
  } else {
    refuseWhileOpen(config.dataDir, 'npm run backup');
    const { pglite, database } = await openEmbedded(config.dataDir);
    try {
      facts = await databaseFacts(database.db);
      embeddedTarball = await dumpEmbedded(pglite, database);
    } finally {
      await database.close();
    }
  }
  const files = await filesOnDisk(config.dataDir);
  const manifest: Manifest = {
    format: 1,
    createdAt: new Date().toISOString(),
    app: appIdentity(),
    database: { kind, entry: DATABASE_ENTRY[kind], serverVersion: facts.serverVersion },
    migrations: facts.migrations,
    keys: { piiKey: facts.piiKey, jwtSecret: jwtSecretId(config.jwtSecret) },
    counts: facts.counts,
    files: { count: files.length, bytes: files.reduce((sum, file) => sum + file.size, 0) },
  };

  const archive = await TarWriter.create(partial);
  try {
    await archive.addBuffer(MANIFEST_ENTRY, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
    if (embeddedTarball) await archive.addBuffer(manifest.database.entry, embeddedTarball);
    else await archive.addFile(manifest.database.entry, dumpFile, (await stat(dumpFile)).size);
    await archiveFiles(archive, files);
    await archive.close();
  } catch (err) {
    await archive.abandon();
    throw err;
  }
  await rename(partial, out);
  const rows = Object.values(manifest.counts).reduce((sum, n) => sum + n, 0);
  console.log(
    `backup: wrote ${out} (${(await stat(out)).size} bytes): the ${
      kind === 'postgresql'
        ? 'PostgreSQL database'
        : `embedded database in ${embeddedDirectory(config.dataDir)}`
    } (${rows} rows in ${Object.keys(manifest.counts).length} tables, migration ${manifest.migrations.last}), ` +
      `${manifest.files.count} stored files (${manifest.files.bytes} bytes). Personal data is sealed under ` +
      `PII_KEY ${manifest.keys.piiKey ?? '(none recorded yet)'}: keep that key, and JWT_SECRET, apart from the archive.`,
  );
} catch (err) {
  await rm(partial, { force: true });
  await rm(dumpFile, { force: true });
  if (!(err instanceof BackupRefused)) throw err;
  fail(err.message, 1);
}
await rm(dumpFile, { force: true });
