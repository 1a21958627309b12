/** What other modules and the entry points may use of the iati module (README, "Module order"). */
export { iatiRoutes } from './iati.routes.js';
