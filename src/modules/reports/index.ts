/** What other modules and the entry points may use of the reports module (docs/architecture.md, "Module order"). */
export type { reportView } from './report-view.js';
export { reportRoutes } from './reports.routes.js';
export { sharedReportRoutes } from './shared-reports.routes.js';
export { SharingService } from './sharing.service.js';
