import type { Static } from '@sinclair/typebox';
import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { badRequest } from '../../errors/catalogue.js';
import type { Member } from '../../http/pipeline/access.js';
import type { ImportRowResult } from '../../lib/spreadsheets/import-report.js';
import { cell, type Table, type TableRow } from '../../lib/spreadsheets/tables.js';
import { indicatorReports } from '../indicator-reports/indicator-reports.tables.js';
import {
  CreateDisaggregationBody,
  CreateIndicatorBody,
  DisaggregationService,
  findIndicator,
  findIndicatorsByCodes,
  findLink,
  IndicatorService,
  listDisaggregations,
  ProjectIndicatorService,
  UpdateLinkBody,
  type IndicatorDependents,
  type PeriodTargets,
} from '../indicators/index.js';
import type { ReportingPeriodRow } from '../periods/index.js';
import { indicatorAggregations } from './setup-import.repo.js';
import type { NodesByCode } from './setup-results.js';
import { cellOf, disaggregationsOf, matchKey, numberOf, type WrittenDisaggregation } from './setup-sheets.js';
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
import { targetColumnsOf, type TargetColumn } from './target-columns.js';

/**
 * The `indicators` sheet: each row an indicator of the organization (by code), linked to the project with
 * its baseline and target, its disaggregations, and its per-period targets (`target Q1 2026` columns).
 * An indicator the organization has is updated where the row differs, and linked if it is not yet;
 * formula indicators are written after the others, so that a formula may use a code of the same sheet.
 */

const DEFINITION: FieldColumns = {
  code: 'code',
  name: 'name',
  unit: 'unit',
  aggregationMethod: 'aggregation',
  description: 'description',
  dataSource: 'data_source',
  resultNodeId: 'result_code',
  isFormula: 'formula',
  formula: 'formula',
};
const LINK: FieldColumns = { target: 'target', baseline: 'baseline', baselineYear: 'baseline_year' };

export interface IndicatorPorts {
  dependents: IndicatorDependents;
  periodTargets: PeriodTargets;
}

type IndicatorCreate = Static<typeof CreateIndicatorBody>;

interface Definition {
  name: string;
  code: string;
  unit: string;
  aggregationMethod?: string;
  description?: string | null;
  dataSource?: string | null;
  resultNodeId?: string | null;
  isFormula?: boolean;
  formula?: string | null;
}

interface IndicatorLine {
  row: TableRow;
  definition: Definition;
  disaggregations: WrittenDisaggregation[] | undefined;
  link: { target?: number | null; baseline?: number | null; baselineYear?: number | null };
  /** Per-period targets: the column, the period, the target (null: none). */
  periodTargets: { column: string; period: ReportingPeriodRow; target: number | null }[];
}

type Problem = { column: string; message: string };

/** A number cell: undefined when the column is absent, null when blank. */
function numberCell(table: Table, row: TableRow, column: string, problems: Problem[], integer = false) {
  return numberIn(cellOf(table, row, column), column, problems, integer);
}

/** The number a cell's text writes: undefined (a problem noted) when it is not one. */
function numberIn(text: string | null | undefined, column: string, problems: Problem[], integer = false) {
  if (text === undefined || text === null) return text;
  const value = numberOf(text);
  if (value === null || (integer && !Number.isInteger(value))) {
    problems.push({ column, message: `${column} must be ${integer ? 'a whole number' : 'a number'}` });
    return undefined;
  }
  return value;
}

function lineOf(
  table: Table,
  row: TableRow,
  nodes: NodesByCode,
  targetColumns: readonly TargetColumn[],
): { line: IndicatorLine } | { problems: Problem[] } {
  const problems: Problem[] = [];
  const text = (column: string) => cellOf(table, row, column);
  const definition: Definition = {
    name: row.values.name ?? '',
    code: row.values.code ?? '',
    unit: row.values.unit ?? '',
  };
  const aggregation = row.values.aggregation?.toLowerCase();
  if (aggregation !== undefined) definition.aggregationMethod = aggregation;
  if (text('description') !== undefined) definition.description = text('description');
  if (text('data_source') !== undefined) definition.dataSource = text('data_source');
  const formula = text('formula');
  if (formula) Object.assign(definition, { isFormula: true, formula });
  else if (formula === null) Object.assign(definition, { isFormula: false, formula: null });
  const resultCode = text('result_code');
  if (resultCode === null) definition.resultNodeId = null;
  else if (resultCode !== undefined) {
    definition.resultNodeId = nodes.get(matchKey(resultCode));
    if (!definition.resultNodeId) {
      problems.push({
        column: 'result_code',
        message: `result_code ${resultCode} is not a code of the results sheet or of the program's results framework`,
      });
    }
  }

  let disaggregations: WrittenDisaggregation[] | undefined;
  const written = text('disaggregations');
  if (written !== undefined) {
    const read = disaggregationsOf(written ?? '');
    if ('problem' in read) problems.push({ column: 'disaggregations', message: read.problem });
    else {
      disaggregations = read.list;
      const names = read.list.map((d) => matchKey(d.name));
      const twice = names.find((name, i) => names.indexOf(name) !== i);
      if (twice)
        problems.push({ column: 'disaggregations', message: `disaggregation ${twice} is written twice` });
    }
  }

  const link: IndicatorLine['link'] = {};
  for (const [field, column] of Object.entries(LINK)) {
    const value = numberCell(table, row, column, problems, field === 'baselineYear');
    if (value !== undefined) link[field as keyof IndicatorLine['link']] = value;
  }

  const periodTargets: IndicatorLine['periodTargets'] = [];
  for (const { column, named, periods: matching } of targetColumns) {
    // A blank cell is null: it clears the target of the column's one period, and is no problem otherwise.
    const target = numberIn(row.values[column] ?? null, column, problems);
    if (target === undefined) continue;
    if (matching.length === 1) periodTargets.push({ column, period: matching[0]!, target });
    else if (target !== null) {
      problems.push({
        column,
        message:
          matching.length === 0
            ? `${column}: the project has no reporting period labelled ${named.replaceAll('_', ' ')}`
            : `${column}: ${matching.map((p) => p.label).join(' and ')} both read as this column`,
      });
    }
  }
  if (problems.length > 0) return { problems };
  return { line: { row, definition, disaggregations, link, periodTargets } };
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((item, i) => item === b[i]);

/** Makes the indicator's plain disaggregations the ones written; answers what changed. */
async function syncDisaggregations(
  sp: Db,
  member: Member,
  indicatorId: string,
  written: WrittenDisaggregation[],
  dependents: IndicatorDependents,
): Promise<string[]> {
  const service = new DisaggregationService(sp, dependents);
  const existing = await listDisaggregations(sp, member.orgId, indicatorId);
  const byName = new Map(existing.map((d) => [matchKey(d.name), d]));
  const wanted = new Map(written.map((d) => [matchKey(d.name), d]));
  const changes: string[] = [];
  for (const d of existing) {
    const w = wanted.get(matchKey(d.name));
    if (d.crosses) {
      if (w)
        throw badRequest(`${d.name} is a cross of ${d.crosses.join(' and ')}: the sheet writes plain ones`);
      continue;
    }
    if (w && sameList(w.categories, d.categories)) continue;
    await service.remove(member, indicatorId, d.id);
    if (!w) changes.push(`removes disaggregation ${d.name}`);
  }
  for (const w of written) {
    const d = byName.get(matchKey(w.name));
    if (d && sameList(w.categories, d.categories)) continue;
    const body = { name: w.name, categories: w.categories };
    const problems = bodyProblems(CreateDisaggregationBody, body, {});
    if (problems) throw badRequest(...problems.messages.map((m) => `disaggregation ${w.name}: ${m}`));
    await service.create(member, indicatorId, body);
    changes.push(d ? `changes the categories of ${w.name}` : `adds disaggregation ${w.name}`);
  }
  return changes;
}

/** The targets the project's indicator reports of the indicator hold, by period. */
async function currentTargets(sp: Db, orgId: string, projectId: string, indicatorId: string) {
  const rows = await sp
    .select({ periodId: indicatorReports.reportingPeriodId, target: indicatorReports.target })
    .from(indicatorReports)
    .where(
      and(
        eq(indicatorReports.orgId, orgId),
        eq(indicatorReports.projectId, projectId),
        eq(indicatorReports.indicatorId, indicatorId),
      ),
    );
  return new Map(rows.map((row) => [row.periodId, row.target]));
}

/** Where a refusal of the row's work points: set before each step. */
interface Step {
  fields: FieldColumns;
  column?: string;
}

async function writeLine(
  sp: Db,
  member: Member,
  projectId: string,
  line: IndicatorLine,
  ports: IndicatorPorts,
  step: Step,
): Promise<{ created: boolean; changes: string[] }> {
  const { orgId } = member;
  const indicators = new IndicatorService(sp, ports.dependents);
  const links = new ProjectIndicatorService(sp, ports.periodTargets);
  const changes: string[] = [];
  Object.assign(step, { fields: DEFINITION, column: undefined });
  const [found] = await findIndicatorsByCodes(sp, orgId, [line.definition.code]);
  let indicatorId: string;
  if (!found) {
    indicatorId = (await indicators.create(member, line.definition as IndicatorCreate)).id;
  } else {
    indicatorId = found.id;
    const current = (await findIndicator(sp, orgId, found.id))!;
    const diff = Object.fromEntries(
      Object.entries(line.definition).filter(
        ([field, value]) => field !== 'code' && value !== (current as Record<string, unknown>)[field],
      ),
    );
    if (Object.keys(diff).length > 0) {
      await indicators.update(member, indicatorId, diff);
      changes.push(`changes ${[...new Set(Object.keys(diff).map((f) => DEFINITION[f]))].join(', ')}`);
    }
  }

  if (line.disaggregations) {
    Object.assign(step, { fields: {}, column: 'disaggregations' });
    changes.push(
      ...(await syncDisaggregations(sp, member, indicatorId, line.disaggregations, ports.dependents)),
    );
  }

  Object.assign(step, { fields: LINK, column: undefined });
  const link = await findLink(sp, orgId, projectId, indicatorId);
  if (!link) {
    await links.link(member, projectId, { indicatorId, ...line.link });
    if (found) changes.push('links it to the project');
  } else {
    const diff = Object.fromEntries(
      Object.entries(line.link).filter(([field, value]) => value !== link[field as keyof typeof line.link]),
    );
    if (Object.keys(diff).length > 0) {
      await links.update(member, projectId, indicatorId, diff);
      changes.push(
        `changes ${Object.keys(diff)
          .map((f) => LINK[f])
          .join(', ')}`,
      );
    }
  }

  const targets = await currentTargets(sp, orgId, projectId, indicatorId);
  const moved = line.periodTargets.filter(
    ({ period, target }) => (targets.get(period.id) ?? null) !== target,
  );
  if (moved.length > 0) {
    Object.assign(step, { fields: {}, column: moved[0]!.column });
    const periodTargets = Object.fromEntries(moved.map(({ period, target }) => [period.id, target]));
    await links.update(member, projectId, indicatorId, { periodTargets });
    if (found) changes.push(`sets the targets of ${moved.map(({ period }) => period.label).join(', ')}`);
  }
  return { created: !found, changes };
}

export async function importIndicators(
  tx: Db,
  member: Member,
  projectId: string,
  table: Table | undefined,
  context: { nodes: NodesByCode; periods: ReportingPeriodRow[] },
  ports: IndicatorPorts,
): Promise<ImportRowResult[]> {
  if (!table) return [];
  const results: ImportRowResult[] = [];
  const lines: IndicatorLine[] = [];
  const firstRowOf = new Map<string, number>();
  // How the organization's indicators of these codes add up: a row may leave aggregation to them.
  const codes = table.rows.flatMap((row) => (row.values.code ? [row.values.code] : []));
  const aggregationOf = new Map(
    (await indicatorAggregations(tx, member.orgId, codes)).map((found) => [
      matchKey(found.code),
      found.aggregationMethod,
    ]),
  );
  const targetColumns = targetColumnsOf(table, context.periods);
  for (const [index, row] of table.rows.entries()) {
    await letOthersRun(index, ROWS_A_TURN.reading);
    const key = matchKey(row.values.code ?? '');
    if (key !== '' && firstRowOf.has(key)) {
      const first = cell(table, firstRowOf.get(key)!);
      results.push(
        refusedRow(table, row, 'code', [`code ${row.values.code} is given twice (first on ${first})`]),
      );
      continue;
    }
    firstRowOf.set(key, row.row);
    const read = lineOf(table, row, context.nodes, targetColumns);
    if ('problems' in read) {
      results.push(
        refusedRow(
          table,
          row,
          read.problems[0]!.column,
          read.problems.map((p) => p.message),
        ),
      );
      continue;
    }
    const { definition } = read.line;
    const kept = definition.isFormula ? null : aggregationOf.get(matchKey(definition.code));
    const whole =
      definition.aggregationMethod || !kept ? definition : { ...definition, aggregationMethod: kept };
    const checked =
      bodyProblems(CreateIndicatorBody, whole, DEFINITION) ??
      bodyProblems(UpdateLinkBody, read.line.link, LINK);
    if (checked) {
      results.push(refusedRow(table, row, checked.column, checked.messages));
      continue;
    }
    lines.push(read.line);
  }

  const formulasLast = [...lines].sort(
    (a, b) => Number(!!a.definition.isFormula) - Number(!!b.definition.isFormula),
  );
  for (const [index, line] of formulasLast.entries()) {
    await letOthersRun(index, ROWS_A_TURN.writing);
    const step: Step = { fields: DEFINITION };
    const done = await attempt(tx, (sp) => writeLine(sp, member, projectId, line, ports, step));
    if (!done.ok) {
      results.push(refusedBy(table, line.row, done.error, step.fields, step.column));
      continue;
    }
    const { created, changes } = done.value;
    const action = created ? 'create' : changes.length > 0 ? 'update' : 'unchanged';
    results.push(rowResult(table, line.row, action, created ? [] : changes));
  }
  return results.sort((a, b) => a.row - b.row);
}
