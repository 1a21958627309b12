import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { annotatedWorkbook, statusText } from './annotate.js';
import type { ImportRowResult } from './import-report.js';
import { readCsv } from './tables.js';

const LIMITS = {
  entries: 100,
  unzippedBytes: 1 << 20,
  sheetRows: 1000,
  sheetCells: 10_000,
  rows: 100,
  columns: 20,
  cellChars: 1000,
};

async function workbookOf(sheets: Record<string, (string | number | null)[][]>): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const sheet = workbook.addWorksheet(name);
    for (const row of rows) sheet.addRow(row);
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

async function load(bytes: Buffer) {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  return workbook;
}

const result = (
  sheet: string,
  row: number,
  action: ImportRowResult['action'],
  cell?: string,
  ...messages: string[]
) => ({
  sheet,
  row,
  cell: cell ?? `${sheet}!${row}:${row}`,
  action,
  messages,
});

describe('annotatedWorkbook', () => {
  it('adds a status column to the sheets with reported rows, marks refused rows and the cells named', async () => {
    const bytes = await workbookOf({
      notes: [['a'], ['b']],
      indicators: [
        ['code', 'name', 'unit'],
        ['A', 'One', 'people'],
        ['B', 'Two', null],
        ['C', 'Three', 'people'],
      ],
    });
    const out = await load(
      await annotatedWorkbook({ xlsx: bytes }, [
        result('indicators', 2, 'create'),
        result('indicators', 3, 'refused', 'indicators!C3', 'unit must not be empty'),
        result('indicators', 3, 'refused', 'indicators!B3', 'name is odd'),
      ]),
    );
    expect(out.worksheets.map((s) => s.name)).toEqual(['notes', 'indicators']);
    expect(out.getWorksheet('notes')!.columnCount).toBe(1);
    const sheet = out.getWorksheet('indicators')!;
    expect((sheet.getColumn(4).values as unknown[]).slice(1)).toEqual([
      'status',
      'create',
      'refused: unit must not be empty | refused: name is odd',
    ]);
    expect(sheet.getCell('D1').font).toMatchObject({ bold: true });
    expect(sheet.getCell('D3').fill).toMatchObject({ pattern: 'solid' });
    expect(sheet.getCell('C3').note).toBe('unit must not be empty');
    expect(sheet.getCell('B3').note).toBe('name is odd');
    expect(sheet.getCell('A2').fill).toBeUndefined();
    // Unreported rows keep an empty status.
    expect(sheet.getCell('D4').value).toBeNull();
    expect(sheet.getCell('A4').value).toBe('C');
  });

  it('reuses a status column already there, clearing its old verdicts', async () => {
    const bytes = await workbookOf({
      periods: [
        ['label', 'Status'],
        ['Q1', 'refused: old'],
        ['Q2', 'create'],
      ],
    });
    const out = await load(await annotatedWorkbook({ xlsx: bytes }, [result('periods', 2, 'unchanged')]));
    const sheet = out.getWorksheet('periods')!;
    expect(sheet.columnCount).toBe(2);
    expect((sheet.getColumn(2).values as unknown[]).slice(1)).toEqual(['Status', 'unchanged']);
  });

  it('writes a CSV table as a sheet of its own with the status column', async () => {
    const table = await readCsv(Buffer.from('Indicator Code;Value\nA;1\nB;x\n=SUM(B2:B3);2\n'), LIMITS);
    const out = await load(
      await annotatedWorkbook({ csv: table }, [
        result('data', 2, 'create'),
        result('data', 3, 'refused', 'data!B3', 'value must be a number'),
      ]),
    );
    const sheet = out.getWorksheet('data')!;
    // The header as the officer wrote it; every cell as text, a formula too (it is not run).
    expect(sheet.getRow(1).values).toEqual([undefined, 'Indicator Code', 'Value', 'status']);
    expect(sheet.getRow(3).values).toEqual([undefined, 'B', 'x', 'refused: value must be a number']);
    expect(sheet.getCell('B3').note).toBe('value must be a number');
    expect(sheet.getCell('A4').type).toBe(ExcelJS.ValueType.String);
    expect(sheet.getCell('A4').value).toBe('=SUM(B2:B3)');
  });

  it('cuts a status and a note to what a cell holds', async () => {
    const table = await readCsv(Buffer.from('code\nA\n'), LIMITS);
    const long = 'x'.repeat(20_000);
    const out = await load(
      await annotatedWorkbook({ csv: table }, [result('data', 2, 'refused', 'data!A2', long, long)]),
    );
    const status = out.getWorksheet('data')!.getCell('B2').value as string;
    expect(status).toHaveLength(32_767);
    expect(status.endsWith('…')).toBe(true);
    expect((out.getWorksheet('data')!.getCell('A2').note as string).length).toBe(32_767);
  });

  it('says the action alone when there is nothing else to say', () => {
    expect(statusText({ action: 'unchanged', messages: [] })).toBe('unchanged');
    expect(statusText({ action: 'refused', messages: ['a', 'b'] })).toBe('refused: a; b');
  });
});
