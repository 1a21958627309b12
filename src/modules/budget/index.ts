/** What other modules and the entry points may use of the budget module (docs/architecture.md, "Module order"). */
export { budgetLineRoutes } from './budget.routes.js';
