import { transaction, type Db } from '../../db/client.js';
import { AppError, forbidden } from '../../errors/catalogue.js';
import { refusedDuplicate } from '../../errors/refusals.js';
import type { Member } from '../../http/pipeline/access.js';
import { newId, UUID_PATTERN } from '../../lib/ids.js';
import type { ImportRowResult } from '../../lib/spreadsheets/import-report.js';
import { ageBandsOf } from '../orgs/index.js';
import {
  assignedTo,
  dimensionsOfAll,
  indicatorsNamed,
  insertHistory,
  insertReports,
  linksAmong,
  periodsAround,
  projectsNamed,
  reportsOf,
  updateReports,
  type ReportKey,
  type WrittenValues,
} from './bulk-values.repo.js';
import type { IndicatorReportRow } from './indicator-reports.repo.js';
import { textProblems, type ValueField, type ValueRowInput } from './bulk-value-row.js';
import { recheckOutliers, recheckRuleFlags } from './report-flags.js';
import { lockRuleChecks } from './rule-check-lock.js';
import { changesBetween } from './report-history.js';
import { reportValues } from './report-values.js';
import { EDITABLE } from './report-workflow.js';

export interface ValueImportOptions {
  /** Check everything and write nothing. */
  dryRun: boolean;
  /** Write nothing when any row is refused (the rows that are not are then what they would do). */
  atomic?: boolean;
}

type Problem = { field?: ValueField; message: string };

/** A row that passed every check: the report it writes, and how. */
interface Planned {
  index: number;
  key: ReportKey;
  existing: IndicatorReportRow | undefined;
  values: WrittenValues;
  action: 'create' | 'update' | 'unchanged';
  messages: string[];
}

const cleanNarrative = (text: string | null | undefined) =>
  text === undefined ? undefined : text?.trim() ? text : null;

const sameCells = (a: Record<string, number>, b: Record<string, number>) => {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.is(a[key], b[key]));
};

const distinct = (values: (string | undefined)[]) => [
  ...new Set(values.filter((v): v is string => v !== undefined)),
];
const isUuid = (text: string | undefined): text is string => text !== undefined && UUID_PATTERN.test(text);

/** The messages of a refusal thrown by the checks of one value (reportValues' 400s). */
function messagesOf(err: unknown): string[] {
  if (!(err instanceof AppError) || err.statusCode !== 400) throw err;
  return Array.isArray(err.messages) ? err.messages : [err.messages];
}

/** True when a field of the row was refused as it was read (its cell is not taken as given). */
const unreadable = (row: ValueRowInput, ...fields: ValueField[]): boolean =>
  (row.problems ?? []).some((problem) => problem.field !== undefined && fields.includes(problem.field));

/**
 * Imports rows of values inside the caller's transaction `tx`, with the rules of one value: the caller's
 * role (a reporter writes only the projects assigned to them: other rows are refused), a project of the
 * organization, an indicator linked to it that is not a formula, a period of that project (by label or
 * id) that is not locked, a report that is draft or rejected if it exists, disaggregated values that add
 * up (reportValues), one row per report. Answers one result per row, in their order: `create` (a new
 * draft), `update` (a draft or rejected report whose values change; its status stays), `unchanged`
 * (nothing would change: nothing is written, no history entry) or `refused` with every reason found.
 *
 * Unless `dryRun` (or `atomic` with a row refused), the rows that are not refused are written in a few
 * statements, each change with a history entry of kind `imported` by the member. The projects, periods
 * and indicators named are locked FOR SHARE and the existing reports FOR UPDATE until the caller's
 * transaction ends (as one report's creation and edit lock them). A report created by another request
 * between the read and the insert makes the insert fail with a unique violation: the caller's
 * transaction is then aborted (`bulkImportValues` answers 409).
 *
 * A caller importing several sheets in one transaction (periods first, then values) sees its own earlier
 * writes here. Messages name the field as the JSON body does (`indicatorCode`); `cell` points at the first
 * field refused, else at the row.
 */
export async function importValueRows(
  tx: Db,
  member: Member,
  rows: readonly ValueRowInput[],
  options: ValueImportOptions,
): Promise<ImportRowResult[]> {
  const lock = !options.dryRun;
  const orgId = member.orgId;
  rows = rows.map(textProblems);
  const problems: Problem[][] = rows.map((row) => [...(row.problems ?? [])]);

  // The things named, each read once for all rows.
  const projectRows = await projectsNamed(
    tx,
    orgId,
    distinct(rows.map((r) => r.projectId)).filter(isUuid),
    distinct(rows.map((r) => r.projectCode)),
  );
  const assigned = member.role === 'reporter' ? await assignedTo(tx, orgId, member.userId) : null;
  const indicatorRows = await indicatorsNamed(
    tx,
    orgId,
    distinct(rows.map((r) => r.indicatorId)).filter(isUuid),
    distinct(rows.map((r) => r.indicatorCode)),
    lock,
  );
  const projectIds = projectRows.map((p) => p.id);
  const indicatorIds = indicatorRows.map((i) => i.id);
  const links = await linksAmong(tx, orgId, projectIds, indicatorIds);
  const periodRows = await periodsAround(
    tx,
    orgId,
    projectIds,
    distinct(rows.map((r) => r.periodId)).filter(isUuid),
    lock,
  );

  const projectById = new Map(projectRows.map((p) => [p.id, p]));
  const indicatorById = new Map(indicatorRows.map((i) => [i.id, i]));
  const periodById = new Map(periodRows.map((p) => [p.id, p]));
  const byCode = <T extends { code: string }>(list: readonly T[]) => {
    const exact = new Map(list.map((item) => [item.code, item]));
    const anyCase = new Map<string, T[]>();
    for (const item of list)
      anyCase.set(item.code.toLowerCase(), [...(anyCase.get(item.code.toLowerCase()) ?? []), item]);
    // An exact code first; else the one code that differs only by case (two such: none).
    return (code: string) => {
      const found = exact.get(code);
      if (found) return found;
      const candidates = anyCase.get(code.toLowerCase()) ?? [];
      return candidates.length === 1 ? candidates[0] : undefined;
    };
  };
  const projectByCode = byCode(projectRows);
  const indicatorByCode = byCode(indicatorRows);
  const periodsByLabel = new Map<string, typeof periodRows>();
  for (const period of periodRows) {
    const key = `${period.projectId} ${period.label.trim().toLowerCase()}`;
    periodsByLabel.set(key, [...(periodsByLabel.get(key) ?? []), period]);
  }

  /** One of a pair (code or id): what it names, or a problem. Both sent must name the same thing. */
  function resolve<T extends { id: string }>(
    row: ValueRowInput,
    fields: { code: ValueField; id: ValueField; what: string },
    byId: (id: string) => T | undefined,
    byCodeOf: (code: string) => T | undefined,
  ): T | Problem[] {
    const code = row[fields.code] as string | undefined;
    const id = row[fields.id] as string | undefined;
    // A cell of the pair already refused as it was read (a CSV cell with a control character): said.
    if (unreadable(row, fields.code, fields.id)) return [];
    if (code === undefined && id === undefined) {
      return [{ field: fields.code, message: `${fields.code} or ${fields.id} is required` }];
    }
    const fromId = id === undefined ? undefined : isUuid(id) ? byId(id.toLowerCase()) : null;
    if (fromId === null) return [{ field: fields.id, message: `${fields.id} must be a UUID` }];
    if (id !== undefined && !fromId) {
      return [{ field: fields.id, message: `${fields.id} ${id} is not ${fields.what} of the organization` }];
    }
    const fromCode = code === undefined ? undefined : byCodeOf(code);
    if (code !== undefined && !fromCode) {
      return [
        { field: fields.code, message: `${fields.code} ${code} is not ${fields.what} of the organization` },
      ];
    }
    if (fromId && fromCode && fromId.id !== fromCode.id) {
      return [
        {
          field: fields.code,
          message: `${fields.code} ${code} and ${fields.id} ${id} name different things`,
        },
      ];
    }
    return (fromId ?? fromCode)!;
  }

  // Each row checked on its own; the reports they name read at once afterwards.
  const targets: ({
    key: ReportKey;
    names: { project: string; indicator: string; period: string };
  } | null)[] = rows.map((row, index) => {
    const found = problems[index]!;
    const project = resolve(
      row,
      { code: 'projectCode', id: 'projectId', what: 'a project' },
      (id) => projectById.get(id),
      projectByCode,
    );
    if (Array.isArray(project)) found.push(...project);
    else if (assigned && !assigned.has(project.id)) {
      // Nothing more is said of a project out of the reporter's reach: not its periods, links or locks.
      found.push({
        field: row.projectCode !== undefined ? 'projectCode' : 'projectId',
        message: `project ${project.code} is not assigned to you`,
      });
      return null;
    }
    const indicator = resolve(
      row,
      { code: 'indicatorCode', id: 'indicatorId', what: 'an indicator' },
      (id) => indicatorById.get(id),
      indicatorByCode,
    );
    const indicatorField: ValueField = row.indicatorCode !== undefined ? 'indicatorCode' : 'indicatorId';
    if (Array.isArray(indicator)) found.push(...indicator);
    else if (indicator.isFormula) {
      found.push({
        field: indicatorField,
        message: `indicator ${indicator.code} is a formula indicator: its values are computed, not reported`,
      });
    } else if (!Array.isArray(project) && !links.has(`${project.id} ${indicator.id}`)) {
      found.push({
        field: indicatorField,
        message: `indicator ${indicator.code} is not linked to project ${project.code}`,
      });
    }
    const period = Array.isArray(project) ? null : periodOf(row, project, found);
    const unread = unreadable(row, 'value', 'disaggregatedValues', 'narrative');
    if (
      !unread &&
      row.value === undefined &&
      row.disaggregatedValues === undefined &&
      row.narrative === undefined
    ) {
      found.push({ message: 'the row has no value, disaggregatedValues or narrative' });
    }
    if (found.length > 0 || Array.isArray(project) || Array.isArray(indicator) || !period) return null;
    return {
      key: { projectId: project.id, indicatorId: indicator.id, reportingPeriodId: period.id },
      names: { project: project.code, indicator: indicator.code, period: period.label },
    };
  });

  function periodOf(
    row: ValueRowInput,
    project: { id: string; code: string },
    found: Problem[],
  ): { id: string; label: string } | null {
    if (unreadable(row, 'periodLabel', 'periodId')) return null;
    if (row.periodLabel === undefined && row.periodId === undefined) {
      found.push({ field: 'periodLabel', message: 'periodLabel or periodId is required' });
      return null;
    }
    let period: (typeof periodRows)[number] | undefined;
    if (row.periodId !== undefined) {
      if (!isUuid(row.periodId)) {
        found.push({ field: 'periodId', message: 'periodId must be a UUID' });
        return null;
      }
      period = periodById.get(row.periodId.toLowerCase());
      if (!period) {
        found.push({
          field: 'periodId',
          message: `periodId ${row.periodId} is not a reporting period of the organization`,
        });
        return null;
      }
      if (period.projectId !== project.id) {
        found.push({
          field: 'periodId',
          message: `periodId ${row.periodId} is a reporting period of another project than ${project.code}`,
        });
        return null;
      }
    }
    if (row.periodLabel !== undefined) {
      const named = periodsByLabel.get(`${project.id} ${row.periodLabel.trim().toLowerCase()}`) ?? [];
      if (named.length === 0) {
        found.push({
          field: 'periodLabel',
          message: `periodLabel "${row.periodLabel}" is not a reporting period of project ${project.code}`,
        });
        return null;
      }
      if (period && !named.includes(period)) {
        found.push({
          field: 'periodLabel',
          message: `periodLabel "${row.periodLabel}" and periodId ${row.periodId} name different periods`,
        });
        return null;
      }
      if (!period && named.length > 1) {
        found.push({
          field: 'periodLabel',
          message:
            `periodLabel "${row.periodLabel}" names ${named.length} reporting periods of project ` +
            `${project.code}: give periodId instead`,
        });
        return null;
      }
      period ??= named[0];
    }
    if (period!.isLocked) {
      found.push({
        field: row.periodLabel !== undefined ? 'periodLabel' : 'periodId',
        message: `reporting period ${period!.label} is locked`,
      });
      return null;
    }
    return period!;
  }

  const keyed = targets.filter((target) => target !== null);
  // Every project and period written, at once and before their reports are read: their rules are checked
  // once all is written, against values no other write is changing (rule-check-lock.ts).
  const keys = keyed.map((target) => target.key);
  if (lock) await lockRuleChecks(tx, orgId, keys);
  const existing = await reportsOf(tx, orgId, keys, lock);
  const reportByKey = new Map<string, IndicatorReportRow>(
    existing.map((r) => [`${r.projectId} ${r.indicatorId} ${r.reportingPeriodId}`, r]),
  );
  const dimensions = await dimensionsOfAll(
    tx,
    orgId,
    distinct(keyed.map((target) => target.key.indicatorId)),
  );
  // The organization's age bands matter only to indicators without disaggregations of their own.
  const needsBands = keyed.some((target) => (dimensions.get(target.key.indicatorId) ?? []).length === 0);
  const bands = needsBands ? await ageBandsOf(tx, orgId) : undefined;

  const firstRowOf = new Map<string, number>();
  const planned: (Planned | null)[] = rows.map((row, index) => {
    const target = targets[index];
    if (!target) return null;
    const { key, names } = target;
    const found = problems[index]!;
    const keyText = `${key.projectId} ${key.indicatorId} ${key.reportingPeriodId}`;
    const earlier = firstRowOf.get(keyText);
    if (earlier !== undefined) {
      found.push({
        message:
          `the same indicator report as row ${rows[earlier]!.row} (${names.indicator}, ${names.period}): ` +
          'one row per project, indicator and period',
      });
      return null;
    }
    firstRowOf.set(keyText, index);
    const report = reportByKey.get(keyText);
    if (report && !EDITABLE.includes(report.status)) {
      found.push({
        message:
          `the indicator report of ${names.indicator} for ${names.period} is ${report.status}: it can only ` +
          `change while ${EDITABLE.join(' or ')}`,
      });
      return null;
    }
    let values: WrittenValues;
    try {
      const computed = reportValues(
        dimensions.get(key.indicatorId) ?? [],
        { value: row.value, disaggregatedValues: row.disaggregatedValues },
        report,
        (dimensions.get(key.indicatorId) ?? []).length === 0 ? bands : undefined,
      );
      const narrative = cleanNarrative(row.narrative);
      values = { ...computed, narrative: narrative === undefined ? (report?.narrative ?? null) : narrative };
    } catch (err) {
      const field: ValueField = row.disaggregatedValues ? 'disaggregatedValues' : 'value';
      found.push(...messagesOf(err).map((message) => ({ field, message })));
      return null;
    }
    if (!report) return { index, key, existing: report, values, action: 'create', messages: [] };
    const messages = changeMessages(report, values);
    return {
      index,
      key,
      existing: report,
      values,
      action: messages.length > 0 ? 'update' : 'unchanged',
      messages,
    };
  });

  const refused = problems.some((found) => found.length > 0);
  if (!options.dryRun && !(options.atomic && refused)) await write(tx, member, planned);

  return rows.map((row, index) => {
    const found = problems[index]!;
    const plan = planned[index];
    if (found.length > 0 || !plan) {
      const first = found.find((p) => p.field !== undefined);
      return {
        sheet: row.sheet,
        row: row.row,
        cell: (first?.field && row.cells[first.field]) || row.rowCell,
        action: 'refused',
        messages: found.map((p) => p.message),
      };
    }
    return {
      sheet: row.sheet,
      row: row.row,
      cell: row.rowCell,
      action: plan.action,
      messages: plan.messages,
    };
  });
}

/** What an update changes, one message per field: what a dry run shows before it is applied. */
function changeMessages(report: IndicatorReportRow, values: WrittenValues): string[] {
  const messages: string[] = [];
  if (!Object.is(report.value, values.value))
    messages.push(`value ${report.value ?? 'empty'} → ${values.value ?? 'empty'}`);
  if (!sameCells(report.disaggregatedValues, values.disaggregatedValues)) {
    messages.push('disaggregatedValues change');
  }
  if (report.narrative !== values.narrative) messages.push('narrative changes');
  return messages;
}

/** The planned creations and updates, with their history, in a handful of statements. */
async function write(tx: Db, member: Member, planned: readonly (Planned | null)[]): Promise<void> {
  const creations = planned
    .filter((p) => p?.action === 'create')
    .map((p) => ({ id: newId(), ...p!.key, ...p!.values }));
  const updates = planned.filter((p) => p?.action === 'update').map((p) => p!);
  await insertReports(tx, member.orgId, creations);
  const updated = await updateReports(
    tx,
    member.orgId,
    updates.map((p) => ({ id: p.existing!.id, ...p.values })),
  );
  // The reports are locked FOR UPDATE since they were read as draft or rejected.
  if (updated !== updates.length)
    throw new Error(`updated ${updated} of ${updates.length} indicator reports`);

  // The rules reading these values, then their outliers, checked once all are written: the flags go in
  // the history.
  const flags = await recheckRuleFlags(tx, member.orgId, [...creations, ...updates.map((p) => p.key)]);
  const outliers = await recheckOutliers(tx, member.orgId, [
    ...creations.map((c) => ({ ...c, value: c.value ?? null, flags: flags.get(c.id) ?? [] })),
    ...updates.map((p) => ({
      id: p.existing!.id,
      ...p.key,
      value: p.values.value ?? null,
      flags: flags.get(p.existing!.id) ?? p.existing!.flags,
    })),
  ]);
  for (const [id, list] of outliers) flags.set(id, list);
  const entries = [
    ...creations.map((c) => ({
      reportId: c.id,
      changes: changesBetween(null, { ...c, target: null, status: 'draft', flags: flags.get(c.id) ?? [] }),
    })),
    ...updates.map((p) => ({
      reportId: p.existing!.id,
      changes: changesBetween(p.existing!, {
        ...p.existing!,
        ...p.values,
        flags: flags.get(p.existing!.id) ?? p.existing!.flags,
      }),
    })),
  ];
  await insertHistory(tx, member.orgId, member.userId, entries);
}

/** Message of the 409 when a report named by a row was created by another request during the import. */
export const CREATED_MEANWHILE =
  'An indicator report of a row was created by another request during the import: send it again';

/**
 * The bulk route's import: its own transaction around importValueRows. A reporter with no project
 * assigned can write nowhere: 403 for the whole call (with projects, their other rows are refused one by
 * one). `applied` says whether anything was written.
 */
export async function bulkImportValues(
  db: Db,
  member: Member,
  rows: readonly ValueRowInput[],
  options: { dryRun: boolean; atomic: boolean },
): Promise<{ rows: ImportRowResult[]; applied: boolean }> {
  if (member.role === 'reporter' && (await assignedTo(db, member.orgId, member.userId)).size === 0) {
    throw forbidden({ reason: 'project_not_assigned' });
  }
  return transaction(db, async (tx) => {
    const results = await importValueRows(tx, member, rows, options);
    const refused = results.some((result) => result.action === 'refused');
    return { rows: results, applied: !options.dryRun && !(options.atomic && refused) };
  }).catch(refusedDuplicate(CREATED_MEANWHILE));
}
