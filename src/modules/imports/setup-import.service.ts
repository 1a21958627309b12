import { transaction, type Db } from '../../db/client.js';
import { notFound } from '../../errors/catalogue.js';
import type { Member } from '../../http/pipeline/access.js';
import type { ImportRowResult } from '../../lib/spreadsheets/import-report.js';
import type { Table } from '../../lib/spreadsheets/tables.js';
import { findProject } from '../projects/index.js';
import { importIndicators, type IndicatorPorts } from './setup-indicators.js';
import { importPeriods, projectPeriods } from './setup-periods.js';
import { importResults } from './setup-results.js';
import { setupTables, type SetupSheet } from './setup-sheets.js';
import { importValuesSheet, valueRowsOf } from './values-sheet.js';

export interface SetupImportPorts extends IndicatorPorts {
  /** Wakes the webhook worker (the periods service takes it). */
  webhooksQueued: () => void;
}

/** Carries the rows out of a transaction that must not commit (a dry run, or a refusal). */
class RolledBack extends Error {
  constructor(readonly rows: ImportRowResult[]) {
    super('rolled back');
  }
}

/**
 * A project's set-up from one workbook, in one transaction. Every row is really written, each in a
 * savepoint of its own (a refused row undoes only its writes), in the order the sheets depend on:
 * periods, the results framework, indicators, values. A dry run, or an import with a refused row, then
 * rolls the whole transaction back: the report of a dry run is exactly what applying would do, and an
 * applied import is all or nothing.
 */
export class SetupImportService {
  constructor(
    private readonly db: Db,
    private readonly ports: SetupImportPorts,
  ) {}

  async run(
    member: Member,
    projectId: string,
    tables: Table[],
    apply: boolean,
  ): Promise<{ rows: ImportRowResult[]; applied: boolean }> {
    const { sheets, order } = setupTables(tables);
    try {
      const rows = await transaction(this.db, async (tx) => {
        // The project's row lock serializes two imports of one project (and its periods' writes).
        const project = await findProject(tx, member.orgId, projectId, { lock: true });
        if (!project) throw notFound('Project');
        const bySheet: Partial<Record<SetupSheet, ImportRowResult[]>> = {};
        bySheet.periods = await importPeriods(
          tx,
          member,
          projectId,
          sheets.periods,
          this.ports.webhooksQueued,
        );
        const framework = await importResults(tx, member, project.programId, sheets.results);
        bySheet.results = framework.results;
        bySheet.indicators = await importIndicators(
          tx,
          member,
          projectId,
          sheets.indicators,
          { nodes: framework.nodes, periods: await projectPeriods(tx, member.orgId, projectId) },
          this.ports,
        );
        if (sheets.values) {
          bySheet.values = await importValuesSheet(tx, member, projectId, valueRowsOf(sheets.values), !apply);
        }
        const all = order.flatMap((sheet) => bySheet[sheet] ?? []);
        if (!apply || all.some((row) => row.action === 'refused')) throw new RolledBack(all);
        return all;
      });
      return { rows, applied: true };
    } catch (err) {
      if (err instanceof RolledBack) return { rows: err.rows, applied: false };
      throw err;
    }
  }
}
