import type { Table } from '../../lib/spreadsheets/tables.js';
import type { ReportingPeriodRow } from '../periods/index.js';
import { labelColumn, PERIOD_TARGET_PREFIX } from './setup-sheets.js';

/** A `target …` column of the indicators sheet and the project's periods whose label it reads as. */
export interface TargetColumn {
  column: string;
  /** The column's name past `target_`: a period's label as a column reads it. */
  named: string;
  /** In the order of `periods`; one is the column's period, none or several refuse a target in it. */
  periods: ReportingPeriodRow[];
}

/**
 * The sheet's `target …` columns, in its order, each matched to the periods once, at the header: matched
 * again for each cell, 5,000 rows of 190 blank such columns and 300 periods held the event loop 33 s.
 */
export function targetColumnsOf(table: Table, periods: readonly ReportingPeriodRow[]): TargetColumn[] {
  const byColumn = new Map<string, ReportingPeriodRow[]>();
  for (const period of periods) {
    const named = labelColumn(period.label);
    const same = byColumn.get(named);
    if (same) same.push(period);
    else byColumn.set(named, [period]);
  }
  return table.columns
    .filter((column) => column.startsWith(PERIOD_TARGET_PREFIX))
    .map((column) => {
      const named = column.slice(PERIOD_TARGET_PREFIX.length);
      return { column, named, periods: byColumn.get(named) ?? [] };
    });
}
