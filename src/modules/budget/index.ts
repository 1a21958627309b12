/** What other modules and the entry points may use of the budget module (README, "Module order"). */
export { budgetLineRoutes } from './budget.routes.js';
