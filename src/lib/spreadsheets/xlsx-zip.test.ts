import { deflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { readWorkbook } from './tables.js';
import { checkZip, type ZipLimits } from './xlsx-zip.js';

const LIMITS: ZipLimits = { entries: 50, unzippedBytes: 1024 * 1024, sheetRows: 100, sheetCells: 1000 };

interface Part {
  name: string;
  data: Buffer;
  /** The name its local header gives, when it is not the index's. */
  localName?: string;
  /** Extra fields of its index entry, as bytes. */
  extra?: Buffer;
}

/**
 * A zip written by hand, to say what a well-behaved writer would not: parts the index hides past the
 * count it declares, local names other than the index's, bytes before the zip. CRCs are left 0: the
 * readers here do not check them.
 */
function zip(
  parts: Part[],
  { declared, before = Buffer.alloc(0) }: { declared?: number; before?: Buffer } = {},
) {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = before.length;
  for (const part of parts) {
    const data = deflateRawSync(part.data);
    const localName = Buffer.from(part.localName ?? part.name, 'latin1');
    const name = Buffer.from(part.name, 'latin1');
    const extra = part.extra ?? Buffer.alloc(0);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(part.data.length, 22);
    local.writeUInt16LE(localName.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(part.data.length, 24);
    entry.writeUInt16LE(name.length, 28);
    entry.writeUInt16LE(extra.length, 30);
    entry.writeUInt32LE(offset - before.length, 42);
    locals.push(local, localName, data);
    central.push(entry, name, extra);
    offset += 30 + localName.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(declared ?? parts.length, 8);
  end.writeUInt16LE(declared ?? parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset - before.length, 16);
  return Buffer.concat([before, ...locals, directory, end]);
}

/** The parts of a real workbook of one sheet, by name, as exceljs writes them. */
async function workbookParts(): Promise<Part[]> {
  const workbook = new ExcelJS.Workbook();
  workbook.addWorksheet('data').addRows([['code'], ['A']]);
  const bytes = Buffer.from(await workbook.xlsx.writeBuffer());
  const { default: JSZip } = await import('jszip');
  const read = await JSZip.loadAsync(bytes);
  return Promise.all(
    Object.values(read.files)
      .filter((file) => !file.dir)
      .map(async (file) => ({ name: file.name, data: await file.async('nodebuffer') })),
  );
}

const rowsXml = (rows: number) =>
  Buffer.from(
    '<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
      `<sheetData>${'<row><c t="inlineStr"><is><t>x</t></is></c></row>'.repeat(rows)}</sheetData></worksheet>`,
  );

describe('checkZip', () => {
  it('reads a workbook written by hand as exceljs reads it', async () => {
    const bytes = zip(await workbookParts());
    expect(checkZip(bytes, LIMITS)).toEqual({ ok: true });
    const [table] = await readWorkbook(bytes, { ...LIMITS, rows: 10, columns: 10, cellChars: 100 });
    expect(table!.rows).toEqual([{ row: 2, values: { code: 'A' } }]);
  });

  it('refuses parts hidden past the count the index declares', async () => {
    const parts = await workbookParts();
    const hidden = { name: 'xl/media/image1.png', data: Buffer.alloc(2 * 1024 * 1024) };
    expect(checkZip(zip([...parts, hidden], { declared: parts.length }), LIMITS)).toEqual({
      ok: false,
      tooLarge: false,
      reason: 'not an .xlsx file (more parts than its index declares)',
    });
    // Declared, the same part is simply too large once inflated.
    expect(checkZip(zip([...parts, hidden]), LIMITS)).toMatchObject({ ok: false, tooLarge: true });
  });

  it('refuses a sheet twice, and a sheet under another name in its local header', async () => {
    const parts = await workbookParts();
    const sheet = parts.find((part) => part.name === 'xl/worksheets/sheet1.xml')!;
    const big = { name: sheet.name, data: rowsXml(500) };
    expect(checkZip(zip([...parts, big]), LIMITS)).toMatchObject({
      ok: false,
      reason: 'not an .xlsx file (the part xl/worksheets/sheet1.xml twice)',
    });
    const others = parts.filter((part) => part !== sheet);
    const disguised = { name: 'docProps/custom2.xml', localName: sheet.name, data: rowsXml(500) };
    expect(checkZip(zip([...others, disguised]), LIMITS)).toMatchObject({
      ok: false,
      reason: 'not an .xlsx file (a part named twice differently)',
    });
    // Named as what it is, its rows are counted.
    expect(checkZip(zip([...others, { name: sheet.name, data: rowsXml(500) }]), LIMITS)).toEqual({
      ok: false,
      tooLarge: true,
      reason: 'the sheets hold more than 100 rows',
    });
  });

  it('refuses a Unicode path field, bytes before the zip, and ZIP64', async () => {
    const parts = await workbookParts();
    const field = Buffer.alloc(9);
    field.writeUInt16LE(0x7075, 0);
    field.writeUInt16LE(5, 2);
    const renamed = parts.map((part, i) => (i === 0 ? { ...part, extra: field } : part));
    expect(checkZip(zip(renamed), LIMITS)).toMatchObject({
      ok: false,
      reason: 'not an .xlsx file (a part with a second name)',
    });
    expect(checkZip(zip(parts, { before: Buffer.from('#!/bin/sh\n') }), LIMITS)).toMatchObject({
      ok: false,
      reason: 'not an .xlsx file (a damaged zip)',
    });
    const zip64 = zip(parts);
    zip64.writeUInt16LE(0xffff, zip64.length - 12);
    expect(checkZip(zip64, LIMITS)).toMatchObject({ ok: false, reason: 'not an .xlsx file (ZIP64)' });
  });
});
