/** What other modules and the entry points may use of the periods module (docs/architecture.md, "Module order"). */
export {
  findPeriod,
  listPeriods,
  lockPeriodForShare,
  lockPeriodHoldingDate,
  type ReportingPeriodRow,
} from './periods.repo.js';
export { CreateReportingPeriodBody } from './periods.schemas.js';
export { ReportingPeriodService } from './periods.service.js';
export { reportingPeriodRoutes } from './periods.routes.js';
