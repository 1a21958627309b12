import { Type } from '@sinclair/typebox';
import { DateOnly, Nullable, Uuid } from '../../http/schemas/schemas.js';
import { IndicatorProgress } from '../indicators/index.js';
import { QualityRates } from './data-quality.schemas.js';

const DUE_QUALITY =
  'Completeness and timeliness (as `GET /data-quality` counts them) of the periods whose due date, or ' +
  'without one their end date, is before today (UTC)';

const BudgetByCurrency = Type.Array(
  Type.Object({
    currency: Type.String(),
    budget: Type.Number({ description: "Sum of the projects' budgets" }),
    spent: Type.Number({ description: "Sum of the projects' budget lines' actual amounts" }),
  }),
  { description: 'One entry per currency, by currency code' },
);

export const DashboardSummary = Type.Object(
  {
    activeProjects: Type.Integer(),
    totalProjects: Type.Integer(),
    budgetByCurrency: BudgetByCurrency,
    indicatorScores: Type.Object(
      {
        onTrack: Type.Integer(),
        atRisk: Type.Integer(),
        offTrack: Type.Integer(),
        noTarget: Type.Integer(),
        noData: Type.Integer(),
      },
      { description: 'Indicator-project pairs per band of their org-level score' },
    ),
    upcomingDeadlines: Type.Array(
      Type.Object({
        periodId: Uuid(),
        projectId: Uuid(),
        projectName: Type.String(),
        label: Type.String(),
        dueDate: DateOnly(),
      }),
    ),
    dataQuality: Type.Composite([QualityRates], { description: DUE_QUALITY }),
    programs: Type.Array(
      Type.Object({
        id: Uuid(),
        name: Type.String(),
        status: Type.String(),
        projectCount: Type.Integer(),
        budgetByCurrency: BudgetByCurrency,
        indicatorCompletionRate: Nullable(
          Type.Number({
            description:
              'Despite its name, not a share of completed or reported indicators: the percent of the ' +
              "program's indicator-project pairs whose org-level score is on_track (every submitted and " +
              'approved value of the project against its cumulative target, as `indicatorScores` counts), ' +
              'one decimal. Pairs with no_target or no_data count in the whole and never as on track. ' +
              'Null when the program has no pair.',
          }),
        ),
        dataQuality: Type.Composite([QualityRates], { description: `${DUE_QUALITY}, of its projects` }),
      }),
    ),
    offTrackIndicators: Type.Array(IndicatorProgress),
  },
  { title: 'DashboardSummary' },
);
