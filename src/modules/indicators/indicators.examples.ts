import type { Static } from '@sinclair/typebox';
import { IDS, TIMES } from '../../http/documentation/story.js';
import type {
  CreateDisaggregationBody,
  CreateIndicatorBody,
  Disaggregation,
  Indicator,
  LinkIndicatorBody,
  UpdateIndicatorBody,
  ProjectIndicator,
} from './indicators.schemas.js';

/** The OpenAPI document's examples of the indicator, its disaggregation and its link (story.ts). */

const definition = {
  name: 'Households with access to safe drinking water',
  code: 'HH_SAFE_WATER',
  unit: 'households',
  aggregationMethod: 'sum',
  description:
    'Households whose main source of drinking water is a protected source within 500 m of home, or who ' +
    'treat their water before drinking.',
  dataSource: 'Household water survey, and the water committees’ registers',
  resultNodeId: IDS.outcome,
  // The project's area has about 2,000 households: a quarter reporting more is a typing error.
  qualityChecks: { method: 'min_max', min: 0, max: 2000 },
} as const;

export const INDICATOR_CREATE: Static<typeof CreateIndicatorBody> = definition;

export const INDICATOR: Static<typeof Indicator> = {
  id: IDS.indicator,
  orgId: IDS.organization,
  ...definition,
  isFormula: false,
  formula: null,
  createdAt: TIMES.indicatorCreated,
  updatedAt: TIMES.indicatorCreated,
};

/** Back to the statistical check, looser than the default: rehabilitations come in seasonal bursts. */
export const INDICATOR_UPDATE: Static<typeof UpdateIndicatorBody> = {
  qualityChecks: { method: 'modified_z', threshold: 5 },
};

export const DISAGGREGATION_CREATE: Static<typeof CreateDisaggregationBody> = {
  name: 'Sex of the head of household',
  categories: ['female', 'male'],
};

export const DISAGGREGATION: Static<typeof Disaggregation> = {
  id: IDS.disaggregation,
  indicatorId: IDS.indicator,
  name: DISAGGREGATION_CREATE.name,
  categories: DISAGGREGATION_CREATE.categories!,
  createdAt: TIMES.disaggregationCreated,
};

export const PROJECT_INDICATOR_CREATE: Static<typeof LinkIndicatorBody> = {
  indicatorId: IDS.indicator,
  target: 1200,
  baseline: 300,
  baselineYear: 2025,
};

export const PROJECT_INDICATOR: Static<typeof ProjectIndicator> = {
  projectId: IDS.project,
  indicatorId: IDS.indicator,
  target: 1200,
  baseline: 300,
  baselineYear: 2025,
  createdAt: TIMES.indicatorLinked,
  updatedAt: TIMES.indicatorLinked,
  indicator: INDICATOR,
};
