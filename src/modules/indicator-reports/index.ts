/** What other modules and the entry points may use of the indicator-reports module (docs/architecture.md, "Module order"). */
export { countTarget, refusedCountTarget, type CountTargetRefusal } from './count-target.js';
export { findIndicatorReport } from './indicator-reports.repo.js';
export { indicatorReportRoutes } from './indicator-reports.routes.js';
export { setPeriodTargets } from './period-targets.js';
export { countIntoIndicatorReport, uncountFromIndicatorReport } from './indicator-reports.service.js';
export { indicatorReportsOfPeriod, indicatorReportUse, reportsInPeriod } from './indicator-use.js';
/** The statuses in which a report's value may still change (draft, rejected). */
export { EDITABLE as EDITABLE_REPORT_STATUSES } from './report-workflow.js';
/** Rows of values imported inside the caller's transaction (a workbook's values sheet): see its contract. */
export { readDecimal } from './bulk-values-csv.js';
export { MAX_VALUE_ROWS } from './bulk-values.schemas.js';
export { VALUE_FIELDS, type ValueField, type ValueRowInput } from './bulk-value-row.js';
export { importValueRows, type ValueImportOptions } from './bulk-values.js';
export { dropRuleFlags } from './report-flags.js';
export { checkRuleEverywhere } from './rule-checks.js';
