import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { importReport, summarize, type ImportRowResult } from './import-report.js';
import { cell, columnLetter, readCsv, readWorkbook, TableError, type TableLimits } from './tables.js';

const LIMITS: TableLimits = {
  entries: 100,
  unzippedBytes: 4 * 1024 * 1024,
  sheetRows: 1_000,
  sheetCells: 10_000,
  rows: 50,
  columns: 10,
  cellChars: 100,
};

const refusal = async (read: Promise<unknown>) => {
  const err = await read.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TableError);
  return err as TableError;
};

describe('columnLetter and cell', () => {
  it('names columns as a spreadsheet does', () => {
    expect([1, 3, 26, 27, 52, 53, 702, 703].map(columnLetter)).toEqual([
      'A',
      'C',
      'Z',
      'AA',
      'AZ',
      'BA',
      'ZZ',
      'AAA',
    ]);
  });

  it('places a message on a cell, or on the row when the column is unknown', () => {
    const table = { name: 'indicators', letters: { code: 'A', target: 'C' } };
    expect(cell(table, 12, 'target')).toBe('indicators!C12');
    expect(cell(table, 12)).toBe('indicators!12:12');
    expect(cell(table, 12, 'nope')).toBe('indicators!12:12');
  });
});

describe('readCsv', () => {
  it('reads a header and records with their row numbers, skipping empty rows', async () => {
    const csv = '\uFEFFProject Code,indicator-code, Value \nP1,IND1, 12 \n,,\n"P2","IND, 2",7\n';
    const table = await readCsv(Buffer.from(csv), LIMITS);
    expect(table.name).toBe('data');
    expect(table.columns).toEqual(['project_code', 'indicator_code', 'value']);
    expect(table.letters).toEqual({ project_code: 'A', indicator_code: 'B', value: 'C' });
    expect(table.rows).toEqual([
      { row: 2, values: { project_code: 'P1', indicator_code: 'IND1', value: '12' } },
      { row: 4, values: { project_code: 'P2', indicator_code: 'IND, 2', value: '7' } },
    ]);
  });

  it('takes semicolons and tabs when the header line uses them', async () => {
    expect((await readCsv(Buffer.from('a;b\n1;2,5\n'), LIMITS)).rows[0]!.values).toEqual({
      a: '1',
      b: '2,5',
    });
    expect((await readCsv(Buffer.from('a\tb\n1\t2\n'), LIMITS)).rows[0]!.values).toEqual({ a: '1', b: '2' });
  });

  it('refuses broken quoting, a duplicate column, a value without a header and too many rows', async () => {
    expect((await refusal(readCsv(Buffer.from('a,b\n"1,2\n'), LIMITS))).tooLarge).toBe(false);
    expect((await refusal(readCsv(Buffer.from('a,A\n1,2\n'), LIMITS))).message).toBe(
      'data!B1: the column a is given twice',
    );
    expect((await refusal(readCsv(Buffer.from('a\n1,2\n'), LIMITS))).message).toBe(
      'data!B2: a value in a column without a header',
    );
    const many = `a\n${'1\n'.repeat(51)}`;
    const tooMany = await refusal(readCsv(Buffer.from(many), LIMITS));
    expect(tooMany).toMatchObject({ tooLarge: true, message: 'data: more than 50 rows' });
    const long = await refusal(readCsv(Buffer.from(`a\n${'x'.repeat(101)}\n`), LIMITS));
    expect(long).toMatchObject({ tooLarge: true, message: 'data!A2: more than 100 characters' });
  });

  it('counts only rows that hold something against the limit, numbering them as the file does', async () => {
    // 50 rows among the empty `,,` lines a spreadsheet writes: within the 50 allowed.
    const lines = ['a,b'];
    for (let i = 1; i <= 50; i++) lines.push(`${i},x`, ',,');
    const table = await readCsv(Buffer.from(lines.join('\n')), LIMITS);
    expect(table.rows).toHaveLength(50);
    expect(table.rows[49]).toEqual({ row: 100, values: { a: '50', b: 'x' } });
  });
});

describe('readWorkbook', () => {
  it('reads every sheet: numbers, dates, formulas by their result, rich text', async () => {
    const workbook = new ExcelJS.Workbook();
    const values = workbook.addWorksheet('values');
    values.addRow(['Indicator Code', 'Value', 'Date', 'Note']);
    values.addRow([
      'IND1',
      12.5,
      new Date(Date.UTC(2026, 2, 31)),
      { richText: [{ text: 'a ' }, { text: 'b' }] },
    ]);
    values.addRow([]);
    values.addRow(['IND2', { formula: 'B2*2', result: 25 }, null, null]);
    workbook.addWorksheet('empty');
    const bytes = Buffer.from(await workbook.xlsx.writeBuffer());
    const [first, empty] = await readWorkbook(bytes, LIMITS);
    expect(first).toEqual({
      name: 'values',
      columns: ['indicator_code', 'value', 'date', 'note'],
      letters: { indicator_code: 'A', value: 'B', date: 'C', note: 'D' },
      titles: { indicator_code: 'Indicator Code', value: 'Value', date: 'Date', note: 'Note' },
      rows: [
        { row: 2, values: { indicator_code: 'IND1', value: '12.5', date: '2026-03-31', note: 'a b' } },
        { row: 4, values: { indicator_code: 'IND2', value: '25' } },
      ],
    });
    expect(empty).toEqual({ name: 'empty', columns: [], letters: {}, titles: {}, rows: [] });
  });

  it('refuses what is not a workbook, and one past the bounds before reading it', async () => {
    expect((await refusal(readWorkbook(Buffer.from('not a zip at all, just text'), LIMITS))).tooLarge).toBe(
      false,
    );
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('big');
    for (let i = 0; i < 1_100; i++) sheet.addRow([i]);
    const bytes = Buffer.from(await workbook.xlsx.writeBuffer());
    expect(await refusal(readWorkbook(bytes, LIMITS))).toMatchObject({
      tooLarge: true,
      message: 'the sheets hold more than 1000 rows',
    });
  });
});

describe('importReport', () => {
  const row = (n: number, action: ImportRowResult['action']): ImportRowResult => ({
    sheet: 'values',
    row: n,
    cell: `values!${n}:${n}`,
    action,
    messages: [],
  });
  const rows = [
    row(2, 'create'),
    row(3, 'new'),
    row(4, 'update'),
    row(5, 'refused'),
    row(6, 'matched existing'),
  ];

  it('sums the actions into four numbers', () => {
    expect(summarize(rows)).toEqual({ created: 2, updated: 1, unchanged: 1, refused: 1 });
  });

  it('pages the rows and keeps the summary of them all', () => {
    const page = importReport(rows, { dryRun: true, applied: false, page: 2, limit: 2 });
    expect(page).toEqual({
      dryRun: true,
      applied: false,
      summary: { created: 2, updated: 1, unchanged: 1, refused: 1 },
      rows: [rows[2], rows[3]],
      meta: { totalRows: 5, page: 2, limit: 2, totalPages: 3 },
    });
    expect(importReport([], { dryRun: false, applied: true }).meta).toEqual({
      totalRows: 0,
      page: 1,
      limit: 1000,
      totalPages: 1,
    });
  });
});
