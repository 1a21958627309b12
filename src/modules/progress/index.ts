/** What other modules and the entry points may use of the progress module (docs/architecture.md, "Module order"). */
export { type CountedReport, ProgressCalculator, type ScoredIndicator } from './progress.js';
export { formulaBasics } from './progress.repo.js';
export { byLargestGap, entryOf, indicatorsInBand, scoreLinks } from './progress.service.js';
