/** What other modules and the entry points may use of the periods module (docs/architecture.md, "Module order"). */
export { findPeriod, lockPeriodForShare, lockPeriodHoldingDate } from './periods.repo.js';
export { reportingPeriodRoutes } from './periods.routes.js';
