import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { sheetName, streamWorkbook } from './streamed-workbook.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readBack(stream: Readable) {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load((await buffer(stream)) as unknown as ArrayBuffer);
  return workbook;
}

describe('streamWorkbook', () => {
  it('writes the sheets in order, rows as given', async () => {
    const stream = await streamWorkbook(async (book) => {
      const first = book.addSheet('First');
      first.addRow(['a', 1, true]).commit();
      await book.settle(first);
      first.commit();
      const second = book.addSheet('Second');
      second.addRow([new Date('2026-03-14T00:00:00.000Z')]).commit();
      second.commit();
    });
    const workbook = await readBack(stream);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['First', 'Second']);
    expect(workbook.getWorksheet('First')!.getRow(1).values).toEqual([undefined, 'a', 1, true]);
    expect(workbook.getWorksheet('Second')!.getCell('A1').value).toEqual(
      new Date('2026-03-14T00:00:00.000Z'),
    );
  });

  it('waits for the reader: rows nobody reads are not written, and all come once they are read', async () => {
    let written = 0;
    const total = 5000;
    const stream = await streamWorkbook(async (book) => {
      const sheet = book.addSheet('Rows');
      for (let i = 0; i < total; i++) {
        // Random text: the zip cannot shrink it, so its bytes fill the reader's buffers.
        sheet.addRow([i, randomBytes(1536).toString('base64')]).commit();
        written += 1;
        if (written % 100 === 0) await book.settle(sheet);
      }
      sheet.commit();
    });
    await sleep(300);
    // 10 MB of rows in all; the zip's stages buffer about 1.5 MB (each takes chunks of 64 KB).
    expect(written).toBeLessThan(2000);
    const workbook = await readBack(stream);
    expect(written).toBe(total);
    const sheet = workbook.getWorksheet('Rows')!;
    expect(sheet.rowCount).toBe(total);
    expect(sheet.getCell(`A${total}`).value).toBe(total - 1);
  });

  it('stops the writer once the client goes, and ends the stream with the writer’s error', async () => {
    let stopped: unknown;
    const stream = await streamWorkbook(async (book) => {
      const sheet = book.addSheet('Rows');
      try {
        for (let i = 0; ; i++) {
          sheet.addRow([randomBytes(1024).toString('base64')]).commit();
          if (i % 100 === 0) await book.settle(sheet);
        }
      } catch (err) {
        stopped = err;
        throw err;
      }
    });
    await sleep(100);
    stream.destroy();
    await sleep(50);
    expect(stopped).toBeInstanceOf(Error);

    const failing = await streamWorkbook(async () => {
      throw new Error('the database went away');
    });
    await expect(buffer(failing)).rejects.toThrow('the database went away');
  });
});

describe('sheetName', () => {
  it('drops what Excel refuses, keeps 31 characters, and numbers names taken whatever the case', () => {
    const taken = new Set<string>();
    expect(sheetName('Submissions', taken)).toBe('Submissions');
    expect(sheetName('submissions', taken)).toBe('submissions (2)');
    expect(sheetName('a/b[c]:d*e?f\\g', taken)).toBe('a_b_c__d_e_f_g');
    const long = 'household_members_of_the_second_visit';
    expect(sheetName(long, taken)).toBe(long.slice(0, 31));
    expect(sheetName(long, taken)).toBe(`${long.slice(0, 27)} (2)`);
  });
});
