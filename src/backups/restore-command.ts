import { createWriteStream, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import type { CommandReport } from '../admin-command.js';
import type { Config } from '../config.js';
import { openDatabase, type Database } from '../db/client.js';
import {
  checkSealingKey,
  keyringHolds,
  sealingKeyMismatch,
  SealingKeyMismatch,
} from '../modules/privacy/index.js';
import { waitForDatabaseOrExit } from '../startup.js';
import { eachEntry, entryBytes, UnexpectedEntry, type ArchiveEntry } from './archive.js';
import { embeddedDirectory, loadEmbedded } from './embedded.js';
import {
  ArchiveFormatError,
  BackupRefused,
  databaseFacts,
  jwtSecretId,
  knownMigrations,
  majorVersion,
  MANIFEST_ENTRY,
  parseManifest,
  type Manifest,
} from './manifest.js';
import { postgresTarget, restorePostgres } from './postgres.js';
import { keyOfEntry, storedFilesTarget } from './stored-files.js';

/**
 * What `npm run restore -- FILE` does (src/restore.ts runs it): a backup archive (`npm run backup`) into
 * an empty database (DATABASE_URL, or the embedded one in DATA_DIR) and DATA_DIR, with the keys of the
 * backed-up service. The archive is read twice. The first reading lists and checks it whole (a tar
 * ending as one should, only the names `npm run backup` writes, in its order: manifest.json, the
 * database, files/<2 characters>/<storage key>; any other entry is refused, not skipped: such an archive
 * is not one this command wrote), and everything that can be told from it is checked
 * before anything is written: the kind of database, the archive holding what its manifest lists, a
 * schema newer than this code, the target not empty, PII_KEY not the key the data is sealed under (the
 * service's own refusal). The second reading restores: the database, then, once the sealing key check
 * has run on the restored data as a start would and its counts of rows match the manifest's, the files.
 * No entry name is ever made into a path: a stored file goes to the file storage under its checked key.
 * Exit codes: 0 restored; 1 refused (nothing written) or failed; 2 a bad command line.
 */

export const RESTORE_USAGE = 'usage: npm run restore -- <backup file>';

/** What DATA_DIR may hold before a restore: the development keys an operator copied in (never files or data). */
const KEY_FILES = new Set(['pii-key', 'jwt-secret']);

/** More than any manifest (a few kilobytes): it is read whole. */
const MANIFEST_LIMIT = 1024 * 1024;

const usageError = (message: string): CommandReport => ({
  exitCode: 2,
  out: [],
  err: [`restore: ${message}`],
});

/** The archive's path from the command line, or the report of a refusal (exit 2) or of `--help` (0). */
export function readRestoreArguments(args: string[]): { file: string } | { report: CommandReport } {
  let parsed: { values: { help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args,
      options: { help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    return { report: usageError(`${(err as Error).message}\n${RESTORE_USAGE}`) };
  }
  if (parsed.values.help) return { report: { exitCode: 0, out: [RESTORE_USAGE], err: [] } };
  if (parsed.positionals.length !== 1)
    return { report: usageError(`give one backup file\n${RESTORE_USAGE}`) };
  const file = path.resolve(parsed.positionals[0]!);
  if (!existsSync(file)) return { report: usageError(`${file} does not exist`) };
  return { file };
}

/** The first reading: the manifest and the entries, checked to be an archive `npm run backup` wrote. */
async function readArchive(file: string): Promise<{ manifest: Manifest; entries: ArchiveEntry[] }> {
  const entries: ArchiveEntry[] = [];
  const found: { manifest?: Manifest } = {};
  const keys = new Set<string>();
  try {
    await eachEntry(file, async (entry, content) => {
      entries.push(entry);
      if (entries.length === 1) {
        if (entry.name !== MANIFEST_ENTRY) throw new ArchiveFormatError('it has no manifest.json');
        if (entry.size > MANIFEST_LIMIT)
          throw new ArchiveFormatError('its manifest.json is not one this version understands');
        found.manifest = parseManifest((await entryBytes(content)).toString('utf8'));
        return;
      }
      if (entries.length === 2 && entry.name === found.manifest!.database.entry) return;
      const key = keyOfEntry(entry.name);
      if (!key || keys.has(key)) throw new UnexpectedEntry(entry.name);
      keys.add(key);
    });
    if (!found.manifest) throw new ArchiveFormatError('it has no manifest.json');
    return { manifest: found.manifest, entries };
  } catch (err) {
    if (err instanceof UnexpectedEntry) {
      throw new BackupRefused(`${file} is not a backup archive made by npm run backup: ${err.message}`);
    }
    if (!(err instanceof ArchiveFormatError || err instanceof SyntaxError)) throw err;
    throw new BackupRefused(`${file} is not a backup of this service (${err.message})`);
  }
}

/** Every refusal the archive and the target allow before anything is written. */
async function refusals(config: Config, manifest: Manifest, entries: ArchiveEntry[]): Promise<void> {
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
  if (entries[1]?.name !== manifest.database.entry) {
    throw new BackupRefused(`the archive has no ${manifest.database.entry}: it is incomplete`);
  }
  const files = entries.slice(2);
  const bytes = files.reduce((sum, entry) => sum + entry.size, 0);
  if (files.length !== manifest.files.count || bytes !== manifest.files.bytes) {
    throw new BackupRefused(
      `the archive holds ${files.length} stored files (${bytes} bytes), and its manifest lists ` +
        `${manifest.files.count} (${manifest.files.bytes} bytes): it is incomplete`,
    );
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
async function restoreDatabase(config: Config, content: AsyncIterable<Buffer>): Promise<Database> {
  // The embedded database's tarball is loaded whole (PGlite takes it so), as it was made.
  if (!config.databaseUrl) return (await loadEmbedded(config.dataDir, await entryBytes(content))).database;
  const dir = await mkdtemp(path.join(tmpdir(), 'mel-restore-'));
  try {
    const dump = path.join(dir, 'database.pgdump');
    await pipeline(content, createWriteStream(dump, { flags: 'wx', mode: 0o600 }));
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

/**
 * The second reading: the database, checked, then the stored files into the configured storage (which,
 * with FILE_STORAGE=database, is the restored database: it stays open until the last file); the files
 * restored. The first reading made sure the database comes before any file.
 */
async function restoreContents(
  config: Config,
  file: string,
  manifest: Manifest,
): Promise<{ count: number; bytes: number }> {
  let database: Database | undefined;
  let storedFiles: ReturnType<typeof storedFilesTarget> | undefined;
  try {
    await eachEntry(file, async (entry, content) => {
      if (entry.name === manifest.database.entry) {
        database = await restoreDatabase(config, content);
        // As a start would: the restored data must open under PII_KEY.
        await checkSealingKey(database.db, config.piiKeyring);
        const counts = differences(manifest.counts, (await databaseFacts(database.db)).counts);
        if (counts.length > 0)
          throw new BackupRefused(`the restored rows differ from the backup's: ${counts.join('; ')}`);
        storedFiles = storedFilesTarget(config, database);
        return;
      }
      // The first reading let through only the manifest, the database and stored files.
      const key = keyOfEntry(entry.name);
      if (key && storedFiles) await storedFiles.put(key, entry.size, content);
    });
  } finally {
    await database?.close();
  }
  return storedFiles?.restored ?? { count: 0, bytes: 0 };
}

/** Restores the archive at `file` as `config` configures the service; what to print. */
export async function restoreBackup(config: Config, file: string): Promise<CommandReport> {
  let written = false;
  try {
    const { manifest, entries } = await readArchive(file);
    await refusals(config, manifest, entries);
    mkdirSync(config.dataDir, { recursive: true });
    written = true;
    const restoredFiles = await restoreContents(config, file, manifest);
    if (restoredFiles.count !== manifest.files.count || restoredFiles.bytes !== manifest.files.bytes) {
      throw new BackupRefused(
        `${restoredFiles.count} stored files (${restoredFiles.bytes} bytes) restored, and the backup lists ` +
          `${manifest.files.count} (${manifest.files.bytes} bytes): the archive is damaged`,
      );
    }
    const err =
      manifest.keys.jwtSecret === jwtSecretId(config.jwtSecret)
        ? []
        : [
            'restore: JWT_SECRET is not the one the backup was made with: sessions signed before are not ' +
              'accepted, and everyone signs in again. Start with the old JWT_SECRET to keep them.',
          ];
    const rows = Object.values(manifest.counts).reduce((sum, n) => sum + n, 0);
    return {
      exitCode: 0,
      out: [
        `restore: restored ${file} (made ${manifest.createdAt} by version ${manifest.app.version}) into ${
          config.databaseUrl
            ? 'the PostgreSQL database at DATABASE_URL'
            : `the embedded database in ${embeddedDirectory(config.dataDir)}`
        }: ${rows} rows in ${Object.keys(manifest.counts).length} tables, ${restoredFiles.count} stored files ` +
          `(${restoredFiles.bytes} bytes), as the backup lists them; PII_KEY opens the personal data. Start the service.`,
      ],
      err,
    };
  } catch (err) {
    if (!(err instanceof BackupRefused || err instanceof SealingKeyMismatch)) throw err;
    return {
      exitCode: 1,
      out: [],
      err: [
        err instanceof SealingKeyMismatch ? err.message : `restore: ${err.message}`,
        `restore: ${
          written
            ? `the restore did not finish: what was written is left in ${
                config.databaseUrl ? 'the database at DATABASE_URL' : 'DATA_DIR'
              } and ${config.dataDir}; empty both before trying again`
            : 'nothing was restored'
        }`,
      ],
    };
  }
}
