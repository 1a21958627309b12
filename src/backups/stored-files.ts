import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Config } from '../config.js';
import { UUID_PATTERN } from '../lib/ids.js';
import type { Database } from '../db/client.js';
import { createFileStorage } from '../storage/configured-storage.js';
import type { ArchiveWriter } from './archive.js';
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
  archive: ArchiveWriter,
  files: FileOnDisk[],
): Promise<{ count: number; bytes: number }> {
  let bytes = 0;
  for (const file of files) {
    await archive.addFile(entryOfKey(file.key), file.path, file.size);
    bytes += file.size;
  }
  return { count: files.length, bytes };
}

const entryOfKey = (key: string) => `${FILES_PREFIX}${key.slice(0, 2)}/${key}`;

/** The storage key an archive entry holds (`files/<2 characters>/<key>`), or null for any other name. */
export function keyOfEntry(name: string): string | null {
  if (!name.startsWith(FILES_PREFIX)) return null;
  const key = name.slice(name.lastIndexOf('/') + 1);
  return KEY.test(key) && name === entryOfKey(key) ? key : null;
}

/** The configured file storage, taking the archive's files one at a time; what it took, counted. */
export function storedFilesTarget(config: Config, database: Pick<Database, 'db' | 'driver'>) {
  const storage = createFileStorage(config, database);
  const restored = { count: 0, bytes: 0 };
  return {
    restored,
    async put(key: string, size: number, content: AsyncIterable<Buffer>): Promise<void> {
      await storage.put(key, Readable.from(content));
      restored.count += 1;
      restored.bytes += size;
    },
  };
}
