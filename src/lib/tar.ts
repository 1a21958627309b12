import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';

/**
 * A POSIX ustar archive, written and read a whole entry at a time: what a backup is (`tar -tf` lists it,
 * `tar -xf` unpacks it). Regular files only, names of at most 100 bytes; a size past ustar's 8 GiB is
 * written in base-256, as GNU tar and bsdtar write and read it (a large database dump).
 */

const BLOCK = 512;
const OCTAL_SIZE_LIMIT = 8 ** 11;

export class TarFormatError extends Error {}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function header(name: string, size: number, mtime: Date): Buffer {
  const nameBytes = Buffer.from(name, 'utf8');
  if (nameBytes.length > 100) throw new TarFormatError(`name too long for the archive: ${name}`);
  const block = Buffer.alloc(BLOCK);
  nameBytes.copy(block, 0);
  block.write(octal(0o600, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii');
  block.write(octal(0, 8), 116, 'ascii');
  if (size < OCTAL_SIZE_LIMIT) {
    block.write(octal(size, 12), 124, 'ascii');
  } else {
    block[124] = 0x80;
    block.writeBigUInt64BE(BigInt(size), 124 + 4);
  }
  block.write(octal(Math.floor(mtime.getTime() / 1000), 12), 136, 'ascii');
  block.write('0', 156, 'ascii');
  block.write('ustar\0', 257, 'ascii');
  block.write('00', 263, 'ascii');
  block.fill(' ', 148, 156);
  const sum = block.reduce((total, byte) => total + byte, 0);
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

const padding = (size: number) => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

/** Appends entries to a new file; `close()` ends the archive (two empty blocks). */
export class TarWriter {
  private constructor(private readonly handle: FileHandle) {}

  /** Creates `path`, which must not exist (mode 600: a backup holds personal data). */
  static async create(path: string): Promise<TarWriter> {
    return new TarWriter(await open(path, 'wx', 0o600));
  }

  async addBuffer(name: string, content: Buffer, mtime = new Date()): Promise<void> {
    await this.handle.write(header(name, content.length, mtime));
    await this.handle.write(content);
    await this.handle.write(padding(content.length));
  }

  /** The file at `path`, `size` bytes (a file that changes meanwhile fails rather than leaving a bad entry). */
  async addFile(name: string, path: string, size: number, mtime = new Date()): Promise<void> {
    await this.handle.write(header(name, size, mtime));
    let written = 0;
    for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
      written += chunk.length;
      if (written > size) break;
      await this.handle.write(chunk);
    }
    if (written !== size) throw new TarFormatError(`${path} changed while it was being archived`);
    await this.handle.write(padding(size));
  }

  async close(): Promise<void> {
    await this.handle.write(Buffer.alloc(2 * BLOCK));
    await this.handle.sync();
    await this.handle.close();
  }

  /** Closes without ending the archive (after a failure; the caller removes the file). */
  async abandon(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }
}

export interface TarEntry {
  name: string;
  size: number;
  /** Where its bytes begin in the archive. */
  offset: number;
}

function readOctal(block: Buffer, start: number, width: number): number {
  if ((block[start]! & 0x80) !== 0) {
    let value = 0n;
    for (let i = start + 1; i < start + width; i++) value = (value << 8n) | BigInt(block[i]!);
    return Number(value);
  }
  const text = block
    .toString('ascii', start, start + width)
    .replace(/\0.*$/s, '')
    .trim();
  if (!/^[0-7]*$/.test(text)) throw new TarFormatError('not a tar archive');
  return text === '' ? 0 : parseInt(text, 8);
}

function cString(block: Buffer, start: number, width: number): string {
  const end = block.indexOf(0, start);
  return block.toString('utf8', start, end === -1 || end > start + width ? start + width : end);
}

/** The regular files of the archive at `path`, in order, read from its headers alone. */
export async function tarEntries(path: string): Promise<TarEntry[]> {
  const handle = await open(path, 'r');
  try {
    const { size: total } = await handle.stat();
    const entries: TarEntry[] = [];
    const block = Buffer.alloc(BLOCK);
    let position = 0;
    while (position + BLOCK <= total) {
      const { bytesRead } = await handle.read(block, 0, BLOCK, position);
      if (bytesRead < BLOCK) break;
      if (block.every((byte) => byte === 0)) return entries;
      const stored = readOctal(block, 148, 8);
      block.fill(' ', 148, 156);
      if (block.reduce((sum, byte) => sum + byte, 0) !== stored)
        throw new TarFormatError('not a tar archive');
      const size = readOctal(block, 124, 12);
      const type = String.fromCharCode(block[156]!);
      const prefix = block.toString('ascii', 257, 262) === 'ustar' ? cString(block, 345, 155) : '';
      const name = (prefix ? `${prefix}/` : '') + cString(block, 0, 100);
      if (type === '0' || type === '\0') entries.push({ name, size, offset: position + BLOCK });
      position += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    }
    throw new TarFormatError('the archive is cut short');
  } finally {
    await handle.close();
  }
}

/** The bytes of one entry, streamed from the archive. */
export function tarEntryStream(path: string, entry: TarEntry): Readable {
  if (entry.size === 0) return Readable.from([]);
  return createReadStream(path, { start: entry.offset, end: entry.offset + entry.size - 1 });
}

export async function tarEntryBuffer(path: string, entry: TarEntry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of tarEntryStream(path, entry) as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}
