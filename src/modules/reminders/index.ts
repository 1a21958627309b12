/** What other modules and the entry points may use of the reminders module (README, "Module order"). */
export { ReminderJob, type ReminderJobOptions } from './reminder-job.js';
