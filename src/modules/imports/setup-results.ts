import type { Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import type { ImportRowResult } from '../../lib/spreadsheets/import-report.js';
import { cell, type Table, type TableRow } from '../../lib/spreadsheets/tables.js';
import {
  CreateResultNodeBody,
  listProgramNodes,
  RESULT_LEVELS,
  ResultNodeService,
  type ResultLevel,
  type ResultNodeRow,
} from '../results/index.js';
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
 * The `results` sheet: the program's results framework by code. A code the program has updates that
 * node (title, description, parent); a new one creates it, last among its siblings. Parents are
 * written before their children whatever the rows' order (impacts, then outcomes, then outputs).
 * Nodes the sheet does not name are left as they are.
 */

const FIELDS: FieldColumns = {
  code: 'code',
  title: 'title',
  level: 'level',
  parentId: 'parent_code',
  description: 'description',
};

interface ResultLine {
  row: TableRow;
  code: string;
  title: string | null;
  level: ResultLevel;
  parentCode: string | null;
  description: string | null | undefined;
}

/** The node ids by code (lower case) once the sheet is written: what indicators' result_code names. */
export type NodesByCode = Map<string, string>;

export async function importResults(
  tx: Db,
  member: Member,
  programId: string,
  table: Table | undefined,
): Promise<{ results: ImportRowResult[]; nodes: NodesByCode }> {
  const existing = new Map<string, ResultNodeRow>();
  for (const node of await listProgramNodes(tx, member.orgId, programId)) {
    if (node.code !== null) existing.set(matchKey(node.code), node);
  }
  const nodes: NodesByCode = new Map([...existing].map(([code, node]) => [code, node.id]));
  if (!table) return { results: [], nodes };

  const results = new Map<number, ImportRowResult>();
  const lines: ResultLine[] = [];
  /** Rows refused here, by code: a child names its parent's row. */
  const refusedCodes = new Map<string, string>();
  const firstRowOf = new Map<string, number>();
  for (const row of table.rows) {
    const code = row.values.code?.trim() ?? '';
    const level = row.values.level?.trim().toLowerCase() ?? '';
    const refuse = (column: string, message: string) => {
      results.set(row.row, refusedRow(table, row, column, [message]));
      if (code) refusedCodes.set(matchKey(code), cell(table, row.row));
    };
    if (code === '') refuse('code', 'code must not be empty: the sheets name a node by its code');
    else if (firstRowOf.has(matchKey(code))) {
      refuse(
        'code',
        `code ${code} is given twice (first on ${cell(table, firstRowOf.get(matchKey(code))!)})`,
      );
    } else if (!(RESULT_LEVELS as readonly string[]).includes(level)) {
      firstRowOf.set(matchKey(code), row.row);
      refuse('level', `level must be one of ${RESULT_LEVELS.join(', ')}`);
    } else {
      firstRowOf.set(matchKey(code), row.row);
      lines.push({
        row,
        code,
        title: row.values.title ?? null,
        level: level as ResultLevel,
        parentCode: row.values.parent_code?.trim() ?? null,
        description: cellOf(table, row, 'description'),
      });
    }
  }

  const service = (sp: Db) => new ResultNodeService(sp);
  const byLevel = [...lines].sort(
    (a, b) => RESULT_LEVELS.indexOf(a.level) - RESULT_LEVELS.indexOf(b.level) || a.row.row - b.row.row,
  );
  for (const [index, line] of byLevel.entries()) {
    await letOthersRun(index, ROWS_A_TURN.writing);
    const { row } = line;
    const refuse = (column: string | undefined, messages: string[]) => {
      results.set(row.row, refusedRow(table, row, column, messages));
      refusedCodes.set(matchKey(line.code), cell(table, row.row));
    };
    let parentId: string | null = null;
    if (line.level === 'impact') {
      if (line.parentCode) {
        refuse('parent_code', ['parent_code must be empty for an impact: impacts are the roots']);
        continue;
      }
    } else if (!line.parentCode) {
      refuse('parent_code', [`parent_code is required for an ${line.level}`]);
      continue;
    } else {
      const key = matchKey(line.parentCode);
      const found = nodes.get(key);
      if (!found) {
        const where = refusedCodes.get(key);
        refuse('parent_code', [
          where
            ? `parent_code ${line.parentCode} is refused on its own row (${where})`
            : `parent_code ${line.parentCode} is not a code of this sheet or of the program's results framework`,
        ]);
        continue;
      }
      parentId = found;
    }

    const node = existing.get(matchKey(line.code));
    const body = {
      level: line.level,
      parentId,
      code: line.code,
      title: line.title ?? '',
      ...(line.description !== undefined ? { description: line.description } : {}),
    };
    const problems = bodyProblems(CreateResultNodeBody, body, FIELDS);
    if (problems) {
      refuse(problems.column, problems.messages);
      continue;
    }
    if (!node) {
      const done = await attempt(tx, (sp) => service(sp).create(member, programId, body));
      if (!done.ok) {
        results.set(row.row, refusedBy(table, row, done.error, FIELDS));
        refusedCodes.set(matchKey(line.code), cell(table, row.row));
        continue;
      }
      nodes.set(matchKey(line.code), done.value.id);
      results.set(row.row, rowResult(table, row, 'create'));
      continue;
    }
    if (node.level !== line.level) {
      refuse('level', [
        `level: ${node.code} is an ${node.level} of the program; a node's level cannot change`,
      ]);
      continue;
    }
    const changes = {
      ...(body.title.trim() !== node.title ? { title: body.title } : {}),
      ...(line.description !== undefined && line.description !== node.description
        ? { description: line.description }
        : {}),
      ...(parentId !== node.parentId ? { parentId } : {}),
    };
    if (Object.keys(changes).length === 0) {
      results.set(row.row, rowResult(table, row, 'unchanged'));
      continue;
    }
    const done = await attempt(tx, (sp) => service(sp).update(member, node.id, changes));
    if (!done.ok) {
      results.set(row.row, refusedBy(table, row, done.error, FIELDS));
      continue;
    }
    const changed = Object.keys(changes).map((field) => FIELDS[field]!);
    results.set(row.row, rowResult(table, row, 'update', [`changes ${changed.join(', ')}`]));
  }
  return { results: [...results.values()].sort((a, b) => a.row - b.row), nodes };
}
