import ExcelJS from 'exceljs';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { call, type Caller } from './http.js';
import { indicatorsUrl } from './indicators.js';

/** The logframe workbook of a project, read back (its answer checked as an .xlsx). */
export async function readLogframe(app: FastifyInstance, orgId: string, projectId: string, as: Caller) {
  const res = await call(app, 'GET', `/orgs/${orgId}/projects/${projectId}/logframe.xlsx`, { as });
  expect(res.status, res.body as string).toBe(200);
  expect(res.headers['content-type']).toBe(
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  );
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(res.response.rawPayload as unknown as ArrayBuffer);
  return { workbook, res };
}

/** Each indicator's progress in the project as the API scores it (the indicators list by band). */
export async function apiProgress(app: FastifyInstance, orgId: string, projectId: string, as: Caller) {
  const byCode = new Map<string, Record<string, unknown>>();
  for (const status of ['on_track', 'at_risk', 'off_track', 'no_target', 'no_data']) {
    const url = `${indicatorsUrl(orgId)}?projectId=${projectId}&status=${status}`;
    const res = await call(app, 'GET', url, { as });
    expect(res.status).toBe(200);
    for (const item of res.body as { code: string; progress: Record<string, unknown> }[]) {
      byCode.set(item.code, item.progress);
    }
  }
  return byCode;
}

/** The Logframe sheet's row of an indicator, by code, as values from column A. */
export function indicatorRow(sheet: ExcelJS.Worksheet, code: string): unknown[] {
  let found: unknown[] | undefined;
  sheet.eachRow((row) => {
    if (row.getCell(2).value === code) found = (row.values as unknown[]).slice(1);
  });
  expect(found, code).toBeDefined();
  return found!;
}

/** A sheet's rows as arrays from column A, empty cells null. */
export function sheetRows(sheet: ExcelJS.Worksheet): unknown[][] {
  const rows: unknown[][] = [];
  sheet.eachRow((row) => rows.push(Array.from((row.values as unknown[]).slice(1), (v) => v ?? null)));
  return rows;
}

/** The logframe's words for the API's progress statuses. */
export const STATUS_WORDS: Record<string, string> = {
  on_track: 'On track',
  at_risk: 'At risk',
  off_track: 'Off track',
  no_target: 'No target',
  no_data: 'No data',
};
