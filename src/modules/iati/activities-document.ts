import type { Db } from '../../db/client.js';
import { disaggregationsOfLinked, linkedIndicators } from '../indicators/index.js';
import { ProgressCalculator, formulaBasics } from '../progress/index.js';
import { IATI_VERSION } from './iati-codes.js';
import { iatiActivity, type Publisher } from './iati-activity.js';
import {
  approvedValuesOf,
  donorsOfPrograms,
  periodsOf,
  plannedBudgets,
  projectsAfter,
  resultNodesOf,
} from './iati.repo.js';
import { frameworkRanks, resultsOf, type ApprovedValue, type Disaggregation } from './results-framework.js';
import { endTag, startTag, XML_DECLARATION } from './xml.js';

/**
 * Projects read and written per batch. Memory holds one batch's rows and one activity's markup at a
 * time, whatever the number of projects (measured in docs/provenance-and-iati.md, "Publishing to IATI").
 */
export const PROJECT_BATCH = 50;

type Project = Awaited<ReturnType<typeof projectsAfter>>[number];
type FormulaIndicators = Awaited<ReturnType<typeof formulaBasics>>;

function groupBy<T, K>(rows: T[], keyOf: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const group = groups.get(keyOf(row));
    if (group) group.push(row);
    else groups.set(keyOf(row), [row]);
  }
  return groups;
}

const NONE: readonly never[] = [];

/** Everything the batch's activities show, in a fixed number of set-based reads side by side. */
async function batchData(db: Db, orgId: string, batch: Project[], formulas: FormulaIndicators) {
  const projectIds = batch.map((project) => project.id);
  const programIds = [...new Set(batch.map((project) => project.programId))];
  const [donors, budgets, links, disaggregations, nodes, periods, approved] = await Promise.all([
    donorsOfPrograms(db, orgId, programIds),
    plannedBudgets(db, orgId, projectIds),
    linkedIndicators(db, orgId, projectIds),
    disaggregationsOfLinked(db, orgId, projectIds),
    resultNodesOf(db, orgId, programIds),
    periodsOf(db, orgId, projectIds),
    approvedValuesOf(db, orgId, projectIds),
  ]);
  const approvedByKey = new Map<string, ApprovedValue>(
    approved.map((row) => [`${row.projectId}/${row.indicatorId}/${row.periodId}`, row]),
  );
  // Formula indicators are evaluated period by period: one calculator over the batch's approved values,
  // each project's period standing in as the calculator's "project".
  const formulaValues = ProgressCalculator.ofReports(
    formulas,
    approved.map((row) => ({
      projectId: `${row.projectId}/${row.periodId}`,
      indicatorId: row.indicatorId,
      periodStart: '',
      value: row.value,
      target: row.target,
    })),
  );
  return {
    donorsOf: groupBy(donors, (row) => row.programId),
    budgetOf: new Map(budgets.map((row) => [row.projectId, row.planned])),
    linksOf: groupBy(links, (row) => row.projectId),
    disaggregationsOf: groupBy(disaggregations, (row) => row.indicatorId) as Map<string, Disaggregation[]>,
    ranks: frameworkRanks(nodes),
    periodsOf: groupBy(periods, (row) => row.projectId),
    approved: (projectId: string, indicatorId: string, periodId: string) =>
      approvedByKey.get(`${projectId}/${indicatorId}/${periodId}`),
    formulaValue: (projectId: string, indicatorId: string, periodId: string) =>
      formulaValues.valueOf(`${projectId}/${periodId}`, indicatorId),
  };
}

/**
 * The `iati-activities` document (version 2.03) of the organization's projects by code, or of the one
 * project, as text pieces: one `iati-activity` per project (the first after the document's start), then
 * its end. A batch of projects is read only when the previous one has been taken, so a slow reader holds
 * no more.
 */
export async function* activitiesDocument(
  db: Db,
  orgId: string,
  publisher: Publisher,
  options: { projectId?: string; now: Date },
): AsyncGenerator<string> {
  // With the first activity (or the end), so that the first piece holds the first reads.
  let start =
    XML_DECLARATION +
    startTag('iati-activities', { version: IATI_VERSION, 'generated-datetime': options.now.toISOString() });
  const today = options.now.toISOString().slice(0, 10);
  const formulas = await formulaBasics(db, orgId);
  let afterCode: string | null = null;
  for (;;) {
    const batch: Project[] = await projectsAfter(db, orgId, {
      afterCode,
      projectId: options.projectId,
      limit: PROJECT_BATCH,
    });
    if (batch.length === 0) break;
    const data = await batchData(db, orgId, batch, formulas);
    for (const project of batch) {
      const results = resultsOf({
        startYear: Number(project.startDate.slice(0, 4)),
        indicators: data.linksOf.get(project.id) ?? [],
        periods: data.periodsOf.get(project.id) ?? [],
        disaggregationsOf: (indicatorId) => data.disaggregationsOf.get(indicatorId) ?? NONE,
        approved: (indicatorId, periodId) => data.approved(project.id, indicatorId, periodId),
        formulaValue: (indicatorId, periodId) => data.formulaValue(project.id, indicatorId, periodId),
        rankOf: (nodeId) => data.ranks.get(nodeId),
      });
      const activity = iatiActivity(
        publisher,
        {
          ...project,
          donors: data.donorsOf.get(project.programId) ?? [],
          plannedBudget: data.budgetOf.get(project.id) ?? null,
          results,
        },
        today,
      );
      yield `${start}\n${activity.xml}`;
      start = '';
    }
    if (batch.length < PROJECT_BATCH) break;
    afterCode = batch.at(-1)!.code;
  }
  yield `${start}\n${endTag('iati-activities')}\n`;
}
