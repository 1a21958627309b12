import { Type, type Static } from '@sinclair/typebox';
import { ImportFormatQuery, ImportPageQuery } from '../../http/schemas/import-report.js';
import { Body, MULTILINE, NullableNumber, NullableString, Text, Uuid } from '../../http/schemas/schemas.js';
import { DisaggregatedValues } from './indicator-reports.schemas.js';

/** The most rows one bulk import takes (JSON or CSV). */
export const MAX_VALUE_ROWS = 5000;

export const BulkValueRow = Body(
  {
    projectCode: Type.Optional({ ...Text(100), description: 'The project’s code (any case)' }),
    projectId: Type.Optional(Uuid('The project, instead of (or with) its code')),
    indicatorCode: Type.Optional({ ...Text(100), description: 'The indicator’s code (any case)' }),
    indicatorId: Type.Optional(Uuid('The indicator, instead of (or with) its code')),
    periodLabel: Type.Optional({
      ...Text(200),
      description: 'The label of a reporting period of the project (`Q1 2026`; any case)',
    }),
    periodId: Type.Optional(Uuid('The reporting period, instead of (or with) its label')),
    value: Type.Optional(NullableNumber({ description: 'The value for the period' })),
    disaggregatedValues: Type.Optional(DisaggregatedValues),
    narrative: Type.Optional(NullableString({ maxLength: 20_000, ...MULTILINE })),
  },
  { title: 'BulkValueRow' },
);
export type BulkValueRow = Static<typeof BulkValueRow>;

export const BulkValuesBody = Body(
  {
    values: Type.Array(BulkValueRow, {
      maxItems: MAX_VALUE_ROWS,
      description: `The rows, ${MAX_VALUE_ROWS.toLocaleString('en')} at most`,
    }),
  },
  { title: 'BulkValues' },
);

export const BulkValuesCsv = Type.String({
  description:
    'A CSV file (UTF-8; comma, semicolon or tab): a header row naming columns as the JSON rows name their ' +
    'fields (`projectCode` or `project_code`, any case), then one row per value',
  examples: ['project_code,indicator_code,period_label,value\nWASH-01,HH_WATER,Q1 2026,120\n'],
});

export const BulkValuesQuery = Type.Object({
  atomic: Type.Optional(
    Type.Boolean({
      default: true,
      description:
        'true (the default): every row is applied or none (one refused row: nothing is written); ' +
        'false: the rows that are not refused are applied',
    }),
  ),
  dryRun: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'true: check every row, write nothing, say what each would do',
    }),
  ),
  ...ImportFormatQuery,
  ...ImportPageQuery,
});
