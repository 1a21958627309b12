/** What other modules and the entry points may use of the indicators module (docs/architecture.md, "Module order"). */
export type { IndicatorDependents } from './indicator-dependents.js';
export {
  disaggregationsOfLinked,
  listDisaggregations,
  type LinkedDisaggregation,
} from './disaggregations.repo.js';
export { DisaggregationService } from './disaggregations.service.js';
export {
  byCode,
  dimensionsOf,
  findIndicator,
  findIndicatorsByCodes,
  type IndicatorFilter,
  lockIndicatorForShare,
} from './indicators.repo.js';
export { indicatorRoutes } from './indicators.routes.js';
export {
  CreateDisaggregationBody,
  CreateIndicatorBody,
  IndicatorProgress,
  ProgressStatusSchema,
  UpdateLinkBody,
} from './indicators.schemas.js';
export { IndicatorService } from './indicators.service.js';
export type { PeriodTargetResult, PeriodTargets } from './period-targets.js';
export { findLink, isLinked, linkedIndicators } from './project-indicators.repo.js';
export { ProjectIndicatorService } from './project-indicators.service.js';
export { projectIndicatorRoutes } from './project-indicators.routes.js';
