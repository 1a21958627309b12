import type { OutgoingEmail } from '../mail/index.js';
import type { OutstandingReport } from './reminders.repo.js';

/** One reporting period in a digest (as its outstanding reports name it), with what is still to be done in it. */
export type DigestPeriod = Pick<
  OutstandingReport,
  'orgId' | 'orgName' | 'projectId' | 'projectName' | 'periodId' | 'periodLabel' | 'dueDate' | 'kind'
> & { reports: readonly OutstandingReport[] };

/** `1 day`, `7 days`; `1 person`, `3 people`. */
export const plural = (count: number, one: string, many = `${one}s`) =>
  `${count} ${count === 1 ? one : many}`;

/** `due in 7 days (2026-04-15)`, `overdue since 2026-04-07`. */
export function deadlineText(kind: string, dueDate: string): string {
  if (kind === 'overdue') return `overdue since ${dueDate}`;
  const days = Number(kind.replace(/^due_in_/, ''));
  return `due in ${plural(days, 'day')} (${dueDate})`;
}

/** Where the reporter opens the report, or, while it is missing, the period to create it in. */
export function reportLink(appUrl: string, report: OutstandingReport): string {
  return report.reportId
    ? `${appUrl}/projects/${report.projectId}/indicator-reports/${report.reportId}`
    : `${appUrl}/projects/${report.projectId}/reporting-periods/${report.periodId}`;
}

/**
 * The one email a person gets from a run: every period they are reminded of, by project and period,
 * each outstanding indicator with its state and link, and how to turn reminders off. Plain text.
 */
export function reminderDigest(
  appUrl: string,
  recipient: { email: string; firstName: string },
  periods: readonly DigestPeriod[],
): OutgoingEmail {
  const total = periods.reduce((sum, period) => sum + period.reports.length, 0);
  const sections = periods.map((period) => {
    const heading = `${period.projectName} (${period.orgName}), ${period.periodLabel}: ${deadlineText(period.kind, period.dueDate)}`;
    const lines = period.reports.map(
      (report) =>
        `  - ${report.indicatorName} (${report.indicatorCode}): ${report.state}\n` +
        `    ${reportLink(appUrl, report)}`,
    );
    return [heading, ...lines].join('\n');
  });
  return {
    recipient: recipient.email,
    subject: `Reporting deadlines: ${plural(total, 'indicator report')} to complete`,
    body:
      `Hello ${recipient.firstName},\n\n` +
      'These indicator reports are still missing, in draft or rejected, and their reporting deadline ' +
      'is near or has passed:\n\n' +
      `${sections.join('\n\n')}\n\n` +
      'You get these reminders as a reporter assigned to the project or as an M&E officer of the ' +
      `organization. To turn them off, open your settings at ${appUrl}/settings, or send ` +
      'PATCH /auth/me with {"notifications": {"reminders": false}}.\n',
  };
}
