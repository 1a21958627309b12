import { existsSync } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { CommandReport } from '../admin-command.js';
import type { Config } from '../config.js';
import { waitForDatabaseOrExit } from '../startup.js';
import { ArchiveWriter } from './archive.js';
import { embeddedDirectory, dumpEmbedded, openEmbedded, refuseWhileOpen } from './embedded.js';
import {
  appIdentity,
  BackupRefused,
  DATABASE_ENTRY,
  databaseFacts,
  jwtSecretId,
  MANIFEST_ENTRY,
  type Manifest,
} from './manifest.js';
import { dumpPostgres, inExportedSnapshot } from './postgres.js';
import { archiveFiles, filesOnDisk } from './stored-files.js';

/**
 * What `npm run backup -- --out FILE` does (src/backup.ts runs it): one archive (a standard tar file) of
 * the database, the stored files and a manifest (docs/operations.md, "Back up and restore"). On
 * PostgreSQL it runs beside the service: the dump and the manifest's counts come from one exported
 * snapshot, and the files are taken after it, so every file a row of the dump names was stored already.
 * The embedded database needs the service stopped. PII_KEY and JWT_SECRET are never in the archive:
 * only ids made from them.
 * Exit codes: 0 written; 1 refused or failed (nothing left at FILE); 2 a bad command line.
 */

export const BACKUP_USAGE = 'usage: npm run backup -- --out <file>';

const usageError = (message: string): CommandReport => ({
  exitCode: 2,
  out: [],
  err: [`backup: ${message}\n${BACKUP_USAGE}`],
});

/** The archive's path from the command line, or the report of a refusal (exit 2) or of `--help` (0). */
export function readBackupArguments(args: string[]): { out: string } | { report: CommandReport } {
  let values: { out?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: { out: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    return { report: usageError((err as Error).message) };
  }
  if (values.help) return { report: { exitCode: 0, out: [BACKUP_USAGE], err: [] } };
  if (!values.out) return { report: usageError('--out is required') };
  const out = path.resolve(values.out);
  if (existsSync(out)) {
    return {
      report: {
        exitCode: 2,
        out: [],
        err: [`backup: ${out} exists already: a backup never overwrites one; give a new name`],
      },
    };
  }
  return { out };
}

/** Writes the archive at `out` (through `out.part`, renamed once complete); what to print. */
export async function makeBackup(config: Config, out: string): Promise<CommandReport> {
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

    const archive = await ArchiveWriter.create(partial);
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
    await rm(dumpFile, { force: true });
    const rows = Object.values(manifest.counts).reduce((sum, n) => sum + n, 0);
    return {
      exitCode: 0,
      out: [
        `backup: wrote ${out} (${(await stat(out)).size} bytes): the ${
          kind === 'postgresql'
            ? 'PostgreSQL database'
            : `embedded database in ${embeddedDirectory(config.dataDir)}`
        } (${rows} rows in ${Object.keys(manifest.counts).length} tables, migration ${manifest.migrations.last}), ` +
          `${manifest.files.count} stored files (${manifest.files.bytes} bytes). Personal data is sealed under ` +
          `PII_KEY ${manifest.keys.piiKey ?? '(none recorded yet)'}: keep that key, and JWT_SECRET, apart from the archive.`,
      ],
      err: [],
    };
  } catch (err) {
    await rm(partial, { force: true });
    await rm(dumpFile, { force: true });
    if (!(err instanceof BackupRefused)) throw err;
    return { exitCode: 1, out: [], err: [`backup: ${err.message}`] };
  }
}
