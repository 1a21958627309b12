import type { Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import type { ImportRowResult } from '../../lib/spreadsheets/import-report.js';
import { cell, type Table } from '../../lib/spreadsheets/tables.js';
import {
  CreateReportingPeriodBody,
  listPeriods,
  ReportingPeriodService,
  type ReportingPeriodRow,
} from '../periods/index.js';
import { PeriodsSoFar } from './periods-so-far.js';
import { cellOf, matchKey } from './setup-sheets.js';
import {
  attempt,
  bodyProblems,
  letOthersRun,
  ROWS_A_TURN,
  refusedBy,
  refusedRow,
  rowResult,
  type FieldColumns,
} from './setup-rows.js';

/**
 * The `periods` sheet: the project's reporting periods. A row matches the period of the same label
 * (whatever its case), else the one with the same dates, and updates it where they differ; otherwise it
 * creates one. The rules are the API's: no overlap, a locked period refuses every edit. Periods the
 * sheet does not name are left as they are.
 */

const FIELDS: FieldColumns = {
  label: 'label',
  startDate: 'start_date',
  endDate: 'end_date',
  dueDate: 'due_date',
};

export const projectPeriods = (tx: Db, orgId: string, projectId: string) =>
  listPeriods(tx, orgId, projectId, { limit: null, offset: 0 });

export async function importPeriods(
  tx: Db,
  member: Member,
  projectId: string,
  table: Table | undefined,
  webhooksQueued: () => void,
): Promise<ImportRowResult[]> {
  if (!table) return [];
  const service = (sp: Db) => new ReportingPeriodService(sp, [], webhooksQueued);
  const results: ImportRowResult[] = [];
  const firstRowOf = new Map<string, number>();
  // The rows before a row may have created or moved periods: it matches them as they now are.
  const periods = new PeriodsSoFar(await projectPeriods(tx, member.orgId, projectId));
  for (const [index, row] of table.rows.entries()) {
    await letOthersRun(index, ROWS_A_TURN.writing);
    const label = row.values.label ?? '';
    const key = matchKey(label);
    if (key !== '' && firstRowOf.has(key)) {
      results.push(
        refusedRow(table, row, 'label', [
          `label ${label} is given twice (first on ${cell(table, firstRowOf.get(key)!)})`,
        ]),
      );
      continue;
    }
    firstRowOf.set(key, row.row);
    const dueDate = cellOf(table, row, 'due_date');
    const body = {
      label,
      startDate: row.values.start_date ?? '',
      endDate: row.values.end_date ?? '',
      ...(dueDate !== undefined ? { dueDate } : {}),
    };
    const problems = bodyProblems(CreateReportingPeriodBody, body, FIELDS);
    if (problems) {
      results.push(refusedRow(table, row, problems.column, problems.messages));
      continue;
    }
    const period: ReportingPeriodRow | undefined = periods.find(key, body.startDate, body.endDate);
    if (!period) {
      const done = await attempt(tx, (sp) => service(sp).create(member, projectId, body));
      if (done.ok) periods.put(done.value);
      results.push(
        done.ok ? rowResult(table, row, 'create') : refusedBy(table, row, done.error, FIELDS, 'start_date'),
      );
      continue;
    }
    const changes = {
      ...(label.trim() !== period.label ? { label } : {}),
      ...(body.startDate !== period.startDate ? { startDate: body.startDate } : {}),
      ...(body.endDate !== period.endDate ? { endDate: body.endDate } : {}),
      ...(dueDate !== undefined && dueDate !== period.dueDate ? { dueDate } : {}),
    };
    if (Object.keys(changes).length === 0) {
      results.push(rowResult(table, row, 'unchanged'));
      continue;
    }
    const done = await attempt(tx, (sp) => service(sp).update(member, period.id, changes));
    if (!done.ok) {
      results.push(refusedBy(table, row, done.error, FIELDS, 'start_date'));
      continue;
    }
    periods.put(done.value);
    const changed = Object.keys(changes).map((field) => FIELDS[field]!);
    results.push(rowResult(table, row, 'update', [`changes ${changed.join(', ')} of ${period.label}`]));
  }
  return results;
}
