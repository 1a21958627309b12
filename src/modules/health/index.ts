/** What other modules and the entry points may use of the health module (docs/architecture.md, "Module order"). */
export { healthRoutes } from './health.routes.js';
