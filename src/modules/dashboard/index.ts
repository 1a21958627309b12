/** What other modules and the entry points may use of the dashboard module (docs/architecture.md, "Module order"). */
export { dashboardRoutes } from './dashboard.routes.js';
export { dataQualityRoutes } from './data-quality.routes.js';
