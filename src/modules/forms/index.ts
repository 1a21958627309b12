/** What other modules and the entry points may use of the forms module (docs/architecture.md, "Module order"). */
export { eraseExpiredPersonalAnswers } from './answer-retention.js';
export { PLACE_MAX, TEXT_MAX } from './answers.js';
export { personalAmounts } from './counted-sources.js';
export { takeInUncounted } from './counting.js';
export type { FormField } from './form-fields.js';
export { languagesOf, localizeForm, matchLanguage } from './form-languages.js';
export type { FormLanguage, FormTranslations, LocalizableForm } from './form-languages.js';
export { formRoutes } from './forms.routes.js';
export { publicFormRoutes } from './public-forms.routes.js';
export {
  countedInto,
  submissionFileBytes,
  submissionFileKeys,
  submissionsInPeriod,
} from './submissions.repo.js';
export { SubmissionService } from './submissions.service.js';
export { inert as inertCsvText } from './submissions-csv.js';
