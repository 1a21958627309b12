/** What other modules and the entry points may use of the reminders module (docs/architecture.md, "Module order"). */
export { ReminderJob, type ReminderJobOptions } from './reminder-job.js';
