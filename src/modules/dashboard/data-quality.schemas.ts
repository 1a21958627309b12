import { Type, type Static } from '@sinclair/typebox';
import { DateOnly, Nullable, NullableNumber, NullableString, Uuid } from '../../http/schemas/schemas.js';

// Type lists rather than unions (`Nullable`): tens of thousands of these are serialized at once.
const percent = (of: string) =>
  NullableNumber({
    description: `Percent of the expected values ${of}, one decimal; null when nothing is expected`,
  });

/** The counts and their rates, for a period, a project, a program or the whole scope. */
export const QualityRates = Type.Object(
  {
    expected: Type.Integer({
      description: 'Values expected: linked indicators that are not formulas, once per reporting period',
    }),
    entered: Type.Integer({ description: 'Expected values with a value saved, whatever their status' }),
    reported: Type.Integer({ description: 'Expected values submitted or approved' }),
    onTime: Type.Integer({
      description:
        'Reported values first submitted on or before the period’s due date (UTC day; a resubmission after ' +
        'a rejection keeps the first date); every reported value of a period without a due date',
    }),
    approved: Type.Integer({ description: 'Expected values approved' }),
    flagged: Type.Integer({
      description: 'Expected values carrying data-quality flags, whatever their status',
    }),
    openFlags: Type.Integer({ description: 'Flags on values not approved yet' }),
    reportedRate: percent('reported'),
    onTimeRate: percent('reported on time'),
    approvedRate: percent('approved'),
    flaggedRate: percent('flagged'),
  },
  { title: 'QualityRates' },
);

export const DataQualityQuery = Type.Object(
  {
    programId: Type.Optional(Uuid('Only the projects of this program')),
    periodFrom: Type.Optional(DateOnly('Only periods ending on or after this day (YYYY-MM-DD)')),
    periodTo: Type.Optional(DateOnly('Only periods starting on or before this day (YYYY-MM-DD)')),
  },
  { additionalProperties: false },
);
export type DataQualityFilter = Static<typeof DataQualityQuery>;

const PeriodQuality = Type.Composite(
  [
    Type.Object({
      periodId: Uuid(),
      label: Type.String(),
      startDate: DateOnly(),
      endDate: DateOnly(),
      dueDate: NullableString({ format: 'date', description: 'YYYY-MM-DD' }),
    }),
    QualityRates,
  ],
  { title: 'PeriodQuality' },
);

export const DataQuality = Type.Object(
  {
    programId: Nullable(Uuid()),
    periodFrom: Nullable(DateOnly()),
    periodTo: Nullable(DateOnly()),
    totals: QualityRates,
    projects: Type.Array(
      Type.Composite([
        Type.Object({
          projectId: Uuid(),
          projectName: Type.String(),
          programId: Uuid(),
          periods: Type.Array(PeriodQuality, { description: 'Its periods in scope, by start date' }),
        }),
        QualityRates,
      ]),
      { description: 'Projects with a period in scope, by name; each with its periods’ counts summed' },
    ),
    indicators: Type.Array(
      Type.Object({
        indicatorId: Uuid(),
        code: Type.String(),
        name: Type.String(),
        expected: Type.Integer({ description: 'Values expected of it in scope' }),
        flaggedReports: Type.Integer({ description: 'Its values in scope carrying flags' }),
        openFlags: Type.Integer({ description: 'Flags on its values in scope not approved yet' }),
      }),
      { description: 'Indicators expected in scope, most open flags first, then by code' },
    ),
  },
  { title: 'DataQuality' },
);
