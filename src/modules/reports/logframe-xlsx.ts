import type { Readable } from 'node:stream';
import type ExcelJS from 'exceljs';
import type { ProgressStatus } from '../../lib/scoring.js';
import { cellsOf, crossedBy } from '../../lib/crosses.js';
import {
  CELL_MAX_CHARS,
  streamWorkbook,
  type WorkbookStream,
} from '../../lib/spreadsheets/streamed-workbook.js';
import type { Logframe, LogframeIndicator, LogframeRow } from './logframe.js';

/**
 * A logframe as a workbook for a donor, streamed: sheets `Cover`, `Logframe` and `Disaggregations`.
 * Numbers are numbers with formats (thousands separated, two decimals where an indicator has any),
 * progress a percentage, dates dates; the header rows of `Logframe` are frozen with its first three
 * columns.
 */

const STATUS_LABELS: Record<ProgressStatus, string> = {
  on_track: 'On track',
  at_risk: 'At risk',
  off_track: 'Off track',
  no_target: 'No target',
  no_data: 'No data',
};

const STATUS_FILLS: Partial<Record<ProgressStatus, string>> = {
  on_track: 'FFC6EFCE',
  at_risk: 'FFFFEB9C',
  off_track: 'FFFFC7CE',
};

const LEVEL_LABELS: Record<string, string> = { impact: 'Impact', outcome: 'Outcome', output: 'Output' };

const AGGREGATION_LABELS: Record<string, string> = {
  sum: 'Sum',
  average: 'Average',
  latest: 'Latest',
  min: 'Minimum',
  max: 'Maximum',
};

const INTEGER = '#,##0';
const DECIMAL = '#,##0.00';
const PERCENT = '0.0"%"';
const DATE = 'yyyy-mm-dd';
const TIME = 'yyyy-mm-dd hh:mm';
const HEADER_FILL: ExcelJS.Fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFDDEBF7' } };
const RESULT_FILL: ExcelJS.Fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFF2F2F2' } };
const THIN: ExcelJS.Borders = {
  top: { style: 'thin', color: { argb: 'FFBFBFBF' } },
  bottom: { style: 'thin', color: { argb: 'FFBFBFBF' } },
  left: { style: 'thin', color: { argb: 'FFBFBFBF' } },
  right: { style: 'thin', color: { argb: 'FFBFBFBF' } },
  diagonal: {},
};

const text = (value: string) => (value.length > CELL_MAX_CHARS ? value.slice(0, CELL_MAX_CHARS) : value);
const day = (iso: string) => new Date(`${iso}T00:00:00.000Z`);

/** The number format of an indicator's figures: two decimals when any of them has a fraction. */
function formatOf(indicator: LogframeIndicator): string {
  const { entry } = indicator;
  const numbers = [
    entry.baseline,
    entry.value,
    entry.target,
    indicator.linkTarget,
    ...indicator.periods.flatMap((p) => [p.target, p.actual]),
    ...Object.values(entry.disaggregatedValues),
    ...indicator.valuesByPeriod.flatMap((v) => Object.values(v ?? {})),
  ];
  return numbers.every((n) => n === null || Number.isInteger(n)) ? INTEGER : DECIMAL;
}

/** Two labelled lines of the cover: what it is, then its value with its format. */
function writeCover(book: WorkbookStream, logframe: Logframe) {
  const { project, organization, donors, periods } = logframe;
  const sheet = book.addSheet('Cover');
  sheet.columns = [{ width: 26 }, { width: 70 }];
  const title = sheet.addRow([`Logframe: ${project.name}`]);
  title.font = { bold: true, size: 14 };
  title.commit();
  sheet.addRow([]).commit();
  const line = (label: string, value: ExcelJS.CellValue, numFmt?: string) => {
    const row = sheet.addRow([label, value]);
    row.getCell(1).font = { bold: true };
    if (numFmt) row.getCell(2).numFmt = numFmt;
    row.getCell(2).alignment = { horizontal: 'left', wrapText: true };
    row.commit();
  };
  line('Organization', text(organization.name));
  line('Program', text(project.programName));
  line('Project', text(project.name));
  line('Project code', text(project.code));
  line(
    'Donors',
    donors.length > 0 ? text(donors.map((donor) => `${donor.name} (${donor.code})`).join('; ')) : 'None',
  );
  line('Start date', day(project.startDate), DATE);
  line('End date', day(project.endDate), DATE);
  line('Status', project.status);
  line('Location', project.location && text(project.location));
  line('Lead', project.lead && text(project.lead));
  line(
    'Reporting periods',
    periods.length > 0
      ? `${periods.length}: ${periods[0]!.label} (${periods[0]!.startDate}) to ${periods.at(-1)!.label} (${periods.at(-1)!.endDate})`
      : 'None',
  );
  line('Exported at (UTC)', logframe.exportedAt, TIME);
  sheet.addRow([]).commit();
  line(
    'Actuals',
    'Submitted and approved values only: drafts and returned values are left out, as in donor reports.',
  );
  line(
    'Targets',
    "Target: the project's target for the indicator. Per period: the period's own target. To date: the " +
      'cumulative target of the periods with a counted value (their targets summed for summed indicators, the ' +
      "latest for the others); without any, the project's target.",
  );
  line(
    'Progress and status',
    'Progress: actual to date / cumulative target. On track from 90 %, at risk from 70 %, off track below; ' +
      'no target without a target, no data without a value. The same figures as the API.',
  );
  line(
    'Disaggregations',
    'Sheet Disaggregations: per indicator, each disaggregation by period, and each cross as a table per ' +
      'period with a value and over all periods.',
  );
  sheet.commit();
}

const FIXED = [
  'Level',
  'Code',
  'Result / indicator',
  'Unit',
  'Aggregation',
  'Baseline',
  'Baseline year',
  'Target',
];

/** The framework: a row per result and per indicator; targets and actuals per period, then to date. */
async function writeLogframe(book: WorkbookStream, logframe: Logframe) {
  const { periods } = logframe;
  const sheet = book.addSheet('Logframe', {
    views: [{ state: 'frozen', xSplit: 3, ySplit: 2 }],
    pageSetup: { orientation: 'landscape', fitToPage: true, fitToWidth: 1, fitToHeight: 0 },
  });
  sheet.columns = [
    { width: 10 },
    { width: 14 },
    { width: 48 },
    { width: 12 },
    { width: 12 },
    { width: 12 },
    { width: 9 },
    { width: 12 },
    ...periods.flatMap(() => [{ width: 11 }, { width: 11 }]),
    { width: 12 },
    { width: 12 },
    { width: 10 },
    { width: 11 },
  ];
  const toDate = FIXED.length + periods.length * 2 + 1;
  const top = sheet.addRow([
    ...FIXED,
    ...periods.flatMap((period) => [period.label, null]),
    'To date',
    null,
    null,
    null,
  ]);
  const second = sheet.addRow([
    ...FIXED.map(() => null),
    ...periods.flatMap(() => ['Target', 'Actual']),
    'Actual',
    'Target',
    'Progress',
    'Status',
  ]);
  for (const row of [top, second]) {
    row.font = { bold: true };
    row.alignment = { horizontal: 'center', vertical: 'middle', wrapText: true };
    row.eachCell({ includeEmpty: true }, (cell) => {
      cell.fill = HEADER_FILL;
      cell.border = THIN;
    });
  }
  for (let column = 1; column <= FIXED.length; column++) sheet.mergeCells(1, column, 2, column);
  periods.forEach((_, index) => {
    const first = FIXED.length + index * 2 + 1;
    sheet.mergeCells(1, first, 1, first + 1);
  });
  sheet.mergeCells(1, toDate, 1, toDate + 3);
  second.commit();
  for (const [index, row] of logframe.rows.entries()) {
    writeFrameworkRow(sheet, row);
    if (index % 200 === 199) await book.settle(sheet);
  }
  sheet.commit();
}

function writeFrameworkRow(sheet: ExcelJS.Worksheet, row: LogframeRow) {
  if (row.kind === 'result') {
    const added = sheet.addRow([
      LEVEL_LABELS[row.level] ?? row.level,
      row.code === null ? null : text(row.code),
      text(row.title),
    ]);
    added.font = { bold: true };
    added.getCell(3).alignment = { indent: row.depth, wrapText: true, vertical: 'top' };
    added.eachCell({ includeEmpty: true }, (cell) => {
      cell.fill = RESULT_FILL;
    });
    added.commit();
    return;
  }
  const { indicator } = row;
  const { entry } = indicator;
  const format = formatOf(indicator);
  const added = sheet.addRow([
    'Indicator',
    entry.code,
    text(entry.indicatorName),
    text(entry.unit),
    entry.aggregationMethod ? AGGREGATION_LABELS[entry.aggregationMethod] : 'Formula',
    entry.baseline,
    indicator.baselineYear,
    indicator.linkTarget,
    ...indicator.periods.flatMap((period) => [period.target, period.actual]),
    entry.value,
    entry.target,
    entry.progressPct,
    STATUS_LABELS[entry.status],
  ]);
  added.getCell(3).alignment = { indent: row.depth, wrapText: true, vertical: 'top' };
  const last = FIXED.length + indicator.periods.length * 2 + 4;
  for (let column = 6; column <= last - 2; column++) {
    if (column !== 7) added.getCell(column).numFmt = format;
  }
  added.getCell(last - 1).numFmt = PERCENT;
  const fill = STATUS_FILLS[entry.status];
  if (fill) added.getCell(last).fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: fill } };
  added.commit();
}

/** Per indicator with disaggregations: each plain one by period, then each cross as tables. */
async function writeDisaggregations(book: WorkbookStream, logframe: Logframe) {
  const { periods } = logframe;
  const sheet = book.addSheet('Disaggregations', { views: [{ state: 'frozen', xSplit: 1, ySplit: 0 }] });
  const widest = Math.max(periods.length + 2, ...logframe.indicators.flatMap(crossWidths));
  sheet.columns = [{ width: 30 }, ...Array.from({ length: widest }, () => ({ width: 13 }))];
  const header = (values: ExcelJS.CellValue[]) => {
    const row = sheet.addRow(values);
    row.font = { bold: true };
    row.eachCell((cell) => {
      cell.fill = HEADER_FILL;
      cell.border = THIN;
    });
    row.commit();
  };
  const figures = (values: ExcelJS.CellValue[], format: string, bold = false) => {
    const row = sheet.addRow(values);
    row.eachCell((cell, column) => {
      if (column > 1) cell.numFmt = format;
      cell.border = THIN;
    });
    if (bold) row.font = { bold: true };
    row.commit();
  };
  const title = sheet.addRow(['Disaggregations of the indicators: submitted and approved values']);
  title.font = { bold: true, size: 13 };
  title.commit();
  let none = true;
  for (const indicator of logframe.indicators) {
    const { entry, dimensions } = indicator;
    if (dimensions.length === 0) continue;
    none = false;
    const format = formatOf(indicator);
    sheet.addRow([]).commit();
    const name = sheet.addRow([text(`${entry.code}: ${entry.indicatorName}`)]);
    name.font = { bold: true, size: 12 };
    name.commit();
    for (const dimension of dimensions.filter((d) => !d.crosses?.length)) {
      header([text(dimension.name), ...periods.map((p) => p.label), 'All periods']);
      for (const category of dimension.categories) {
        figures(
          [
            text(category),
            ...indicator.valuesByPeriod.map(
              (values, index) => values?.[category] ?? marginOf(indicator, dimension.name, category, index),
            ),
            entry.disaggregatedValues[category] ?? marginOf(indicator, dimension.name, category, 'all'),
          ],
          format,
        );
      }
    }
    for (const table of indicator.crossTables) {
      const cross = dimensions.find((d) => d.name === table.cross)!;
      const crossed = crossedBy(cross, dimensions);
      const tables = [
        ...table.byPeriod.flatMap((byPeriod, index) =>
          byPeriod ? [[periods[index]!.label, byPeriod] as const] : [],
        ),
        ['All periods', table.overall] as const,
      ];
      for (const [label, tabulation] of tables) {
        const rowsAcross = crossed.slice(0, -1);
        const columns = crossed.at(-1)!;
        const rowsHaveTotals = crossed.length === 2;
        const caption = sheet.addRow([text(`${table.cross}, ${label}`)]);
        caption.font = { italic: true, bold: true };
        caption.commit();
        header([
          text(`${rowsAcross.map((d) => d.name).join(' × ')} \\ ${columns.name}`),
          ...columns.categories.map(text),
          ...(rowsHaveTotals ? ['Total'] : []),
        ]);
        const valueOf = new Map(tabulation.cells.map((cell) => [cell.key, cell.value]));
        for (const parts of cellsOf(rowsAcross)) {
          const margin = rowsHaveTotals
            ? (tabulation.dimensions[0]?.categories.find((c) => c.category === parts[0])?.value ?? null)
            : undefined;
          figures(
            [
              text(parts.join(' | ')),
              ...columns.categories.map((category) => valueOf.get([...parts, category].join('|')) ?? null),
              ...(rowsHaveTotals ? [margin ?? null] : []),
            ],
            format,
          );
        }
        const last = tabulation.dimensions.at(-1)?.categories ?? [];
        figures(
          [
            'Total',
            ...columns.categories.map((category) => last.find((c) => c.category === category)?.value ?? null),
            ...(rowsHaveTotals ? [tabulation.total] : []),
          ],
          format,
          true,
        );
      }
    }
    await book.settle(sheet);
  }
  if (none) sheet.addRow(['No indicator of the project has disaggregations.']).commit();
  sheet.commit();
}

/**
 * A category of a crossed disaggregation that a value gave through the cross's cells alone: its margin
 * in the cross's table of that period (or of all periods), as reports derive it.
 */
function marginOf(
  indicator: LogframeIndicator,
  dimension: string,
  category: string,
  period: number | 'all',
): number | null {
  for (const table of indicator.crossTables) {
    const tabulation = period === 'all' ? table.overall : table.byPeriod[period];
    const margin = tabulation?.dimensions
      .find((d) => d.name === dimension)
      ?.categories.find((c) => c.category === category)?.value;
    if (margin !== undefined && margin !== null) return margin;
  }
  return null;
}

/** The columns a cross's tables take: its last disaggregation's categories and a total. */
const crossWidths = (indicator: LogframeIndicator) =>
  indicator.crossTables.map((table) => {
    const cross = indicator.dimensions.find((d) => d.name === table.cross)!;
    return (crossedBy(cross, indicator.dimensions).at(-1)?.categories.length ?? 0) + 1;
  });

/** The logframe's workbook, streamed as it is written. */
export function logframeWorkbook(logframe: Logframe): Promise<Readable> {
  return streamWorkbook(
    async (book) => {
      writeCover(book, logframe);
      await writeLogframe(book, logframe);
      await writeDisaggregations(book, logframe);
    },
    { created: logframe.exportedAt },
  );
}
