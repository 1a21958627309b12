/** What other modules and the entry points may use of the results module (docs/architecture.md, "Module order"). */
export { findNode } from './results.repo.js';
export { resultNodeRoutes } from './results.routes.js';
