/**
 * The file storages' behaviour, one suite run against each driver: the filesystem (DATA_DIR/files) and
 * the database (FILE_STORAGE=database, chunks in PostgreSQL or the embedded database).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/helpers/app.js';
import type { Database } from '../db/client.js';
import { createFileStorage } from './configured-storage.js';
import { CHUNK_BYTES, DatabaseStorage, purgeUnfinishedFiles } from './database-storage.js';
import { LocalDiskStorage, newStorageKey, StoredFileMissing, type MovableStorage } from './file-storage.js';
import { storedFileChunks, storedFiles } from './stored-files.tables.js';

let database: Database;
let dataDir: string;
/** Statements the database was sent so far (the database storage's reads are counted). */
let statements = 0;

beforeAll(async () => {
  database = await openTestDatabase({ logger: { logQuery: () => void (statements += 1) } });
  dataDir = mkdtempSync(path.join(tmpdir(), 'mel-storage-'));
});
afterAll(async () => {
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const chunkRows = async (key: string) =>
  (await database.db.select({ n: count() }).from(storedFileChunks).where(eq(storedFileChunks.key, key)))[0]!
    .n;

interface Driver {
  name: string;
  storage: () => MovableStorage;
  /** Bytes of `key` written so far, complete or not. */
  written: (key: string) => Promise<number>;
}

const drivers: Driver[] = [
  {
    name: 'filesystem',
    storage: () => new LocalDiskStorage(path.join(dataDir, 'files')),
    written: async (key) => {
      const file = path.join(dataDir, 'files', key.slice(0, 2), key);
      for (const candidate of [`${file}.part`, file]) {
        const found = await stat(candidate).catch(() => null);
        if (found) return found.size;
      }
      return 0;
    },
  },
  {
    name: 'database',
    storage: () => new DatabaseStorage(database),
    written: async (key) => (await chunkRows(key)) * CHUNK_BYTES,
  },
];

/** `bytes` as a stream of `piece`-sized pieces, as an upload arrives. */
function streamOf(bytes: Buffer, piece = 64 * 1024): Readable {
  return Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += piece) yield bytes.subarray(at, at + piece);
    })(),
    { objectMode: false },
  );
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; !(await condition()); tries += 1) {
    if (tries > 500) throw new Error('condition never met');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function listed(storage: MovableStorage): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of storage.keys()) keys.push(key);
  return keys;
}

describe.each(drivers)('$name storage', ({ storage: make, written }) => {
  it('gives back what was put, from a buffer and from a stream, and forgets it when deleted', async () => {
    const storage = make();
    const small = newStorageKey();
    await storage.put(small, Buffer.from('hello'));
    expect((await buffer(await storage.get(small))).toString()).toBe('hello');
    expect(await storage.size(small)).toBe(5);

    const empty = newStorageKey();
    await storage.put(empty, Buffer.alloc(0));
    expect((await buffer(await storage.get(empty))).length).toBe(0);
    expect(await storage.size(empty)).toBe(0);

    const streamed = newStorageKey();
    const bytes = randomBytes(100_000);
    await storage.put(streamed, streamOf(bytes, 7_000));
    expect((await buffer(await storage.get(streamed))).equals(bytes)).toBe(true);
    expect(await listed(storage)).toEqual(expect.arrayContaining([small, empty, streamed]));

    await storage.delete(streamed);
    await expect(storage.get(streamed)).rejects.toBeInstanceOf(StoredFileMissing);
    expect(await storage.size(streamed)).toBeNull();
    expect(await listed(storage)).not.toContain(streamed);
    // Deleting what is not there is no error.
    await storage.delete(streamed);
  });

  it('says StoredFileMissing for a key never stored, and refuses keys that are not generated UUIDs', async () => {
    const storage = make();
    await expect(storage.get(newStorageKey())).rejects.toBeInstanceOf(StoredFileMissing);
    for (const key of ['../../etc/passwd', 'report.pdf', '', newStorageKey().toUpperCase()]) {
      await expect(storage.put(key, Buffer.from('x'))).rejects.toThrow('Invalid storage key');
      await expect(storage.get(key)).rejects.toThrow('Invalid storage key');
      await expect(storage.delete(key)).rejects.toThrow('Invalid storage key');
    }
  });

  it('round-trips a file of many chunks byte for byte, read back in pieces no larger than a chunk', async () => {
    const storage = make();
    const key = newStorageKey();
    // Not a multiple of the chunk size, and arriving in pieces that straddle chunk boundaries.
    const bytes = randomBytes(5 * CHUNK_BYTES + 12_345);
    await storage.put(key, streamOf(bytes, 100_000));
    const pieces: Buffer[] = [];
    for await (const piece of await storage.get(key)) pieces.push(piece as Buffer);
    expect(Buffer.concat(pieces).equals(bytes)).toBe(true);
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(CHUNK_BYTES);
    expect(await storage.size(key)).toBe(bytes.length);
  });

  it('leaves nothing behind when the upload fails midway, and shows no file before it is complete', async () => {
    const storage = make();
    const key = newStorageKey();
    const failing = new PassThrough();
    const put = storage.put(key, failing);
    failing.write(randomBytes(CHUNK_BYTES + 1000));
    await until(async () => (await written(key)) >= CHUNK_BYTES);
    // Half written: not readable, not listed.
    await expect(storage.get(key)).rejects.toBeInstanceOf(StoredFileMissing);
    expect(await storage.size(key)).toBeNull();
    expect(await listed(storage)).not.toContain(key);
    failing.destroy(new Error('client went away'));
    await expect(put).rejects.toThrow('client went away');
    await expect(storage.get(key)).rejects.toBeInstanceOf(StoredFileMissing);
    expect(await written(key)).toBe(0);

    // The same while a complete file is written: readable only at its end.
    const later = newStorageKey();
    const arriving = new PassThrough();
    const done = storage.put(later, arriving);
    arriving.write(randomBytes(CHUNK_BYTES * 2));
    await until(async () => (await written(later)) >= CHUNK_BYTES);
    await expect(storage.get(later)).rejects.toBeInstanceOf(StoredFileMissing);
    arriving.end(Buffer.from('end'));
    await done;
    expect(await storage.size(later)).toBe(CHUNK_BYTES * 2 + 3);
  });

  it('writes a file again under its key (files:migrate after an interruption)', async () => {
    const storage = make();
    const key = newStorageKey();
    await storage.put(key, randomBytes(CHUNK_BYTES * 3));
    await storage.put(key, Buffer.from('shorter'));
    expect((await buffer(await storage.get(key))).toString()).toBe('shorter');
  });
});

describe('database storage', () => {
  const storage = () => new DatabaseStorage(database);

  it('keeps a file in chunks of 256 KiB, written while the upload still arrives', async () => {
    const key = newStorageKey();
    const size = 12 * CHUNK_BYTES + 1;
    let chunksWhenLastPieceSent = -1;
    const upload = Readable.from(
      (async function* () {
        for (let at = 0; at < size; at += 64 * 1024) {
          if (at + 64 * 1024 >= size) chunksWhenLastPieceSent = await chunkRows(key);
          yield randomBytes(Math.min(64 * 1024, size - at));
        }
      })(),
      { objectMode: false },
    );
    await storage().put(key, upload);
    // Every full chunk but the one the last piece completes was in the database before the upload ended.
    expect(chunksWhenLastPieceSent).toBeGreaterThanOrEqual(11);
    expect(await chunkRows(key)).toBe(13);
    const [file] = await database.db.select().from(storedFiles).where(eq(storedFiles.key, key));
    expect(file).toMatchObject({ size, chunks: 13 });
    const lengths = await database.db
      .select({ length: sql<number>`length(${storedFileChunks.data})` })
      .from(storedFileChunks)
      .where(eq(storedFileChunks.key, key))
      .orderBy(storedFileChunks.seq);
    expect(lengths.map((row) => Number(row.length))).toEqual([...Array(12).fill(CHUNK_BYTES), 1]);
  });

  it('reads a chunk when the reader wants it: the start of a large file costs a few statements', async () => {
    const key = newStorageKey();
    await storage().put(key, randomBytes(20 * CHUNK_BYTES));
    const before = statements;
    const stream = await storage().get(key);
    const first = await new Promise<Buffer>((resolve) => stream.once('data', resolve));
    stream.destroy();
    expect(first.length).toBe(CHUNK_BYTES);
    // The file's row, then the first chunk or two (the stream reads one ahead): never all twenty.
    expect(statements - before).toBeLessThanOrEqual(4);
  });

  it('purges a file whose writing stopped more than a day ago, and only that', async () => {
    const abandoned = newStorageKey();
    const recent = newStorageKey();
    for (const key of [abandoned, recent]) {
      await database.db.insert(storedFiles).values({ key });
      await database.db.insert(storedFileChunks).values({ key, seq: 0, data: Buffer.from('part') });
    }
    await database.db
      .update(storedFiles)
      .set({ createdAt: sql`now() - interval '25 hours'` })
      .where(eq(storedFiles.key, abandoned));
    const complete = newStorageKey();
    await storage().put(complete, Buffer.from('kept'));
    await database.db
      .update(storedFiles)
      .set({ createdAt: sql`now() - interval '25 hours'` })
      .where(eq(storedFiles.key, complete));

    expect(await purgeUnfinishedFiles(database.db)).toBe(1);
    expect(await chunkRows(abandoned)).toBe(0);
    expect(await chunkRows(recent)).toBe(1);
    expect((await buffer(await storage().get(complete))).toString()).toBe('kept');
  });
});

describe('the configured storage', () => {
  it('writes to the storage FILE_STORAGE names, and reads a file not yet moved from the other', async () => {
    const disk = new LocalDiskStorage(path.join(dataDir, 'files'));
    const inDatabase = new DatabaseStorage(database);
    const configured = createFileStorage({ dataDir, fileStorage: 'database' }, database);

    const fresh = newStorageKey();
    await configured.put(fresh, Buffer.from('new upload'));
    expect(await inDatabase.size(fresh)).toBe(10);
    expect(await disk.size(fresh)).toBeNull();

    const old = newStorageKey();
    await disk.put(old, Buffer.from('uploaded before the switch'));
    expect((await buffer(await configured.get(old))).toString()).toBe('uploaded before the switch');
    await expect(configured.get(newStorageKey())).rejects.toBeInstanceOf(StoredFileMissing);

    // Deleted before it was moved: gone from both, so files:migrate never brings it back.
    await configured.delete(old);
    expect(await disk.size(old)).toBeNull();

    const back = createFileStorage({ dataDir, fileStorage: 'filesystem' }, database);
    expect((await buffer(await back.get(fresh))).toString()).toBe('new upload');
  });
});
