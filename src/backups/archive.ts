import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { extract, pack, type Pack } from 'tar-stream';
import { ArchiveFormatError, BackupRefused } from './manifest.js';

/**
 * The backup archive as a standard tar file (`tar -tf` lists it, `tar -xf` unpacks it), written and read
 * with tar-stream, an entry at a time: an entry's bytes are streamed, never held whole. Regular files
 * only, each readable by its owner only; a size past 8 GiB is written as GNU tar and bsdtar write it.
 */

const BLOCK = 512;

/** Appends entries to a new file; `close()` ends the archive. */
export class ArchiveWriter {
  private constructor(
    private readonly tar: Pack,
    private readonly written: Promise<void>,
  ) {}

  /** Creates `path`, which must not exist (mode 600: a backup holds personal data). */
  static async create(path: string): Promise<ArchiveWriter> {
    const handle = await open(path, 'wx', 0o600);
    const tar = pack();
    // Synced to the disk before it is closed: the caller renames it into place then.
    const written = pipeline(
      tar as unknown as NodeJS.ReadableStream,
      handle.createWriteStream({ flush: true }),
    );
    written.catch(() => undefined); // seen by close() or abandon()
    return new ArchiveWriter(tar, written);
  }

  addBuffer(name: string, content: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      this.tar.entry({ name, size: content.length, mode: 0o600 }, content, (err) =>
        err ? reject(err) : resolve(),
      );
    });
  }

  /**
   * The file at `path`, `size` bytes. The entry's header holds the size before its bytes, so a file whose
   * size changes meanwhile fails the backup (tar-stream refuses an entry of other than its size).
   */
  async addFile(name: string, path: string, size: number): Promise<void> {
    const entry = this.tar.entry({ name, size, mode: 0o600 });
    let read = 0;
    let complete = false;
    try {
      await pipeline(
        createReadStream(path),
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            read += chunk.length;
            yield chunk;
          }
          complete = true;
        },
        entry as unknown as Writable,
      );
    } catch (err) {
      if (complete && read !== size) {
        throw new BackupRefused(
          `${path} changed while it was being archived (${size} bytes, then ${read}): run the backup again`,
        );
      }
      throw err;
    }
  }

  async close(): Promise<void> {
    this.tar.finalize();
    await this.written;
  }

  /** Closes without ending the archive (after a failure; the caller removes the file). */
  async abandon(): Promise<void> {
    this.tar.destroy();
    await this.written.catch(() => undefined);
  }
}

export interface ArchiveEntry {
  name: string;
  size: number;
}

/** An entry that is not one of the names `npm run backup` writes, or not a regular file. */
export class UnexpectedEntry extends ArchiveFormatError {
  constructor(readonly entry: string) {
    super(`unexpected entry ${JSON.stringify(entry)}`);
  }
}

/** A fault tar-stream found in the archive, in our words; errors of the file system are passed on. */
function formatError(err: unknown): unknown {
  if (!(err instanceof Error) || 'code' in err) return err;
  // tar-stream's words for data that stops inside an entry or a header
  if (err.message === 'Unexpected end of data') return new ArchiveFormatError('the archive is cut short');
  return new ArchiveFormatError('not a tar archive');
}

/**
 * Reads the archive at `path` from its start, handing each entry to `visit` in order with its bytes
 * (what `visit` leaves unread is skipped). Refuses data that is no tar, an entry that is no regular file,
 * and an archive cut short: inside an entry, or before its end (two empty blocks after the last entry,
 * which tar-stream does not require: an archive cut between two entries would otherwise read as whole).
 */
export async function eachEntry(
  path: string,
  visit: (entry: ArchiveEntry, content: AsyncIterable<Buffer>) => Promise<void>,
): Promise<void> {
  const reader = extract();
  const feeding = pipeline(createReadStream(path), reader as unknown as NodeJS.WritableStream);
  feeding.catch(() => undefined); // awaited below, or abandoned with the reader
  // The reader's own fault, reached by whoever reads next: the iteration, or `visit` inside an entry.
  let fault: unknown = null;
  reader.on('error', (err) => (fault = err));
  const entries = reader[Symbol.asyncIterator]();
  let end = 0;
  try {
    for (;;) {
      const step = await entries.next();
      if (step.done) break;
      const content = step.value;
      const { name, size, type } = content.header;
      if (type !== 'file') throw new UnexpectedEntry(name);
      end = content.offset + BLOCK + Math.ceil(size / BLOCK) * BLOCK;
      await visit({ name, size }, content as AsyncIterable<Buffer>);
      for await (const _ of content); // eslint-disable-line @typescript-eslint/no-unused-vars
    }
    await feeding;
  } catch (err) {
    reader.destroy();
    await feeding.catch(() => undefined);
    throw fault ? formatError(fault) : err;
  }
  if ((await stat(path)).size - end < 2 * BLOCK) throw new ArchiveFormatError('the archive is cut short');
}

/** An entry's bytes, whole: for the small ones (the manifest) and the embedded database's tarball. */
export async function entryBytes(content: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of content) chunks.push(chunk);
  return Buffer.concat(chunks);
}
