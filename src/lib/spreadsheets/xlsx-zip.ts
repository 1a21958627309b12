import { inflateRawSync } from 'node:zlib';

/**
 * An .xlsx is a zip: exceljs inflates every entry of it into memory. Before it does, each entry is
 * inflated here with a cap on what it may produce (the bytes it really inflates to, not what its header
 * claims), and all together at most limits.unzippedBytes: a small file inflating to gigabytes
 * (a zip bomb) is refused here, having cost at most that much memory, one entry at a time.
 */
/** How many times `tag` opens an element in the XML, with or without a namespace prefix. */
function occurrences(xml: Buffer, tag: RegExp, atMost: number): number {
  const text = xml.toString('latin1');
  let count = 0;
  tag.lastIndex = 0;
  while (count <= atMost && tag.exec(text) !== null) count++;
  return count;
}

// `<row ` and `<x:c>` alike, whatever whitespace follows the name (a line break too).
const ROW_TAGS = /<(?:[\w.-]+:)?row[\s/>]/g;
const CELL_TAGS = /<(?:[\w.-]+:)?c[\s/>]/g;

/** What an .xlsx may hold before it is read: the caller's bounds (XLSForm's, an import's). */
export interface ZipLimits {
  /** Entries of the zip. */
  entries: number;
  /** All the entries once inflated. */
  unzippedBytes: number;
  /** Rows, and cells, of all the worksheets together. */
  sheetRows: number;
  sheetCells: number;
}

export type ZipVerdict = { ok: true } | { ok: false; tooLarge: boolean; reason: string };

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

export function checkZip(bytes: Buffer, limits: ZipLimits): ZipVerdict {
  const refuse = (reason: string, tooLarge = false): ZipVerdict => ({ ok: false, tooLarge, reason });
  if (bytes.length < 22) return refuse('not an .xlsx file');
  // The end-of-central-directory record: in the last 22 bytes plus a comment of up to 65,535.
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 0xffff); at--) {
    if (bytes.readUInt32LE(at) === EOCD) {
      end = at;
      break;
    }
  }
  if (end < 0) return refuse('not an .xlsx file');
  const entries = bytes.readUInt16LE(end + 10);
  const directorySize = bytes.readUInt32LE(end + 12);
  let at = bytes.readUInt32LE(end + 16);
  if (entries === 0xffff || at === 0xffffffff || at + directorySize > bytes.length) {
    return refuse('not an .xlsx file (ZIP64 or a damaged zip)');
  }
  if (entries > limits.entries) {
    return refuse(`the file holds more than ${limits.entries} parts`, true);
  }
  let budget: number = limits.unzippedBytes;
  let rows = 0;
  let cells = 0;
  for (let i = 0; i < entries; i++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== CENTRAL) return refuse('not an .xlsx file');
    const flags = bytes.readUInt16LE(at + 8);
    const method = bytes.readUInt16LE(at + 10);
    const compressed = bytes.readUInt32LE(at + 20);
    const nameLength = bytes.readUInt16LE(at + 28);
    const name = bytes.toString('latin1', at + 46, at + 46 + nameLength);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    const local = bytes.readUInt32LE(at + 42);
    at += 46 + nameLength + extraLength + commentLength;
    if (flags & 0x1) return refuse('the file is encrypted');
    if (local + 30 > bytes.length || bytes.readUInt32LE(local) !== LOCAL) return refuse('not an .xlsx file');
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    if (compressed === 0xffffffff || start + compressed > bytes.length) return refuse('not an .xlsx file');
    const data = bytes.subarray(start, start + compressed);
    let inflated: Buffer;
    if (method === 0) inflated = data;
    else if (method === 8) {
      try {
        inflated = inflateRawSync(data, { maxOutputLength: Math.max(budget, 1) });
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
          return refuse(`the file inflates to more than ${limits.unzippedBytes / 1024 / 1024} MiB`, true);
        }
        return refuse('not an .xlsx file (a damaged zip)');
      }
    } else return refuse('not an .xlsx file (an unknown compression)');
    budget -= inflated.length;
    if (budget < 0) {
      return refuse(`the file inflates to more than ${limits.unzippedBytes / 1024 / 1024} MiB`, true);
    }
    // The worksheets' rows and cells, before exceljs makes an object of each.
    // exceljs takes any part whose name holds `xl/worksheets/sheetN.xml`, in any folder: count them all.
    if (/worksheets\/[^/]*\.xml$/i.test(name)) {
      rows += occurrences(inflated, ROW_TAGS, limits.sheetRows);
      cells += occurrences(inflated, CELL_TAGS, limits.sheetCells);
      if (rows > limits.sheetRows) {
        return refuse(`the sheets hold more than ${limits.sheetRows} rows`, true);
      }
      if (cells > limits.sheetCells) {
        return refuse(`the sheets hold more than ${limits.sheetCells} cells`, true);
      }
    }
  }
  return { ok: true };
}
