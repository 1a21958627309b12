/** What other modules and the entry points may use of the pages module (docs/architecture.md, "Module order"). */
export { pageConstraint } from './page-requests.js';
export { pageRoutes } from './pages.routes.js';
