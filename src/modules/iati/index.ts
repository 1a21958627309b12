/** What other modules and the entry points may use of the iati module (docs/architecture.md, "Module order"). */
export { iatiRoutes } from './iati.routes.js';
