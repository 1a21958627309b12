import type ExcelJS from 'exceljs';
import { AGGREGATION_METHODS } from '../../lib/scoring.js';
import { RESULT_LEVELS } from '../results/index.js';

/**
 * The empty set-up workbook (`GET /orgs/:orgId/import-template.xlsx`): a sheet of instructions, then one
 * sheet per part of a project's set-up with its header row, one example row that imports as it is, and
 * lists to pick from (levels, units, aggregation methods, codes and period labels of the other sheets).
 */

/** Units offered in the unit column's list; any other text is accepted too. */
export const TEMPLATE_UNITS = [
  'people',
  'households',
  'percent',
  'number',
  'communities',
  'schools',
  'health facilities',
  'water points',
  'hectares',
  'km',
  'litres',
  'USD',
] as const;

/** Rows that carry the lists: far more than a project's set-up needs. */
const LIST_ROWS = 500;

type Cell = string | number | Date | null;

interface TemplateSheet {
  name: string;
  /** Column, then what it holds (the instructions sheet says it), then whether it is required. */
  columns: [string, string, boolean][];
  example: Cell[];
  lists: Record<string, { formula: string; strict: boolean }>;
}

const day = (text: string) => new Date(`${text}T00:00:00Z`);
const listOf = (values: readonly string[]) => `"${values.join(',')}"`;
const range = (sheet: string) => `${sheet}!$A$2:$A$${LIST_ROWS + 1}`;

const EXAMPLE_CODE = 'EXAMPLE_HH_SAFE_WATER';

export const TEMPLATE_SHEETS: TemplateSheet[] = [
  {
    name: 'results',
    columns: [
      ['code', 'The node’s reference (1, 1.1, OUT-3): unique in the program, how the sheets name it', true],
      ['title', 'What the result is', true],
      [
        'level',
        `${RESULT_LEVELS.join(', ')}: an outcome sits under an impact, an output under an outcome`,
        true,
      ],
      [
        'parent_code',
        'The code of the node above (empty for an impact): a row of this sheet or a node the program has',
        false,
      ],
      ['description', 'Longer text; an empty cell removes it', false],
    ],
    example: [
      '1',
      'Example: fewer cases of water-borne disease',
      'impact',
      null,
      'Replace or delete this row',
    ],
    lists: {
      level: { formula: listOf(RESULT_LEVELS), strict: true },
      parent_code: { formula: `$A$2:$A$${LIST_ROWS + 1}`, strict: false },
    },
  },
  {
    name: 'indicators',
    columns: [
      [
        'code',
        'Letters, digits and underscores, unique in the organization: an existing code updates that indicator',
        true,
      ],
      ['name', 'The indicator’s name', true],
      ['unit', 'What is counted (people, percent, ...): pick one or write your own', true],
      [
        'aggregation',
        `How values add up over periods: ${AGGREGATION_METHODS.join(', ')} (not for a formula)`,
        false,
      ],
      ['result_code', 'The code of the result it measures (results sheet, or a node the program has)', false],
      ['description', 'Longer text', false],
      ['data_source', 'Where the figures come from', false],
      [
        'formula',
        'Only for a computed indicator: other indicators’ codes with + - * / and parentheses',
        false,
      ],
      ['disaggregations', 'Name: category|category, separated by ; (Sex: female|male; Age: 0-17|18+)', false],
      ['baseline', 'Value before the project (a number)', false],
      ['baseline_year', 'Year of the baseline', false],
      ['target', 'Target over the life of the project (a number)', false],
      [
        'target Q1 2026',
        'One column per reporting period, named target and the period’s label: that period’s target',
        false,
      ],
    ],
    example: [
      EXAMPLE_CODE,
      'Example: households using a safe water source',
      'households',
      'sum',
      '1',
      'Replace or delete this row',
      'Water committee records',
      null,
      'Head of household: female|male',
      0,
      2025,
      1200,
      300,
    ],
    lists: {
      unit: { formula: listOf(TEMPLATE_UNITS), strict: false },
      aggregation: { formula: listOf(AGGREGATION_METHODS), strict: true },
      result_code: { formula: range('results'), strict: false },
    },
  },
  {
    name: 'periods',
    columns: [
      [
        'label',
        'How the period is named (Q1 2026, January 2026): an existing label updates that period',
        true,
      ],
      ['start_date', 'First day (YYYY-MM-DD, or a date cell)', true],
      ['end_date', 'Last day, not before the start; periods of a project never overlap', true],
      ['due_date', 'When its data is due (optional)', false],
    ],
    example: ['Q1 2026', day('2026-01-01'), day('2026-03-31'), day('2026-04-15')],
    lists: {},
  },
  {
    name: 'values',
    columns: [
      ['indicator_code', 'The indicator (indicators sheet, or one the project tracks)', true],
      ['period', 'The reporting period’s label (periods sheet, or one the project has)', true],
      ['value', 'The figure for the period (empty: the categories add up to it)', true],
      ['narrative', 'What explains the figure', false],
      ['female', 'Any other column is a category of the indicator’s disaggregations, by its name', false],
      ['male', 'As above: the categories’ figures add up to the value', false],
    ],
    example: [EXAMPLE_CODE, 'Q1 2026', 280, 'Example: replace or delete this row', 120, 160],
    lists: {
      indicator_code: { formula: range('indicators'), strict: false },
      period: { formula: range('periods'), strict: false },
    },
  },
];

const GENERAL = [
  'Fill the sheets you need; leave out or delete the others. Sheets other than these are not read.',
  'Rows match what the project has by code (results, indicators) and by label or dates (periods): a match is updated where it differs, anything else is created. Nothing is ever deleted.',
  'An empty cell clears that field; a column left out leaves it as it is.',
  'The import is a dry run unless asked to apply: its report (or this file with a status column) says row by row what would be created, updated or left unchanged, or why a row is refused.',
  'Applied, the import writes everything or nothing: one refused row leaves the project as it was.',
];

const HEADER_FILL: ExcelJS.Fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFDDEBF7' } };

function addInstructions(workbook: ExcelJS.Workbook): void {
  const sheet = workbook.addWorksheet('instructions');
  sheet.columns = [
    { header: 'sheet', width: 14 },
    { header: 'column', width: 18 },
    { header: 'required', width: 10 },
    { header: 'what it holds', width: 110 },
  ];
  for (const line of GENERAL) sheet.addRow(['(all)', null, null, line]);
  for (const { name, columns } of TEMPLATE_SHEETS) {
    for (const [column, meaning, required] of columns) {
      sheet.addRow([name, column, required ? 'yes' : 'no', meaning]);
    }
  }
  sheet.getRow(1).font = { bold: true };
  sheet.getColumn(4).alignment = { wrapText: true };
}

function addSheet(workbook: ExcelJS.Workbook, template: TemplateSheet): void {
  const sheet = workbook.addWorksheet(template.name, { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = template.columns.map(([header]) => ({
    header,
    width: Math.max(14, header.length + 4),
    ...(header.endsWith('date') ? { style: { numFmt: 'yyyy-mm-dd' } } : {}),
  }));
  const header = sheet.getRow(1);
  header.font = { bold: true };
  header.eachCell((c, column) => {
    c.fill = HEADER_FILL;
    c.note = template.columns[column - 1]![1];
  });
  sheet.addRow(template.example);
  template.columns.forEach(([name], index) => {
    const list = template.lists[name];
    if (!list) return;
    for (let row = 2; row <= LIST_ROWS + 1; row++) {
      sheet.getRow(row).getCell(index + 1).dataValidation = {
        type: 'list',
        allowBlank: true,
        formulae: [list.formula],
        showErrorMessage: list.strict,
        errorStyle: 'stop',
        error: 'Pick a value of the list',
      };
    }
  });
}

/** The template's bytes. */
export async function setupTemplate(): Promise<Buffer> {
  const { default: Excel } = await import('exceljs');
  const workbook = new Excel.Workbook();
  workbook.creator = 'MEL';
  addInstructions(workbook);
  for (const template of TEMPLATE_SHEETS) addSheet(workbook, template);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
