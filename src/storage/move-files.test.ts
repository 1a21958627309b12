/** Moving the stored files between the filesystem and the database (`npm run files:migrate`), both ways. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/helpers/app.js';
import type { Database } from '../db/client.js';
import { CHUNK_BYTES, DatabaseStorage } from './database-storage.js';
import { LocalDiskStorage, newStorageKey, type MovableStorage } from './file-storage.js';
import { moveFiles } from './move-files.js';
import { storedFiles } from './stored-files.tables.js';

let database: Database;
let dataDir: string;

beforeAll(async () => {
  database = await openTestDatabase();
  dataDir = mkdtempSync(path.join(tmpdir(), 'mel-move-'));
});
afterAll(async () => {
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Each test its own files folder, and a database emptied of stored files. */
async function both() {
  await database.db.delete(storedFiles);
  const files = mkdtempSync(path.join(dataDir, 'files-'));
  return { disk: new LocalDiskStorage(files), db: new DatabaseStorage(database), files };
}

async function filled(storage: MovableStorage, sizes: number[]): Promise<Map<string, Buffer>> {
  const contents = new Map<string, Buffer>();
  for (const size of sizes) {
    const key = newStorageKey();
    const bytes = randomBytes(size);
    await storage.put(key, bytes);
    contents.set(key, bytes);
  }
  return contents;
}

async function holds(storage: MovableStorage, contents: Map<string, Buffer>): Promise<void> {
  for (const [key, bytes] of contents) {
    expect((await buffer(await storage.get(key))).equals(bytes)).toBe(true);
  }
}

async function keysOf(storage: MovableStorage): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of storage.keys()) keys.push(key);
  return keys;
}

describe('moveFiles', () => {
  it('moves every file into the database and back, byte for byte, emptying the source', async () => {
    const { disk, db, files } = await both();
    const contents = await filled(disk, [0, 10, 3 * CHUNK_BYTES + 7, 100_000]);

    expect(await moveFiles(disk, db)).toEqual({ moved: 4, alreadyThere: 0, gone: 0, failed: 0 });
    await holds(db, contents);
    expect(await keysOf(disk)).toEqual([]);
    // Only empty two-letter folders are left on disk.
    for (const folder of readdirSync(files)) expect(readdirSync(path.join(files, folder))).toEqual([]);

    expect(await moveFiles(db, disk)).toEqual({ moved: 4, alreadyThere: 0, gone: 0, failed: 0 });
    await holds(disk, contents);
    expect(await keysOf(db)).toEqual([]);
    expect(await moveFiles(db, disk)).toEqual({ moved: 0, alreadyThere: 0, gone: 0, failed: 0 });
  });

  it('takes up where a stopped run left off, without copying again what is there', async () => {
    const { disk, db } = await both();
    const contents = await filled(disk, [CHUNK_BYTES + 1, 20, 30, 40, 50]);
    const keys = [...contents.keys()].sort();

    // Stopped after two files, as by Ctrl-C.
    const stop = new Error('stopped');
    await expect(
      moveFiles(disk, db, {
        onProgress: (counts) => {
          if (counts.moved === 2) throw stop;
        },
      }),
    ).rejects.toBe(stop);
    expect((await keysOf(db)).sort()).toEqual(keys.slice(0, 2));
    // Stopped between a complete copy and the source's removal: that copy is kept, not made again.
    await db.put(keys[2]!, contents.get(keys[2]!)!);
    // And one copy left unfinished by a failed write: written again.
    await db.put(keys[3]!, contents.get(keys[3]!)!.subarray(0, 5));

    const puts: string[] = [];
    const watched: MovableStorage = Object.assign(Object.create(db) as DatabaseStorage, {
      put: (key: string, content: Readable | Buffer) => {
        puts.push(key);
        return db.put(key, content);
      },
    });
    expect(await moveFiles(disk, watched)).toEqual({ moved: 2, alreadyThere: 1, gone: 0, failed: 0 });
    expect(puts.sort()).toEqual([keys[3], keys[4]].sort());
    await holds(db, contents);
    expect(await keysOf(disk)).toEqual([]);
  });

  it('leaves a file whose copy fails in the source, names it, and moves the others', async () => {
    const { disk, db } = await both();
    const contents = await filled(db, [10, 20, 30]);
    const [broken] = [...contents.keys()];
    const failing: MovableStorage = Object.assign(Object.create(disk) as LocalDiskStorage, {
      put: (key: string, content: Readable | Buffer) =>
        key === broken ? Promise.reject(new Error('disk full')) : disk.put(key, content),
    });
    const failures: string[] = [];
    const counts = await moveFiles(db, failing, {
      onFailure: (key, problem) => failures.push(`${key}: ${problem}`),
    });
    expect(counts).toEqual({ moved: 2, alreadyThere: 0, gone: 0, failed: 1 });
    expect(failures).toEqual([`${broken}: disk full`]);
    expect(await keysOf(db)).toEqual([broken]);

    expect(await moveFiles(db, disk)).toEqual({ moved: 1, alreadyThere: 0, gone: 0, failed: 0 });
    await holds(disk, contents);
  });

  it('drops the copy of a file the service deleted while it was moved', async () => {
    const { disk, db } = await both();
    const contents = await filled(disk, [10]);
    const [key] = [...contents.keys()];
    const deleting: MovableStorage = Object.assign(Object.create(db) as DatabaseStorage, {
      put: async (target: string, content: Readable | Buffer) => {
        await db.put(target, content);
        await disk.delete(target); // the attachment deleted meanwhile (from both storages)
      },
    });
    expect(await moveFiles(disk, deleting)).toEqual({ moved: 0, alreadyThere: 0, gone: 1, failed: 0 });
    expect(await db.size(key!)).toBeNull();
  });
});
