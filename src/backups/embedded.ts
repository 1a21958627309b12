import { existsSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { embeddedOptions, openDatabase, type Database } from '../db/client.js';
import { embeddedDatabaseInUse } from '../startup.js';
import { BackupRefused } from './manifest.js';

/**
 * The embedded database's side of a backup. PGlite runs inside one process: while the service has
 * `DATA_DIR/pglite` open, no other process may open it (two PostgreSQL instances writing one directory
 * corrupt it), and a copy of its files taken meanwhile is not consistent. So the service is stopped for
 * a backup; PGlite keeps `postmaster.pid` in the directory while it is open, which tells the case.
 * The copy is PGlite's own `dumpDataDir()`, a gzipped tarball of the data directory, taken after a
 * checkpoint; a restore loads it with `loadDataDir`.
 */

export const embeddedDirectory = (dataDir: string) => path.join(dataDir, 'pglite');

/** Refuses while another process (the service, most likely) has the embedded database open. */
export function refuseWhileOpen(dataDir: string, command: string): void {
  const dir = embeddedDatabaseInUse({ databaseUrl: null, dataDir });
  if (!dir) return;
  throw new BackupRefused(
    `the embedded database in ${dir} is open in another process, the service most likely. It takes one ` +
      `process at a time, and a copy taken while it runs is not consistent: stop the service (and the ` +
      `worker), run ${command} again, then start it. (If no process has it open, one was killed: start ` +
      'the service and stop it once, which closes it cleanly.)',
  );
}

/** Opens the existing embedded database of `dataDir` for reading; refuses when there is none. */
export async function openEmbedded(dataDir: string): Promise<{ pglite: PGlite; database: Database }> {
  const dir = embeddedDirectory(dataDir);
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    throw new BackupRefused(
      `there is no embedded database in ${dir}: is DATA_DIR the service's? (With DATABASE_URL set, the ` +
        'PostgreSQL database is backed up instead.)',
    );
  }
  const pglite = new PGlite(dir, embeddedOptions());
  await pglite.waitReady;
  return { pglite, database: openDatabase({ databaseUrl: null, dataDir, pglite }) };
}

/** The data directory as one gzipped tarball, after a checkpoint (nothing left only in the WAL). */
export async function dumpEmbedded(pglite: PGlite, database: Database): Promise<Buffer> {
  await database.db.execute(sql`CHECKPOINT`);
  const tarball = await pglite.dumpDataDir('gzip');
  return Buffer.from(await tarball.arrayBuffer());
}

/** A new embedded database in `dataDir`, made from a tarball `dumpEmbedded` gave; opened. */
export async function loadEmbedded(
  dataDir: string,
  tarball: Buffer,
): Promise<{ pglite: PGlite; database: Database }> {
  const pglite = new PGlite(embeddedDirectory(dataDir), {
    ...embeddedOptions(),
    loadDataDir: new Blob([new Uint8Array(tarball)]),
  });
  await pglite.waitReady;
  return { pglite, database: openDatabase({ databaseUrl: null, dataDir, pglite }) };
}
