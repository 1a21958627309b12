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
const ZIP64_LOCATOR = 0x07064b50;
/** The extra field of a Unicode path: a name that would replace the one checked here. */
const UNICODE_PATH = 0x7075;

/** The ids of the extra fields in `bytes[from, to)`. */
function extraFieldIds(bytes: Buffer, from: number, to: number): number[] | null {
  const ids: number[] = [];
  for (let at = from; at < to;) {
    if (at + 4 > to) return null;
    ids.push(bytes.readUInt16LE(at));
    at += 4 + bytes.readUInt16LE(at + 2);
    if (at > to) return null;
  }
  return ids;
}

/**
 * The zip is read here exactly as the zip library of exceljs reads it, or refused: a file in which the
 * two readings could differ (entries past the count the index declares, a local name that is not the
 * index's, a name twice, a Unicode path field, bytes before the zip, ZIP64, several disks) would let
 * exceljs inflate what was never counted here.
 */
export function checkZip(bytes: Buffer, limits: ZipLimits): ZipVerdict {
  const refuse = (reason: string, tooLarge = false): ZipVerdict => ({ ok: false, tooLarge, reason });
  const malformed = (what: string) => refuse(`not an .xlsx file (${what})`);
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
  const disk = bytes.readUInt16LE(end + 4);
  const directoryDisk = bytes.readUInt16LE(end + 6);
  const entriesOnDisk = bytes.readUInt16LE(end + 8);
  const entries = bytes.readUInt16LE(end + 10);
  const directorySize = bytes.readUInt32LE(end + 12);
  let at = bytes.readUInt32LE(end + 16);
  if (
    entries === 0xffff ||
    at === 0xffffffff ||
    directorySize === 0xffffffff ||
    (end >= 20 && bytes.readUInt32LE(end - 20) === ZIP64_LOCATOR)
  ) {
    return malformed('ZIP64');
  }
  if (disk !== 0 || directoryDisk !== 0 || entriesOnDisk !== entries) return malformed('several disks');
  // The index ends where the end record begins: no bytes before the zip or between its parts.
  if (at + directorySize !== end) return malformed('a damaged zip');
  if (entries > limits.entries) {
    return refuse(`the file holds more than ${limits.entries} parts`, true);
  }
  let budget: number = limits.unzippedBytes;
  let rows = 0;
  let cells = 0;
  const names = new Set<string>();
  for (let i = 0; i < entries; i++) {
    if (at + 46 > end || bytes.readUInt32LE(at) !== CENTRAL) return malformed('a damaged zip');
    const flags = bytes.readUInt16LE(at + 8);
    const method = bytes.readUInt16LE(at + 10);
    const compressed = bytes.readUInt32LE(at + 20);
    const uncompressed = bytes.readUInt32LE(at + 24);
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    const local = bytes.readUInt32LE(at + 42);
    const nameBytes = bytes.subarray(at + 46, at + 46 + nameLength);
    const name = nameBytes.toString('latin1');
    const extras = extraFieldIds(bytes, at + 46 + nameLength, at + 46 + nameLength + extraLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (at > end || extras === null) return malformed('a damaged zip');
    if (flags & 0x1) return refuse('the file is encrypted');
    if (compressed === 0xffffffff || uncompressed === 0xffffffff || local === 0xffffffff) {
      return malformed('ZIP64');
    }
    if (extras.includes(UNICODE_PATH)) return malformed('a part with a second name');
    if (names.has(name.toLowerCase())) return malformed(`the part ${name} twice`);
    names.add(name.toLowerCase());
    if (local + 30 > end || bytes.readUInt32LE(local) !== LOCAL) return malformed('a damaged zip');
    const localNameLength = bytes.readUInt16LE(local + 26);
    if (!bytes.subarray(local + 30, local + 30 + localNameLength).equals(nameBytes)) {
      return malformed('a part named twice differently');
    }
    const start = local + 30 + localNameLength + bytes.readUInt16LE(local + 28);
    if (start + compressed > end) return malformed('a damaged zip');
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
        return malformed('a damaged zip');
      }
    } else return malformed('an unknown compression');
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
  // Every entry of the index was read: one more (past the declared count) would be read by exceljs.
  if (at !== end) return malformed('more parts than its index declares');
  return { ok: true };
}
