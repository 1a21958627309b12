/** What other modules and the entry points may use of the dashboard module (README, "Module order"). */
export { dashboardRoutes } from './dashboard.routes.js';
