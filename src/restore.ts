import { createWriteStream, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { embeddedDirectory, loadEmbedded } from './backups/embedded.js';
import {
  BackupRefused,
  databaseFacts,
  jwtSecretId,
  knownMigrations,
  majorVersion,
  MANIFEST_ENTRY,
  parseManifest,
  type Manifest,
} from './backups/manifest.js';
import { postgresTarget, restorePostgres } from './backups/postgres.js';
import { restoreFiles } from './backups/stored-files.js';
import { loadConfigOrExit, type Config } from './config.js';
import { openDatabase, type Database } from './db/client.js';
import { tarEntries, tarEntryBuffer, tarEntryStream, TarFormatError, type TarEntry } from './lib/tar.js';
import {
  checkSealingKey,
  keyringHolds,
  sealingKeyMismatch,
  SealingKeyMismatch,
} from './modules/privacy/index.js';
import { waitForDatabaseOrExit } from './startup.js';

/**
 * `npm run restore -- FILE`: a backup archive (`npm run backup`) into an empty database (DATABASE_URL, or
 * the embedded one in DATA_DIR) and DATA_DIR, with the keys of the backed-up service. Everything that can
 * be told from the archive's manifest is checked before anything is written: the kind of database, a
 * schema newer than this code, the target not empty, PII_KEY not the key the data is sealed under (the
 * service's own refusal). Once restored, the sealing key check runs on the restored data, as a start
 * would, and the counts of rows and files are compared with the manifest's.
 * Exit codes: 0 restored; 1 refused (nothing written) or failed; 2 a bad command line.
 */

const USAGE = 'usage: npm run restore -- <backup file>';

/** What DATA_DIR may hold before a restore: the development keys an operator copied in (never files or data). */
const KEY_FILES = new Set(['pii-key', 'jwt-secret']);

function fail(message: string, code: number): never {
  console.error(`restore: ${message}`);
  process.exit(code);
}

function archivePath(): string {
  let parsed: { values: { help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      options: { help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    return fail(`${(err as Error).message}\n${USAGE}`, 2);
  }
  if (parsed.values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (parsed.positionals.length !== 1) fail(`give one backup file\n${USAGE}`, 2);
  const file = path.resolve(parsed.positionals[0]!);
  if (!existsSync(file)) fail(`${file} does not exist`, 2);
  return file;
}

async function readArchive(file: string): Promise<{ manifest: Manifest; entries: TarEntry[] }> {
  try {
    const entries = await tarEntries(file);
    const manifestEntry = entries.find((entry) => entry.name === MANIFEST_ENTRY);
    if (!manifestEntry) throw new TarFormatError('it has no manifest.json');
    return { manifest: parseManifest((await tarEntryBuffer(file, manifestEntry)).toString('utf8')), entries };
  } catch (err) {
    if (!(err instanceof TarFormatError || err instanceof SyntaxError)) throw err;
    throw new BackupRefused(`${file} is not a backup of this service (${err.message})`);
  }
}

/** Every refusal the manifest and the target allow before anything is written. */
async function refusals(config: Config, manifest: Manifest, entries: TarEntry[]): Promise<void> {
  const kind = config.databaseUrl ? 'postgresql' : 'embedded';
  const was = (k: string) => (k === 'postgresql' ? 'a PostgreSQL database' : 'the embedded database');
  if (manifest.database.kind !== kind) {
    throw new BackupRefused(
      `this backup is of ${was(manifest.database.kind)}, and this service is configured for ` +
        `${was(kind)} (${config.databaseUrl ? 'DATABASE_URL is set' : 'DATABASE_URL is not set'}). ` +
        'A backup restores into the same kind of database: ' +
        (manifest.database.kind === 'postgresql'
          ? 'set DATABASE_URL to a new, empty PostgreSQL database.'
          : 'unset DATABASE_URL to restore into the embedded database in DATA_DIR.'),
    );
  }
  if (!entries.some((entry) => entry.name === manifest.database.entry)) {
    throw new BackupRefused(`the archive has no ${manifest.database.entry}: it is incomplete`);
  }
  const known = knownMigrations();
  if (manifest.migrations.applied > known.length) {
    throw new BackupRefused(
      `this backup was made by a newer version of the service (${manifest.app.version}, migration ` +
        `${manifest.migrations.last}; this one knows up to ${known.at(-1)?.tag}): restore it with that version or a later one`,
    );
  }
  if (manifest.keys.piiKey && !keyringHolds(config.piiKeyring, manifest.keys.piiKey)) {
    throw sealingKeyMismatch(manifest.keys.piiKey, config.piiKeyring);
  }
  const inDataDir = existsSync(config.dataDir)
    ? readdirSync(config.dataDir).filter((name) => !KEY_FILES.has(name))
    : [];
  if (inDataDir.length > 0) {
    throw new BackupRefused(
      `DATA_DIR (${config.dataDir}) is not empty (${inDataDir.slice(0, 5).join(', ')}${
        inDataDir.length > 5 ? ', ...' : ''
      }): a restore goes into a new, empty directory (it may hold the key files pii-key and jwt-secret only)`,
    );
  }
  if (config.databaseUrl) {
    await waitForDatabaseOrExit(config);
    const target = await postgresTarget(config.databaseUrl);
    if (target.relations > 0) {
      throw new BackupRefused(
        `the database at DATABASE_URL is not empty (${target.relations} tables, views or sequences): a ` +
          'restore goes into a new, empty database (createdb, or CREATE DATABASE)',
      );
    }
    if (majorVersion(target.serverVersion) < majorVersion(manifest.database.serverVersion)) {
      throw new BackupRefused(
        `this backup is of PostgreSQL ${manifest.database.serverVersion}, and the database at DATABASE_URL ` +
          `runs ${target.serverVersion}: restore into PostgreSQL ${majorVersion(manifest.database.serverVersion)} or newer`,
      );
    }
  }
}

/** Loads the archive's database into the empty target; the restored database, open. */
async function restoreDatabase(config: Config, file: string, entry: TarEntry): Promise<Database> {
  if (!config.databaseUrl)
    return (await loadEmbedded(config.dataDir, await tarEntryBuffer(file, entry))).database;
  const dir = await mkdtemp(path.join(tmpdir(), 'mel-restore-'));
  try {
    const dump = path.join(dir, 'database.pgdump');
    await pipeline(tarEntryStream(file, entry), createWriteStream(dump, { mode: 0o600 }));
    await restorePostgres(config.databaseUrl, dump);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return openDatabase({ ...config, poolSize: 2 });
}

/** The restored counts against the manifest's: the names of the tables that differ. */
function differences(expected: Record<string, number>, found: Record<string, number>): string[] {
  const names = new Set([...Object.keys(expected), ...Object.keys(found)]);
  return [...names]
    .filter((name) => expected[name] !== found[name])
    .map((name) => `${name}: ${expected[name] ?? 'none'} in the backup, ${found[name] ?? 'none'} restored`);
}

const file = archivePath();
const config = loadConfigOrExit();
let written = false;
try {
  const { manifest, entries } = await readArchive(file);
  await refusals(config, manifest, entries);
  mkdirSync(config.dataDir, { recursive: true });
  written = true;
  const database = await restoreDatabase(
    config,
    file,
    entries.find((entry) => entry.name === manifest.database.entry)!,
  );
  let restoredFiles: { count: number; bytes: number };
  try {
    // As a start would: the restored data must open under PII_KEY.
    await checkSealingKey(database.db, config.piiKeyring);
    const counts = differences(manifest.counts, (await databaseFacts(database.db)).counts);
    if (counts.length > 0)
      throw new BackupRefused(`the restored rows differ from the backup's: ${counts.join('; ')}`);
    restoredFiles = await restoreFiles(config, database, file, entries);
  } finally {
    await database.close();
  }
  if (restoredFiles.count !== manifest.files.count || restoredFiles.bytes !== manifest.files.bytes) {
    throw new BackupRefused(
      `${restoredFiles.count} stored files (${restoredFiles.bytes} bytes) restored, and the backup lists ` +
        `${manifest.files.count} (${manifest.files.bytes} bytes): the archive is damaged`,
    );
  }
  if (manifest.keys.jwtSecret !== jwtSecretId(config.jwtSecret)) {
    console.error(
      'restore: JWT_SECRET is not the one the backup was made with: sessions signed before are not ' +
        'accepted, and everyone signs in again. Start with the old JWT_SECRET to keep them.',
    );
  }
  const rows = Object.values(manifest.counts).reduce((sum, n) => sum + n, 0);
  console.log(
    `restore: restored ${file} (made ${manifest.createdAt} by version ${manifest.app.version}) into ${
      config.databaseUrl
        ? 'the PostgreSQL database at DATABASE_URL'
        : `the embedded database in ${embeddedDirectory(config.dataDir)}`
    }: ${rows} rows in ${Object.keys(manifest.counts).length} tables, ${restoredFiles.count} stored files ` +
      `(${restoredFiles.bytes} bytes), as the backup lists them; PII_KEY opens the personal data. Start the service.`,
  );
} catch (err) {
  if (!(err instanceof BackupRefused || err instanceof SealingKeyMismatch)) throw err;
  console.error(err instanceof SealingKeyMismatch ? err.message : `restore: ${err.message}`);
  fail(
    written
      ? `the restore did not finish: what was written is left in ${
          config.databaseUrl ? 'the database at DATABASE_URL' : 'DATA_DIR'
        } and ${config.dataDir}; empty both before trying again`
      : 'nothing was restored',
    1,
  );
}
