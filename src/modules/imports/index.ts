/** What other modules and the entry points may use of the imports module (docs/architecture.md, "Module order"). */
export { importRoutes } from './imports.routes.js';
export type { SetupImportPorts } from './setup-import.service.js';
export { valueRowsOf, type ValueRow } from './values-sheet.js';
