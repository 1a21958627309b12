import { Readable } from 'node:stream';
import { and, asc, eq, gt, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import type { Database, Db } from '../db/client.js';
import { checkedKey, StoredFileMissing, type MovableStorage } from './file-storage.js';
import { storedFileChunks, storedFiles } from './stored-files.tables.js';

/**
 * 256 KiB a statement: a 10 MiB upload is 40 inserts, and a file in memory at once is at most one chunk
 * (plus the piece of the upload that filled it) whichever its size.
 */
export const CHUNK_BYTES = 256 * 1024;

const LIST_BATCH = 500;

/**
 * Files in PostgreSQL (FILE_STORAGE=database), so that every instance on the database reads what any of
 * them stored, and a backup of the database holds the files. Every statement stands alone: no
 * transaction is held open while an upload arrives, which on the embedded database (one connection)
 * would stop every other query for as long as the slowest client takes. A file becomes readable in
 * one statement, when its row is marked complete after the last chunk.
 */
export class DatabaseStorage implements MovableStorage {
  private readonly db: Db;
  /**
   * The embedded database's own bytea conversion is slow JavaScript: chunks cross as hex text instead,
   * converted by Buffer (10 MiB measured 7 times faster in, 5 times faster out). pg sends them binary,
   * faster still than hex there.
   */
  private readonly hex: boolean;

  constructor(database: Pick<Database, 'db' | 'driver'>) {
    this.db = database.db;
    this.hex = database.driver === 'pglite';
  }

  async put(key: string, content: Readable | Buffer): Promise<void> {
    checkedKey(key);
    // A key written again starts over (the service never does; files:migrate does after an interruption).
    await this.db.delete(storedFiles).where(eq(storedFiles.key, key));
    await this.db.insert(storedFiles).values({ key });
    let seq = 0;
    let size = 0;
    try {
      for await (const data of inChunks(content)) {
        await this.db
          .insert(storedFileChunks)
          .values({ key, seq, data: this.hex ? sql`decode(${data.toString('hex')}, 'hex')` : data });
        seq += 1;
        size += data.length;
      }
      await this.db
        .update(storedFiles)
        .set({ size, chunks: seq, completedAt: sql`now()` })
        .where(eq(storedFiles.key, key));
    } catch (err) {
      await this.db
        .delete(storedFiles)
        .where(eq(storedFiles.key, key))
        .catch(() => undefined);
      throw err;
    }
  }

  async get(key: string): Promise<Readable> {
    checkedKey(key);
    const [file] = await this.db
      .select({ chunks: storedFiles.chunks })
      .from(storedFiles)
      .where(and(eq(storedFiles.key, key), isNotNull(storedFiles.completedAt)));
    if (!file) throw new StoredFileMissing(key);
    const { db, hex } = this;
    const data = hex ? sql<string>`encode(${storedFileChunks.data}, 'hex')` : storedFileChunks.data;
    // One chunk fetched when the reader wants more: a slow download holds no connection between them.
    async function* chunks() {
      for (let seq = 0; seq < file!.chunks; seq += 1) {
        const [chunk] = await db
          .select({ data })
          .from(storedFileChunks)
          .where(and(eq(storedFileChunks.key, key), eq(storedFileChunks.seq, seq)));
        if (!chunk) throw new StoredFileMissing(key); // deleted while being read
        yield typeof chunk.data === 'string'
          ? Buffer.from(chunk.data, 'hex')
          : Buffer.from(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength);
      }
    }
    return Readable.from(chunks(), { objectMode: false });
  }

  async delete(key: string): Promise<void> {
    checkedKey(key);
    await this.db.delete(storedFiles).where(eq(storedFiles.key, key));
  }

  async size(key: string): Promise<number | null> {
    checkedKey(key);
    const [file] = await this.db
      .select({ size: storedFiles.size })
      .from(storedFiles)
      .where(and(eq(storedFiles.key, key), isNotNull(storedFiles.completedAt)));
    return file?.size ?? null;
  }

  async *keys(): AsyncIterable<string> {
    let after: string | null = null;
    for (;;) {
      const rows: { key: string }[] = await this.db
        .select({ key: storedFiles.key })
        .from(storedFiles)
        .where(
          and(isNotNull(storedFiles.completedAt), after === null ? undefined : gt(storedFiles.key, after)),
        )
        .orderBy(asc(storedFiles.key))
        .limit(LIST_BATCH);
      for (const row of rows) yield row.key;
      if (rows.length < LIST_BATCH) return;
      after = rows[rows.length - 1]!.key;
    }
  }
}

/**
 * Removes the files whose writing began over a day ago and never completed: the process stopped in the
 * middle of an upload (a failed upload removes its own). Returns how many.
 */
export async function purgeUnfinishedFiles(db: Db): Promise<number> {
  const removed = await db
    .delete(storedFiles)
    .where(and(isNull(storedFiles.completedAt), lt(storedFiles.createdAt, sql`now() - interval '1 day'`)))
    .returning({ key: storedFiles.key });
  return removed.length;
}

/** The bytes of `content` in pieces of exactly CHUNK_BYTES (the last one shorter), as they arrive. */
async function* inChunks(content: Readable | Buffer): AsyncIterable<Buffer> {
  if (Buffer.isBuffer(content)) {
    for (let at = 0; at < content.length; at += CHUNK_BYTES) yield content.subarray(at, at + CHUNK_BYTES);
    return;
  }
  let pending: Buffer[] = [];
  let length = 0;
  for await (const piece of content as AsyncIterable<Buffer | string>) {
    const bytes = typeof piece === 'string' ? Buffer.from(piece) : piece;
    pending.push(bytes);
    length += bytes.length;
    if (length < CHUNK_BYTES) continue;
    const joined = Buffer.concat(pending, length);
    let at = 0;
    for (; joined.length - at >= CHUNK_BYTES; at += CHUNK_BYTES) yield joined.subarray(at, at + CHUNK_BYTES);
    pending = at < joined.length ? [joined.subarray(at)] : [];
    length = joined.length - at;
  }
  if (length > 0) yield Buffer.concat(pending, length);
}
