/** What other modules and the entry points may use of the quality module (docs/architecture.md, "Module order"). */
export { RULE_IMPORTANCES, type ReportFlag, type RuleImportance } from './quality.tables.js';
export { rulesReading, type RuleWithInputs } from './rules.repo.js';
export { validationRuleRoutes } from './rules.routes.js';
export type { RuleRemoved, RuleReports, RuleWritten } from './rules.service.js';
