/** What other modules and the entry points may use of the indicators module (docs/architecture.md, "Module order"). */
export type { IndicatorDependents } from './indicator-dependents.js';
export {
  byCode,
  dimensionsOf,
  findIndicator,
  type IndicatorFilter,
  lockIndicatorForShare,
} from './indicators.repo.js';
export { indicatorRoutes } from './indicators.routes.js';
export { IndicatorProgress, ProgressStatusSchema } from './indicators.schemas.js';
export type { PeriodTargetResult, PeriodTargets } from './period-targets.js';
export { isLinked, linkedIndicators } from './project-indicators.repo.js';
export { projectIndicatorRoutes } from './project-indicators.routes.js';
