/** What other modules and the entry points may use of the results module (docs/architecture.md, "Module order"). */
export { findNode, listProgramNodes } from './results.repo.js';
export { CreateResultNodeBody, type ResultLevel, type ResultNodeRow } from './results.schemas.js';
export { ResultNodeService } from './results.service.js';
export { RESULT_LEVELS } from './results.tables.js';
export { resultNodeRoutes } from './results.routes.js';
