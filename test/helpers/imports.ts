import ExcelJS from 'exceljs';
import type { FastifyInstance } from 'fastify';
import { call, type Caller } from './http.js';
import { multipart } from './files.js';

export const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

export type Cell = string | number | boolean | Date | null;
export type Sheets = Record<string, Cell[][]>;

/** A workbook as a person would write it: one sheet per entry, the header row first. */
export async function xlsx(sheets: Sheets): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const sheet = workbook.addWorksheet(name);
    for (const row of rows) sheet.addRow(row);
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

export async function loadWorkbook(bytes: Buffer): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  return workbook;
}

/** POST of a set-up workbook to a project (`query`: `?apply=true`, `?format=xlsx`...). */
export function importSetup(
  app: FastifyInstance,
  orgId: string,
  projectId: string,
  bytes: Buffer,
  { as, query = '', fileName = 'setup.xlsx' }: { as: Caller | null; query?: string; fileName?: string },
) {
  return call(app, 'POST', `/orgs/${orgId}/projects/${projectId}/import${query}`, {
    as,
    ...multipart([{ name: 'file', value: bytes, fileName, contentType: XLSX }]),
  });
}

/** The rows of a report as `sheet row action`, for compact assertions. */
export const actions = (rows: { sheet: string; row: number; action: string }[]) =>
  rows.map(({ sheet, row, action }) => `${sheet} ${row} ${action}`);
