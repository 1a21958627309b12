import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import { UUID_PATTERN } from '../lib/ids.js';
import { tarEntryStream, type TarEntry, type TarWriter } from '../lib/tar.js';
import type { Database } from '../db/client.js';
import { createFileStorage } from '../storage/configured-storage.js';
import { FILES_PREFIX } from './manifest.js';

/**
 * Stored files in a backup: those on disk under `DATA_DIR/files/<2 characters>/<key>`, as local disk
 * storage keeps them, taken from the directory (file storage offers no listing). Files kept in the
 * database itself (a database storage driver) are in the database's dump already; this directory is
 * then empty or absent, and nothing more is needed. A restore hands each file to the configured
 * storage, wherever it keeps them.
 */

const KEY = new RegExp(UUID_PATTERN.source);

export interface FileOnDisk {
  key: string;
  path: string;
  size: number;
}

/** Every stored file under `DATA_DIR/files`; names that are no storage key (a `.part` upload) are left out. */
export async function filesOnDisk(dataDir: string): Promise<FileOnDisk[]> {
  const root = path.join(dataDir, 'files');
  const found: FileOnDisk[] = [];
  let shards: string[];
  try {
    shards = (await readdir(root)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return found;
    throw err;
  }
  for (const shard of shards) {
    const dir = path.join(root, shard);
    if (!(await stat(dir)).isDirectory()) continue;
    for (const key of (await readdir(dir)).sort()) {
      if (!KEY.test(key) || key.slice(0, 2) !== shard) continue;
      const file = path.join(dir, key);
      const info = await stat(file).catch(() => null); // removed meanwhile: its row is gone too
      if (info?.isFile()) found.push({ key, path: file, size: info.size });
    }
  }
  return found;
}

export async function archiveFiles(
  archive: TarWriter,
  files: FileOnDisk[],
): Promise<{ count: number; bytes: number }> {
  let bytes = 0;
  for (const file of files) {
    await archive.addFile(`${FILES_PREFIX}${file.key.slice(0, 2)}/${file.key}`, file.path, file.size);
    bytes += file.size;
  }
  return { count: files.length, bytes };
}

/** The storage key an archive entry holds, or null for an entry that is no stored file. */
export function keyOfEntry(entry: TarEntry): string | null {
  if (!entry.name.startsWith(FILES_PREFIX)) return null;
  const [shard, key, ...rest] = entry.name.slice(FILES_PREFIX.length).split('/');
  if (rest.length > 0 || !key || !KEY.test(key) || key.slice(0, 2) !== shard) return null;
  return key;
}

/** Puts the archive's files into the configured file storage; their count and bytes. */
export async function restoreFiles(
  config: Config,
  database: Pick<Database, 'db' | 'driver'>,
  archivePath: string,
  entries: TarEntry[],
): Promise<{ count: number; bytes: number }> {
  const storage = createFileStorage(config, database);
  let count = 0;
  let bytes = 0;
  for (const entry of entries) {
    const key = keyOfEntry(entry);
    if (!key) continue;
    await storage.put(key, tarEntryStream(archivePath, entry));
    count += 1;
    bytes += entry.size;
  }
  return { count, bytes };
}
