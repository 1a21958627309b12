/** What other modules and the entry points may use of the donors module (docs/architecture.md, "Module order"). */
export { donorsByName, findDonorsByIds } from './donors.repo.js';
export { donorRoutes } from './donors.routes.js';
export { Donor, type DonorType } from './donors.schemas.js';
