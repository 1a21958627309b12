import { and, eq, inArray, sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client.js';
import { CELL_SEPARATOR } from '../../lib/crosses.js';
import {
  DEFAULT_CHECKS,
  findOutlier,
  HISTORY_LENGTH,
  HISTORY_METHODS,
  isShortHistory,
  readable,
  usesHistory,
  type QualityChecks,
} from '../../lib/outliers.js';
import {
  evaluateRuleExpression,
  holds,
  parseRuleExpression,
  type RuleExpression,
} from '../../lib/rule-expressions.js';
import { rulesReading, type ReportFlag, type RuleWithInputs } from '../quality/index.js';
import { indicatorReports } from './indicator-reports.tables.js';
import { lockAllRuleChecks } from './rule-check-lock.js';

/**
 * Takes a rule's flags off every report of the organization (the rule changed, or is gone), while the
 * organization's writes of values wait (one running beside would put the flag back).
 */
export async function dropRuleFlags(tx: Db, orgId: string, ruleId: string): Promise<void> {
  await lockAllRuleChecks(tx, orgId);
  await tx
    .update(indicatorReports)
    .set({
      flags: sql`(SELECT coalesce(jsonb_agg(f), '[]'::jsonb) FROM jsonb_array_elements(${indicatorReports.flags}) f
        WHERE f->>'rule' IS DISTINCT FROM ${ruleId})`,
    })
    .where(
      and(
        eq(indicatorReports.orgId, orgId),
        sql`${indicatorReports.flags} @> jsonb_build_array(jsonb_build_object('rule', ${ruleId}::text))`,
      ),
    );
}

/** A report as the rules read it. */
interface ReportRead {
  id: string;
  projectId: string;
  reportingPeriodId: string;
  indicatorId: string;
  value: number | null;
  disaggregatedValues: Record<string, number>;
  flags: ReportFlag[];
}

const pairKey = (r: { projectId: string; reportingPeriodId: string }) =>
  `${r.projectId} ${r.reportingPeriodId}`;

/**
 * A cell of a report: the category or cross cell as stored (any case), else a category summed over the
 * cross cells holding it (when only a cross's cells were given).
 */
function cellOf(report: ReportRead | undefined, key: string): number | null {
  if (!report) return null;
  const wanted = key.toLowerCase();
  const entries = Object.entries(report.disaggregatedValues);
  const exact = entries.find(([k]) => k.toLowerCase() === wanted);
  if (exact) return exact[1];
  if (wanted.includes(CELL_SEPARATOR)) return null;
  const inCells = entries.filter(
    ([k]) => k.includes(CELL_SEPARATOR) && k.toLowerCase().split(CELL_SEPARATOR).includes(wanted),
  );
  return inCells.length === 0 ? null : inCells.reduce((sum, [, v]) => sum + v, 0);
}

/** A rule with its two sides read once, for every project and period a write checks it in. */
type ReadRule = RuleWithInputs & { sides: { left: RuleExpression; right: RuleExpression } };

/** The rule's verdict on one project and period: null when it holds or cannot be checked. */
function broken(rule: ReadRule, reports: Map<string, ReportRead>): string | null {
  const byCode = new Map(rule.inputs.map((input) => [input.code.toLowerCase(), input.indicatorId]));
  const reportOf = (code: string) => {
    const indicatorId = byCode.get(code.toLowerCase());
    return indicatorId ? reports.get(indicatorId) : undefined;
  };
  const inputs = {
    valueOf: (code: string) => reportOf(code)?.value ?? null,
    cellOf: (code: string, key: string) => cellOf(reportOf(code), key),
  };
  const left = evaluateRuleExpression(rule.sides.left, inputs);
  const right = evaluateRuleExpression(rule.sides.right, inputs);
  if (left === null || right === null || holds(left, rule.operator, right)) return null;
  return `${rule.name}: ${rule.left} (${readable(left)}) must be ${rule.operator} ${rule.right} (${readable(right)})`;
}

/**
 * Checks again, in the write's transaction, the rules that read the written reports' indicators, in each
 * written report's project and period: a broken rule flags every report it reads there (a justification
 * given before is kept while it stays broken), a rule that holds (or lacks an input) takes its flag off.
 * Answers the flags of every report whose flags it changed, by id; reports it did not change are left.
 * Two statements when no rule reads the indicators; five, plus one write, otherwise.
 */
export async function recheckRuleFlags(
  tx: Db,
  orgId: string,
  written: readonly { projectId: string; reportingPeriodId: string; indicatorId: string }[],
): Promise<Map<string, ReportFlag[]>> {
  const changed = new Map<string, ReportFlag[]>();
  if (written.length === 0) return changed;
  const rules: ReadRule[] = (
    await rulesReading(tx, orgId, [...new Set(written.map((w) => w.indicatorId))])
  ).map((rule) => ({
    ...rule,
    sides: { left: parseRuleExpression(rule.left, 'left'), right: parseRuleExpression(rule.right, 'right') },
  }));
  if (rules.length === 0) return changed;
  const pairs = new Map(written.map((w) => [pairKey(w), w]));
  const inputIds = [...new Set(rules.flatMap((rule) => rule.inputs.map((input) => input.indicatorId)))];
  const rows: ReportRead[] = await tx
    .select({
      id: indicatorReports.id,
      projectId: indicatorReports.projectId,
      reportingPeriodId: indicatorReports.reportingPeriodId,
      indicatorId: indicatorReports.indicatorId,
      value: indicatorReports.value,
      disaggregatedValues: indicatorReports.disaggregatedValues,
      flags: indicatorReports.flags,
    })
    .from(indicatorReports)
    .where(
      and(
        eq(indicatorReports.orgId, orgId),
        inArray(indicatorReports.indicatorId, inputIds),
        sql`(${indicatorReports.projectId}, ${indicatorReports.reportingPeriodId}) IN (${sql.join(
          [...pairs.values()].map((p) => sql`(${p.projectId}::uuid, ${p.reportingPeriodId}::uuid)`),
          sql`, `,
        )})`,
      ),
    );
  const byPair = new Map<string, Map<string, ReportRead>>();
  for (const row of rows) {
    const reports = byPair.get(pairKey(row)) ?? new Map<string, ReportRead>();
    byPair.set(pairKey(row), reports.set(row.indicatorId, row));
  }
  const flagsOf = new Map(rows.map((row) => [row.id, row.flags]));
  for (const [key, pair] of pairs) {
    const reports = byPair.get(key) ?? new Map<string, ReportRead>();
    for (const rule of rules) {
      if (rule.projectIds && !rule.projectIds.includes(pair.projectId)) continue;
      const message = broken(rule, reports);
      for (const input of rule.inputs) {
        const report = reports.get(input.indicatorId);
        if (!report) continue;
        const flags = flagsOf.get(report.id)!;
        const before = flags.find((flag) => flag.rule === rule.id);
        const flag: ReportFlag | null =
          message === null
            ? null
            : {
                kind: 'rule',
                rule: rule.id,
                message,
                importance: rule.importance,
                instruction: rule.instruction,
                justification: before?.justification ?? null,
              };
        // In place when it was there already: checking again what holds changes nothing, order included.
        const next: ReportFlag[] = !flag
          ? flags.filter((f) => f.rule !== rule.id)
          : before
            ? flags.map((f) => (f === before ? flag : f))
            : [...flags, flag];
        if (JSON.stringify(next) !== JSON.stringify(flags)) {
          flagsOf.set(report.id, next);
          changed.set(report.id, next);
        }
      }
    }
  }
  await writeFlags(tx, orgId, changed);
  return changed;
}

/** Writes the reports' flags, a few hundred in a statement. */
export async function writeFlags(tx: Db, orgId: string, flags: Map<string, ReportFlag[]>): Promise<void> {
  const entries = [...flags];
  for (let at = 0; at < entries.length; at += 500) {
    const values = entries
      .slice(at, at + 500)
      .map(([id, list]) => sql`(${id}::uuid, ${JSON.stringify(list)}::jsonb)`);
    await tx.execute(sql`UPDATE indicator_reports AS r SET flags = v.flags
      FROM (VALUES ${sql.join(values, sql`, `)}) AS v(id, flags)
      WHERE r.org_id = ${orgId} AND r.id = v.id`);
  }
}

/**
 * The report with its flags checked again: the rules reading it (its neighbours' flags too, in the
 * database) and its value against the indicator's history.
 */
export async function withFlags<
  T extends {
    id: string;
    orgId: string;
    projectId: string;
    reportingPeriodId: string;
    indicatorId: string;
    value: number | null;
    flags: ReportFlag[];
  },
>(tx: Db, row: T): Promise<T> {
  const ruled = { ...row, flags: (await recheckRuleFlags(tx, row.orgId, [row])).get(row.id) ?? row.flags };
  const flags = (await recheckOutliers(tx, row.orgId, [ruled])).get(row.id);
  return flags ? { ...ruled, flags } : ruled;
}

/** The flags of high importance a submission must justify: those without a justification yet. */
export const unjustified = (flags: readonly ReportFlag[]) =>
  flags.filter((flag) => flag.importance === 'high' && flag.justification === null);

/** A written report as its outlier check reads it. */
interface Judged {
  id: string;
  projectId: string;
  reportingPeriodId: string;
  indicatorId: string;
  value: number | null;
  flags: ReportFlag[];
}

/**
 * Each report's history for its outlier check, most recent period first, at most HISTORY_LENGTH: the
 * indicator's values in its own project's earlier periods, or (`elsewhere`) its latest values in the
 * organization's other projects. Rejected values are left out. One statement, each report's read by the reports' unique index.
 * A report's period is of its project (the reports' foreign key): saying so lets the planner read only
 * the project's earlier periods (by their project and start date) instead of every earlier period of
 * the organization, each probed in the reports' index.
 */
async function histories(tx: Db, orgId: string, reports: readonly Judged[], elsewhere: boolean) {
  const byReport = new Map<string, number[]>();
  const checksOf = new Map<string, QualityChecks | null>();
  if (reports.length === 0) return { byReport, checksOf };
  const written = sql.join(
    reports.map(
      (r) => sql`(${r.id}::uuid, ${r.projectId}::uuid, ${r.indicatorId}::uuid, ${r.reportingPeriodId}::uuid)`,
    ),
    sql`, `,
  );
  // Its own project's earlier periods; other projects' latest values, whatever their periods.
  const project = elsewhere
    ? sql`h.project_id <> w.project_id`
    : sql`h.project_id = w.project_id AND p.start_date < wp.start_date`;
  // The indicators' checks come with the history (one round trip in a write of one value): the history
  // is read only for a method that judges by it (HISTORY_METHODS, as usesHistory decides).
  const methods = sql.join(
    HISTORY_METHODS.map((method) => sql`${method}`),
    sql`, `,
  );
  const result = await tx.execute(sql`
    SELECT w.report_id, i.quality_checks AS checks, past.value
    FROM (VALUES ${written}) AS w(report_id, project_id, indicator_id, period_id)
    JOIN indicators i ON i.org_id = ${orgId} AND i.id = w.indicator_id
    JOIN reporting_periods wp ON wp.org_id = ${orgId} AND wp.id = w.period_id
    LEFT JOIN LATERAL (
      SELECT h.value FROM indicator_reports h
      JOIN reporting_periods p
        ON p.org_id = h.org_id AND p.project_id = h.project_id AND p.id = h.reporting_period_id
      WHERE coalesce(i.quality_checks->>'method', ${DEFAULT_CHECKS.method}) IN (${methods})
        AND h.org_id = ${orgId} AND h.indicator_id = w.indicator_id AND ${project}
        AND h.id <> w.report_id AND h.value IS NOT NULL AND h.status <> 'rejected'
      ORDER BY p.start_date DESC, h.id LIMIT ${HISTORY_LENGTH}
    ) past ON true`);
  for (const row of rowsOf<{ report_id: string; checks: QualityChecks | null; value: number | null }>(
    result,
  )) {
    checksOf.set(row.report_id, row.checks);
    const list = byReport.get(row.report_id) ?? [];
    byReport.set(row.report_id, row.value === null ? list : [...list, Number(row.value)]);
  }
  return { byReport, checksOf };
}

/**
 * Checks the written reports' values against their indicators' history (src/lib/outliers.ts, the
 * indicator's `qualityChecks`): an outlier gets a flag of kind `outlier` and importance medium (a
 * justification given before is kept while it stays one), a value that is not loses it. `flagsNow` are
 * the reports' flags as the rules left them. Answers the flags of every report whose flags it changed.
 */
export async function recheckOutliers(
  tx: Db,
  orgId: string,
  reports: readonly Judged[],
): Promise<Map<string, ReportFlag[]>> {
  const changed = new Map<string, ReportFlag[]>();
  if (reports.length === 0) return changed;
  const judged = reports.filter((r) => r.value !== null);
  // Each judged report's indicator checks, and its own project's history when its method reads one.
  const own = await histories(tx, orgId, judged, false);
  const checksOf = (report: Judged) => own.checksOf.get(report.id) ?? null;
  const withHistory = judged.filter((r) => usesHistory(checksOf(r)));
  const short = withHistory.filter((r) => isShortHistory(own.byReport.get(r.id)?.length ?? 0));
  const others = (await histories(tx, orgId, short, true)).byReport;
  for (const report of reports) {
    const checks = checksOf(report);
    const fromElsewhere = short.includes(report);
    const history = (fromElsewhere ? others : own.byReport).get(report.id) ?? [];
    const outlier =
      report.value === null
        ? null
        : findOutlier(report.value, history, checks, fromElsewhere ? 'other_projects' : 'project');
    const before = report.flags.find((flag) => flag.kind === 'outlier');
    const flag: ReportFlag | null = outlier
      ? {
          kind: 'outlier',
          method: outlier.method,
          message: outlier.message,
          importance: 'medium',
          justification: before?.justification ?? null,
        }
      : null;
    // In place when it was there already, as a rule's flag: checking again changes nothing, order included.
    const next: ReportFlag[] = !flag
      ? report.flags.filter((f) => f.kind !== 'outlier')
      : before
        ? report.flags.map((f) => (f === before ? flag : f))
        : [...report.flags, flag];
    if (JSON.stringify(next) !== JSON.stringify(report.flags)) changed.set(report.id, next);
  }
  await writeFlags(tx, orgId, changed);
  return changed;
}
