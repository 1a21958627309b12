import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileTypeFromStream } from 'file-type';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { AppError } from '../errors/catalogue.js';
import { UUID_PATTERN } from '../lib/ids.js';

/** Where uploaded bytes live. Keys are generated UUIDs (`newStorageKey`), never names a user chose. */
export interface FileStorage {
  put(key: string, content: Readable | Buffer): Promise<void>;
  /** Rejects with a `StoredFileMissing` when nothing is stored under the key. */
  get(key: string): Promise<Readable>;
  /** Deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
}

/** A storage whose files can be listed and measured: what `npm run files:migrate` moves between. */
export interface MovableStorage extends FileStorage {
  /** Every complete file's key (a file being written is not listed). */
  keys(): AsyncIterable<string>;
  /** A complete file's size in bytes, or null when none is stored under the key. */
  size(key: string): Promise<number | null>;
}

export class StoredFileMissing extends Error {
  constructor(key: string) {
    super(`No stored file under ${key}`);
  }
}

export const newStorageKey = (): string => randomUUID();

// Lower case only: a key becomes a file name, and on a case-insensitive disk `A…` and `a…` would be
// one file under two keys. `newStorageKey` writes lower case.
const KEY_PATTERN = new RegExp(UUID_PATTERN.source);

/** The key itself, when it is one `newStorageKey` could have made; else an error (never a path or a query). */
export function checkedKey(key: string): string {
  if (!KEY_PATTERN.test(key)) throw new Error(`Invalid storage key ${JSON.stringify(key)}`);
  return key;
}

/** Files under `<DATA_DIR>/files/<first two key characters>/<key>`; a key is checked, so no path escapes. */
export class LocalDiskStorage implements MovableStorage {
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    return path.join(this.root, checkedKey(key).slice(0, 2), key);
  }

  async put(key: string, content: Readable | Buffer): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    // Written aside and renamed, so a reader never sees half a file and a failed upload leaves nothing.
    const partial = `${target}.part`;
    try {
      await pipeline(
        Buffer.isBuffer(content) ? Readable.from([content]) : content,
        createWriteStream(partial),
      );
      await rename(partial, target);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
  }

  async get(key: string): Promise<Readable> {
    try {
      const handle = await open(this.pathOf(key), 'r');
      return handle.createReadStream();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new StoredFileMissing(key);
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await stat(this.pathOf(key))).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async *keys(): AsyncIterable<string> {
    for (const folder of (await entries(this.root)).sort()) {
      // `.part` files are being written; anything else there is not ours.
      const names = await entries(path.join(this.root, folder));
      for (const name of names.sort()) if (KEY_PATTERN.test(name) && name.startsWith(folder)) yield name;
    }
  }
}

async function entries(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw err;
  }
}

/** The files directory of the filesystem storage. */
export const filesDirectory = (config: Pick<Config, 'dataDir'>): string => path.join(config.dataDir, 'files');

/** DECISIONS.md section 9: 10 MiB per file. */
export const MAX_FILE_SIZE = 10 * 1024 * 1024;

export const ACCEPTED_TYPES = {
  'application/pdf': 'PDF',
  'image/jpeg': 'JPEG',
  'image/png': 'PNG',
  'image/webp': 'WebP',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'DOCX',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'XLSX',
  'text/csv': 'CSV',
} as const;
export type AcceptedType = keyof typeof ACCEPTED_TYPES;

export const unsupportedFileType = () =>
  new AppError(415, `Unsupported file type; accepted: ${Object.values(ACCEPTED_TYPES).join(', ')}`);
export const fileTooLarge = () => new AppError(413, 'file must not be larger than 10 MiB');

/** Counts the bytes going through and whether they are UTF-8 text without NUL (what a CSV must be). */
class Inspector extends Transform {
  size = 0;
  text = true;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.text) this.text = this.decodes(chunk, true) && !chunk.includes(0);
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    if (this.text) this.text = this.decodes(new Uint8Array(0), false);
    done();
  }

  private decodes(chunk: Uint8Array, more: boolean): boolean {
    try {
      this.decoder.decode(chunk, { stream: more });
      return true;
    } catch {
      return false;
    }
  }
}

export interface StoredFile {
  key: string;
  size: number;
  contentType: AcceptedType;
}

/**
 * Streams an upload into storage, then decides its type from the stored bytes, never from its name:
 * file-type's magic numbers for the binary formats. CSV has no magic number, so it is accepted when the
 * client calls it CSV (declared type text/csv or a .csv name) and the bytes are UTF-8 text without NUL.
 * Anything else is removed again and refused (415); `tooLarge()` says the stream was cut at the limit (413).
 */
export async function storeUpload(
  storage: FileStorage,
  upload: { stream: Readable; fileName: string; declaredType: string; tooLarge: () => boolean },
): Promise<StoredFile> {
  const key = newStorageKey();
  const inspector = new Inspector();
  // Storage may still be getting ready (a directory being made) when a client leaves and the inspector
  // is destroyed: its 'error' must not find nobody listening, which would end the process. The write
  // still fails, as the destroyed inspector is what it reads.
  inspector.on('error', () => undefined);
  try {
    // `pipe` does not pass errors on: a client leaving mid-upload must fail the write, not stall it.
    upload.stream.once('error', (err) => inspector.destroy(err));
    upload.stream.once('close', () => {
      if (!upload.stream.readableEnded) inspector.destroy(new Error('Upload ended early'));
    });
    await storage.put(key, upload.stream.pipe(inspector));
    if (upload.tooLarge()) throw fileTooLarge();
    const stored = await storage.get(key);
    const detected = await fileTypeFromStream(stored).finally(() => stored.destroy());
    const declaredCsv =
      /^(text\/csv|application\/csv)\b/i.test(upload.declaredType) || /\.csv$/i.test(upload.fileName);
    let contentType: AcceptedType | undefined;
    if (detected && detected.mime in ACCEPTED_TYPES) contentType = detected.mime as AcceptedType;
    else if (!detected && declaredCsv && inspector.text && inspector.size > 0) contentType = 'text/csv';
    if (!contentType) throw unsupportedFileType();
    return { key, size: inspector.size, contentType };
  } catch (err) {
    await storage.delete(key);
    throw err;
  }
}

/** A name safe to store and to echo in a header: no directories, control characters or quotes. */
export function sanitizeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  // Cut by characters, not UTF-16 units: half an emoji would make encodeURIComponent throw.
  const clean = [
    ...[...base]
      .filter((c) => c !== '"' && c.charCodeAt(0) >= 0x20 && c.charCodeAt(0) !== 0x7f)
      .join('')
      .trim(),
  ]
    .slice(0, 255)
    .join('');
  return clean === '' || clean === '.' || clean === '..' ? 'file' : clean;
}

/** `attachment; filename="..."` with an ASCII fallback, plus RFC 5987 `filename*` when the name is not ASCII. */
export function contentDisposition(fileName: string): string {
  const name = sanitizeFileName(fileName);
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/\\/g, '_');
  if (ascii === name) return `attachment; filename="${name}"`;
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** The headers of a stored file sent for download: its detected type, its size, its sanitized name. */
export function downloadHeaders(file: { contentType: string; size: number; fileName: string }) {
  return {
    'content-type': file.contentType,
    'content-length': file.size,
    'content-disposition': contentDisposition(file.fileName),
  };
}

/**
 * Removes the files of rows that a cascade deleted (a project or program with attachments). Runs after
 * the commit; a file that cannot be removed is only logged, since its row is gone either way.
 */
export async function removeStoredFiles(
  storage: FileStorage,
  keys: string[],
  log: { warn: (obj: object, msg: string) => void },
): Promise<void> {
  for (const key of keys) {
    await storage.delete(key).catch((err: unknown) => log.warn({ err, key }, 'stored file not removed'));
  }
}

/**
 * Reads, inside a deleting transaction, the storage keys of the files a module keeps under a project
 * or a program, so the files can be removed once the delete commits. The owner of the project or
 * program asks every module that keeps files (wired in `buildApp`) without importing them.
 */
export type StoredFileKeys = (
  db: Db,
  orgId: string,
  under: { projectId: string } | { programId: string },
) => Promise<string[]>;

/** The keys of every module's files under a project or program, one module after another. */
export async function storedFileKeysUnder(
  db: Db,
  readers: readonly StoredFileKeys[],
  orgId: string,
  under: { projectId: string } | { programId: string },
): Promise<string[]> {
  const keys: string[] = [];
  // One after the other: inside a transaction they share one connection anyway.
  for (const read of readers) keys.push(...(await read(db, orgId, under)));
  return keys;
}
